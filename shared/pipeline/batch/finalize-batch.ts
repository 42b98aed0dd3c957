/**
 * Finalize: the last task of the Batch workflow, reached when every row finished, when Prepare
 * found nothing to dispatch, when the wait timed out (`wait_error`) or Prepare failed (`error`).
 *
 * Primary course:
 *   1. find the batch: Prepare's result, else the event (the same id, derived without I/O)
 *   2. one pass over the batch, a page at a time: rows still working end now (`not_submitted`
 *      when the batch was stopped before they were sent, else `error` saying why); what each row
 *      shows (a row of the same product as another: that one's outcome) is added up
 *   3. each verdict PDF reused from an earlier batch copied once into this one's `pdfs/`
 *   4. results.csv and .xlsx written as the batch is read again (uploads in parts on AWS),
 *      review.csv and .xlsx, then summary.json, to `outbox/<batch-id>/` (and in place of the
 *      partial files, when a long run left some)
 *   5. the Batch Completed event, then the batch marked `completed` (or `failed`)
 *
 * Nothing grows with the batch's rows but counts: a page of rows, the leaders its followers name,
 * one entry per reused PDF and per row waiting for answers.
 *
 * Run twice, it writes the same files: the first run's `finished_at` is kept, copied PDFs are
 * not copied again, and the event is not published again once the batch is marked done.
 */
import type { z } from 'zod';
import { outboxKey } from '../core/bucket-layout.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import { describeCaughtError } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import { type BatchRecord, finalizeInputWith, type RowRecord, verdictPdfName } from '../core/records.js';
import { afterMove, isFinalResult, isOutputStatus, type RowMove } from '../core/row-life.js';
import { errorResult, stoppedResult } from '../core/row-results.js';
import { batchSourceFromEvent } from './batch-source.js';
import { replacePartialFiles } from './partial-results.js';
import { PrepareResult } from './prepare-batch.js';
import {
  buildOrphanSummary,
  buildResultsCsv,
  buildReviewCsv,
  countByStatus,
  OUTPUT_FILES,
  pendingReviewItems,
  type ShownRow,
  streamResultsCsv,
  summaryTally,
  writeOutboxFiles,
} from './results-files.js';
import { outboxWorkbooks, resultsWorkbook, summaryTime } from './results-workbook.js';
import { isPendingPdfCopy } from './reuse.js';
import { reviewWorkbook } from './review-workbook.js';
import { standingRowPages, standingRows } from './standing-rows.js';

/** The Batch workflow's state: the S3 event's fields (read by `batchSourceFromEvent`) plus these. */
export const FinalizeInput = finalizeInputWith(PrepareResult);
export type FinalizeInput = z.infer<typeof FinalizeInput>;

export type FinalizeResult = {
  batch_id: string | null;
  state: string;
  rows_total: number;
  by_status: Record<string, number>;
};

export type FinalizePorts = Pick<PipelinePorts, 'clock' | 'objects' | 'batches' | 'reviews' | 'events'>;

export const TIMED_OUT_DETAIL = 'the row did not finish before the batch timed out';
const PREPARE_FAILED_DETAIL = 'the batch failed before the row could be processed';
const UNFINISHED_DETAIL = 'the row had not finished when the batch was finalized';

const skipped = (batchId: string | null): FinalizeResult => ({
  batch_id: batchId,
  state: 'skipped',
  rows_total: 0,
  by_status: countByStatus([]),
});

export const finalizeBatch = async (ports: FinalizePorts, rawInput: unknown): Promise<FinalizeResult> => {
  const input = FinalizeInput.parse(rawInput);
  // A duplicate delivery's workflow never owns the batch: it must not finalize it.
  if (input.prepare?.next === 'skip') return skipped(input.prepare.batch_id);
  const fromEvent = batchSourceFromEvent(rawInput);
  const batchId = input.prepare?.batch_id ?? fromEvent?.batchId ?? null;
  if (batchId === null) return skipped(null);

  const now = ports.clock.now();
  const caughtProblems = [
    ...(input.error ? [`The batch could not be prepared: ${describeCaughtError(input.error)}`] : []),
  ];

  const batch = await ports.batches.getBatch(batchId);
  if (!batch) return finalizeOrphan(ports, batchId, fromEvent, caughtProblems, now);

  const { alreadyDone, finalState } = finalStateOf(batch);
  if (!alreadyDone && finalState === 'completed' && batch.state !== 'finalizing') {
    await ports.batches.updateBatch(batchId, { state: 'finalizing' });
  }

  // One pass reads the batch a page at a time: rows still working end, followers take their
  // leader's outcome, and what each row shows is added up. Nothing of it is held but counts.
  const read = await readToFinalize(ports, batch, unfinishedDetailFor(input), now);
  const pdfLinks = await copyReusedPdfs(ports.objects, batchId, read.pdfCopies);

  const problems = finalProblems(batch, input, caughtProblems, read.endedNow);
  const finishedAt = batch.finished_at ?? now.toISOString();
  const summary = read.tally.summary({ ...batch, state: finalState, finished_at: finishedAt, problems }, now);
  const review = pendingReviewItems(await ports.reviews.listByBatch(batchId), read.pendingRows);

  // The results files read the batch again as they are written: an upload's body is made as it goes.
  const shownRows = () => withPdfLinks(standingRows(ports.batches, batchId), pdfLinks);
  const { sameProductRows } = read;
  await writeOutboxFiles(ports.objects, batchId, {
    results: () => streamResultsCsv(batch, read.width, shownRows()),
    review: buildReviewCsv(review, batch.delimiter, { sameProductRows }),
    workbooks: {
      results: () => resultsWorkbook({ batch, summary, width: read.width, shownRows: shownRows() }),
      review: () => reviewWorkbook({ batch, items: review, sameProductRows, at: summaryTime(summary) }),
    },
    summary,
  });
  await replacePartialFiles(ports.objects, batchId, { summary, at: now.toISOString() });

  if (!alreadyDone) {
    // Published before the batch is marked done: a crash in between publishes twice, never zero times.
    await ports.events.batchCompleted(summary);
    await ports.batches.updateBatch(batchId, { state: finalState, finished_at: finishedAt, problems });
  }
  return {
    batch_id: batchId,
    state: finalState,
    rows_total: summary.rows_total,
    by_status: summary.by_status,
  };
};

