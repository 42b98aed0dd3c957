/**
 * Finalize: the last task of the Batch workflow, reached when every row finished, when Prepare
 * found nothing to dispatch, when the wait timed out (`wait_error`) or Prepare failed (`error`).
 *
 * Primary course:
 *   1. find the batch: Prepare's result, else the event (the same id, derived without I/O)
 *   2. rows still working end now: `not_submitted` when the batch was stopped before they were
 *      sent, else `error` saying why; then rows of the same product take their leader's outcome
 *   3. reused rows get their verdict PDF copied from the earlier batch into this one's `pdfs/`
 *   4. results.csv and .xlsx, review.csv and .xlsx, summary.json to `outbox/<batch-id>/` (and in
 *      place of the partial files, when a long run left some)
 *   5. the Batch Completed event, then the batch marked `completed` (or `failed`)
 *
 * Run twice, it writes the same files: the first run's `finished_at` is kept, copied PDFs are
 * not copied again, and the event is not published again once the batch is marked done.
 */
import type { z } from 'zod';
import { outboxKey } from '../core/bucket-layout.js';
import { describeCaughtError } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import {
  type BatchRecord,
  finalizeInputWith,
  type RowRecord,
  type RowResult,
  verdictPdfName,
} from '../core/records.js';
import { afterMove, isFinalResult, isOutputStatus, type RowMove, resultNow } from '../core/row-life.js';
import { errorResult, stoppedResult } from '../core/row-results.js';
import { followersByLeader, settleFollowers } from '../core/same-product.js';
import { batchSourceFromEvent } from './batch-source.js';
import { replacePartialFiles } from './partial-results.js';
import { PrepareResult } from './prepare-batch.js';
import {
  buildOrphanSummary,
  buildResultsCsv,
  buildReviewCsv,
  buildSummary,
  countByStatus,
  OUTPUT_FILES,
  pendingReviewItems,
  writeOutboxFiles,
} from './results-files.js';
import { outboxWorkbooks } from './results-workbook.js';
import { isPendingPdfCopy } from './reuse.js';

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

  const rows: RowRecord[] = [];
  for await (const row of ports.batches.listRows(batchId)) rows.push(row);

  const endedNow = await endUnfinishedRows(ports, batch, rows, unfinishedDetailFor(input), now);
  await settleFollowers(ports.batches, batchId, rows, now);
  await copyReusedPdfs(ports, batchId, rows, now);

  const problems = finalProblems(batch, input, caughtProblems, endedNow);
  const finishedAt = batch.finished_at ?? now.toISOString();
  const summary = buildSummary({ ...batch, state: finalState, finished_at: finishedAt, problems }, rows, now);
  const review = pendingReviewItems(await ports.reviews.listByBatch(batchId), rows);

  const sameProductRows = followersByLeader(rows);
  const results = buildResultsCsv(batch, rows);
  await writeOutboxFiles(ports.objects, batchId, {
    results,
    review: buildReviewCsv(review, batch.delimiter, { sameProductRows }),
    workbooks: outboxWorkbooks({ batch, rows, summary, review, sameProductRows }),
    summary,
  });
  await replacePartialFiles(ports.objects, batchId, { results, summary, at: now.toISOString() });

  if (!alreadyDone) {
    // Published before the batch is marked done: a crash in between publishes twice, never zero times.
    await ports.events.batchCompleted(summary);
    await ports.batches.updateBatch(batchId, { state: finalState, finished_at: finishedAt, problems });
  }
  return { batch_id: batchId, state: finalState, rows_total: rows.length, by_status: summary.by_status };
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

/**
 * Rows still working get their final status now, in `rows` too. A row the batch's stop kept
 * from being sent is `not_submitted` with the stop's type, as the dispatcher would have made it;
 * any other is an `error`. A row finishing at this moment keeps its result (the move's guard).
 */
const endUnfinishedRows = async (
  ports: Pick<FinalizePorts, 'batches'>,
  batch: BatchRecord,
  rows: RowRecord[],
  detail: string,
  now: Date,
): Promise<number> => {
  let ended = 0;
  for (const [index, row] of rows.entries()) {
    // A follower ends with its leader (settleFollowers), which this loop ends first.
    if (isOutputStatus(row.status) || row.status === 'following') continue;
    const result = batch.stop && row.status === 'queued' ? stoppedResult(batch.stop) : errorResult(detail);
    const move: RowMove = { move: 'finished', result, at: now.toISOString() };
    if (await ports.batches.moveRow(batch.batch_id, row.row, move)) {
      rows[index] = afterMove(row, move);
      if (result.status === 'error') ended += 1;
    } else {
      rows[index] = (await ports.batches.getRow(batch.batch_id, row.row)) ?? row;
    }
  }
  return ended;
};

/**
 * Prepare left each reused row's cached PDF key in `verdict_pdf` (reuse.ts): copy it into this
 * batch's `pdfs/` under this row's name and write the relative name back. A PDF no longer
 * stored (retention) leaves the column empty and says so; the verdict itself still stands.
 */
const copyReusedPdfs = async (
  ports: Pick<FinalizePorts, 'objects' | 'batches'>,
  batchId: string,
  rows: RowRecord[],
  now: Date,
): Promise<void> => {
  for (const [index, row] of rows.entries()) {
    const result = resultNow(row);
    if (!isFinalResult(result) || !isPendingPdfCopy(result)) continue;
    const ncm = (result.ncm ?? '').replace(/\D/g, '');
    const name = verdictPdfName(row.row, row.product?.sku ?? null, ncm === '' ? null : ncm);
    const from = result.verdict_pdf!;
    let updated: RowResult;
    // Checked first rather than caught: a transient copy failure must retry, not empty the column.
    if (await ports.objects.head(from)) {
      await ports.objects.copy(from, outboxKey(batchId, `${OUTPUT_FILES.pdfs}${name}`));
      updated = { ...result, verdict_pdf: `${OUTPUT_FILES.pdfs}${name}` };
    } else {
      updated = {
        ...result,
        verdict_pdf: '',
        detail: `${result.detail ?? ''} The verdict PDF of the earlier batch is no longer stored.`.trim(),
      };
    }
    await ports.batches.moveRow(batchId, row.row, {
      move: 'amended',
      result: updated,
      at: now.toISOString(),
    });
    rows[index] = { ...row, result: updated };
  }
};
