/**
 * What Prepare counts of the rows it writes, chunk after chunk in row order, so a page reads the
 * batch's counts instead of its rows:
 *
 *   rows final at birth (rejected, reused, not sent)    born.final by status
 *   a follower of a queued row                          born.following, and +1 on its leader's
 *                                                       follower count (the completion shard's, so
 *                                                       the leader is counted with its followers)
 *   a follower of a row final at birth                  born.final, by its leader's status
 *
 * It remembers only the rows final at birth that other rows may follow (a few, if any), and one
 * number per queued row that has followers: never the rows.
 */
import type { RowRecord } from '../core/records.js';
import type { BornRows, OutputCounts } from '../core/row-counts.js';
import { isOutputStatus, type OutputStatus } from '../core/row-statuses.js';

/** Statuses whose rows no other row follows: their products' rows share the same outcome at birth. */
const NEVER_LEADING: ReadonlySet<OutputStatus> = new Set(['rejected', 'reused', 'not_submitted']);

/**
 * Takes how to read a row's value in cents (none: the file gives no value) and gives a counter
 * Prepare feeds its row records, chunk after chunk in row order: it gives the batch's counts at
 * birth (`born`, with the value of the rows final with a verdict) and how many followers each
 * queued row has (`followers`).
 */
export const bornRowsCounter = (valueCentsOf: (record: RowRecord) => number = () => 0) => {
  const final: OutputCounts = {};
  let following = 0;
  let billedCents = 0;
  let valueCents = 0;
  const followersOf = new Map<number, number>();
  const finalLeaders = new Map<number, OutputStatus>();
  const countFinal = (status: OutputStatus) => {
    final[status] = (final[status] ?? 0) + 1;
  };
  const withVerdict = (status: OutputStatus, record: RowRecord) => {
    if (status === 'resolved' || status === 'reused') valueCents += valueCentsOf(record);
  };
  return {
    add: (records: readonly RowRecord[]): void => {
      for (const record of records) {
        if (isOutputStatus(record.status)) {
          countFinal(record.status);
          withVerdict(record.status, record);
          const cost = Number(record.result?.cost_usd ?? 0);
          if (Number.isFinite(cost) && cost > 0) billedCents += Math.round(cost * 100);
          if (record.fingerprint !== undefined && !NEVER_LEADING.has(record.status))
            finalLeaders.set(record.row, record.status);
          continue;
        }
        if (record.status !== 'following' || record.follows === undefined) continue;
        const leaderStatus = finalLeaders.get(record.follows);
        if (leaderStatus !== undefined) {
          countFinal(leaderStatus);
          withVerdict(leaderStatus, record);
          continue;
        }
        following += 1;
        followersOf.set(record.follows, (followersOf.get(record.follows) ?? 0) + 1);
      }
    },
    /** The counts so far, as the batch record keeps them (`BatchRecord.born`). */
    born: (): BornRows => ({
      final: { ...final },
      following,
      billed_cents: billedCents,
      value_cents: valueCents,
    }),
    /** Each queued row's followers, for `putCompletionShards`. */
    followers: (): ReadonlyMap<number, number> => followersOf,
  };
};
