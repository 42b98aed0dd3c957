/**
 * Contract: every `failure_reason` and every `Candidate.sim.status` is reachable through a
 * documented trigger phrase (the list the classifier publishes), end to end over HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxClassifier } from '../../../local/sandbox/classifier/index.js';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import { admin, api, creation, newKey, PAST_ANY_RUN_SECONDS } from '../helpers/http.js';

const FAILURE_REASONS = [
  'unexpected_format',
  'no_valid_candidates',
  'timed_out',
  'service_unavailable',
  'unreadable_pdf',
  'persist_failed',
];
const SIM_STATUSES = ['verifying', 'none', 'auto_selected', 'pending_choice', 'chosen'];

let sb: Sandbox;
let client: ReturnType<typeof api>;

/** The documented phrase whose text contains `needle`. */
const phrase = (needle: string): string => {
  const found = sandboxClassifier.triggers.find((t) => t.phrase.includes(needle));
  if (!found) throw new Error(`no documented trigger phrase contains "${needle}"`);
  return found.phrase;
};

const run = async (description: string) => {
  const created = await client.post('/classifications', creation({ description }), {
    idempotencyKey: newKey(),
  });
  expect(created.status, created.text).toBe(202);
  await admin(sb).advance(PAST_ANY_RUN_SECONDS);
  return (await client.get(`/classifications/${created.body.id}`)).body;
};

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-triggers' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('failure reasons', () => {
  it.each(FAILURE_REASONS)('%s is reached by its trigger phrase, unbilled', async (reason) => {
    const body = await run(`Café torrado em grão ${phrase(`fail=${reason}`)}`);
    expect(body.status).toBe('failed');
    expect(body.failure_reason).toBe(reason);
    expect(body.stage).toBeNull();
    expect(body.chosen_ncm).toBeNull();
    expect(body.pdf_url ?? null).toBeNull();
    expect((await admin(sb).stats()).billed_count).toBe(0);
  });

  it('a fail-once trigger fails the first attempt and resolves the retry (a new key)', async () => {
    const description = `Café torrado em grão ${phrase('fail-once=timed_out')}`;
    const first = await run(description);
    expect(first.failure_reason).toBe('timed_out');
    const retry = await run(description);
    expect(retry.status).toBe('resolved');
    expect((await admin(sb).stats()).billed_per_classification).toEqual({ [retry.id]: 1 });
  });
});

describe('Candidate.sim statuses', () => {
  it.each(SIM_STATUSES)('%s is reached by its trigger phrase, with the fields it implies', async (status) => {
    const body = await run(`Café torrado em grão ${phrase(`sim=${status}`)}`);
    expect(body.status).toBe('resolved');
    const sim = body.candidates[0].sim;
    expect(sim.status).toBe(status);
    if (status === 'auto_selected' || status === 'chosen') {
      expect(sim.code).toMatch(/^\d{10}$/);
      expect(sim.options.map((o: { code: string }) => o.code)).toContain(sim.code);
    } else {
      expect(sim.code).toBeNull();
    }
    if (status === 'none' || status === 'verifying') expect(sim.options).toEqual([]);
    if (status === 'pending_choice') expect(sim.options.length).toBeGreaterThan(1);
    if (status === 'verifying') expect(sim.verified_at).toBeNull();
    else expect(Date.parse(sim.verified_at)).not.toBeNaN();
  });
});

describe('documentation', () => {
  it('GET /__admin/triggers serves the documented phrases', async () => {
    const served = await admin(sb).call('GET', '/triggers');
    expect(served.items).toEqual(sandboxClassifier.triggers);
    expect(served.items.length).toBeGreaterThanOrEqual(FAILURE_REASONS.length + SIM_STATUSES.length);
  });
});

describe('other documented paths', () => {
  it('questions, and tariffs not found, by their phrases', async () => {
    expect((await run(`Café torrado em grão ${phrase('[sandbox:ask]')}`)).status).toBe('pending_data');
    const noData = await run(`Café torrado em grão ${phrase('tariff=no_data')}`);
    expect(noData.status).toBe('resolved');
    expect(noData.tariffs).toMatchObject({ found: false, reason: 'no_data' });
  });
});
