/**
 * The first verdict in minutes, whatever the file's size. In exposure order Prepare does not wait
 * for every row to be stored before it sends any: storing 400,000 rows takes minutes, and the most
 * exposed products are known once the survey has read the file. So, after the survey:
 *
 *   count   every row planned again (the joins made, as every leg makes them), nothing written:
 *           the counts the batch needs before any message (rows, shards, followers, the wait),
 *           each queued leader's product rank, and the first window's rows kept (a window's worth)
 *   open    those rows stored, the completion shards, the batch `running` with `storing`, the
 *           window sent: the first POST follows within seconds
 *   store   every other row stored, a chunk at a time, in legs (the next leg counts again, then
 *           goes on where this one stopped); `storing` cleared once the last is stored
 *
 * A queued leader's place is its product's rank among the queued leaders only: 1, 2, 3… with no
 * gap (`denseOf`), so the dispatcher, reading places as the rows are stored, stops at the first
 * place not stored yet and never skips one (dispatch/rows-window.ts).
 */
import type { PipelinePorts } from '../core/ports.js';
import { type RowRecord, shardOfRow } from '../core/records.js';
import { MAX_WINDOW_ROWS, sendOrderWindowSize, windowSizeFor } from '../dispatch/rows-window.js';
import { bornRowsCounter } from './born-rows.js';
import type { RankedExposure } from './exposure-order.js';
import { type PlannedBatch, recordChunks, rowValueCents } from './prepare-passes.js';
import { budgetOf, type RowPlan, rowRecordPlanner } from './row-plans.js';

type CountPorts = Parameters<typeof recordChunks>[0] & Pick<PipelinePorts, 'clock'>;

/**
 * Takes the queued leaders' product ranks and gives the dense place of a rank: its position among
 * them, 1 first (undefined for a rank no queued leader holds).
 */
export const densePlaces = (ranks: readonly number[]): ((rank: number | undefined) => number | undefined) => {
  const sorted = Float64Array.from(ranks).sort();
  return (rank) => {
    if (rank === undefined) return undefined;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle]! < rank) low = middle + 1;
      else high = middle;
    }
    return sorted[low] === rank ? low + 1 : undefined;
  };
};

/** Whether a batch's budget pays for a row's product (`rowRecordPlanner`'s `inBudget`). */
export type InBudget = (plan: Extract<RowPlan, { kind: 'valid' }>) => boolean;

/**
 * Takes a surveyed batch in exposure order and gives which products its budget (`max_usd`) pays
 * for: the most exposed ones it covers, wherever they are in the file, so a budget buys the rows
 * that matter first too. It plans every row once with no budget (nothing written, no join made)
 * to rank the products that would be classified; undefined, with no pass, when the batch has no
 * budget, and after the pass when the budget covers them all.
 */
export const exposureBudget = async (
  ports: Pick<CountPorts, 'cache' | 'reviews'>,
  batchId: string,
  planned: PlannedBatch & { exposure: { ranked: RankedExposure } },
  now: Date,
): Promise<InBudget | undefined> => {
  if (planned.options.max_usd === undefined) return undefined;
  const { max_usd: _paidFor, ...unlimited } = planned.options;
  const { placeOf } = planned.exposure.ranked;
  const planner = rowRecordPlanner(batchId, {
    options: unlimited,
    now,
    otherOrigins: planned.otherOrigins,
    placeOf,
  });
  const ranks: number[] = [];
  const reading = { cache: ports.cache, ...(ports.reviews ? { reviews: ports.reviews } : {}) };
  for await (const { records } of recordChunks(reading, planned, planner, { batchId, now, write: false }))
    for (const record of records)
      if (record.status === 'queued' && record.send_order !== undefined) ranks.push(record.send_order);
  const { budget } = budgetOf(planned.options);
  if (ranks.length <= budget) return undefined;
  // The rank of the last product paid for; a budget of no classification pays for none.
  const last = budget > 0 ? (Float64Array.from(ranks).sort()[budget - 1] ?? 0) : 0;
  return (plan) => (placeOf(plan) ?? Number.POSITIVE_INFINITY) <= last;
};

