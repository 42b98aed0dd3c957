/**
 * The Review task: the review item Poll's pending_data leads to, and a retried Review.
 */
import { describe, expect, it } from 'vitest';
import { reviewRow } from '../../../../shared/pipeline/row/review.js';
import { makeWorld } from '../../../helpers/sandbox-world.js';
import {
  BATCH,
  classificationOf,
  dispatch,
  rowOf,
  runRowWorkflow,
  seedBatch,
  startRowSandbox,
} from './row-fixture.js';

startRowSandbox();

describe('Review', () => {
  it('hands pending_data to Review: the review item is written and the slot freed', async () => {
    const w = makeWorld();
    // Our clock an hour ahead of the sandbox's (real time): the deadline counts from the
    // service's creation, never from a later moment of ours (a fixed date would pass one day).
    w.clock.set(new Date(Date.now() + 3_600_000).toISOString());
    await seedBatch(w, [{ description: 'Café torrado em grãos [sandbox:ask-provisional]', sku: 'CAF-9' }]);

    const { report, steps } = await runRowWorkflow(w, await dispatch(w, 1));

    expect(steps.slice(-2)).toEqual(['Review', 'Complete']);
    expect(report).toMatchObject({ outcome: 'final', status: 'pending_data' });
    expect(w.leases.holders.size).toBe(0); // freed by Poll when pending_data was seen
    const row = await rowOf(w);
    const c = await classificationOf(row.classification_id!);
    const item = await w.reviews.get(c.id);
    expect(item).toMatchObject({
      batch_id: BATCH,
      row: 1,
      sku: 'CAF-9',
      external_reference: `${BATCH}:1`,
      questions: c.questions,
      state: 'pending',
      abandons_at: new Date(Date.parse(c.created_at) + 30 * 86_400_000).toISOString(),
    });
    expect(item?.questions.length).toBeGreaterThan(0);
    expect(item?.provisional_ncm).toMatch(/^\d{8}$/);
    expect(row.result).toMatchObject({ status: 'pending_data', classification_id: c.id, cost_usd: '0.00' });
    expect(row.result?.questions).toContain(c.questions[0]!.text);
    expect(w.leases.holders.size).toBe(0);

    // A retried Review does not reset an item someone started answering.
    await w.reviews.update(c.id, { state: 'answered' });
    await reviewRow(w.ports, {
      ...(await dispatch(w, 1)),
      step: { next: 'review', classification_id: c.id, submitted_at: row.submitted_at },
    });
    expect((await w.reviews.get(c.id))?.state).toBe('answered');
  });
});
