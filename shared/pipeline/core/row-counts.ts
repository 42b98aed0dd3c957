/**
 * A batch's rows counted without reading them: what Prepare knew as it wrote them (`born`), the
 * dispatched rows counted as they finished, each with its followers (`FinishedRows`, kept by
 * `BatchStore.markRowDone`), and the slot leases the batch's rows hold now. What a page or a
 * progress line shows of a running batch costs the same at 100 rows and at 400,000:
 *
 *   output status s   born.final[s] + finished.rows[s] + finished.followers[s]
 *   following         born.following − Σ finished.followers
 *   working           rows_dispatched − Σ finished.rows: in_progress as many as leases held, the rest queued
 *
 * A row between its lease's release and its count (Store, Review, Complete: seconds) shows as
 * queued; `submitting` is never told apart from `in_progress`. A finished batch reads its
 * summary.json instead: Finalize ends rows still working without counting them.
 */
import * as z from 'zod';
import { OUTPUT_STATUSES, OutputStatus, type RowStatus } from './row-statuses.js';

/** A count of rows by the output status they show, zeros left out. */
export const OutputCounts = z.partialRecord(OutputStatus, z.number().int().min(0));
export type OutputCounts = z.infer<typeof OutputCounts>;

/**
 * What Prepare knew of a batch's rows as it wrote them: the rows final at birth (rejected, reused,
 * left out by the budget, and their followers) by status, the followers waiting on a queued row,
 * and what the rows final at birth billed.
 */
export const BornRows = z.object({
  final: OutputCounts.default({}),
  following: z.number().int().min(0).default(0),
  billed_cents: z.number().int().min(0).default(0),
  /**
   * The value (of the file's value column, in cents) of the rows final at birth with a verdict:
   * reused, and their followers. Zero where the file gives no value.
   */
  value_cents: z.number().int().min(0).default(0),
});
export type BornRows = z.infer<typeof BornRows>;

/**
 * Dispatched rows counted as they finished (`BatchStore.markRowDone`): on each completion shard,
 * and on the batch item once a shard is complete (its counts rolled up in the same write that
 * adds it to `complete_shards`). A follower shows its leader's outcome, so it is counted with it.
 */
export const FinishedRows = z.object({
  /** The dispatched rows, by the status they finished with. */
  rows: OutputCounts.default({}),
  /** Their followers, by the same status. */
  followers: OutputCounts.default({}),
  billed_cents: z.number().int().min(0).default(0),
  /** The value (in cents) the rows that finished resolved carry, their followers' included. */
  value_cents: z.number().int().min(0).default(0),
  /** When the last counted row finished (ISO), for the pace. */
  last_at: z.string().optional(),
});
export type FinishedRows = z.infer<typeof FinishedRows>;

/** The count of a batch none of whose dispatched rows has finished yet. */
export const NOTHING_FINISHED: FinishedRows = { rows: {}, followers: {}, billed_cents: 0, value_cents: 0 };

const sumOf = (counts: OutputCounts): number => Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);

/** Adds two counts of finished rows, status by status, and keeps the later `last_at`. */
export const addFinished = (a: FinishedRows, b: FinishedRows): FinishedRows => {
  const add = (x: OutputCounts, y: OutputCounts) => {
    const total: OutputCounts = { ...x };
    for (const [status, count] of Object.entries(y) as [OutputStatus, number][])
      total[status] = (total[status] ?? 0) + count;
    return total;
  };
  const lastAt = [a.last_at, b.last_at]
    .filter((at): at is string => at !== undefined)
    .sort()
    .at(-1);
  return {
    rows: add(a.rows, b.rows),
    followers: add(a.followers, b.followers),
    billed_cents: a.billed_cents + b.billed_cents,
    value_cents: a.value_cents + b.value_cents,
    ...(lastAt ? { last_at: lastAt } : {}),
  };
};

/** A batch's rows as a page or a progress line shows them: by status, done, billed, saved, and the pace. */
export type CountedRows = {
  /** Rows by the status they show now, zeros left out. */
  byStatus: Partial<Record<RowStatus, number>>;
  rows: number;
  /** Rows with an output status. */
  done: number;
  billedCents: number;
  /** Rows that cost nothing thanks to an earlier verdict: reused, or following a resolved row. */
  savedRows: number;
  /** When the last counted row finished, for the pace; null before any. */
  lastFinishedAt: string | null;
  /**
   * What matters first: the rows with a verdict now (resolved or reused, followers included), the
   * value they carry out of the file's (null where it gives none), and the classifications over
   * (rows sent that have ended) out of all the batch sends.
   */
  covered: {
    rows: number;
    valueCents: number;
    valueTotalCents: number | null;
    classifications: number;
    classificationsTotal: number;
  };
};

/**
 * Takes a batch's counted rows and gives, in whole percents, the share of its rows with a verdict,
 * of its value (null where the file gives none) and of its classifications over: "61 % of the
 * rows, 74 % of the value, after 9 % of the classifications".
 */
export const coverageShares = (counted: Pick<CountedRows, 'rows' | 'covered'>) => ({
  rows: counted.rows > 0 ? Math.floor((counted.covered.rows / counted.rows) * 100) : 0,
  value:
    counted.covered.valueTotalCents && counted.covered.valueTotalCents > 0
      ? Math.min(100, Math.floor((counted.covered.valueCents / counted.covered.valueTotalCents) * 100))
      : null,
  classifications:
    counted.covered.classificationsTotal > 0
      ? Math.floor((counted.covered.classifications / counted.covered.classificationsTotal) * 100)
      : 0,
});

/**
 * Counts a batch's (or an answers round's) rows now from its record, its finished rows and how
 * many leases its rows hold (`inFlight`), without reading a row: the same cost at any size.
 */
export const countedRows = (
  // The batch record's fields (records.ts imports this file's schemas, so they are named here).
  batch: {
    rows_total: number;
    rows_dispatched: number;
    born?: BornRows | undefined;
    exposure?: { value_total_cents?: number | undefined } | undefined;
  },
  finished: FinishedRows,
  inFlight: number,
): CountedRows => {
  const byStatus: Partial<Record<RowStatus, number>> = {};
  const put = (status: RowStatus, count: number) => {
    if (count > 0) byStatus[status] = count;
  };
  let done = 0;
  for (const status of OUTPUT_STATUSES) {
    const count =
      (batch.born?.final[status] ?? 0) + (finished.rows[status] ?? 0) + (finished.followers[status] ?? 0);
    put(status, count);
    done += count;
  }
  put('following', Math.max(0, (batch.born?.following ?? 0) - sumOf(finished.followers)));
  const working = Math.max(0, batch.rows_dispatched - sumOf(finished.rows));
  const running = Math.min(working, Math.max(0, inFlight));
  put('in_progress', running);
  put('queued', working - running);
  return {
    byStatus,
    rows: batch.rows_total,
    done,
    billedCents: (batch.born?.billed_cents ?? 0) + finished.billed_cents,
    savedRows: (byStatus.reused ?? 0) + (finished.followers.resolved ?? 0),
    lastFinishedAt: finished.last_at ?? null,
    covered: {
      rows: (byStatus.resolved ?? 0) + (byStatus.reused ?? 0),
      valueCents: (batch.born?.value_cents ?? 0) + finished.value_cents,
      valueTotalCents: batch.exposure?.value_total_cents ?? null,
      classifications: Math.min(batch.rows_dispatched, sumOf(finished.rows)),
      classificationsTotal: batch.rows_dispatched,
    },
  };
};