/** What counting a batch gives: its counts before any message, the places, and the first window's rows. */
export type CountedBatch = {
  total: number;
  queued: number;
  shards: Map<number, number>;
  born: ReturnType<typeof bornRowsCounter>;
  budgetProblem: ReturnType<ReturnType<typeof rowRecordPlanner>['budgetProblem']>;
  /** A queued leader's place from its product's rank. */
  placeOf: (rank: number | undefined) => number | undefined;
  /** The window's size: the usual one, or the whole batch when its queued rows are few and sparse. */
  windowSize: number;
  /** The first window's rows, places 1…size, with their places. */
  first: RowRecord[];
  /** Which products the budget pays for, when it leaves some out (`exposureBudget`). */
  inBudget?: InBudget;
};

/**
 * The count pass: takes a surveyed batch in exposure order and the cap, plans every row (joining
 * what joins, as any leg does) and writes no row; gives the counts, the places and the first
 * window's rows, most exposed first: a window's worth, or the whole batch when its queued rows are
 * sparse and no more than a window ever holds (`sendOrderWindowSize`: a nightly export of a few
 * hundred products' variants, sent at once and never topped up). Memory holds a number a queued
 * row and a few hundred records.
 */
export const countBatch = async (
  ports: CountPorts,
  batchId: string,
  planned: PlannedBatch & { exposure: { ranked: RankedExposure } },
  cap: number,
): Promise<CountedBatch> => {
  const now = ports.clock.now();
  const inBudget = await exposureBudget(ports, batchId, planned, now);
  const planner = rowRecordPlanner(batchId, {
    options: planned.options,
    now,
    otherOrigins: planned.otherOrigins,
    placeOf: planned.exposure.ranked.placeOf,
    coversValueOf: planned.exposure.ranked.coversValueOf,
    ...(inBudget ? { inBudget } : {}),
  });
  // Enough first rows for a window sent whole (sendOrderWindowSize): known only once all are counted.
  const keep = Math.max(MAX_WINDOW_ROWS, windowSizeFor(cap));
  const shards = new Map<number, number>();
  const born = bornRowsCounter(rowValueCents(planned));
  const ranks: number[] = [];
  let first: RowRecord[] = [];
  let total = 0;
  const byRank = (a: RowRecord, b: RowRecord) => (a.send_order ?? 0) - (b.send_order ?? 0);
  const join = { batchId, now, write: true };
  // No service: the tariffs of a reused row's other origins are looked up once, when it is stored.
  const counting = { cache: ports.cache, ...(ports.reviews ? { reviews: ports.reviews } : {}) };
  for await (const { records } of recordChunks(counting, planned, planner, join)) {
    total += records.length;
    born.add(records);
    for (const record of records) {
      if (record.status !== 'queued') continue;
      shards.set(shardOfRow(record.row), (shards.get(shardOfRow(record.row)) ?? 0) + 1);
      // Every queued leader has its product's rank: the survey counted the same rows.
      if (record.send_order === undefined) throw new Error(`row ${record.row} is queued without a place`);
      ranks.push(record.send_order);
      first.push(record);
      if (first.length >= 2 * keep) first = first.sort(byRank).slice(0, keep);
    }
  }
  const placeOf = densePlaces(ranks);
  const windowSize = sendOrderWindowSize(cap, ranks.length, total);
  return {
    total,
    queued: ranks.length,
    shards,
    born,
    budgetProblem: planner.budgetProblem(),
    placeOf,
    windowSize,
    first: first
      .sort(byRank)
      .slice(0, windowSize)
      .map((record) => ({ ...record, send_order: placeOf(record.send_order) })),
    ...(inBudget ? { inBudget } : {}),
  };
};
