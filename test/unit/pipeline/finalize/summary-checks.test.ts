/** summary.json counts the verdicts a person checks: rows still to check, rows approved, followers as their leader. */
import { describe, expect, it } from 'vitest';
import { resultNow } from '../../../../shared/pipeline/core/row-life.js';
import { summaryTally } from '../../../../shared/pipeline/finalize/summary-tally.js';
import { BatchSummary } from '../../../../shared/pipeline/outbox/results-files.js';
import { batchRecord, rowRecord } from '../../../helpers/records.js';

const NOW = new Date('2026-11-21T13:00:00.000Z');
const AT = '2026-11-21T12:30:00.000Z';

const resolved = (check?: 'to_check' | 'approved') => ({
  status: 'resolved' as const,
  ncm: '8482.10.10',
  confidence: '70',
  cost_usd: '2.00',
  ...(check ? { check } : {}),
});

const ROWS = [
  // 1: waits for a check, and rows 2 and 3 follow it
  rowRecord(1, { status: 'resolved', result: resolved('to_check'), finished_at: AT }),
  rowRecord(2, { status: 'following', follows: 1 }),
  rowRecord(3, { status: 'following', follows: 1 }),
  // 4: approved; 5: sure enough, never checked; 6: reused and waiting; 7: reused and approved
  rowRecord(4, { status: 'resolved', result: resolved('approved'), finished_at: AT }),
  rowRecord(5, { status: 'resolved', result: resolved(), finished_at: AT }),
  rowRecord(6, { status: 'reused', result: { ...resolved('to_check'), status: 'reused', cost_usd: '0.00' } }),
  rowRecord(7, { status: 'reused', result: { ...resolved('approved'), status: 'reused', cost_usd: '0.00' } }),
];

const leaders = new Map(ROWS.map((row) => [row.row, row]));
/** What a row shows, a follower its leader's outcome, as Finalize reads them (standing-rows.ts). */
const shown = (row: (typeof ROWS)[number]) => {
  const leader = row.follows === undefined ? undefined : leaders.get(row.follows);
  return resultNow(
    row,
    leader ? { row: leader.row, status: leader.status, result: leader.result } : undefined,
  );
};

describe('summary.json under check_below', () => {
  it('counts rows to check and rows approved, each follower as its leader', () => {
    // Prepare
    const tally = summaryTally();

    // Act
    for (const row of ROWS) tally.add(row, shown(row));
    const summary = tally.summary(batchRecord({ state: 'completed' }), NOW);

    // Assess
    expect(BatchSummary.parse(summary)).toEqual(summary);
    expect(summary.checks).toEqual({ to_check: 4, approved: 2 });
    expect(summary.by_status).toMatchObject({ resolved: 5, reused: 2 });
  });

  it('counts the same when the tally goes on from an earlier leg’s counts', () => {
    // Prepare
    const first = summaryTally();
    for (const row of ROWS.slice(0, 4)) first.add(row, shown(row));

    // Act
    const second = summaryTally(first.counts());
    for (const row of ROWS.slice(4)) second.add(row, shown(row));

    // Assess
    expect(second.summary(batchRecord({ state: 'completed' }), NOW).checks).toEqual({
      to_check: 4,
      approved: 2,
    });
  });
});
