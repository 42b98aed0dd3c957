/**
 * Every path of the Row workflow, run from the synthesized definition by aws-local-stepfunctions
 * (test/workflow/harness.ts). Each test drops a one-row file so the row goes the whole way:
 * Prepare, the queue, the dispatcher's lease, the Row workflow, Complete, Finalize.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClassificationService } from '../../shared/pipeline/core/ports.js';
import { TcsProblemError } from '../../shared/tcs/errors.js';
import { type Harness, startHarness, synthesizedDefinitions } from './harness.js';

beforeAll(async () => {
  await synthesizedDefinitions();
}, 120_000);
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const csvOf = (description: string) =>
  `sku,description,operation,country\nSKU-1,"${description}",import,BR\n`;

/** Runs a one-row batch and returns what the tests look at. */
const runOneRow = async (h: Harness, description: string) => {
  const output = await h.runBatch(h.drop('paths', 'products.csv', csvOf(description)));
  const batchId = (output.prepare as { batch_id: string }).batch_id;
  const [row, ...others] = await h.rowsOf(batchId);
  expect(others).toEqual([]);
  if (!row) throw new Error('no row record');
  return { output, batchId, row };
};

/** The lease is released on every path: nothing held at the end, and each holder released. */
const expectLeasesReleased = (h: Harness) => {
  expect([...h.leases.holders.keys()]).toEqual([]);
  expect(h.releases.length).toBeGreaterThanOrEqual(h.workflows.started.length);
  expect(h.failures).toEqual([]);
};

/** Records the Idempotency-Key of every creation the pipeline sends. */
const recordingKeys =
  (keys: string[]) =>
  (real: ClassificationService): ClassificationService => ({
    ...real,
    createClassification: (body, options) => {
      keys.push(options.idempotencyKey);
      return real.createClassification(body, options);
    },
  });

