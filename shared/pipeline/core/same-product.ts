/**
 * Rows of the same product share one classification (docs/architecture.md, property 11).
 *
 *   row 3  (first of its fingerprint)  ─▶ classified, billed once
 *   row 9  follows 3                   ─▶ never dispatched; takes row 3's outcome at USD 0.00
 *
 * A follower's result is always derived from its leader's, never stored independently: Finalize,
 * FinalizeAnswers and the partial results derive it again whenever the leader's changes (an
 * answers round, a classification abandoned), so one answer resumes every row of the product.
 * What a follower shows is row-life.ts's `resultNow`; here, the writes and counts around it. Pure but
 * for `settleFollowers`, which moves what changed through the batch store.
 */
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import type { BatchStore } from './ports.js';
import type { RowRecord, RowResult } from './records.js';
import { afterMove, isFinalResult, leadersOf, type RowMove, resultNow } from './row-life.js';

const sameResult = (a: RowResult | undefined, b: RowResult): boolean => {
  if (!a) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof RowResult>;
  return [...keys].every((key) => (a[key] ?? '') === (b[key] ?? ''));
};

/**
 * Every follower whose leader is final gets the result derived from it now, in `rows` too; a
 * follower already holding that result is left alone, so running this twice writes nothing more.
 * The `followed` move, from any status a follower holds: its `pending_data` becomes what its leader's answers led to.
 * Returns how many rows changed.
 */
export const settleFollowers = async (
  batches: Pick<BatchStore, 'moveRow'>,
  batchId: string,
  rows: RowRecord[],
  now: Date,
): Promise<number> => {
  const leaderOf = leadersOf(rows);
  let changed = 0;
  for (const [index, row] of rows.entries()) {
    const leader = leaderOf(row);
    if (!leader) continue;
    const result = resultNow(row, leader);
    if (!isFinalResult(result) || (row.status === result.status && sameResult(row.result, result))) continue;
    const move: RowMove = { move: 'followed', result, at: now.toISOString() };
    if (await batches.moveRow(batchId, row.row, move)) {
      rows[index] = afterMove(row, move);
      changed += 1;
    }
  }
  return changed;
};

/** Rows by the row they follow: review.csv lists a product once, with the rows it covers. */
export const followersByLeader = (
  rows: readonly Pick<RowRecord, 'row' | 'follows'>[],
): Map<number, number[]> => {
  const byLeader = new Map<number, number[]>();
  for (const row of rows) {
    if (row.follows === undefined) continue;
    byLeader.set(row.follows, [...(byLeader.get(row.follows) ?? []), row.row]);
  }
  for (const followers of byLeader.values()) followers.sort((a, b) => a - b);
  return byLeader;
};

/**
 * What sharing classifications saved: the rows that followed another, and what their own
 * classifications would have cost (those whose shared classification resolved).
 */
export const duplicateSavings = (
  rows: readonly Pick<RowRecord, 'follows' | 'status' | 'result'>[],
): { rows: number; saved_usd: number } => {
  const followers = rows.filter((row) => row.follows !== undefined);
  const resolved = followers.filter((row) => (row.result?.status ?? row.status) === 'resolved').length;
  return { rows: followers.length, saved_usd: Math.round(resolved * PRICE_PER_RESOLVED_USD * 100) / 100 };
};
