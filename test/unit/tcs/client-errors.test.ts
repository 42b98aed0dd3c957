/**
 * Errors, the retry policy and secrets, over real HTTP. The fake timer records every
 * wait the client asks for, so Retry-After and backoff are asserted without sleeping.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTcsClient, type TcsClient } from '../../../shared/tcs/client.js';
import {
  TcsNetworkError,
  TcsProblemError,
  TcsResponseError,
  TcsValidationError,
} from '../../../shared/tcs/errors.js';
import { PROBLEM_CATALOGUE, PROBLEM_NAMES } from '../../../shared/tcs/schemas.js';
import {
  json,
  problem,
  resetConnection,
  type ScriptedServer,
  startScriptedServer,
  text,
} from '../../helpers/scripted-server.js';
import {
  accepted,
  CLS_ID,
  candidate,
  fakeTimer,
  resolvedClassification,
} from '../../helpers/tcs-fixtures.js';

const API_KEY = 'tcs_live_SUPERSECRET_9f8e7d6c5b4a';
const KEY = 'batch-abc_row-000001_a1_0123456789';
const CREATE = { operation: 'import', country: 'CO', description: 'Café torrado em grãos' } as const;

let server: ScriptedServer;
let clock: ReturnType<typeof fakeTimer>;
let client: TcsClient;

beforeEach(async () => {
  server = await startScriptedServer();
  clock = fakeTimer();
  client = createTcsClient({
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    timer: clock.timer,
    retry: { maxAttempts: 3, maxElapsedMs: 60_000 },
  });
});
afterEach(() => server.close());

const caught = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
};

/** Everything an error exposes: message, stack, own properties, JSON and inspect output. */
const everythingIn = (error: Error): string =>
  [
    error.message,
    error.stack,
    JSON.stringify(error),
    JSON.stringify(Object.entries(error)),
    String(error),
  ].join('\n');

describe('the error catalogue', () => {
  it.each(PROBLEM_NAMES)('%s becomes a TcsProblemError with every Problem field', async (name) => {
    const status = PROBLEM_CATALOGUE[name];
    const errors =
      name === 'validation-error'
        ? [{ field: 'description', code: 'too_short', message: 'must be at least 10 characters' }]
        : undefined;
    server.on(`GET /v1/classifications/${CLS_ID}`, problem(name, status, { errors }));

    const error = await caught(client.getClassification(CLS_ID));

    expect(error).toBeInstanceOf(TcsProblemError);
    const p = error as TcsProblemError;
    expect(p.problem).toBe(name);
    expect(p.status).toBe(status);
    expect(p.title).toBe(`Título de ${name}`);
    expect(p.detail).toBe(`detail of ${name}`);
    expect(p.instance).toBe(`/v1/classifications/${CLS_ID}`);
    expect(p.requestId).toMatch(/^req_test_/);
    expect(p.errors).toEqual(errors ?? []);
    // Spec, Errors rules 2 and 3: 5xx, 429 and 409 in-flight are retried; other 4xx are not.
    const retried = status >= 500 || status === 429 || name === 'idempotency-key-in-flight';
    expect(server.requests).toHaveLength(retried ? 3 : 1);
    expect(p.attempts).toBe(retried ? 3 : 1);
  });

  it('parses a Problem served as plain application/json', async () => {
    server.on(
      `GET /v1/classifications/${CLS_ID}`,
      problem('not-found', 404, { contentType: 'application/json' }),
    );
    const error = (await caught(client.getClassification(CLS_ID))) as TcsProblemError;
    expect(error.problem).toBe('not-found');
  });

  it('still yields a usable error from a non-JSON body', async () => {
    server.on(`GET /v1/classifications/${CLS_ID}`, text(502, '<html><h1>Bad Gateway</h1></html>'));
    const error = (await caught(client.getClassification(CLS_ID))) as TcsProblemError;
    expect(error).toBeInstanceOf(TcsProblemError);
    expect(error.problem).toBeNull();
    expect(error.status).toBe(502);
    expect(error.detail).toContain('Bad Gateway');
    expect(server.requests).toHaveLength(3);
  });

  it('handles an unknown problem type by its status', async () => {
    server.on(
      `GET /v1/classifications/${CLS_ID}`,
      problem('kettle-boiling', 503),
      json(200, resolvedClassification()),
    );
    const got = await client.getClassification(CLS_ID);
    expect(got.status).toBe('resolved');
    expect(server.requests).toHaveLength(2);

    server.on(`GET /v1/classifications/${CLS_ID}`, problem('kettle-boiling', 409));
    const error = (await caught(client.getClassification(CLS_ID))) as TcsProblemError;
    expect(error.problem).toBeNull();
    expect(error.type).toBe('https://problems.example.test/kettle-boiling');
    expect(error.status).toBe(409);
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(3);
  });
});