describe('Row workflow, from the synthesized definition', () => {
  it('resolved: stores the verdict and its PDF, bills once, finishes the batch', async () => {
    harness = await startHarness();
    const { batchId, row, output } = await runOneRow(harness, 'Café torrado em grãos, embalagem de 1 kg');

    expect(row.status).toBe('resolved');
    expect(row.result).toMatchObject({ status: 'resolved', ncm: '0901.21.00', cost_usd: '2.00' });
    const pdf = harness.objects.objects.get(`outbox/${batchId}/${row.result?.verdict_pdf}`);
    expect(new TextDecoder().decode(pdf?.bytes.slice(0, 5))).toBe('%PDF-');
    expect(harness.sandbox.stats().billed_usd).toBe(2);
    expect(output.finalized).toMatchObject({ state: 'completed', rows_total: 1 });
    expect(harness.waiters.woken).toEqual([batchId]);
    expectLeasesReleased(harness);
  });

  it('pending_data: files the questions for review and frees the slot', async () => {
    harness = await startHarness();
    const { batchId, row } = await runOneRow(harness, 'Rolamentos de esferas 6204 [sandbox:ask=2]');

    expect(row.status).toBe('pending_data');
    const [item] = await harness.reviews.listByBatch(batchId);
    expect(item).toMatchObject({ row: 1, state: 'pending', classification_id: row.classification_id });
    expect(item?.questions).toHaveLength(2);
    expect(harness.objects.text(`outbox/${batchId}/review.csv`)).toContain(row.classification_id);
    expect(harness.sandbox.stats().billed_usd).toBe(0);
    expectLeasesReleased(harness);
  });

  it('failed with a transient reason: retried as a new attempt with a new key, then resolved', async () => {
    const keys: string[] = [];
    harness = await startHarness({ service: recordingKeys(keys) });
    const { row } = await runOneRow(harness, 'Café torrado em grãos [sandbox:fail-once=timed_out]');

    expect(row.status).toBe('resolved');
    expect(row.attempt).toBe(2);
    expect(harness.workflows.started.map((name) => name.replace(/^.*-r1-/, ''))).toEqual(['a1-d1', 'a2-d1']);
    const distinct = [...new Set(keys)];
    expect(distinct).toHaveLength(2);
    expect(distinct[0]).toMatch(/_a1_/);
    expect(distinct[1]).toMatch(/_a2_/);
    for (const key of distinct) expect(key).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    expect(harness.sandbox.stats().billed_usd).toBe(2);
    expectLeasesReleased(harness);
  });

  it('failed with a permanent reason: recorded as failed, not retried, not billed', async () => {
    harness = await startHarness();
    const { row } = await runOneRow(harness, 'Café torrado em grãos [sandbox:fail=unexpected_format]');

    expect(row.status).toBe('failed');
    expect(row.result).toMatchObject({ status: 'failed', reason: 'unexpected_format', cost_usd: '0.00' });
    expect(harness.workflows.started).toHaveLength(1);
    expect(harness.sandbox.stats().billed_usd).toBe(0);
    expectLeasesReleased(harness);
  });

  it('an unknown status keeps polling until the classification is final', async () => {
    let polls = 0;
    harness = await startHarness({
      service: (real) => ({
        ...real,
        // A status added after v1: the first three polls see it.
        getClassification: async (id, options) => {
          const c = await real.getClassification(id, options);
          polls += 1;
          return polls <= 3 ? { ...c, status: 'under_expert_review' } : c;
        },
      }),
    });
    const { row } = await runOneRow(harness, 'Café torrado em grãos, embalagem de 1 kg');

    expect(row.status).toBe('resolved');
    expect(polls).toBeGreaterThan(3);
    expectLeasesReleased(harness);
  });

  it('429: the row goes back to the queue with the delay asked, the lease released, a new execution', async () => {
    let refusals = 0;
    harness = await startHarness({
      service: (real) => ({
        ...real,
        createClassification: async (body, options) => {
          if (refusals === 0) {
            refusals += 1;
            throw new TcsProblemError({
              problem: 'rate-limited',
              type: 'https://tcs.example/problems/rate-limited',
              status: 429,
              title: 'Too many classifications in progress',
              detail: 'The organisation has 10 classifications in progress.',
              instance: '/v1/classifications',
              requestId: 'req_1',
              errors: [],
              retryAfterMs: 1_000,
            });
          }
          return real.createClassification(body, options);
        },
      }),
    });
    const { row } = await runOneRow(harness, 'Café torrado em grãos, embalagem de 1 kg');

    expect(row.status).toBe('resolved');
    const requeued = harness.queue.sent.filter((entry) => entry.message.dispatch === 2);
    expect(requeued).toEqual([
      { message: expect.objectContaining({ attempt: 1, dispatch: 2 }), delaySeconds: 1 },
    ]);
    expect(harness.workflows.started.map((name) => name.replace(/^.*-r1-/, ''))).toEqual(['a1-d1', 'a1-d2']);
    // Released when the 429 sent the row back, and again (a no-op) when it finished.
    expect(harness.releases.filter((holder) => holder.endsWith('#a1')).length).toBeGreaterThanOrEqual(2);
    expect(harness.sandbox.stats().billed_usd).toBe(2);
    expectLeasesReleased(harness);
  });

  it('an unexpected exception ends as an error row with the reason, the lease released', async () => {
    harness = await startHarness({
      service: (real) => ({
        ...real,
        downloadVerdictPdf: async () => {
          throw new TypeError('Cannot read properties of undefined (reading "body")');
        },
        getClassification: async (id, options) => {
          const c = await real.getClassification(id, options);
          if (c.status === 'resolved')
            throw new TypeError('Cannot read properties of undefined (reading "tariffs")');
          return c;
        },
      }),
    });
    const { row } = await runOneRow(harness, 'Café torrado em grãos, embalagem de 1 kg');

    expect(row.status).toBe('error');
    expect(row.result?.detail).toContain('Cannot read properties of undefined');
    expect(row.result?.classification_id ?? row.classification_id).toMatch(/^cls_/);
    expectLeasesReleased(harness);
  });
});
