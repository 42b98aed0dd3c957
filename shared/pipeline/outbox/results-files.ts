/**
 * The batch's output files, built from records. Pure: Finalize writes them, and an answers round
 * (docs/answers-round.md) writes them again when answered rows finish.
 *
 *   results.csv   every input row, input order: the input's cells as read, then RESULT_COLUMNS
 *   review.csv    the pending_data rows with their questions and empty answer columns
 *   summary.json  counts, money, timings, problems; also the detail of the Batch Completed event
 */
import type { Readable } from 'node:stream';
import * as z from 'zod';
import type { TableInForce } from '../../ncm-table/reference-table.js';
import { FALLBACK_LANGUAGE, type Language } from '../../spreadsheet/header-language.js';
import { ColumnUse } from '../../spreadsheet/input-report.js';
import type { Delimiter } from '../../spreadsheet/schemas.js';
import { formatNcm, writeCsv } from '../../spreadsheet/write-csv.js';
import { XLSX_CONTENT_TYPE } from '../../spreadsheet/xlsx-layout.js';
import { shownMessages, wordDetail } from '../../wording/index.js';
import { type Message, ShownMessage } from '../../wording/message.js';
import { BatchOptions } from '../core/batch-options-schema.js';
import { outboxKey } from '../core/bucket-layout.js';
import type { ObjectStore } from '../core/ports.js';
import {
  type BatchRecord,
  BatchSource,
  BatchState,
  BatchStop,
  type ReviewItem,
  type RowRecord,
} from '../core/records.js';
import { RESULT_COLUMNS, type ShownResult } from '../core/result-columns.js';
import { isFinalResult, resultNow } from '../core/row-life.js';
import { OUTPUT_STATUSES, type OutputStatus } from '../core/row-statuses.js';

/** The names of what every batch leaves in its outbox (`pdfs/` is the folder of verdict PDFs). */
export const OUTPUT_FILES = {
  results: 'results.csv',
  review: 'review.csv',
  summary: 'summary.json',
  pdfs: 'pdfs/',
  results_workbook: 'results.xlsx',
  review_workbook: 'review.xlsx',
} as const;

/**
 * The partial files' names in the outbox, beside the final results.csv, results.xlsx and
 * summary.json: written while a batch runs (finalize/partial-results.ts).
 */
export const PARTIAL_FILES = {
  results: 'results.partial.csv',
  results_workbook: 'results.partial.xlsx',
  summary: 'summary.partial.json',
} as const;

/** The content type every CSV of the outbox is stored with. */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** The two workbooks beside the CSVs, each a function that makes its bytes as they are uploaded. */
export type OutboxWorkbooks = { results: () => Readable; review: () => Readable };

/**
 * A batch's outputs in its outbox, as Finalize and FinalizeAnswers write them: results.csv and
 * results.xlsx, review.csv and review.xlsx, then summary.json, last, so a summary in the outbox
 * means the others are there.
 */
export const writeOutboxFiles = async (
  objects: Pick<ObjectStore, 'put'>,
  batchId: string,
  files: {
    /** The bytes, or a stream of them made as the batch is read (an upload in parts on AWS). */
    results: Uint8Array | (() => Readable);
    review: Uint8Array;
    workbooks: OutboxWorkbooks;
    summary: unknown;
  },
): Promise<void> => {
  const results = typeof files.results === 'function' ? files.results() : files.results;
  await objects.put(outboxKey(batchId, OUTPUT_FILES.results), results, CSV_CONTENT_TYPE);
  await objects.put(
    outboxKey(batchId, OUTPUT_FILES.results_workbook),
    files.workbooks.results(),
    XLSX_CONTENT_TYPE,
  );
  await writeReviewFiles(objects, batchId, {
    review: files.review,
    workbook: files.workbooks.review,
    summary: files.summary,
  });
};

/**
 * Writes the outbox's last files, once the results files are there: review.csv and .xlsx, then
 * summary.json.
 */
export const writeReviewFiles = async (
  objects: Pick<ObjectStore, 'put'>,
  batchId: string,
  files: { review: Uint8Array; workbook: () => Readable; summary: unknown },
): Promise<void> => {
  await objects.put(outboxKey(batchId, OUTPUT_FILES.review), files.review, CSV_CONTENT_TYPE);
  await objects.put(outboxKey(batchId, OUTPUT_FILES.review_workbook), files.workbook(), XLSX_CONTENT_TYPE);
  await objects.put(
    outboxKey(batchId, OUTPUT_FILES.summary),
    JSON.stringify(files.summary, null, 2),
    'application/json',
  );
};

