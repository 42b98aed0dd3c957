/**
 * `reclassify: ended_codes` at Prepare: the products whose verdict's code is no longer in force are
 * queued, every other verdict of an unchanged product is reused whatever its age, and a product
 * with no earlier verdict is not sent, with a worded reason; plan.json and plan.csv count them.
 */
import { describe, expect, it } from 'vitest';
import { BatchOptions } from '../../../../shared/pipeline/core/batch-options-schema.js';
import { planTally } from '../../../../shared/pipeline/prepare/batch-plan.js';
import {
  type RowPlan,
  reusableProductFinder,
  reusedVerdicts,
  rowRecordPlanner,
} from '../../../../shared/pipeline/prepare/row-plans.js';
import { NO_EARLIER_VERDICT, productIdentity } from '../../../../shared/pipeline/reuse/reuse.js';
import { wordMessage } from '../../../../shared/wording/index.js';
import { memoryProductCache } from '../../../helpers/memory-ports.js';
import { cachedVerdict } from '../../../helpers/records.js';

const NOW = new Date('2027-01-02T12:00:00Z');

const plan = (row: number, sku: string, description: string): RowPlan => {
  const product = { row, operation: 'import' as const, country: 'CN', description, sku, sheet: null };
  return {
    kind: 'valid',
    mapped: { row, line: row + 1, cells: [sku, description], fields: { sku, description } },
    product,
    sheet: null,
    identity: productIdentity(product, null),
  } as unknown as RowPlan;
};

describe('Prepare under reclassify: ended_codes', () => {
  it('queues only the products whose code ended, reuses the rest, and sends none without a verdict', async () => {
    // Prepare: three products classified long ago (one code ended since), one never classified.
    const plans = [
      plan(1, 'OIL-1', 'óleo de palmiste em bruto'),
      plan(2, 'BOLT-1', 'parafuso de aço'),
      plan(3, 'NEW-1', 'produto novo'),
      plan(4, 'OIL-1', 'óleo de palmiste em bruto'),
    ];
    const cache = memoryProductCache();
    const longAgo = '2025-01-01T00:00:00.000Z';
    for (const [index, ncm] of [
      [0, '1513.21.10'],
      [1, '7318.15.00'],
    ] as const) {
      const { identity } = plans[index] as Extract<RowPlan, { kind: 'valid' }>;
      await cache.put(
        cachedVerdict(identity.product_key, {
          fingerprint: identity.fingerprint,
          resolved_at: longAgo,
          result: { status: 'resolved', ncm },
        }),
      );
    }
    const options = BatchOptions.parse({ reclassify: 'ended_codes' });
    const inForce = (ncm: string) => ncm !== '1513.21.10';

    // Act
    const finder = reusableProductFinder({ cache }, { options, now: NOW, inForce });
    await finder.add(plans);
    const verdicts = await reusedVerdicts({ cache }, plans, finder.keyByFingerprint);
    const records = rowRecordPlanner('b-1', { options, now: NOW }).recordsOf(
      plans,
      verdicts,
      new Map(),
      finder.recheckFingerprints,
    );

    // Assess
    expect(records.map((record) => [record.row, record.status, record.follows ?? null])).toEqual([
      [1, 'queued', null],
      [2, 'reused', null],
      [3, 'not_submitted', null],
      [4, 'following', 1],
    ]);
    expect(records[2]?.result).toMatchObject({ reason: NO_EARLIER_VERDICT, cost_usd: '0.00' });
    const said = records[2]?.result?.detail_messages?.[0];
    expect(said && wordMessage(said, 'pt')).toMatch(/reclassify: changed/);
    expect(said && wordMessage(said, 'es')).toMatch(/no tiene clasificación anterior/);
    const tally = planTally();
    tally.add(records);
    expect(tally.counts()).toMatchObject({ classify: 1, same_product: 1, reuse: 1, no_earlier_verdict: 1 });
  });
});