/** No batch record (Prepare failed before writing it): a summary saying so, from the event alone. */
const finalizeOrphan = async (
  ports: Pick<FinalizePorts, 'objects' | 'events'>,
  batchId: string,
  fromEvent: ReturnType<typeof batchSourceFromEvent>,
  caughtProblems: string[],
  now: Date,
): Promise<FinalizeResult> => {
  const summary = buildOrphanSummary({
    batch_id: batchId,
    name: fromEvent?.batchName ?? null,
    source: fromEvent
      ? {
          bucket: fromEvent.source.bucket,
          key: fromEvent.source.key,
          version_or_etag: fromEvent.source.version_or_etag,
        }
      : null,
    problems: caughtProblems.length > 0 ? caughtProblems : ['The batch was never prepared.'],
    now,
  });
  // The same four outputs as any batch, so whoever watches the outbox finds what to read.
  await writeOutboxFiles(ports.objects, batchId, {
    results: buildResultsCsv(EMPTY_SHAPE, []),
    review: buildReviewCsv([]),
    workbooks: outboxWorkbooks({ batch: EMPTY_SHAPE, rows: [], summary, review: [] }),
    summary,
  });
  await ports.events.batchCompleted(summary);
  return { batch_id: batchId, state: summary.state, rows_total: 0, by_status: summary.by_status };
};

/** The state the batch ends in; `alreadyDone`: an earlier Finalize ran to the end. */
const finalStateOf = (batch: BatchRecord): { alreadyDone: boolean; finalState: BatchRecord['state'] } => {
  const alreadyDone =
    batch.finished_at !== undefined && (batch.state === 'completed' || batch.state === 'failed');
  // `preparing` here means Prepare never finished; `failed` means it stopped the batch itself.
  const finalState = alreadyDone
    ? batch.state
    : batch.state === 'failed' || batch.state === 'preparing'
      ? 'failed'
      : 'completed';
  return { alreadyDone, finalState };
};

/** Why a row still working at Finalize ends in `error`. */
const unfinishedDetailFor = (input: FinalizeInput): string =>
  input.wait_error
    ? input.wait_error.Error.startsWith('States.') && input.wait_error.Error.includes('Timeout')
      ? TIMED_OUT_DETAIL
      : `the batch stopped waiting for its rows (${input.wait_error.Error}) before the row finished`
    : input.error
      ? PREPARE_FAILED_DETAIL
      : UNFINISHED_DETAIL;

/** The batch's problems, then what Finalize found, each sentence once. */
const finalProblems = (
  batch: BatchRecord,
  input: FinalizeInput,
  caughtProblems: readonly string[],
  endedNow: number,
): string[] => {
  const problems = [...batch.problems];
  const addProblem = (problem: string) => {
    if (!problems.includes(problem)) problems.push(problem);
  };
  for (const problem of caughtProblems) addProblem(problem);
  if (input.wait_error) {
    addProblem(
      `The batch stopped waiting for its rows (${input.wait_error.Error}); ` +
        `rows that had not finished are marked error.`,
    );
  }
  if (endedNow > 0 && !input.wait_error)
    addProblem(`${endedNow} row(s) had not finished and are marked error.`);
  if (batch.stop && !problems.some((problem) => problem.includes(batch.stop!.detail))) {
    addProblem(`The batch was stopped: ${batch.stop.title}: ${batch.stop.detail}`);
  }
  return problems;
};

const EMPTY_SHAPE: Pick<BatchRecord, 'header' | 'delimiter'> = { header: [], delimiter: ',' };

/** Rows' moves and PDF copies at once, a page at a time: bounded, never one request after another. */
const IN_FLIGHT = 16;

