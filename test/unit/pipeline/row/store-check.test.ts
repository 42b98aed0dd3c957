/**
 * The Store task marks the verdicts a person checks: under the batch's check_below, or with a SIM
 * opening waiting for a choice, the row's result says `to_check` and the row gets its check item.
 */
import { describe, expect, it } from 'vitest';
import { BatchOptions } from '../../../../shared/pipeline/core/batch-options-schema.js';
import { CheckItem } from '../../../../shared/pipeline/core/check-records.js';
import { deriveRowKey } from '../../../../shared/pipeline/core/keys.js';
import { storeRow } from '../../../../shared/pipeline/row/store.js';
import { makeWorld, type World } from '../../../helpers/sandbox-world.js';
import { BATCH, dispatch, rowOf, runRowWorkflow, seedBatch, startRowSandbox } from './row-fixture.js';

startRowSandbox();

const ROWS = [
  {
    sku: 'CAF-1',
    description: 'Café torrado em grãos, embalagem de 1 kg [sandbox:confidence=high] [sandbox:sim=none]',
  },
  {
    sku: 'CAF-2',
    description: 'Café torrado em grãos, embalagem de 1 kg [sandbox:confidence=low] [sandbox:sim=none]',
  },
  {
    sku: 'CAF-3',
    description:
      'Café torrado em grãos, embalagem de 1 kg [sandbox:confidence=high] [sandbox:sim=pending_choice]',
  },
];

const runAll = async (w: World, options: Record<string, unknown>, followers = new Map<number, number>()) => {
  await seedBatch(w, ROWS);
  await w.batches.updateBatch(BATCH, { options: BatchOptions.parse(options) });
  // As Prepare counts them: the rows of the same product that follow a row, in its completion shard.
  await w.batches.putCompletionShards(BATCH, new Map([[0, ROWS.length]]), followers);
  for (let row = 1; row <= ROWS.length; row++) await runRowWorkflow(w, await dispatch(w, row));
  return Promise.all([1, 2, 3].map((row) => rowOf(w, row)));
};

describe('Store under check_below', () => {
  it('marks exactly the verdict under the threshold and the one whose SIM opening waits for a choice', async () => {
    // Prepare
    const w = makeWorld();

    // Act
    const [high, low, pending] = await runAll(w, { check_below: 80 }, new Map([[2, 2]]));

    // Assess
    expect([high?.status, low?.status, pending?.status]).toEqual(['resolved', 'resolved', 'resolved']);
    expect(Number(high?.result?.confidence)).toBeGreaterThanOrEqual(80);
    expect(high?.result?.check).toBeUndefined();
    expect(Number(low?.result?.confidence)).toBeLessThan(80);
    expect(low?.result).toMatchObject({ check: 'to_check', cost_usd: '2.00' });
    expect(pending?.result).toMatchObject({ check: 'to_check', cost_usd: '2.00' });
    const items = await w.checks.listByBatch(BATCH);
    expect(items.map((item) => [item.row, item.reasons])).toEqual([
      [2, ['low_confidence']],
      [3, ['sim_pending_choice']],
    ]);
    const lowItem = CheckItem.parse(items[0]);
    expect(lowItem).toMatchObject({
      batch_id: BATCH,
      classification_id: low?.classification_id,
      product_key: 'sku:CAF-2',
      fingerprint: 'fp-2',
      sku: 'CAF-2',
      operation: 'import',
      country: 'CO',
      check_below: 80,
      ncm: low?.result?.ncm?.replace(/\./g, ''),
      confidence: Number(low?.result?.confidence),
      verdict_pdf: low?.result?.verdict_pdf,
      sim_options: [],
      followers: 2,
      state: 'to_check',
    });
    expect(lowItem.candidates.filter((candidate) => candidate.chosen).map((c) => c.ncm)).toEqual([
      lowItem.ncm,
    ]);
    expect(lowItem.candidates.every((candidate) => candidate.rationale.length <= 401)).toBe(true);
    expect(lowItem.candidates[0]?.rationale).not.toBe('');
    const pendingItem = CheckItem.parse(items[1]);
    expect(pendingItem.followers).toBe(0);
    expect(pendingItem.sim_options.length).toBeGreaterThan(0);
    expect(
      pendingItem.sim_options.every((option) => /^\d{10}$/.test(option.code) && option.description !== ''),
    ).toBe(true);
    // The product cache keeps the verdict as the row shows it: a later batch sees it waiting.
    expect(w.cache.entries.get('sku:CAF-2')?.result.check).toBe('to_check');
  });

  it('marks nothing in a batch without check_below', async () => {
    // Prepare
    const w = makeWorld();

    // Act
    const rows = await runAll(w, {});

    // Assess
    expect(rows.map((row) => row?.result?.check)).toEqual([undefined, undefined, undefined]);
    expect(await w.checks.listByBatch(BATCH)).toEqual([]);
  });

  it('keeps a check item written before: a retried Store never resets a decision', async () => {
    // Prepare
    const w = makeWorld();
    await seedBatch(w, ROWS.slice(1, 2));
    await w.batches.updateBatch(BATCH, { options: BatchOptions.parse({ check_below: 80 }) });
    await runRowWorkflow(w, await dispatch(w, 1));
    const decision = {
      ncm: '09012100',
      sim: null,
      note: 'ok',
      by: 'ana',
      at: '2026-11-27T10:00:00.000Z',
      round_id: `${BATCH}~abc`,
    };
    expect(await w.checks.decide(BATCH, 1, decision)).toBe(true);
    const row = await rowOf(w, 1);

    // Act: Store again, as a retry of the task would
    const step = await storeRow(w.ports, {
      batch_id: BATCH,
      row: 1,
      attempt: 1,
      dispatch: 1,
      row_key: deriveRowKey(BATCH, 1),
      holder: 'retry',
      step: { next: 'store', classification_id: row.classification_id, submitted_at: row.submitted_at },
    });

    // Assess
    expect(step.outcome).toMatchObject({ kind: 'final', result: { check: 'to_check' } });
    expect(await w.checks.get(BATCH, 1)).toMatchObject({ state: 'decided', decision });
    expect(await w.checks.listByBatch(BATCH)).toHaveLength(1);
  });
});
