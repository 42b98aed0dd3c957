/**
 * Rows of the same product share one classification (docs/architecture.md, property 11).
 *
 *   row 3  (first of its fingerprint)  ─▶ classified, billed once
 *   row 9  follows 3                   ─▶ never dispatched; takes row 3's outcome at USD 0.00
 *
 * A follower's result is always derived from its leader's, never stored independently: Finalize,
 * FinalizeAnswers and the partial results derive it again whenever the leader's changes (an
 * answers round, a classification abandoned), so one answer resumes every row of the product.
 * Pure but for `settleFollowers`, which writes what changed through the batch store.
 */
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import type { BatchStore } from './ports.js';
import { isOutputStatus, type OutputStatus, type RowRecord, type RowResult } from './records.js';
import { currentNcmMatches, resultNcmDigits } from './row-results.js';

/** What a follower says about the row it follows, before that row's own detail. */
export const followerDetail = (leaderRow: number, leaderStatus: OutputStatus): string => {
  const shared = `Same product as row ${leaderRow} (operation, country, description and sheet identical)`;
  switch (leaderStatus) {
    case 'resolved':
      return `${shared}: classified once, there; no charge for this row.`;
    case 'pending_data':
      return `${shared}: answer the questions once, on row ${leaderRow} of review.csv; this row resumes with it.`;
    default:
      return `${shared}: this row shares its outcome.`;
  }
};

/**
 * A follower's result: its leader's columns, at no cost, with a detail naming the leader and the
 * follower's own comparison with the NCM it declared.
 */
export const followerResult = (
  leader: Pick<RowRecord, 'row' | 'status' | 'result'>,
  follower: Pick<RowRecord, 'product'>,
): RowResult => {
  const result: RowResult = leader.result ?? {
    status: isOutputStatus(leader.status) ? leader.status : 'error',
  };
  const ncm = resultNcmDigits(result);
  return {
    ...result,
    detail: [followerDetail(leader.row, result.status), result.detail].filter(Boolean).join(' '),
    cost_usd: '0.00',
    ...(ncm ? { current_ncm_matches: currentNcmMatches(follower.product?.current_ncm ?? null, ncm) } : {}),
  };
};

const sameResult = (a: RowResult | undefined, b: RowResult): boolean => {
  if (!a) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof RowResult>;
  return [...keys].every((key) => (a[key] ?? '') === (b[key] ?? ''));
};

/**
 * The result each follower has now, by row: derived from its leader's when the leader is final.
 * Followers of a leader still working are left out. Pure: the partial results show these.
 */
export const followerResultsNow = (rows: readonly RowRecord[]): Map<number, RowResult> => {
  const byNumber = new Map(rows.map((row) => [row.row, row]));
  const results = new Map<number, RowResult>();
  for (const row of rows) {
    const leader = row.follows === undefined ? undefined : byNumber.get(row.follows);
    if (leader && isOutputStatus(leader.status)) results.set(row.row, followerResult(leader, row));
  }
  return results;
};

/**
 * Every follower whose leader is final gets the result derived from it now, in `rows` too; a
 * follower already holding that result is left alone, so running this twice writes nothing more.
 * Not `onlyIfNotFinal`: a follower's `pending_data` becomes what its leader's answers led to.
 * Returns how many rows changed.
 */
export const settleFollowers = async (
  batches: Pick<BatchStore, 'updateRow'>,
  batchId: string,
  rows: RowRecord[],
  now: Date,
): Promise<number> => {
  const derived = followerResultsNow(rows);
  let changed = 0;
  for (const [index, row] of rows.entries()) {
    const result = derived.get(row.row);
    if (!result || (row.status === result.status && sameResult(row.result, result))) continue;
    const at = now.toISOString();
    const patch = { status: result.status, result, finished_at: at, updated_at: at };
    await batches.updateRow(batchId, row.row, patch);
    rows[index] = { ...row, ...patch };
    changed += 1;
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
