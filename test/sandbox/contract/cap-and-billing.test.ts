/**
 * Contract: the concurrency cap (10 API classifications in progress per organisation, 429
 * with Retry-After beyond, answers included) and the billing meter (USD 2.00 once per
 * resolved API classification; answers, failures and abandonment free), with the admin
 * figures that prove it: in_progress_now/max, slot_seconds, billed_*.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import {
  admin,
  api,
  creation,
  expectProblem,
  type Json,
  newKey,
  PAST_ANY_RUN_SECONDS,
} from '../helpers/http.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;

const create = (overrides: Record<string, unknown> = {}, key = newKey('cap')) =>
  client.post('/classifications', creation(overrides), { idempotencyKey: key });

const ASK = 'Peças diversas para manutenção [sandbox:ask=1]';

const answerAll = async (id: string) => {
  const { body } = await client.get(`/classifications/${id}`);
  return client.post(
    `/classifications/${id}/answers`,
    {
      answers: body.questions.map((q: { id: string }) => ({
        question_id: q.id,
        answer: 'Café torrado em grãos',
      })),
    },
    { idempotencyKey: newKey('answer') },
  );
};

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-cap' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('the concurrency cap', () => {
  it('the 11th concurrent creation gets 429 rate-limited with Retry-After; a slot frees by then', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await create();
      expect(response.status).toBe(202);
      ids.push(response.body.id);
    }
    const balance = await client.get('/balance');
    expect(balance.body.in_progress_count).toBe(10);
    expect(balance.body.concurrency_limit).toBe(10);

    const eleventh = await create();
    expectProblem(eleventh, 'rate-limited', 429);
    const retryAfter = eleventh.headers.get('retry-after');
    expect(retryAfter).toMatch(/^[1-9]\d*$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(75);
    let stats = await admin(sb).stats();
    expect(stats.created).toBe(10);
    expect(stats.in_progress_now).toBe(10);
    expect(stats.in_progress_max).toBe(10);

    // Another organisation has its own cap.
    expect(
      (
        await api(sb, sb.keys.other_org_classify).post('/classifications', creation(), {
          idempotencyKey: newKey(),
        })
      ).status,
    ).toBe(202);

    await admin(sb).advance(Number(retryAfter));
    const later = await create();
    expect(later.status).toBe(202);
    stats = await admin(sb).stats();
    expect(stats.in_progress_max).toBe(10);
    expect(stats.in_progress_now).toBeLessThanOrEqual(10);
  });

  it('is configurable', async () => {
    const small = await startSandbox({ log: 'silent', concurrencyLimit: 2 });
    try {
      const c = api(small);
      expect((await c.post('/classifications', creation(), { idempotencyKey: newKey() })).status).toBe(202);
      expect((await c.post('/classifications', creation(), { idempotencyKey: newKey() })).status).toBe(202);
      expectProblem(
        await c.post('/classifications', creation(), { idempotencyKey: newKey() }),
        'rate-limited',
        429,
      );
      expect((await c.get('/balance')).body.concurrency_limit).toBe(2);
    } finally {
      await small.close();
    }
  });

  it('pending_data frees the slot; answering takes one again, and meets the cap too', async () => {
    const asking = await create({ description: ASK });
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    expect((await client.get(`/classifications/${asking.body.id}`)).body.status).toBe('pending_data');
    expect((await admin(sb).stats()).in_progress_now).toBe(0);

    for (let i = 0; i < 10; i++) expect((await create()).status).toBe(202);
    const refused = await answerAll(asking.body.id);
    expectProblem(refused, 'rate-limited', 429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await client.get(`/classifications/${asking.body.id}`)).body.status).toBe('pending_data');

    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const accepted = await answerAll(asking.body.id);
    expect(accepted.status).toBe(202);
    expect(accepted.body.stage).toBe('answers_intake');
    const stats = await admin(sb).stats();
    expect(stats.in_progress_now).toBe(1);
    expect(stats.in_progress_max).toBe(10);
  });
});

describe('slot_seconds: API classifications in progress integrated over sandbox time', () => {
  it('equals the sum of the run lengths, exactly, across clock jumps', async () => {
    const ids = [(await create()).body.id, (await create()).body.id, (await create()).body.id];
    await admin(sb).advance(20);
    const midway = await admin(sb).stats();
    expect(midway.in_progress_now).toBe(3);
    // 3 × 20 s of sandbox jump, plus the (real) time the requests took.
    expect(midway.slot_seconds).toBeGreaterThanOrEqual(60);
    expect(midway.slot_seconds).toBeLessThan(66);

    await admin(sb).advance(3600);
    let expected = 0;
    for (const id of ids) {
      const { body } = await client.get(`/classifications/${id}`);
      expect(body.status).toBe('resolved');
      expected += (Date.parse(body.resolved_at) - Date.parse(body.created_at)) / 1000;
    }
    const stats = await admin(sb).stats();
    expect(stats.in_progress_now).toBe(0);
    expect(stats.in_progress_max).toBe(3);
    expect(stats.slot_seconds).toBeCloseTo(expected, 6);
    // An hour later nothing more accrues.
    await admin(sb).advance(3600);
    expect((await admin(sb).stats()).slot_seconds).toBeCloseTo(expected, 6);
  });

  it('counts both runs of an answered classification and not its pending_data time', async () => {
    const { body } = await create({ description: ASK });
    await admin(sb).advance(PAST_ANY_RUN_SECONDS + 1000);
    await answerAll(body.id);
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const [record] = (await admin(sb).classifications()) as [Record<string, Json>];
    expect(record.status).toBe('resolved');
    const runs = record._sandbox.finished_runs as { started_at: string; ended_at: string; outcome: string }[];
    expect(runs.map((r) => r.outcome)).toEqual(['pending_data', 'resolved']);
    const [firstRun, secondRun] = runs.map((r) => (Date.parse(r.ended_at) - Date.parse(r.started_at)) / 1000);
    expect(runs[0]!.started_at).toBe(record.created_at);
    expect(runs[1]!.ended_at).toBe(record.resolved_at);
    const stats = await admin(sb).stats();
    expect(stats.slot_seconds).toBeGreaterThanOrEqual(90);
    expect(stats.slot_seconds).toBeLessThanOrEqual(150);
    expect(stats.slot_seconds).toBeCloseTo(firstRun! + secondRun!, 6);
  });
});

describe('the billing meter', () => {
  it('USD 2.00 per API classification when it resolves, once; nothing before', async () => {
    const { body } = await create();
    expect((await admin(sb).stats()).billed_count).toBe(0);
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    await client.get(`/classifications/${body.id}`);
    await client.get(`/classifications/${body.id}`);
    await admin(sb).advance(86_400);
    const stats = await admin(sb).stats();
    expect(stats.billed_count).toBe(1);
    expect(stats.billed_usd).toBe(2);
    expect(stats.billed_per_classification).toEqual({ [body.id]: 1 });
    // The plan credits are untouched.
    expect((await client.get(`/classifications/${body.id}`)).body.cost_credits).toBe(0);
  });

  it('answers add nothing: a classification resolved after questions is billed once', async () => {
    const { body } = await create({ description: ASK });
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    expect((await admin(sb).stats()).billed_count).toBe(0);
    expect((await answerAll(body.id)).status).toBe(202);
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    expect((await client.get(`/classifications/${body.id}`)).body.status).toBe('resolved');
    const stats = await admin(sb).stats();
    expect(stats.billed_per_classification).toEqual({ [body.id]: 1 });
    expect(stats.billed_usd).toBe(2);
  });

  it('failed and abandoned classifications are free', async () => {
    const failed = await create({ description: 'Café torrado em grão [sandbox:fail=timed_out]' });
    const asking = await create({ description: ASK });
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    expect((await client.get(`/classifications/${failed.body.id}`)).body.status).toBe('failed');
    await admin(sb).advance(31 * 86_400);
    expect((await client.get(`/classifications/${asking.body.id}`)).body.status).toBe('abandoned');
    const stats = await admin(sb).stats();
    expect(stats.billed_count).toBe(0);
    expect(stats.billed_usd).toBe(0);
    expect(stats.billed_per_classification).toEqual({});
    expect(stats.created).toBe(2);
  });

  it('bills each organisation separately', async () => {
    await create();
    await api(sb, sb.keys.other_org_classify).post('/classifications', creation(), {
      idempotencyKey: newKey(),
    });
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const stats = await admin(sb).stats();
    expect(stats.billed_count).toBe(1);
    expect(stats.by_organization.org_sandbox.billed_count).toBe(1);
    expect(stats.by_organization.org_other.billed_count).toBe(1);
  });
});
