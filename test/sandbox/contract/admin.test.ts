/**
 * Contract: the admin API at admin_url (never under /v1) — GET /stats, GET|POST /clock,
 * GET|POST /faults (see faults.test.ts), POST /reset, GET /classifications — and the same
 * controls on the programmatic handle.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import { admin, api, creation, expectProblem, newKey, PAST_ANY_RUN_SECONDS } from '../helpers/http.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-admin' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('GET /__admin/stats', () => {
  it('holds the issue’s figures for the primary organisation, and a breakdown by organisation', async () => {
    const created = await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    await client.get('/balance');
    await client.get('/balance');
    expectProblem(await client.get('/classifications/cls_222222222222'), 'not-found', 404);
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const stats = await admin(sb).stats();
    for (const field of [
      'in_progress_now',
      'in_progress_max',
      'created',
      'billed_count',
      'billed_usd',
      'billed_per_classification',
      'slot_seconds',
      'requests_by_route',
      'responses_by_status',
      'by_organization',
    ]) {
      expect(stats, field).toHaveProperty(field);
    }
    expect(stats).toMatchObject({
      organization: 'org_sandbox',
      in_progress_now: 0,
      in_progress_max: 1,
      created: 1,
      billed_count: 1,
      billed_usd: 2,
      billed_per_classification: { [created.body.id]: 1 },
    });
    expect(stats.slot_seconds).toBeGreaterThanOrEqual(45);
    expect(stats.slot_seconds).toBeLessThanOrEqual(75);
    expect(stats.requests_by_route).toEqual({
      'POST /v1/classifications': 1,
      'GET /v1/balance': 2,
      'GET /v1/classifications/{id}': 1,
    });
    expect(stats.responses_by_status).toEqual({ '202': 1, '200': 2, '404': 1 });
    expect(Object.keys(stats.by_organization)).toEqual(['org_sandbox']);
    expect(stats.by_organization.org_sandbox.billed_count).toBe(1);
  });

  it('is the same through the programmatic handle', async () => {
    await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    const viaHttp = await admin(sb).stats();
    const direct = sb.stats();
    expect(direct.created).toBe(viaHttp.created);
    expect(direct.in_progress_now).toBe(1);
    expect(direct.requests_by_route).toEqual(viaHttp.requests_by_route);
  });

  it('the admin API is outside /v1, and /v1 has no admin routes', async () => {
    expect(sb.adminUrl.startsWith(sb.baseUrl)).toBe(false);
    expect(new URL(sb.adminUrl).pathname).toBe('/__admin');
    expectProblem(await client.get('/__admin/stats'), 'not-found', 404);
  });
});

describe('POST /__admin/clock', () => {
  it('advances the sandbox clock by advance_seconds', async () => {
    const before = sb.now().getTime();
    const answer = await admin(sb).advance(3600);
    expect(answer.offset_seconds).toBe(3600);
    expect(Date.parse(answer.now) - before).toBeGreaterThanOrEqual(3600_000);
    expect(sb.now().getTime() - before).toBeGreaterThanOrEqual(3600_000);
    // The service's own timestamps follow it.
    const created = await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    const body = (await client.get(`/classifications/${created.body.id}`)).body;
    expect(Date.parse(body.created_at) - before).toBeGreaterThanOrEqual(3600_000);
    sb.advanceClock(60);
    expect((await admin(sb).call('GET', '/clock')).offset_seconds).toBe(3660);
  });

  it.each([{ advance_seconds: -1 }, { advance_seconds: 'ten' }, {}, { advance_seconds: 1, extra: true }])(
    'refuses %j with 422',
    async (body) => {
      const response = await fetch(`${sb.adminUrl}/clock`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(422);
    },
  );
});

describe('POST /__admin/reset', () => {
  it('clears every classification, figure, fault and the clock offset', async () => {
    const key = newKey('reset');
    const created = await client.post('/classifications', creation(), { idempotencyKey: key });
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    await admin(sb).faults({ latency_ms: 1 });
    await admin(sb).reset();
    const stats = await admin(sb).stats();
    expect(stats).toMatchObject({
      created: 0,
      billed_count: 0,
      billed_usd: 0,
      billed_per_classification: {},
      in_progress_max: 0,
      slot_seconds: 0,
      requests_by_route: {},
      responses_by_status: {},
      by_organization: {},
    });
    expect(stats.faults.latency_ms).toBe(0);
    expect(stats.clock.offset_seconds).toBe(0);
    expectProblem(await client.get(`/classifications/${created.body.id}`), 'not-found', 404);
    // Idempotency records are state too: the key is free again and creates a new id.
    const again = await client.post('/classifications', creation(), { idempotencyKey: key });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(created.body.id);
  });

  it('the programmatic reset does the same', async () => {
    await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    sb.setFaults({ http5xx: 0.5 });
    sb.reset();
    expect(sb.stats().created).toBe(0);
    expect(sb.stats().faults.http5xx).toBe(0);
  });
});

describe('GET /__admin/classifications', () => {
  it('lists every organisation’s classifications with the sandbox’s internal view', async () => {
    const mine = await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    const theirs = await api(sb, sb.keys.other_org_classify).post('/classifications', creation(), {
      idempotencyKey: newKey(),
    });
    const all = await admin(sb).classifications();
    expect(all.map((c) => c.id)).toEqual([mine.body.id, theirs.body.id]);
    expect(all[0]!._sandbox.organization).toBe('org_sandbox');
    expect(all[1]!._sandbox.organization).toBe('org_other');
    expect(all[0]!._sandbox.run.outcome).toBe('resolved');
    const only = (await admin(sb).call('GET', '/classifications?organization=org_other')).items;
    expect(only.map((c: { id: string }) => c.id)).toEqual([theirs.body.id]);
  });
});