// ---------------------------------------------------------------------------
// results.csv
// ---------------------------------------------------------------------------

/** The NCM columns as text Excel keeps (`0901.21.00`); already dotted values pass unchanged. */
const NCM_COLUMNS: ReadonlySet<string> = new Set(['ncm', 'sim_code']);

const resultCell = (
  row: RowRecord,
  result: ShownResult,
  column: (typeof RESULT_COLUMNS)[number],
  language: Language | undefined,
): string => {
  if (column === 'row') return String(row.row);
  if (column === 'status') return result.status;
  // The detail in the language the batch chose for its files; `reason` keeps the code for machines.
  if (column === 'detail' && language !== undefined && (result.detail_messages?.length ?? 0) > 0)
    return wordDetail(result, language);
  const value = result[column] ?? '';
  return NCM_COLUMNS.has(column) ? formatNcm(value) : value;
};

/** A row record with its shown result: what the outbox files write on its line. */
export type ShownRow = { row: RowRecord; result: ShownResult };

/** Input columns results files carry: the header's, or a longer row's (a loop: a spread overflows the stack). */
export const resultsInputWidth = (
  batch: Pick<BatchRecord, 'header'>,
  rows: readonly Pick<RowRecord, 'cells'>[],
): number => rows.reduce((width, row) => Math.max(width, row.cells.length), batch.header.length);

/**
 * results.csv's header: the input's header padded to `width` (a longer row's extra cells go under
 * unnamed columns), then the result columns. An input column named like ours (a re-uploaded
 * results.csv has `status`) is kept: it is the user's data, and the positions tell the two apart.
 */
export const resultsCsvHeader = (batch: Pick<BatchRecord, 'header'>, width: number): string[] => [
  ...batch.header,
  ...Array<string>(width - batch.header.length).fill(''),
  ...RESULT_COLUMNS,
];

/**
 * One row's results.csv record: its input cells padded to `width`, then its result columns; the
 * `detail` in `language` when the batch chose one (batch.json's `language`), else in English.
 */
export const resultsCsvRecord = ({ row, result }: ShownRow, width: number, language?: Language): string[] => [
  ...row.cells,
  ...Array<string>(width - row.cells.length).fill(''),
  ...RESULT_COLUMNS.map((column) => resultCell(row, result, column, language)),
];

/**
 * results.csv's bytes for rows held in memory, in row order, each showing `resultFor(row)` (by
 * default the result the row holds itself).
 */
export const buildResultsCsv = (
  batch: Pick<BatchRecord, 'header' | 'delimiter'> & Partial<Pick<BatchRecord, 'options'>>,
  rows: readonly RowRecord[],
  resultFor: (row: RowRecord) => ShownResult = (row) => resultNow(row),
): Buffer => {
  const sorted = [...rows].sort((a, b) => a.row - b.row);
  const width = resultsInputWidth(batch, sorted);
  const records = sorted.map((row) =>
    resultsCsvRecord({ row, result: resultFor(row) }, width, batch.options?.language),
  );
  return writeCsv(resultsCsvHeader(batch, width), records, { delimiter: batch.delimiter });
};

// ---------------------------------------------------------------------------
// review.csv
// ---------------------------------------------------------------------------

/** The rows waiting for answers among `rows`, for `pendingReviewItems`. */
export const pendingRowsOf = (rows: readonly Pick<RowRecord, 'row' | 'status'>[]): Set<number> =>
  new Set(rows.filter((row) => row.status === 'pending_data').map((row) => row.row));

/** Review items still waiting for answers whose row is still `pending_data`, in row order. */
export const pendingReviewItems = (
  items: readonly ReviewItem[],
  pendingRows: ReadonlySet<number>,
): ReviewItem[] =>
  items.filter((item) => item.state === 'pending' && pendingRows.has(item.row)).sort((a, b) => a.row - b.row);

/** review.csv's columns before the question groups: the row, its product and the provisional proposal. */
export const REVIEW_LEADING_COLUMNS = [
  'row',
  'sku',
  'external_reference',
  'description',
  'classification_id',
  'provisional_ncm',
  'provisional_confidence',
] as const;
/**
 * review.csv's columns after the question groups: a new technical sheet, when the service abandons
 * the classification, and `same_product_rows` (the rows that share it and resume with its answers).
 */
export const REVIEW_TRAILING_COLUMNS = ['sheet', 'abandons_at', 'same_product_rows'] as const;

