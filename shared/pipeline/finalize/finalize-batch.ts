/**
 * Finalize: the last task of the Batch workflow, reached when every row finished, when Prepare
 * found nothing to dispatch, when the wait timed out (`wait_error`) or Prepare failed (`error`).
 *
 * Primary course:
 *   1. find the batch: Prepare's result, else the event (the same id, derived without I/O)
 *   2. the settling pass, a page at a time: rows still working end now (`not_submitted` when the
 *      batch was stopped before they were sent, else `error` saying why), each verdict PDF
 *      reused from an earlier batch is copied once into this one's `pdfs/`, and what each row
 *      shows (a row of the same product as another: that one's outcome) is added up, with the rows
 *      waiting for answers
 *   3. the results pass: results.csv and .xlsx written together as the batch is read again, each
 *      an upload in parts (results-in-legs.ts)
 *   3b. audit.csv: what Prepare made of each row, then the audit log's events (audit-file.ts)
 *   4. to-check.csv, review.csv and .xlsx, then summary.json, to `outbox/<batch-id>/` (and in place of the
 *      partial files, when a long run left some)
 *   5. the notices (it finished; questions wait; verdicts to check), the Batch Completed event,
 *      then the batch marked `completed` (or `failed`)
 *
 * A Lambda runs 15 minutes at most, so Finalize works in legs: when a leg's time is spent in step
 * 2, 3 or 3b, it returns `next: "again"` with where it stopped, and the workflow calls it again
 * (infra/workflows/prepare-wait-finalize.ts). What is too large for the workflow's state waits in
 * the bucket's `work/`: the tally, and the bytes of each file not yet sent as a part. So no
 * invocation's work grows with the batch: a leg settles or writes for `legMs`, a page at least.
 *
 * Nothing held grows with the batch's rows but counts: a page of rows, the leaders its followers
 * name, the PDFs copied lately, a part of each file, one entry per row waiting for answers.
 *
 * Run twice, it writes the same files: the first run's `finished_at` is kept, copied PDFs are
 * not copied again, and the event is not published again once the batch is marked done.
 */

import * as z from 'zod';
import { type TableInForce, tableInForce } from '../../ncm-table/reference-table.js';
import { message, sameMessage } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { AuditWriting, writeAuditFile } from '../audit/audit-file.js';
import { describeCaughtError } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import { type BatchRecord, finalizeInputWith, PrepareResult } from '../core/records.js';
import { finishedBatchNotices } from '../notices/batch-notices.js';
import { tell } from '../notices/tell.js';
import {
  type BatchSummary,
  buildOrphanSummary,
  buildResultsCsv,
  buildReviewCsv,
  countByStatus,
  pendingReviewItems,
  writeOutboxFiles,
  writeReviewFiles,
} from '../outbox/results-files.js';
import { outboxWorkbooks, summaryTime } from '../outbox/results-workbook.js';
import { reviewWorkbook } from '../outbox/review-workbook.js';
import { writeToCheckCsv } from '../outbox/to-check-files.js';
import { senderFoundSince } from '../people/batch-sender.js';
import { batchSourceFromEvent } from '../prepare/batch-source.js';
import { FINALIZE_SETTINGS, type FinalizeSettings } from './finalize-settings.js';
import { loadTally, pageTally, saveTally, type TallyRead, tallyKey } from './outbox-rows.js';
import { replacePartialFiles } from './partial-results.js';
import { outboxResults, ResultsWriting, writeResultsFiles } from './results-in-legs.js';
import { SettlingProgress, settleRows } from './settle-rows.js';

/**
 * Finalize's input, which is the Batch workflow's state: the S3 event's fields, Prepare's result
 * or the error that stopped Prepare or the wait, and, from the second leg on, where the previous
 * leg stopped.
 */
const FinalizeInput = finalizeInputWith(PrepareResult).extend({
  /** The previous leg's answer (`$.finalized`), when Finalize is called again. */
  finalized: z
    .object({
      settling: SettlingProgress.optional(),
      writing: ResultsWriting.optional(),
      /** audit.csv under way: the results are written. */
      audit: AuditWriting.optional(),
      finished_at: z.string().optional(),
    })
    .passthrough()
    .nullish(),
});
type FinalizeInput = z.infer<typeof FinalizeInput>;

/**
 * What one leg of Finalize returns: the batch's state and counts once done (`next: "done"`), or
 * `next: "again"` with where the work stopped, which the workflow passes back as `finalized`.
 */
export type FinalizeResult = {
  batch_id: string | null;
  state: string;
  rows_total: number;
  by_status: Record<string, number>;
  /**
   * `again`: call Finalize again; it goes on from `settling`, `writing` or `audit`, whichever is set
   * last.
   */
  next: 'again' | 'done';
  settling?: SettlingProgress;
  writing?: ResultsWriting;
  /** Where the write of audit.csv stopped, once the results files are written. */
  audit?: AuditWriting;
  /** When the batch finished, as the first leg saw it: every leg's summary says the same. */
  finished_at?: string;
};

/**
 * The ports Finalize uses: the clock, the bucket, the batch table, review and check items, the audit
 * log and events.
 */
