/**
 * Each endpoint of the spec, driven over real HTTP against a scripted loopback server:
 * what the client sends, and what it hands back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTcsClient, type TcsClient } from '../../../shared/tcs/client.js';
import { isFinalStatus } from '../../../shared/tcs/schemas.js';
import { json, type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';
import {
  accepted,
  CLS_ID,
  exportTariff,
  failedClassification,
  fakeTimer,
  importTariff,
  inProgressClassification,
  pendingClassification,
  resolvedClassification,
  tariffNotFound,
  tinyPdf,
} from '../../helpers/tcs-fixtures.js';

const API_KEY = 'tcs_test_key_0123456789abcdef';
const KEY = 'batch-abc_row-000001_a1_0123456789';

let server: ScriptedServer;
let clock: ReturnType<typeof fakeTimer>;
let client: TcsClient;

beforeEach(async () => {
  server = await startScriptedServer();
  clock = fakeTimer();
  client = createTcsClient({ baseUrl: server.baseUrl, apiKey: API_KEY, timer: clock.timer });
});
afterEach(() => server.close());

describe('POST /classifications', () => {
  it('sends the body with explicit nulls, the key and JSON headers, and returns the 202 body', async () => {
    server.on('POST /v1/classifications', json(202, accepted()));

    const result = await client.createClassification(
      { operation: 'import', country: 'CO', description: 'Café torrado em grãos', external_reference: 'b:1' },
      { idempotencyKey: KEY },
    );

    expect(result.classification).toEqual(accepted());
    expect(result.replayed).toBe(false);
    expect(result.requestId).toMatch(/^req_test_/);
    const [sent] = server.requests;
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.headers['idempotency-key']).toBe(KEY);
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent!.body.toString())).toEqual({
      operation: 'import',
      country: 'CO',
      description: 'Café torrado em grãos',
      file_url: null,
      external_reference: 'b:1',
    });
  });

  it('surfaces Idempotent-Replayed: true', async () => {
    server.on('POST /v1/classifications', json(202, accepted(), { 'idempotent-replayed': 'true' }));
    const result = await client.createClassification(
      { operation: 'export', country: 'AR', description: null, file_url: 'https://files.example.test/f/1' },
      { idempotencyKey: KEY },
    );
    expect(result.replayed).toBe(true);
  });
});

describe('POST /classifications/{id}/answers', () => {
  it('sends one answer per question with the key and returns the 202 body', async () => {
    server.on(`POST /v1/classifications/${CLS_ID}/answers`, json(202, accepted({ stage: 'answers_intake' })));

    const result = await client.answerQuestions(
      CLS_ID,
      {
        answers: [
          { question_id: 'q1', answer: 'Não' },
          { question_id: 'q2', answer: 'Saco de 1 kg' },
        ],
      },
      { idempotencyKey: KEY },
    );

    expect(result.classification.stage).toBe('answers_intake');
    const [sent] = server.requests;
    expect(sent?.headers['idempotency-key']).toBe(KEY);
    expect(JSON.parse(sent!.body.toString())).toEqual({
      answers: [
        { question_id: 'q1', answer: 'Não' },
        { question_id: 'q2', answer: 'Saco de 1 kg' },
      ],
      file_url: null,
    });
  });
});

describe('GET /classifications/{id}', () => {
  it.each([
    ['in_progress', inProgressClassification()],
    ['pending_data', pendingClassification()],
    ['resolved', resolvedClassification()],
    ['failed', failedClassification()],
    ['abandoned', pendingClassification({ status: 'abandoned', questions: [] })],
  ])('parses a %s classification', async (status, body) => {
    server.on(`GET /v1/classifications/${CLS_ID}`, json(200, body));
    const got = await client.getClassification(CLS_ID);
    expect(got.status).toBe(status);
    expect(got.id).toBe(CLS_ID);
  });

  it('keeps the verdict fields of a resolved classification', async () => {
    server.on(`GET /v1/classifications/${CLS_ID}`, json(200, resolvedClassification()));
    const got = await client.getClassification(CLS_ID);
    expect(got.chosen_ncm).toBe('09012100');
    expect(got.chosen_sim_code).toBe('0901210010');
    expect(got.candidates[0]?.hierarchy.heading).toEqual({
      code: '0901',
      description: 'Café, mesmo torrado ou descafeinado',
    });
    expect(got.tariffs).toMatchObject({ found: true, operation: 'import', import_duty_applicable: 10 });
  });

  it('parses an unknown status and counts it as not finished', async () => {
    server.on(
      `GET /v1/classifications/${CLS_ID}`,
      json(200, inProgressClassification({ status: 'under_review' })),
    );
    const got = await client.getClassification(CLS_ID);
    expect(got.status).toBe('under_review');
    expect(isFinalStatus(got.status)).toBe(false);
    expect(isFinalStatus('resolved')).toBe(true);
  });

  it('does not crash on unknown stage and failure_reason values', async () => {
    server.on(
      `GET /v1/classifications/${CLS_ID}`,
      json(200, failedClassification({ failure_reason: 'quota_exhausted', stage: 'translation' })),
    );
    const got = await client.getClassification(CLS_ID);
    expect(got.failure_reason).toBe('quota_exhausted');
    expect(got.stage).toBe('translation');
  });
});

describe('GET /classifications', () => {
  it('follows next_cursor, keeping filters and order on every page', async () => {
    const ids = ['cls_2222222222AA', 'cls_3333333333BB', 'cls_4444444444CC'];
    server.on(
      'GET /v1/classifications',
      json(200, { items: [resolvedClassification({ id: ids[0] })], next_cursor: 'c1' }),
      json(200, { items: [resolvedClassification({ id: ids[1] })], next_cursor: 'c2' }),
      json(200, { items: [pendingClassification({ id: ids[2] })], next_cursor: null }),
    );

    const seen: string[] = [];
    for await (const c of client.listClassifications({
      status: ['resolved', 'pending_data'],
      country: 'CO',
      q: '0901.21',
      limit: 1,
      sort: { field: 'ncm', direction: 'asc' },
    })) {
      seen.push(c.id);
    }

    expect(seen).toEqual(ids);
    expect(server.requests.map((r) => r.query.get('cursor'))).toEqual([null, 'c1', 'c2']);
    for (const r of server.requests) {
      expect(r.query.get('status')).toBe('resolved,pending_data');
      expect(r.query.get('country')).toBe('CO');
      expect(r.query.get('q')).toBe('0901.21');
      expect(r.query.get('limit')).toBe('1');
      expect(r.query.get('sort')).toBe('ncm:asc');
    }
  });

  it('returns one page with its cursor', async () => {
    server.on('GET /v1/classifications', json(200, { items: [], next_cursor: null }));
    const page = await client.listClassificationsPage({ reviewed: true, created_after: '2026-11-01' });
    expect(page).toEqual({ items: [], next_cursor: null });
    expect(server.requests[0]?.query.get('reviewed')).toBe('true');
    expect(server.requests[0]?.query.get('created_after')).toBe('2026-11-01');
  });
});

describe('GET /classifications/{id}/pdf', () => {
  it('follows the 302 to the signed URL without the API key and streams the bytes', async () => {
    const pdf = tinyPdf();
    server.on(`GET /v1/classifications/${CLS_ID}/pdf`, (_req, res) => {
      res
        .writeHead(302, { location: `${server.origin}/signed/verdict.pdf?X-Signature=s3cr3t&X-Expires=60` })
        .end();
    });
    server.on('GET /signed/verdict.pdf', (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(pdf.byteLength) })
        .end(pdf);
    });

    const verdict = await client.downloadVerdictPdf(CLS_ID);
    const bytes = new Uint8Array(await new Response(verdict.body).arrayBuffer());

    expect(bytes).toEqual(pdf);
    expect(verdict.contentType).toBe('application/pdf');
    expect(verdict.byteLength).toBe(pdf.byteLength);
    const signed = server.requestsTo('GET /signed/verdict.pdf')[0];
    expect(signed?.query.get('X-Signature')).toBe('s3cr3t');
    expect(signed?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(verdict)).not.toContain('s3cr3t');
  });

  it('asks for a fresh signed URL when the download fails', async () => {
    const pdf = tinyPdf();
    server.on(`GET /v1/classifications/${CLS_ID}/pdf`, (_req, res) => {
      res.writeHead(302, { location: '/signed/verdict.pdf?sig=1' }).end();
    });
    server.on(
      'GET /signed/verdict.pdf',
      (_req, res) => void res.writeHead(503).end('busy'),
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf),
    );
    const verdict = await client.downloadVerdictPdf(CLS_ID);
    expect(new Uint8Array(await new Response(verdict.body).arrayBuffer())).toEqual(pdf);
    expect(server.requestsTo(`GET /v1/classifications/${CLS_ID}/pdf`)).toHaveLength(2);
  });
});

describe('uploads', () => {
  it('requests a grant, then PUTs the PDF to the signed URL without the API key', async () => {
    const pdf = tinyPdf();
    server.on(
      'POST /v1/uploads',
      json(200, {
        upload_url: `${server.origin}/upload/abc?sig=zzz`,
        file_url: 'https://files.example.test/abc',
        expires_at: new Date(clock.timer.now() + 600_000).toISOString(),
      }),
    );
    server.on('PUT /upload/abc', (_req, res) => void res.writeHead(200).end());

    const upload = await client.uploadSheet({ filename: 'ficha.pdf', bytes: pdf });

    expect(upload.fileUrl).toBe('https://files.example.test/abc');
    const grantRequest = server.requestsTo('POST /v1/uploads')[0];
    expect(JSON.parse(grantRequest!.body.toString())).toEqual({
      content_type: 'application/pdf',
      byte_size: pdf.byteLength,
      filename: 'ficha.pdf',
    });
    const put = server.requestsTo('PUT /upload/abc')[0];
    expect(put?.headers['content-type']).toBe('application/pdf');
    expect(put?.headers.authorization).toBeUndefined();
    expect(new Uint8Array(put!.body)).toEqual(pdf);
  });
});

describe('reference lookups and account', () => {
  it.each([
    ['import found', importTariff()],
    ['export found', exportTariff()],
    ['not found', tariffNotFound()],
  ])('GET /tariffs parses the %s variant', async (_name, body) => {
    server.on('GET /v1/tariffs', json(200, body));
    const got = await client.getTariffs({ ncm: '09012100', country: 'CO', operation: 'import' });
    expect(got).toEqual(body);
    expect(Object.fromEntries(server.requests[0]!.query)).toEqual({
      ncm: '09012100',
      country: 'CO',
      operation: 'import',
    });
  });

  it('GET /sim-openings', async () => {
    const body = {
      ncm: '09012100',
      operation: 'import',
      status: 'available',
      openings: [{ code: '0901210010', description: 'Em grão' }],
      verified_at: '2026-11-20T00:00:00Z',
    };
    server.on('GET /v1/sim-openings', json(200, body));
    expect(await client.getSimOpenings({ ncm: '09012100', operation: 'import' })).toEqual(body);
  });

  it('GET /balance', async () => {
    const body = {
      balance_credits: -2,
      in_progress_count: 3,
      concurrency_limit: 10,
      plan_tier: 'profesional',
      api_available: true,
    };
    server.on('GET /v1/balance', json(200, body));
    expect(await client.getBalance()).toEqual(body);
  });

  it('GET /countries is cached and fetched again after a day', async () => {
    const items = [
      { code: 'AR', name: 'Argentina', mercosur: true },
      { code: 'CO', name: 'Colômbia', mercosur: false },
    ];
    server.on('GET /v1/countries', json(200, { items }));

    expect(await client.listCountries()).toEqual(items);
    clock.advance(23 * 3600_000);
    expect(await client.listCountries()).toEqual(items);
    expect(server.requests).toHaveLength(1);

    clock.advance(2 * 3600_000);
    await client.listCountries();
    expect(server.requests).toHaveLength(2);
  });
});

describe('configuration', () => {
  it('refuses a base URL without the version segment', () => {
    expect(() => createTcsClient({ baseUrl: 'https://api.example.test', apiKey: API_KEY })).toThrow(
      /ending with \/v1/,
    );
  });

  it('keeps the API key out of the client object', () => {
    expect(JSON.stringify(client)).not.toContain(API_KEY);
    expect(Object.values(client).some((v) => String(v).includes(API_KEY))).toBe(false);
  });
});
