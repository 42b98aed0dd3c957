/** Rows of the same product share one classification: the follower's result and its settling. */
import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import { resultNow, withFollowersDerived } from '../../../../shared/pipeline/core/row-life.js';
import { followersByLeader } from '../../../../shared/pipeline/core/same-product.js';
import { summaryTally } from '../../../../shared/pipeline/finalize/summary-tally.js';
import { batchRecord, rowRecord } from '../../../helpers/records.js';

const NOW = new Date('2026-11-21T13:00:00.000Z');
const product = (current_ncm: string | null) => ({
  sku: null,
  description: 'Frango congelado em pedaços, sem osso',
  operation: 'import' as const,
  country: 'BR',
  current_ncm,
  external_reference: null,
  sheet: null,
});

describe('resultNow of a follower', () => {
  it('copies the leader’s columns at no cost, names the leader, and compares its own declared NCM', () => {
    const leader = rowRecord(1, {
      status: 'resolved',
      result: { status: 'resolved', ncm: '0207.14.00', cost_usd: '2.00', detail: 'from the sheet' },
    });
    const follower = {
      ...rowRecord(2, { status: 'following', follows: 1 }),
      product: product('02071400') as RowRecord['product'],
    };
    const result = resultNow(follower, leader);
    expect(result).toMatchObject({
      status: 'resolved',
      ncm: '0207.14.00',
      cost_usd: '0.00',
      current_ncm_matches: 'yes',
    });
    expect(result.detail).toBe(
      'Same product as row 1 (same description and technical sheet): classified once, there; ' +
        'no charge for this row. from the sheet',
    );
  });

  it('tells a follower of a row with questions where to answer them', () => {
    const leader = rowRecord(4, {
      status: 'pending_data',
      result: { status: 'pending_data', questions: 'q1: ?' },
    });
    expect(resultNow(rowRecord(5, { status: 'following', follows: 4 }), leader).detail).toContain(
      'answer the questions once, on row 4 of review.csv',
    );
  });
});

describe('withFollowersDerived', () => {
  const rowsOf = () => [
    rowRecord(1, { status: 'pending_data', result: { status: 'pending_data', cost_usd: '0.00' } }),
    rowRecord(2, { status: 'following', follows: 1 }),
    rowRecord(3, { status: 'queued' }),
    rowRecord(4, { status: 'following', follows: 3 }),
  ];

  it('shows the followers of final rows their leader’s outcome, leaves the others waiting, and writes nothing', () => {
    const rows = rowsOf();

    const standing = withFollowersDerived(rows);

    expect(standing.map((row) => row.status)).toEqual([
      'pending_data',
      'pending_data',
      'queued',
      'following',
    ]);
    expect(rows.map((row) => row.status)).toEqual(['pending_data', 'following', 'queued', 'following']);
  });

  it('moves a follower on when its leader’s outcome changes (an answers round)', () => {
    const rows = rowsOf();
    rows[0] = {
      ...rows[0]!,
      status: 'resolved',
      result: { status: 'resolved', ncm: '0207.14.00', cost_usd: '2.00' },
    };

    expect(withFollowersDerived(rows)[1]).toMatchObject({
      status: 'resolved',
      result: { ncm: '0207.14.00', cost_usd: '0.00' },
    });
  });
});

describe('what sharing saved', () => {
  it('counts followers, and saves a classification only for those whose shared one resolved', () => {
    const rows = [
      rowRecord(1, { status: 'resolved' }),
      rowRecord(2, { status: 'resolved', follows: 1, result: { status: 'resolved' } }),
      rowRecord(3, { status: 'failed', follows: 1, result: { status: 'failed' } }),
      rowRecord(5, { status: 'following', follows: 1 }),
    ];
    const tally = summaryTally();
    for (const row of rows) tally.add(row, resultNow(row));
    expect(tally.summary(batchRecord(), NOW).duplicates).toEqual({ rows: 3, saved_usd: 2 });
    expect(followersByLeader(rows)).toEqual(new Map([[1, [2, 3, 5]]]));
  });
});
