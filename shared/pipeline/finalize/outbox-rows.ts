/**
 * What a batch's outbox files are written from, read a page at a time (Finalize, and
 * FinalizeAnswers when the answers move a batch's results forward): a tally pass that adds up
 * what each row shows and finds the rows waiting for answers, and the rows again as the files
 * show them, a reused verdict linking its copy in this batch's `pdfs/`.
 *
 * What is held grows with the rows waiting for answers (review.csv lists them), never with the
 * batch's rows.
 */

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import * as z from 'zod';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { finalizeWorkKey, reusedPdfRelative } from '../core/bucket-layout.js';
import type { BatchStore, ObjectStore } from '../core/ports.js';
import type { BatchRecord } from '../core/records.js';
import { isFinalResult } from '../core/row-life.js';
import { RowStatus } from '../core/row-statuses.js';
import type { ShownRow } from '../outbox/results-files.js';
import { amountOf } from '../prepare/exposure-order.js';
import { isPendingPdfCopy } from '../reuse/reuse.js';
import { standingRows } from './standing-rows.js';
import { SummaryCounts, summaryTally } from './summary-tally.js';

type RowsRead = Pick<BatchStore, 'rowsPage' | 'getRow'>;

/**
 * What adding up a batch's rows learns, enough to write summary.json, review.csv and to-check.csv
 * without reading the rows again: the counts, the file's width, and the rows waiting for a person.
 */
export type TallyRead = {
  tally: ReturnType<typeof summaryTally>;
  /** The input columns results files carry: the header's, or more when a row is longer. */
  width: number;
  /** Rows waiting for answers under their own classification (their review items are listed). */
  pendingRows: Set<number>;
  /**
   * The rows that resume with a waiting row's answers (review.csv's `same_product_rows`), and the
   * rows a decision on a verdict to check decides together with its item's row (to-check.csv's).
   */
  sameProductRows: Map<number, number[]>;
  /** The first row of each reused verdict to check, by classification: the row its item is on. */
  checkLeads: Map<string, number>;
  /** The answers rounds that resumed a row of the batch. */
  rounds: Set<string>;
  /** Rows still working, by status (a running batch's partial results say them). */
  working: Partial<Record<RowStatus, number>>;
  /**
   * What matters first, as the rows stand: the rows with a verdict (resolved or reused, a follower
   * as its leader), and the value of the file's value column (`batch.exposure.value_header`) in
   * those rows and in all the rows; zero where the file gives no value.
   */
  covered: Covered;
};

const Covered = z.object({
  rows: z.number().int().min(0),
  value: z.number().min(0),
  value_total: z.number().min(0),
});
type Covered = z.infer<typeof Covered>;

/**
 * A `TallyRead` as plain JSON, saved between legs in the bucket's `work/` rather than in the
 * workflow's state, because the rows waiting for answers can be far more than that state holds.
 */
export const TallyState = z.object({
  counts: SummaryCounts,
  width: z.number().int().min(0),
  pending_rows: z.array(z.number().int()),
  same_product_rows: z.array(z.tuple([z.number().int(), z.array(z.number().int())])),
  check_leads: z.array(z.tuple([z.string(), z.number().int()])).default([]),
  rounds: z.array(z.string()),
  working: z.partialRecord(RowStatus, z.number().int().min(0)),
  covered: Covered.default({ rows: 0, value: 0, value_total: 0 }),
});
export type TallyState = z.infer<typeof TallyState>;

/** The JSON form of a tally, to save; `pageTally(batch, state)` turns it back into the same tally. */
const tallyState = (read: TallyRead): TallyState => ({
  counts: read.tally.counts(),
  width: read.width,
  pending_rows: [...read.pendingRows],
  same_product_rows: [...read.sameProductRows],
  check_leads: [...read.checkLeads],
  rounds: [...read.rounds],
  working: { ...read.working },
  covered: { ...read.covered },
});

/**
 * Where a tally waits between legs: named by the row it reached (or `whole`) and, for a run that
 * is not the batch's Finalize, by the run, so a retried leg reads what its first attempt read.
 */
export const tallyKey = (batchId: string, at: number | 'whole', run?: string): string =>
  finalizeWorkKey(batchId, `${run ? `${run}/` : ''}tally.${at}.json`);

/** Saves a tally as JSON under `key` (from `tallyKey`), for the next leg to load. */
export const saveTally = async (
  objects: Pick<ObjectStore, 'put'>,
  key: string,
  read: TallyRead,
): Promise<void> => {
  await objects.put(key, JSON.stringify(tallyState(read)), 'application/json');
};

