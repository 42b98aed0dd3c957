/**
 * A reused product's other rows move with its first (reused-product-rows.ts): Prepare keeps one
 * SIM watch per reused product, and the sweep's confirmation of it is written on each of the
 * product's rows still showing the openings unconfirmed, once, however often it runs. A decision
 * on a reused product's item is written on its rows a page at a time, in legs (the whole course:
 * test/unit/pipeline/prepare/prepare-checks.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  confirmReusedRows,
  decideReusedRows,
} from '../../../../shared/pipeline/answers/reused-product-rows.js';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import type { SimWatch } from '../../../../shared/pipeline/core/sim-watch.js';
import { detailOf } from '../../../../shared/wording/details.js';
import { message } from '../../../../shared/wording/index.js';
import { checkItem } from '../../../helpers/check-items.js';
import { memoryBatchStore, memoryCheckStore } from '../../../helpers/memory-ports.js';
import { AT, BATCH, classificationId, rowRecord } from '../../../helpers/records.js';

const VERDICT = classificationId(1);
const FINGERPRINT = 'a'.repeat(64);

/** A verdict reused while its SIM openings were still being verified. */
const reusedVerifying: RowResult = {
  status: 'reused',
  classification_id: VERDICT,
  ncm: '8413.91.90',
  confidence: '88',
  ...detailOf([
    message('reused', { date: '2026-11-20', batch: 'nightly-abc' }),
    message('verdict_notes', { sim_verifying: true }),
  ]),
  cost_usd: '0.00',
};

const reusedRow = (row: number, overrides: Partial<RowRecord> = {}): RowRecord =>
  rowRecord(row, {
    status: 'reused',
    classification_id: VERDICT,
    fingerprint: FINGERPRINT,
    result: reusedVerifying,
    ...overrides,
  });

const WATCH: SimWatch = {
  batch_id: BATCH,
  row: 1,
  classification_id: VERDICT,
  ncm: '84139190',
  operation: 'import',
  product_key: 'sku:R-1',
  fingerprint: FINGERPRINT,
  state: 'open',
  followers: 3,
  created_at: AT,
};

describe('confirmReusedRows', () => {
  it("writes the watch's confirmation on the product's other rows, and on no other row, once", async () => {
    // Prepare: rows 1, 3, 4 and 6 reuse the verdict; row 2 is another product; row 5 reuses another
    const batches = memoryBatchStore();
    await batches.putRows([
      reusedRow(1),
      reusedRow(2, { fingerprint: 'b'.repeat(64) }),
      reusedRow(3),
      reusedRow(4),
      reusedRow(5, { classification_id: classificationId(5) }),
      reusedRow(6),
    ]);
    const confirmed = [
      {
        watch: WATCH,
        confirmation: { kind: 'one' as const, opening: { code: '8413919010', description: 'Rotores' } },
      },
    ];
    const batch = { batchId: BATCH, checkBelow: undefined, at: '2026-11-22T06:00:00.000Z' };

    // Act
    const { moved } = await confirmReusedRows({ batches }, batch, confirmed);

    // Assess: the first row is the sweep's own; rows 3, 4 and 6 show the SIM code now
    expect(moved).toBe(3);
    const rows = [...batches.rows.values()].sort((a, b) => a.row - b.row);
    expect(rows.map((row) => [row.row, row.result?.sim_code ?? ''])).toEqual([
      [1, ''],
      [2, ''],
      [3, '8413.91.90.10'],
      [4, '8413.91.90.10'],
      [5, ''],
      [6, '8413.91.90.10'],
    ]);
    expect(rows[2]).toMatchObject({ status: 'reused', updated_at: batch.at });

    // The sweep run again, and a watch that counts no followers: nothing more to move
    expect((await confirmReusedRows({ batches }, batch, confirmed)).moved).toBe(0);
    await batches.putRows([reusedRow(7)]);
    const alone = [{ ...confirmed[0]!, watch: { ...WATCH, followers: undefined } }];
    expect((await confirmReusedRows({ batches }, batch, alone)).moved).toBe(0);
    expect(batches.rows.get(`${BATCH}#7`)?.result?.sim_code).toBeUndefined();
  });

  it('marks the other rows to check under check_below when the registry offers several openings', async () => {
    // Prepare
    const batches = memoryBatchStore();
    await batches.putRows([reusedRow(1), reusedRow(2)]);
    const several = {
      kind: 'several' as const,
      openings: [
        { code: '8413919010', description: 'Rotores' },
        { code: '8413919090', description: 'Outras' },
      ],
    };
    const batch = { batchId: BATCH, checkBelow: 80, at: '2026-11-22T06:00:00.000Z' };

    // Act
    const { moved } = await confirmReusedRows({ batches }, batch, [{ watch: WATCH, confirmation: several }]);

    // Assess
    expect(moved).toBe(1);
    expect(batches.rows.get(`${BATCH}#2`)?.result?.check).toBe('to_check');
  });
});

describe('decideReusedRows', () => {
  it('writes a decision on a product of 1,200 rows a page at a time, handing on when its time is spent', async () => {
    // Prepare: one product on every row, its item on row 1 decided by the round
    const batches = memoryBatchStore();
    const checks = memoryCheckStore();
    const toCheck = { ...reusedVerifying, check: 'to_check' as const };
    await batches.putRows(Array.from({ length: 1_200 }, (_, i) => reusedRow(i + 1, { result: toCheck })));
    const roundId = `${BATCH}~r0und00001`;
    const decision = { ncm: '84139190', sim: null, note: '', by: 'ana', at: AT, round_id: roundId };
    await checks.create(
      checkItem(1, {
        classification_id: VERDICT,
        fingerprint: FINGERPRINT,
        followers: 1_199,
        followers_reuse: true,
      }),
    );
    await checks.decide(BATCH, 1, decision);
    const ports = { batches, checks };

    // Act: each leg's time is spent at once, so each reads one page (500 rows)
    const legs = [];
    let after: number | null = null;
    do {
      const leg = await decideReusedRows(ports, BATCH, roundId, { after, until: 0, now: () => 1 });
      legs.push(leg);
      after = leg.after;
    } while (after !== null);

    // Assess: three legs; every row but the item's own (PrepareAnswers moves it) approved
    expect(legs).toEqual([
      { moved: 499, after: 500 },
      { moved: 500, after: 1_000 },
      { moved: 200, after: null },
    ]);
    const rows = [...batches.rows.values()];
    expect(rows.filter((row) => row.result?.check === 'approved')).toHaveLength(1_199);
    expect(batches.rows.get(`${BATCH}#1`)?.result?.check).toBe('to_check');
  });
});
