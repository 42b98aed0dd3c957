/**
 * results.xlsx: the same rows and values as results.csv, made to be opened by a person, with the
 * summary and the rows whose declared NCM diverges on sheets of their own. Written a row at a time
 * by results-workbook-writer.ts: Finalize drives that writer across legs; here it runs in one go as
 * a stream, for files written from records at once (the outbox of a batch that has no record, tests).
 */
import { Readable } from 'node:stream';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { checkedAgainst } from '../core/ncm-in-force.js';
import type { ReviewItem, RowRecord } from '../core/records.js';
import type { ShownResult } from '../core/result-columns.js';
import { resultNow } from '../core/row-life.js';
import { type OutboxWorkbooks, resultsInputWidth, type ShownRow } from './results-files.js';
import type { ShownSummary } from './results-summary-sheet.js';
import {
  openResultsWorkbook,
  type ResultsWorkbookWriter,
  ROWS_MEASURED_FOR_WIDTH,
  type WorkbookBatch,
} from './results-workbook-writer.js';
import { reviewWorkbook } from './review-workbook.js';

/**
 * What results.xlsx is made from: the batch, its summary, the NCM table in force, and the rows,
 * either held in memory or read (twice at most) as the workbook is written.
 */
export type ResultsWorkbookInput = {
  batch: WorkbookBatch;
  summary: ShownSummary;
  /** The NCM table in force: each row's codes checked against it, the divergence sheet's descriptions. */
  table?: NcmTable | undefined;
} & (
  | {
      rows: readonly RowRecord[];
      /** A row's output columns; a partial file shows rows still on their way with their working status. */
      resultFor?: (row: RowRecord) => ShownResult;
    }
  | {
      /**
       * The rows in row order, each with what it shows, read as the workbook is written: once for
       * the results sheet, again for the divergence sheet when any row diverges.
       */
      shownRows: () => AsyncIterable<ShownRow>;
      /** How many input columns: the header's, or more when a row is longer (`resultsInputWidth`). */
      width: number;
    }
);

async function* inRowOrder(rows: readonly RowRecord[], resultFor: (row: RowRecord) => ShownResult) {
  for (const row of [...rows].sort((a, b) => a.row - b.row)) yield { row, result: resultFor(row) };
}

/** Each row's bytes from `add`, those that are not empty. */
async function* added(workbook: ResultsWorkbookWriter, rows: AsyncIterable<ShownRow>) {
  for await (const shown of rows) {
    const bytes = workbook.add(shown);
    if (bytes.length > 0) yield bytes;
  }
}

/**
 * The moment a workbook is dated: a partial summary's `as_of`, else the summary's `finished_at`,
 * never the clock, so a step run twice writes the same bytes.
 */
export const summaryTime = (summary: ShownSummary): Date =>
  new Date((summary.partial ? summary.as_of : undefined) ?? summary.finished_at);

/** The whole workbook in one leg, a chunk at a time, the rows read as the chunks are taken. */
async function* resultsWorkbookChunks(input: ResultsWorkbookInput): AsyncGenerator<Uint8Array> {
  const { table } = input;
  const shownNow = (row: RowRecord) => checkedAgainst(resultNow(row), row.product?.current_ncm, table);
  const { width, shownRows } =
    'shownRows' in input
      ? input
      : {
          width: resultsInputWidth(input.batch, input.rows),
          shownRows: () => inRowOrder(input.rows, input.resultFor ?? shownNow),
        };
  const iterator = shownRows()[Symbol.asyncIterator]();
  let workbook: ResultsWorkbookWriter;
  try {
    const measured: ShownRow[] = [];
    let next = await iterator.next();
    for (; !next.done && measured.length < ROWS_MEASURED_FOR_WIDTH; next = await iterator.next())
      measured.push(next.value);
    workbook = openResultsWorkbook({
      batch: input.batch,
      width,
      measured,
      at: summaryTime(input.summary),
      table,
    });
    for (const shown of measured.splice(0)) {
      const bytes = workbook.add(shown);
      if (bytes.length > 0) yield bytes;
    }
    for (; !next.done; next = await iterator.next()) {
      const bytes = workbook.add(next.value);
      if (bytes.length > 0) yield bytes;
    }
  } finally {
    await iterator.return?.();
  }
  if (workbook.divergent > 0) {
    yield workbook.listDivergences();
    yield* added(workbook, shownRows());
  }
  yield workbook.finish(input.summary);
}

/**
 * results.xlsx as a stream: give it to an upload as its body. Rows are read only as fast as the
 * upload takes the bytes, so a slow reader slows the writing instead of it piling up in memory.
 */
export const resultsWorkbook = (input: ResultsWorkbookInput): Readable =>
  Readable.from(resultsWorkbookChunks(input), { objectMode: false });

/** The outbox's two workbooks, made from what its CSVs are made from, both as of the summary's time. */
export const outboxWorkbooks = (input: {
  batch: WorkbookBatch;
  rows: readonly RowRecord[];
  summary: ShownSummary;
  review: readonly ReviewItem[];
  sameProductRows?: ReadonlyMap<number, readonly number[]>;
}): OutboxWorkbooks => ({
  results: () => resultsWorkbook({ batch: input.batch, rows: input.rows, summary: input.summary }),
  review: () =>
    reviewWorkbook({
      batch: input.batch,
      items: input.review,
      ...(input.sameProductRows ? { sameProductRows: input.sameProductRows } : {}),
      at: summaryTime(input.summary),
    }),
});