/**
 * Loads the tally an earlier leg saved under `key`; throws if it is gone, since the counts cannot be
 * rebuilt here.
 */
export const loadTally = async (objects: Pick<ObjectStore, 'getBytes'>, key: string): Promise<TallyState> => {
  const bytes = await objects.getBytes(key);
  if (!bytes) throw new Error(`The tally kept between legs is gone (${key}).`);
  return TallyState.parse(JSON.parse(new TextDecoder().decode(bytes)));
};

/**
 * A tally that starts empty (or from a saved `TallyState`) and grows by `add(page)`, a page of rows
 * with their shown results at a time; `read` is what it has learned so far.
 */
export const pageTally = (batch: Pick<BatchRecord, 'header' | 'exposure'>, from?: TallyState) => {
  const read: TallyRead = from
    ? {
        tally: summaryTally(from.counts),
        width: from.width,
        pendingRows: new Set(from.pending_rows),
        sameProductRows: new Map(from.same_product_rows),
        checkLeads: new Map(from.check_leads),
        rounds: new Set(from.rounds),
        working: { ...from.working },
        covered: { ...from.covered },
      }
    : {
        tally: summaryTally(),
        width: batch.header.length,
        pendingRows: new Set(),
        sameProductRows: new Map(),
        checkLeads: new Map(),
        rounds: new Set(),
        working: {},
        covered: { rows: 0, value: 0, value_total: 0 },
      };
  const valueHeader = batch.exposure?.value_header;
  const valueColumn = valueHeader === undefined ? -1 : batch.header.indexOf(valueHeader);
  const sameProductAs = (lead: number, row: number) => {
    // Pushed, not copied: a product of 2,000 waiting rows would copy its list 2,000 times.
    const followers = read.sameProductRows.get(lead);
    if (followers) followers.push(row);
    else read.sameProductRows.set(lead, [row]);
  };
  /** A row to check: a follower, or a reused row after its verdict's first, is listed beside that row. */
  const checkedWith = (row: ShownRow['row']): number | undefined => {
    if (row.follows !== undefined) return row.follows;
    if (row.status !== 'reused' || row.classification_id === undefined) return undefined;
    const first = read.checkLeads.get(row.classification_id);
    if (first === undefined) read.checkLeads.set(row.classification_id, row.row);
    return first;
  };
  const add = (page: readonly ShownRow[]): void => {
    for (const { row, result } of page) {
      read.tally.add(row, result);
      read.width = Math.max(read.width, row.cells.length);
      if (row.round) read.rounds.add(row.round.round_id);
      if (!isFinalResult(result)) read.working[result.status] = (read.working[result.status] ?? 0) + 1;
      const value = valueColumn < 0 ? 0 : (amountOf(row.cells[valueColumn] ?? '') ?? 0);
      read.covered.value_total += value;
      if (result.status === 'resolved' || result.status === 'reused') {
        read.covered.rows += 1;
        read.covered.value += value;
      }
      if (result.check === 'to_check') {
        const lead = checkedWith(row);
        if (lead !== undefined) sameProductAs(lead, row.row);
      }
      if (result.status !== 'pending_data') continue;
      if (row.follows === undefined) read.pendingRows.add(row.row);
      else sameProductAs(row.follows, row.row);
    }
  };
  return { add, read };
};

/** Reused rows link the copy in this batch's `pdfs/`, named from the kept key alone. */
async function* withPdfLinks(rows: AsyncIterable<ShownRow>): AsyncGenerator<ShownRow> {
  for await (const shown of rows) {
    const { result } = shown;
    if (isFinalResult(result) && isPendingPdfCopy(result))
      yield { ...shown, result: { ...result, verdict_pdf: reusedPdfRelative(result.verdict_pdf!) } };
    else yield shown;
  }
}

/**
 * The batch's rows as the outbox files show them, read a page at a time from after row `after`
 * (a later leg) or from the first, each reused verdict linking its copy in this batch's `pdfs/`.
 */
export const outboxRows = (
  batches: RowsRead,
  batchId: string,
  pageSize: number,
  after: number | null = null,
  table?: NcmTable,
): AsyncGenerator<ShownRow> => withPdfLinks(standingRows(batches, batchId, { pageSize, after, table }));

/**
 * The sha256 of bytes read as they come (a results.csv being made, or one stored, read by ranges):
 * two results files compared without holding either.
 */
export const sha256Of = async (chunks: AsyncIterable<Uint8Array> | Readable): Promise<string> => {
  const hash = createHash('sha256');
  for await (const chunk of chunks) hash.update(chunk as Uint8Array);
  return hash.digest('hex');
};