/** What Finalize learns in its pass over the batch, besides the rows it moved. */
type FinalizeRead = {
  tally: ReturnType<typeof summaryTally>;
  /** Rows ended `error` now (a batch timed out, a row lost). */
  endedNow: number;
  /** The input columns results files carry: the header's, or more when a row is longer. */
  width: number;
  /** Reused verdicts' PDFs, by the key they are kept under, and the name each gets in this batch. */
  pdfCopies: Map<string, string>;
  /** Rows waiting for answers under their own classification (their review items are listed). */
  pendingRows: Set<number>;
  /** The rows that resume with a waiting row's answers (review.csv's `same_product_rows`). */
  sameProductRows: Map<number, number[]>;
};

/**
 * The pass over the batch. On each page: rows still working end now (a row the batch's stop kept
 * from being sent is `not_submitted` with the stop's type, as the dispatcher would have made it;
 * any other is an `error`; a row finishing at this moment keeps its result, by the move's guard).
 * Followers are not written: each shows its leader's outcome as it is read (core/same-product.ts).
 */
const readToFinalize = async (
  ports: Pick<FinalizePorts, 'batches'>,
  batch: BatchRecord,
  detail: string,
  now: Date,
): Promise<FinalizeRead> => {
  const at = now.toISOString();
  const read: FinalizeRead = {
    tally: summaryTally(),
    endedNow: 0,
    width: batch.header.length,
    pdfCopies: new Map(),
    pendingRows: new Set(),
    sameProductRows: new Map(),
  };
  const endWorking = (rows: RowRecord[]) =>
    mapLimited(rows, IN_FLIGHT, async (row): Promise<RowRecord> => {
      // A follower ends with its leader, below.
      if (isOutputStatus(row.status) || row.status === 'following') return row;
      const result = batch.stop && row.status === 'queued' ? stoppedResult(batch.stop) : errorResult(detail);
      const move: RowMove = { move: 'finished', result, at };
      if (!(await ports.batches.moveRow(batch.batch_id, row.row, move)))
        return (await ports.batches.getRow(batch.batch_id, row.row)) ?? row;
      if (result.status === 'error') read.endedNow += 1;
      return afterMove(row, move);
    });
  for await (const page of standingRowPages(ports.batches, batch.batch_id, { beforeShowing: endWorking })) {
    for (const { row, result } of page) {
      read.tally.add(row, result);
      read.width = Math.max(read.width, row.cells.length);
      if (isFinalResult(result) && isPendingPdfCopy(result) && !read.pdfCopies.has(result.verdict_pdf!)) {
        const ncm = (result.ncm ?? '').replace(/\D/g, '');
        // The first row of this batch that reuses it names it; every other row links there.
        read.pdfCopies.set(
          result.verdict_pdf!,
          `${OUTPUT_FILES.pdfs}${verdictPdfName(row.row, row.product?.sku ?? null, ncm === '' ? null : ncm)}`,
        );
      }
      if (result.status !== 'pending_data') continue;
      if (row.follows === undefined) read.pendingRows.add(row.row);
      else read.sameProductRows.set(row.follows, [...(read.sameProductRows.get(row.follows) ?? []), row.row]);
    }
  }
  return read;
};

/**
 * Prepare left each reused row's cached PDF key in `verdict_pdf` (reuse.ts): each such PDF is
 * copied once into this batch's `pdfs/`, however many rows reuse it, under the name of the first.
 * A PDF no longer stored (retention) leaves the column empty and says so; the verdict still
 * stands. Returns the link each kept key becomes ('' when gone).
 */
const copyReusedPdfs = async (
  objects: Pick<FinalizePorts['objects'], 'head' | 'copy'>,
  batchId: string,
  copies: ReadonlyMap<string, string>,
): Promise<Map<string, string>> => {
  const links = await mapLimited([...copies], IN_FLIGHT, async ([from, name]): Promise<[string, string]> => {
    // Checked first rather than caught: a transient copy failure must retry, not empty the column.
    if (!(await objects.head(from))) return [from, ''];
    if (!(await objects.head(outboxKey(batchId, name)))) await objects.copy(from, outboxKey(batchId, name));
    return [from, name];
  });
  return new Map(links);
};

/** Reused rows link the copy in this batch's `pdfs/` (or say the earlier one is gone). */
async function* withPdfLinks(rows: AsyncIterable<ShownRow>, links: ReadonlyMap<string, string>) {
  for await (const shown of rows) {
    const { result } = shown;
    const link =
      isFinalResult(result) && isPendingPdfCopy(result) ? links.get(result.verdict_pdf!) : undefined;
    if (link === undefined) yield shown;
    else if (link !== '') yield { ...shown, result: { ...result, verdict_pdf: link } };
    else
      yield {
        ...shown,
        result: {
          ...result,
          verdict_pdf: '',
          detail: `${result.detail ?? ''} The verdict PDF of the earlier batch is no longer stored.`.trim(),
        },
      };
  }
}