export type FinalizePorts = Pick<
  PipelinePorts,
  'clock' | 'objects' | 'batches' | 'reviews' | 'checks' | 'audit' | 'events' | 'notifier'
> &
  Partial<Pick<PipelinePorts, 'writers'>>;

/**
 * The English detail (the `row_timed_out` message) of a row ended because the wait for the batch's
 * rows timed out.
 */
export const TIMED_OUT_DETAIL = 'the row did not finish before the batch timed out';

const skipped = (batchId: string | null): FinalizeResult => ({
  batch_id: batchId,
  state: 'skipped',
  rows_total: 0,
  by_status: countByStatus([]),
  next: 'done',
});

/**
 * The tally the settling pass adds rows to: empty on the first leg, else the one the previous
 * leg saved in `work/` under the row it reached.
 */
const settlingTally = async (ports: FinalizePorts, batch: BatchRecord, settledThrough: number) =>
  pageTally(
    batch,
    settledThrough === 0
      ? undefined
      : await loadTally(ports.objects, tallyKey(batch.batch_id, settledThrough)),
  );

/**
 * Runs one leg of Finalize for the batch the workflow's state names: ends the rows still working,
 * writes every outbox file, publishes Batch Completed and marks the batch `completed` or
 * `failed`; returns `next: "again"` with where it stopped when its time ran out first. Safe to
 * run twice: the second run writes the same files and publishes nothing more.
 */
export const finalizeBatch = async (
  ports: FinalizePorts,
  rawInput: unknown,
  settings: FinalizeSettings = FINALIZE_SETTINGS,
): Promise<FinalizeResult> => {
  const input = FinalizeInput.parse(rawInput);
  // A duplicate delivery's workflow never owns the batch: it must not finalize it.
  if (input.prepare?.next === 'skip') return skipped(input.prepare.batch_id);
  const fromEvent = batchSourceFromEvent(rawInput);
  const batchId = input.prepare?.batch_id ?? fromEvent?.batchId ?? null;
  if (batchId === null) return skipped(null);

  const now = ports.clock.now();
  const caughtProblems = [
    ...(input.error ? [message('not_prepared', { text: describeCaughtError(input.error) })] : []),
  ];

  const stored = await ports.batches.getBatch(batchId);
  if (!stored) return finalizeOrphan(ports, batchId, fromEvent, caughtProblems, now);
  // Who sent it, if S3's record of the drop came after Prepare: audit.csv names them on its submissions.
  const batch = await senderFoundSince(ports, stored);
  const { alreadyDone, finalState } = finalStateOf(batch);
  if (!alreadyDone && finalState === 'completed' && batch.state !== 'finalizing') {
    await ports.batches.updateBatch(batchId, { state: 'finalizing' });
  }

  const from = input.finalized?.settling ?? { settled_through: 0, ended_now: 0 };
  const writingFrom = input.finalized?.writing ?? null;
  const auditFrom = input.finalized?.audit ?? null;
  // Real time, not a span: the 15 minutes a Lambda runs do not shrink with the local time scale.
  const until = now.getTime() + settings.legMs;
  const finishedAt = batch.finished_at ?? input.finalized?.finished_at ?? now.toISOString();
  const handOn = (progress: Pick<FinalizeResult, 'settling' | 'writing' | 'audit'>): FinalizeResult => ({
    batch_id: batchId,
    state: batch.state,
    rows_total: batch.rows_total,
    by_status: countByStatus([]),
    next: 'again',
    finished_at: finishedAt,
    ...progress,
  });

  const tallied = await settlingTally(ports, batch, from.settled_through);
  // The table in force this leg reads (a newer one dropped into reference/ncm/ replaces the carried).
  const ncm = await tableInForce(ports.objects);
  let settled = from;
  if (!writingFrom && !auditFrom) {
    const settling = await settleRows(
      ports,
      batch,
      { detail: unfinishedDetailFor(input), now, from, until, pageSize: settings.pageSize, table: ncm.table },
      tallied.add,
    );
    settled = settling.progress;
    if (settling.next === 'again') {
      await saveTally(ports.objects, tallyKey(batchId, settled.settled_through), tallied.read);
      return handOn({ settling: settled });
    }
  }

  // Read-only from here: the files are written from the tally and the rows read again.
  const { read } = tallied;
  const problems = finalProblems(batch, input, caughtProblems, settled.ended_now);
  const summary = read.tally.summary(
    { ...batch, state: finalState, finished_at: finishedAt, problems },
    now,
    ncm,
  );
  if (!auditFrom) {
    const writing = await resultsPass(ports, batch, writingFrom, { read, summary, ncm, until, settings });
    if (writing) {
      if (!writingFrom) await saveTally(ports.objects, tallyKey(batchId, settled.settled_through), read);
      return handOn({ settling: settled, writing });
    }
  }
  // audit.csv after the results, in legs as they are.
  const audit = await writeAuditFile(ports, batch, auditFrom, { until, ...settings });
  if (audit.next === 'again') {
    if (!writingFrom && !auditFrom)
      await saveTally(ports.objects, tallyKey(batchId, settled.settled_through), read);
    return handOn({ settling: settled, audit: audit.writing });
  }

  await writeLastFiles(ports, batch, read, summary, now);
  if (!alreadyDone) {
    // Told and published before the batch is marked done: a crash in between tells twice, never zero times.
    await announceFinished(ports, batch, summary, now);
    await ports.batches.updateBatch(batchId, { state: finalState, finished_at: finishedAt, problems });
  }
  return {
    batch_id: batchId,
    state: finalState,
    rows_total: summary.rows_total,
    by_status: summary.by_status,
    next: 'done',
  };
};

