/**
 * Contract: injected faults — set at start (`faults` option / `--faults`) and through POST
 * /__admin/faults — on /v1 routes only: http5xx, reset_before, reset_after, latency_ms,
 * rate_limit_burst, maintenance. Seeded, so reproducible.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import { admin, api, creation, expectProblem, newKey, PAST_ANY_RUN_SECONDS } from '../helpers/http.js';
import { textPdf } from '../helpers/pdf.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-faults' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

const SERVER_ERRORS: Record<number, string[]> = {
  500: ['internal-error'],
  502: ['upstream-unavailable'],
  503: ['classifier-unavailable'],
};

describe('http5xx', () => {
  it('at rate 1 every /v1 call is a 500/502/503 Problem and nothing takes effect', async () => {
    await admin(sb).faults({ http5xx: 1 });
    const statuses = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const response = await client.post('/classifications', creation(), { idempotencyKey: newKey() });
      expect(Object.keys(SERVER_ERRORS)).toContain(String(response.status));
      const name = SERVER_ERRORS[response.status]![0]!;
      expectProblem(response, name, response.status);
      statuses.add(response.status);
    }
    expect(statuses.size).toBeGreaterThan(1);
    const stats = await admin(sb).stats();
    expect(stats.created).toBe(0);
    expect(stats.faults_injected.http5xx).toBe(12);
    expect(stats.responses_by_status['202']).toBeUndefined();
  });

  it('at rate 0.3 about three in ten calls fail, the same ones for the same seed', async () => {
    const sequence = async (target: Sandbox) => {
      await admin(target).faults({ http5xx: 0.3 });
      const out: number[] = [];
      for (let i = 0; i < 100; i++) out.push((await api(target).get('/balance')).status);
      return out;
    };
    const twin = await startSandbox({ log: 'silent', seed: 'contract-faults' });
    try {
      const mine = await sequence(sb);
      const theirs = await sequence(twin);
      expect(theirs).toEqual(mine);
      const failures = mine.filter((s) => s >= 500).length;
      expect(failures).toBeGreaterThanOrEqual(15);
      expect(failures).toBeLessThanOrEqual(45);
    } finally {
      await twin.close();
    }
  });

  it('never touches the admin API or signed URLs', async () => {
    const bytes = await textPdf(['Café torrado em grão']);
    const grant = await client.post('/uploads', {
      content_type: 'application/pdf',
      byte_size: bytes.byteLength,
      filename: 'a.pdf',
    });
    await admin(sb).faults({ http5xx: 1, latency_ms: 0 });
    for (let i = 0; i < 5; i++) expect((await admin(sb).stats()).faults.http5xx).toBe(1);
    const put = await fetch(grant.body.upload_url, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/pdf' },
      body: bytes,
    });
    expect(put.status).toBe(200);
  });
});

describe('connection resets', () => {
  it('reset_before drops the connection and nothing happens', async () => {
    await admin(sb).faults({ reset_before: 1 });
    await expect(client.post('/classifications', creation(), { idempotencyKey: newKey() })).rejects.toThrow();
    const stats = await admin(sb).stats();
    expect(stats.created).toBe(0);
    expect(stats.faults_injected.reset_before).toBe(1);
  });

  it('reset_after leaves the classification created; a retry with the same key finds it, billed once', async () => {
    const key = newKey('reset-after');
    await admin(sb).faults({ reset_after: 1 });
    await expect(client.post('/classifications', creation(), { idempotencyKey: key })).rejects.toThrow();
    const [created] = await admin(sb).classifications();
    expect(created).toBeDefined();
    expect((await admin(sb).stats()).created).toBe(1);

    await admin(sb).faults({ reset_after: 0 });
    const retry = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(created!.id);

    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const stats = await admin(sb).stats();
    expect(stats.created).toBe(1);
    expect(stats.billed_per_classification).toEqual({ [created!.id]: 1 });
  });
});

describe('latency, rate_limit_burst, maintenance', () => {
  it('latency_ms delays /v1 answers', async () => {
    await admin(sb).faults({ latency_ms: 150 });
    const started = performance.now();
    expect((await client.get('/balance')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('rate_limit_burst answers spurious 429 rate-limited with Retry-After, with no effect', async () => {
    await admin(sb).faults({ rate_limit_burst: 1 });
    const response = await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    expectProblem(response, 'rate-limited', 429);
    expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect((await admin(sb).stats()).created).toBe(0);
  });

  it('maintenance makes every /v1 call 503 maintenance with Retry-After until switched off', async () => {
    await admin(sb).faults({ maintenance: true });
    for (const path of ['/balance', '/countries', '/classifications']) {
      const response = await client.get(path);
      expectProblem(response, 'maintenance', 503);
      expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    await admin(sb).faults({ maintenance: 0 });
    expect((await client.get('/balance')).status).toBe(200);
    await admin(sb).faults({ maintenance: 1 });
    expectProblem(await client.get('/balance'), 'maintenance', 503);
  });
});

describe('setting faults', () => {
  it('POST /__admin/faults merges settings; GET shows them; reset clears them', async () => {
    expect(await admin(sb).faults({ http5xx: 0.1, reset_after: 0.05 })).toMatchObject({
      http5xx: 0.1,
      reset_after: 0.05,
      maintenance: false,
    });
    const merged = await admin(sb).faults({ latency_ms: 5 });
    expect(merged).toEqual({
      http5xx: 0.1,
      reset_before: 0,
      reset_after: 0.05,
      latency_ms: 5,
      rate_limit_burst: 0,
      maintenance: false,
    });
    expect(await admin(sb).call('GET', '/faults')).toEqual(merged);
    await admin(sb).reset();
    expect((await admin(sb).call('GET', '/faults')).http5xx).toBe(0);
  });

  it('refuses unknown keys and out-of-range values with 422', async () => {
    for (const body of [{ http5xx: 2 }, { surprise: 1 }, { latency_ms: -1 }, { maintenance: 'yes' }]) {
      const response = await fetch(`${sb.adminUrl}/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(422);
    }
  });

  it('the faults option at start takes the CLI form and the object form; a bad one is refused', async () => {
    const fromSpec = await startSandbox({ log: 'silent', faults: 'http5xx=1,latency_ms=1' });
    const fromObject = await startSandbox({ log: 'silent', faults: { maintenance: true } });
    try {
      expect((await api(fromSpec).get('/balance')).status).toBeGreaterThanOrEqual(500);
      expect(fromSpec.stats().faults).toMatchObject({ http5xx: 1, latency_ms: 1 });
      expectProblem(await api(fromObject).get('/balance'), 'maintenance', 503);
    } finally {
      await Promise.all([fromSpec.close(), fromObject.close()]);
    }
    await expect(startSandbox({ log: 'silent', faults: 'http5xx=lots' })).rejects.toThrow(/http5xx/);
    await expect(startSandbox({ log: 'silent', faults: 'reset_later=0.1' })).rejects.toThrow(/reset_later/);
  });
});