/**
 * review.csv's four columns for question `n` (from 1): its id, text and options, and the answer to
 * fill in.
 */
const reviewQuestionColumns = (n: number): string[] => [
  `question_${n}_id`,
  `question_${n}_text`,
  `question_${n}_options`,
  `answer_${n}`,
];

/** The most questions any item asks: the review files' question groups (a loop, for any count). */
export const mostQuestions = (items: readonly Pick<ReviewItem, 'questions'>[]): number =>
  items.reduce((most, item) => Math.max(most, item.questions.length), 0);

/** Answers filled in by a program rather than a person (`npm run review -- answer`): by question id. */
export type FilledAnswers = ReadonlyMap<string, { answers: ReadonlyMap<string, string>; sheet?: string }>;

/**
 * review.csv's bytes: one record per item, in row order, with as many question groups as the item
 * with the most questions; answers empty, unless `filled` gives some (the file a person would have
 * sent, made for them).
 */
export const buildReviewCsv = (
  items: readonly ReviewItem[],
  delimiter: Delimiter = ',',
  context: { filled?: FilledAnswers; sameProductRows?: ReadonlyMap<number, readonly number[]> } = {},
): Buffer => {
  const { filled = new Map(), sameProductRows = new Map() } = context;
  const sorted = [...items].sort((a, b) => a.row - b.row);
  const groups = mostQuestions(sorted);
  const header = [
    ...REVIEW_LEADING_COLUMNS,
    ...Array.from({ length: groups }, (_, i) => reviewQuestionColumns(i + 1)).flat(),
    ...REVIEW_TRAILING_COLUMNS,
  ];
  const records = sorted.map((item) => [
    ...reviewRecord(item, groups, filled.get(item.classification_id)),
    (sameProductRows.get(item.row) ?? []).join(' '),
  ]);
  return writeCsv(header, records, { delimiter });
};

const reviewRecord = (
  item: ReviewItem,
  groups: number,
  filled: { answers: ReadonlyMap<string, string>; sheet?: string } | undefined,
): string[] => [
  String(item.row),
  item.sku ?? '',
  item.external_reference ?? '',
  item.description ?? '',
  item.classification_id,
  item.provisional_ncm ? formatNcm(item.provisional_ncm) : '',
  item.provisional_confidence === null ? '' : String(item.provisional_confidence),
  ...Array.from({ length: groups }, (_, i) => {
    const question = item.questions[i];
    if (!question) return ['', '', '', ''];
    return [question.id, question.text, question.options.join('|'), filled?.answers.get(question.id) ?? ''];
  }).flat(),
  filled?.sheet ?? '',
  item.abandons_at,
];

// ---------------------------------------------------------------------------
// summary.json
// ---------------------------------------------------------------------------

/**
 * The NCM table in force as a summary or a plan names it: its day, the act it follows, and where it
 * came from (`carried`, or the key of a newer table dropped into `reference/ncm/`).
 */
export const NcmTableShown = z.object({
  as_of: z.string().nullable(),
  act: z.string(),
  source: z.string(),
  /** A table dropped into reference/ncm/ that was not taken, and why. */
  refused: z
    .object({
      key: z.string(),
      why: z.enum(['not_json', 'not_a_table', 'unreadable', 'older']),
      detail: z.string().optional(),
    })
    .optional(),
});
export type NcmTableShown = z.infer<typeof NcmTableShown>;

/** The NCM table in force as summary.json and the plan name it. */
export const ncmTableShown = (ncm: TableInForce): NcmTableShown => ({
  as_of: ncm.table.asOf,
  act: ncm.table.act,
  source: ncm.source,
  ...(ncm.refused ? { refused: ncm.refused } : {}),
});

/**
 * summary.json: a batch's counts, money, times, problems and file names, built from named fields
 * only; it is also the detail of the Batch Completed event.
 */