/**
 * Step 3: results.csv and .xlsx, from where the last leg stopped; where it stopped this time, or null
 * once written.
 */
const resultsPass = async (
  ports: FinalizePorts,
  batch: BatchRecord,
  from: ResultsWriting | null,
  pass: {
    read: TallyRead;
    summary: BatchSummary;
    ncm: TableInForce;
    until: number;
    settings: FinalizeSettings;
  },
): Promise<ResultsWriting | null> => {
  const { read, summary, ncm, until, settings } = pass;
  const files = outboxResults(batch.batch_id);
  const results = await writeResultsFiles(ports, batch, from, {
    csv: files.csv,
    erp: files.erp,
    xlsx: { ...files.xlsx, summary, at: summaryTime(summary) },
    width: read.width,
    table: ncm.table,
    until,
    pageSize: settings.pageSize,
    partBytes: settings.partBytes,
  });
  return results.next === 'again' ? results.writing : null;
};

/** After the results files: the review files and summary.json, in place of any partial files too. */
const writeLastFiles = async (
  ports: FinalizePorts,
  batch: BatchRecord,
  read: TallyRead,
  summary: BatchSummary,
  now: Date,
): Promise<void> => {
  const review = pendingReviewItems(await ports.reviews.listByBatch(batch.batch_id), read.pendingRows);
  const checks = await ports.checks.listByBatch(batch.batch_id);
  const { sameProductRows } = read;
  await writeToCheckCsv(ports.objects, batch.batch_id, {
    items: checks,
    delimiter: batch.delimiter,
    sameProductRows,
  });
  await writeReviewFiles(ports.objects, batch.batch_id, {
    review: buildReviewCsv(review, batch.delimiter, { sameProductRows }),
    workbook: () =>
      reviewWorkbook({ batch, items: review, sameProductRows, checks, at: summaryTime(summary) }),
    summary,
  });
  await replacePartialFiles(ports.objects, batch.batch_id, { summary, at: now.toISOString() });
};

/** No batch record (Prepare failed before writing it): a summary saying so, from the event alone. */
const finalizeOrphan = async (
  ports: Pick<FinalizePorts, 'objects' | 'events'>,
  batchId: string,
  fromEvent: ReturnType<typeof batchSourceFromEvent>,
  caughtProblems: Message[],
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
    problems: caughtProblems.length > 0 ? caughtProblems : [message('never_prepared', {})],
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
  return {
    batch_id: batchId,
    state: summary.state,
    rows_total: 0,
    by_status: summary.by_status,
    next: 'done',
  };
};

/** Tells people the batch finished (its notices: notices/batch-notices.ts), then the world (Batch Completed). */
const announceFinished = async (
  ports: FinalizePorts,
  batch: BatchRecord,
  summary: BatchSummary,
  now: Date,
): Promise<void> => {
  await tell(
    ports,
    finishedBatchNotices(batch, summary, await ports.reviews.listByBatch(batch.batch_id), now),
  );
  await ports.events.batchCompleted(summary);
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
const unfinishedDetailFor = (input: FinalizeInput): Message =>
  input.wait_error
    ? input.wait_error.Error.startsWith('States.') && input.wait_error.Error.includes('Timeout')
      ? message('row_timed_out', {})
      : message('row_wait_stopped', { error: input.wait_error.Error })
    : input.error
      ? message('row_prepare_failed', {})
      : message('row_unfinished', {});

/** The batch's problems, then what Finalize found, each message once. */
const finalProblems = (
  batch: BatchRecord,
  input: FinalizeInput,
  caughtProblems: readonly Message[],
  endedNow: number,
): Message[] => {
  const problems = [...batch.problems];
  const addProblem = (problem: Message) => {
    if (!problems.some((known) => sameMessage(known, problem))) problems.push(problem);
  };
  for (const problem of caughtProblems) addProblem(problem);
  if (input.wait_error) addProblem(message('wait_stopped', { error: input.wait_error.Error }));
  if (endedNow > 0 && !input.wait_error) addProblem(message('rows_unfinished', { count: endedNow }));
  const stop = batch.stop;
  // A stop a problem already names (the file's refusal, batch.json's) is not said twice.
  const named = (problem: Message): boolean =>
    Object.values(problem.params).some((value) => typeof value === 'string' && value.includes(stop!.detail));
  if (stop && !problems.some(named)) {
    addProblem(message('batch_stopped', { title: stop.title, detail: stop.detail }));
  }
  return problems;
};

const EMPTY_SHAPE: Pick<BatchRecord, 'header' | 'delimiter'> = { header: [], delimiter: ',' };
