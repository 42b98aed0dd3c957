/**
 * Contract: Idempotency of the two idempotent POSTs — replay, reuse with another body, in
 * flight, key format, 24-hour lifetime on the sandbox clock, per organisation, and billing
 * once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import { admin, api, creation, expectProblem, newKey, PAST_ANY_RUN_SECONDS } from '../helpers/http.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-idempotency' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('same key, same body', () => {
  it('returns the same classification with Idempotent-Replayed: true, creates nothing and bills once', async () => {
    const key = newKey('replay');
    const first = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);

    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const third = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body.id).toBe(first.body.id);

    const stats = await admin(sb).stats();
    expect(stats.created).toBe(1);
    expect((await client.get(`/classifications/${first.body.id}`)).body.status).toBe('resolved');
    expect(stats.billed_count).toBe(1);
    expect(stats.billed_usd).toBe(2);
    expect(stats.billed_per_classification).toEqual({ [first.body.id]: 1 });
  });

  it('key order and whitespace of the JSON do not make a different body', async () => {
    const key = newKey('order');
    const body = creation();
    const first = await client.post('/classifications', body, { idempotencyKey: key });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await client.send('POST', '/classifications', {
      raw: JSON.stringify(reordered, null, 2),
      headers: { 'Content-Type': 'application/json' },
      idempotencyKey: key,
    });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
  });

  it('a replay is not refused by the concurrency cap', async () => {
    const capped = await startSandbox({ log: 'silent', concurrencyLimit: 1 });
    try {
      const key = newKey('cap');
      const first = await api(capped).post('/classifications', creation(), { idempotencyKey: key });
      const blocked = await api(capped).post('/classifications', creation(), { idempotencyKey: newKey() });
      expectProblem(blocked, 'rate-limited', 429);
      const replay = await api(capped).post('/classifications', creation(), { idempotencyKey: key });
      expect(replay.status).toBe(202);
      expect(replay.body.id).toBe(first.body.id);
    } finally {
      await capped.close();
    }
  });
});

describe('same key, different body', () => {
  it('is 422 idempotency-key-reused and creates nothing', async () => {
    const key = newKey('reused');
    await client.post('/classifications', creation(), { idempotencyKey: key });
    const changed = await client.post('/classifications', creation({ country: 'AR' }), {
      idempotencyKey: key,
    });
    expectProblem(changed, 'idempotency-key-reused', 422);
    expect((await admin(sb).stats()).created).toBe(1);
  });

  it('the same key on another path (answers) is another request: reused', async () => {
    const key = newKey('path');
    const created = await client.post('/classifications', creation(), { idempotencyKey: key });
    const answers = await client.post(
      `/classifications/${created.body.id}/answers`,
      { answers: [{ question_id: 'q1', answer: 'x' }] },
      { idempotencyKey: key },
    );
    expectProblem(answers, 'idempotency-key-reused', 422);
  });
});

describe('key format and lifetime', () => {
  it.each([
    ['missing', undefined],
    ['too short (15)', 'a'.repeat(15)],
    ['too long (129)', 'a'.repeat(129)],
    ['with an accent', 'clave-de-idempotência-1'],
    ['with a space', 'key with spaces 123'],
  ])('%s → 422 idempotency-key-invalid', async (_label, key) => {
    const response = await client.post('/classifications', creation(), {
      headers: key === undefined ? {} : { 'Idempotency-Key': key },
    });
    expectProblem(response, 'idempotency-key-invalid', 422);
  });

  it('16 and 128 characters of letters, digits, - and _ are accepted', async () => {
    expect(
      (await client.post('/classifications', creation(), { idempotencyKey: 'A'.repeat(16) })).status,
    ).toBe(202);
    expect(
      (await client.post('/classifications', creation(), { idempotencyKey: 'a-_9'.repeat(32) })).status,
    ).toBe(202);
  });

  it('a key lives 24 hours of sandbox time; after that the same key creates anew', async () => {
    const key = newKey('lifetime');
    const first = await client.post('/classifications', creation(), { idempotencyKey: key });
    await admin(sb).advance(24 * 3600 - 60);
    const within = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.body.id).toBe(first.body.id);
    await admin(sb).advance(61);
    const after = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(after.status).toBe(202);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.body.id).not.toBe(first.body.id);
  });

  it('a request that failed validation does not burn its key', async () => {
    const key = newKey('burn');
    const invalid = await client.post('/classifications', creation({ description: 'short' }), {
      idempotencyKey: key,
    });
    expectProblem(invalid, 'validation-error', 422);
    const valid = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(valid.status).toBe(202);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keys belong to an organisation: the same key in another one is another request', async () => {
    const key = newKey('orgs');
    const mine = await client.post('/classifications', creation(), { idempotencyKey: key });
    const theirs = await api(sb, sb.keys.other_org_classify).post(
      '/classifications',
      creation({ country: 'AR' }),
      {
        idempotencyKey: key,
      },
    );
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });
});

describe('409 idempotency-key-in-flight', () => {
  it('while the first request with the key is still being processed; a later retry replays', async () => {
    const slow = await startSandbox({ log: 'silent', creationDelayMs: 400, seed: 'in-flight' });
    try {
      const key = newKey('inflight');
      const first = api(slow).post('/classifications', creation(), { idempotencyKey: key });
      await vi.waitFor(
        async () =>
          expect((await admin(slow).stats()).idempotency_in_flight, 'first request in flight').toBe(1),
        { timeout: 10_000, interval: 20 },
      );
      const second = await api(slow).post('/classifications', creation(), { idempotencyKey: key });
      expectProblem(second, 'idempotency-key-in-flight', 409);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const done = await first;
      expect(done.status).toBe(202);
      const retry = await api(slow).post('/classifications', creation(), { idempotencyKey: key });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.id).toBe(done.body.id);
      expect(slow.stats().created).toBe(1);
    } finally {
      await slow.close();
    }
  });
});