export const BatchSummary = z.object({
  batch_id: z.string(),
  name: z.string().nullable(),
  source: BatchSource.pick({ bucket: true, key: true, version_or_etag: true }).nullable(),
  state: BatchState,
  rows_total: z.number().int().min(0),
  rows_dispatched: z.number().int().min(0),
  /** Every output status, zeros included, so dashboards need no defaults. */
  by_status: z.record(z.enum(OUTPUT_STATUSES), z.number().int().min(0)),
  /** Sum of the rows' `cost_usd`: what the service billed for this batch. */
  billed_usd: z.number(),
  /**
   * What was not spent: reused rows, and rows that shared a resolved classification with an
   * earlier row of the same product, each at the price of a resolved classification.
   */
  saved_usd: z.number(),
  /**
   * Followers: rows that took the classification of an earlier row of the same product instead of
   * their own.
   */
  duplicates: z.object({ rows: z.number().int().min(0), saved_usd: z.number() }),
  /** Rows whose verdict differs from the NCM the ERP declared (`current_ncm_matches` = `no`). */
  current_ncm_mismatches: z.number().int().min(0),
  /**
   * Verdicts a person checks (under the batch's `check_below`): rows still `to_check`, and rows
   * `approved`; a follower counts as its leader does. Absent in summaries written before.
   */
  checks: z.object({ to_check: z.number().int().min(0), approved: z.number().int().min(0) }).optional(),
  /**
   * What erp-update.csv leaves out: rows whose code waits for answers or a person's decision, and
   * rows to change that have no SKU to match them by. Absent in summaries written before.
   */
  erp_update: z
    .object({ waiting_rows: z.number().int().min(0), rows_without_sku: z.number().int().min(0) })
    .optional(),
  /** The NCM table the rows' codes were checked against (absent in summaries written before). */
  ncm_table: NcmTableShown.optional(),
  /** Rows whose declared NCM is no code in force; rows whose verdict's is not (`*_in_force` = `no`). */
  declared_ncm_not_in_force: z.number().int().min(0).optional(),
  ncm_not_in_force: z.number().int().min(0).optional(),
  started_at: z.string().nullable(),
  finished_at: z.string(),
  /**
   * What went wrong with the batch: each message's `code` and `params` for programs, and `text`,
   * its sentence in the batch's language, for people (shared/wording/). A summary written before
   * messages had codes holds sentences: each reads as a `text` message.
   */
  problems: z.array(ShownMessage),
  /** What the person who sent the file should look at in it (a column not read, lost zeros), as `problems`. */
  warnings: z.array(ShownMessage),
  /** How each input column was understood: a pipeline field, or passed through untouched. */
  columns: z.array(ColumnUse),
  stop: BatchStop.nullable(),
  options: BatchOptions.nullable(),
  outputs: z.object({
    results: z.string(),
    review: z.string(),
    summary: z.string(),
    pdfs: z.string(),
    /** Absent in the summaries of batches finished before the workbooks were written. */
    results_workbook: z.string().optional(),
    review_workbook: z.string().optional(),
    /** The ERP's update file; absent in the summaries of batches finished before it was written. */
    erp_update: z.string().optional(),
  }),
});
export type BatchSummary = z.infer<typeof BatchSummary>;

/** Money as the files write it: rounded to the cent. */
export const cents = (usd: number): number => Math.round(usd * 100) / 100;

/** Where a batch came from, as the summary and the plan show it. */
export const sourceShown = (
  source: BatchSource,
): Pick<BatchSource, 'bucket' | 'key' | 'version_or_etag'> => ({
  bucket: source.bucket,
  key: source.key,
  version_or_etag: source.version_or_etag,
});

/** How many of `rows` end in each output status, zeros included; a row still working counts under none. */
export const countByStatus = (rows: readonly RowRecord[]) => {
  const counts = Object.fromEntries(OUTPUT_STATUSES.map((status) => [status, 0])) as Record<
    OutputStatus,
    number
  >;
  for (const row of rows) {
    const shown = resultNow(row);
    if (isFinalResult(shown)) counts[shown.status] += 1;
  }
  return counts;
};

/** summary.json of a batch that has no record (Prepare failed before creating it). */
export const buildOrphanSummary = (input: {
  batch_id: string;
  name: string | null;
  source: Pick<BatchSource, 'bucket' | 'key' | 'version_or_etag'> | null;
  problems: readonly Message[];
  now: Date;
  /** The language the problems are worded in: the batch's, when its options or header are known. */
  language?: Language;
}): BatchSummary => ({
  batch_id: input.batch_id,
  name: input.name,
  source: input.source,
  state: 'failed',
  rows_total: 0,
  rows_dispatched: 0,
  by_status: countByStatus([]),
  billed_usd: 0,
  saved_usd: 0,
  duplicates: { rows: 0, saved_usd: 0 },
  current_ncm_mismatches: 0,
  started_at: null,
  finished_at: input.now.toISOString(),
  problems: shownMessages(input.problems, input.language ?? FALLBACK_LANGUAGE),
  warnings: [],
  columns: [],
  stop: null,
  options: null,
  outputs: { ...OUTPUT_FILES },
});