describe('retries', () => {
  it('retries a 5xx with the same Idempotency-Key and a growing, jittered wait', async () => {
    server.on(
      'POST /v1/classifications',
      problem('internal-error', 500),
      problem('upstream-unavailable', 502),
      json(202, accepted()),
    );

    const result = await client.createClassification(CREATE, { idempotencyKey: KEY });

    expect(result.classification.id).toBe(CLS_ID);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toEqual([KEY, KEY, KEY]);
    const bodies = server.requests.map((r) => r.body.toString());
    expect(new Set(bodies).size).toBe(1);
    expect(clock.sleeps).toHaveLength(2);
    expect(clock.sleeps[1]!).toBeGreaterThan(clock.sleeps[0]!);
  });

  it('retries a dropped connection with the same key', async () => {
    server.on(
      'POST /v1/classifications',
      resetConnection,
      json(202, accepted(), { 'idempotent-replayed': 'true' }),
    );
    const result = await client.createClassification(CREATE, { idempotencyKey: KEY });
    expect(result.replayed).toBe(true);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([KEY, KEY]);
  });

  it('waits out a 429 for Retry-After given in seconds', async () => {
    server.on(
      'POST /v1/classifications',
      problem('rate-limited', 429, { headers: { 'retry-after': '7' } }),
      json(202, accepted()),
    );
    await client.createClassification(CREATE, { idempotencyKey: KEY });
    expect(clock.sleeps).toEqual([7000]);
  });

  it('waits out a 429 for Retry-After given as an HTTP date', async () => {
    const at = new Date(clock.timer.now() + 12_000).toUTCString();
    server.on(
      'GET /v1/balance',
      problem('rate-limited', 429, { headers: { 'retry-after': at } }),
      json(200, {
        balance_credits: 0,
        in_progress_count: 0,
        concurrency_limit: 10,
        plan_tier: null,
        api_available: true,
      }),
    );
    await client.getBalance();
    expect(clock.sleeps).toEqual([12_000]);
  });

  it('waits and retries 409 idempotency-key-in-flight', async () => {
    server.on(
      'POST /v1/classifications',
      problem('idempotency-key-in-flight', 409, { headers: { 'retry-after': '1' } }),
      json(202, accepted()),
    );
    const result = await client.createClassification(CREATE, { idempotencyKey: KEY });
    expect(result.classification.id).toBe(CLS_ID);
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([1000]);
  });

  it('never retries a 422', async () => {
    server.on(
      'POST /v1/classifications',
      problem('validation-error', 422, {
        errors: [{ field: 'country', code: 'unknown_country', message: 'is not accepted' }],
      }),
      json(202, accepted()),
    );
    const error = (await caught(
      client.createClassification(CREATE, { idempotencyKey: KEY }),
    )) as TcsProblemError;
    expect(error.problem).toBe('validation-error');
    expect(error.errors[0]?.field).toBe('country');
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('hands a 429 straight back when the caller waits elsewhere', async () => {
    server.on('POST /v1/classifications', problem('rate-limited', 429, { headers: { 'retry-after': '30' } }));
    const error = (await caught(
      client.createClassification(CREATE, { idempotencyKey: KEY, retry: { retryRateLimited: false } }),
    )) as TcsProblemError;
    expect(error.problem).toBe('rate-limited');
    expect(error.retryAfterMs).toBe(30_000);
    expect(server.requests).toHaveLength(1);
  });

  it('stops when the next wait would pass the time budget', async () => {
    const tight = createTcsClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      timer: clock.timer,
      retry: { maxAttempts: 10, maxElapsedMs: 5_000 },
    });
    server.on(
      'POST /v1/classifications',
      problem('maintenance', 503, { headers: { 'retry-after': '3600' } }),
    );
    const error = (await caught(
      tight.createClassification(CREATE, { idempotencyKey: KEY }),
    )) as TcsProblemError;
    expect(error.problem).toBe('maintenance');
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(error.attempts).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('stops after the configured number of attempts', async () => {
    server.on('GET /v1/balance', resetConnection);
    const error = await caught(client.getBalance());
    expect(error).toBeInstanceOf(TcsNetworkError);
    expect((error as TcsNetworkError).attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it('times out a request that gets no answer, as a retryable network error', async () => {
    const impatient = createTcsClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      timer: clock.timer,
      requestTimeoutMs: 100,
      retry: { maxAttempts: 1 },
    });
    server.on('GET /v1/balance', () => {
      // Never answer: the client's own timeout must end the exchange.
    });
    const error = (await caught(impatient.getBalance())) as TcsNetworkError;
    expect(error).toBeInstanceOf(TcsNetworkError);
    expect(error.code).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
  });
});

describe('responses that break the spec', () => {
  it('names the offending field', async () => {
    server.on(
      `GET /v1/classifications/${CLS_ID}`,
      json(200, resolvedClassification({ candidates: [candidate({ ncm: '0901.21.00' })] })),
    );
    const error = await caught(client.getClassification(CLS_ID));
    expect(error).toBeInstanceOf(TcsResponseError);
    expect(error.message).toContain('candidates[0].ncm');
    expect((error as TcsResponseError).errors[0]?.field).toBe('candidates[0].ncm');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a resolved classification without a chosen NCM', async () => {
    server.on(`GET /v1/classifications/${CLS_ID}`, json(200, resolvedClassification({ chosen_ncm: null })));
    const error = await caught(client.getClassification(CLS_ID));
    expect(error.message).toContain('chosen_ncm must be set when status is resolved');
  });

  it('rejects a 2xx that is not JSON', async () => {
    server.on('GET /v1/balance', text(200, 'OK'));
    const error = await caught(client.getBalance());
    expect(error).toBeInstanceOf(TcsResponseError);
    expect(error.message).toContain('(body) is not JSON');
  });
});

describe('requests are checked before they leave', () => {
  const rejects = async (call: Promise<unknown>, field: string, code?: string) => {
    const error = await caught(call);
    expect(error).toBeInstanceOf(TcsValidationError);
    const fields = (error as TcsValidationError).errors;
    expect(fields.map((e) => e.field)).toContain(field);
    if (code) expect(fields.find((e) => e.field === field)?.code).toBe(code);
    expect(server.requests).toHaveLength(0);
  };

  it('description of 9 characters', () =>
    rejects(
      client.createClassification({ ...CREATE, description: 'too short' }, { idempotencyKey: KEY }),
      'description',
      'too_short',
    ));

  it('description over 5000 characters', () =>
    rejects(
      client.createClassification({ ...CREATE, description: 'x'.repeat(5001) }, { idempotencyKey: KEY }),
      'description',
      'too_long',
    ));

  it('counts characters, not UTF-16 units', async () => {
    server.on('POST /v1/classifications', json(202, accepted()));
    // 5000 characters, 10000 UTF-16 code units.
    await client.createClassification({ ...CREATE, description: '🙂'.repeat(5000) }, { idempotencyKey: KEY });
    expect(server.requests).toHaveLength(1);
  });

  it('neither description nor file_url', () =>
    rejects(
      client.createClassification(
        { operation: 'import', country: 'CO', description: null },
        { idempotencyKey: KEY },
      ),
      'description',
      'required',
    ));

  it('external_reference over 100 characters', () =>
    rejects(
      client.createClassification(
        { ...CREATE, external_reference: 'r'.repeat(101) },
        { idempotencyKey: KEY },
      ),
      'external_reference',
    ));

  it('a lower-case country', () =>
    rejects(client.createClassification({ ...CREATE, country: 'co' }, { idempotencyKey: KEY }), 'country'));

  it('a field outside the spec', () =>
    rejects(
      client.createClassification({ ...CREATE, priority: 'high' } as never, { idempotencyKey: KEY }),
      'priority',
      'unknown_field',
    ));

  it('a malformed Idempotency-Key', () =>
    rejects(client.createClassification(CREATE, { idempotencyKey: 'short key' }), 'Idempotency-Key'));

  it('an answer over 500 characters, with the spec’s bracket path', () =>
    rejects(
      client.answerQuestions(
        CLS_ID,
        {
          answers: [
            { question_id: 'q1', answer: 'ok' },
            { question_id: 'q2', answer: 'a'.repeat(501) },
          ],
        },
        { idempotencyKey: KEY },
      ),
      'answers[1].answer',
      'too_long',
    ));

  it('more than 5 answers', () =>
    rejects(
      client.answerQuestions(
        CLS_ID,
        { answers: Array.from({ length: 6 }, (_, i) => ({ question_id: `q${i}`, answer: 'sim' })) },
        { idempotencyKey: KEY },
      ),
      'answers',
    ));

  it('a malformed classification id', () => rejects(client.getClassification('cls_lower0000000'), 'id'));

  it('an upload over 10 MB', () =>
    rejects(
      client.requestUpload({
        content_type: 'application/pdf',
        byte_size: 10 * 1024 * 1024 + 1,
        filename: 'a.pdf',
      }),
      'byte_size',
    ));

  it('an upload that is not a PDF', () =>
    rejects(
      client.requestUpload({ content_type: 'image/png' as never, byte_size: 10, filename: 'a.png' }),
      'content_type',
    ));

  it('sheet bytes that are not a PDF', () =>
    rejects(
      client.uploadSheet({ filename: 'a.pdf', bytes: new TextEncoder().encode('PK\u0003\u0004') }),
      'content_type',
      'not_pdf',
    ));

  it('a list limit over 100', () => rejects(client.listClassificationsPage({ limit: 101 }), 'limit'));
});

describe('secrets', () => {
  it('never shows the API key, even when the server echoes it', async () => {
    server.on(
      `GET /v1/classifications/${CLS_ID}`,
      problem('unauthenticated', 401, { detail: `Key ${API_KEY} was revoked` }),
    );
    const error = await caught(client.getClassification(CLS_ID));
    expect(everythingIn(error)).not.toContain(API_KEY);
    expect((error as TcsProblemError).detail).toContain('[redacted]');
  });

  it('never shows the API key in a non-JSON error body', async () => {
    server.on('GET /v1/balance', text(500, `upstream said: Authorization: Bearer ${API_KEY}`));
    const error = await caught(client.getBalance());
    expect(everythingIn(error)).not.toContain(API_KEY);
  });

  it('never shows the API key in network errors', async () => {
    server.on('GET /v1/balance', resetConnection);
    const error = await caught(client.getBalance());
    expect(everythingIn(error)).not.toContain(API_KEY);
  });

  it('never shows the API key in validation errors', async () => {
    const error = await caught(
      client.createClassification({ ...CREATE, description: API_KEY.slice(0, 5) }, { idempotencyKey: KEY }),
    );
    expect(everythingIn(error)).not.toContain(API_KEY);
  });

  it('cuts the query string of a signed URL out of errors and logs', async () => {
    const logs: string[] = [];
    const logged = createTcsClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      timer: clock.timer,
      retry: { maxAttempts: 2 },
      logger: {
        debug: (m, a) => logs.push(`${m} ${JSON.stringify(a)}`),
        warn: (m, a) => logs.push(`${m} ${JSON.stringify(a)}`),
      },
    });
    server.on(`GET /v1/classifications/${CLS_ID}/pdf`, (_req, res) => {
      res.writeHead(302, { location: `${server.origin}/signed/v.pdf?X-Signature=TOPSECRETSIG` }).end();
    });
    server.on(
      'GET /signed/v.pdf',
      text(
        403,
        `<Error>signature TOPSECRETSIG expired at ${server.origin}/signed/v.pdf?X-Signature=TOPSECRETSIG</Error>`,
      ),
    );

    const error = await caught(logged.downloadVerdictPdf(CLS_ID));

    expect(error).toBeInstanceOf(TcsProblemError);
    expect(everythingIn(error)).not.toContain('X-Signature=TOPSECRETSIG');
    expect((error as TcsProblemError).instance).toBe(`${server.origin}/signed/v.pdf?…`);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain('TOPSECRETSIG');
    expect(logs.join('\n')).not.toContain(API_KEY);
  });
});
