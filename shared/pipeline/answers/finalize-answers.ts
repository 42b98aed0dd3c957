/**
 * FinalizeAnswers: the last task of the Answers workflow (issue 6), reached when the round's
 * rows all finished, when PrepareAnswers resumed nothing, when the wait timed out
 * (`wait_error`) or PrepareAnswers failed (`error`). The batch's outputs move forward.
 *
 * Primary course:
 *   1. find the batch and the round: PrepareAnswers' result, else the event (derived without I/O)
 *   2. the round's rows still working end now: back to `pending_data` when the round never left
 *      `preparing` (their answers were never sent), else `error` saying why
 *   3. look again at every row still `pending_data`: the service may have abandoned it (30 days,
 *      unbilled) or it was answered elsewhere (the web app) and has since resolved or failed
 *   4. review items of rows that have settled are closed
 *   5. the earlier results.csv and summary.json kept as results.rev<N>.csv and summary.rev<N>.json
 *      when results.csv changes; then results.csv, summary.json and review.csv written anew
 *   6. the Batch Completed event (with `round_id`), then the round marked `completed` (or `failed`)
 *
 * Run twice, it writes the same files and no second revision: a revision is made only when the
 * new results.csv differs from the one in the outbox, and a copy left by a run that stopped
 * before writing the new file is recognised (it equals results.csv) and reused. The revision
 * needs no field on the round record: the outbox's own contents say whether it was made.
 *
 *   results.csv (v1) ─▶ round 1 changes rows ─▶ results.rev1.csv = v1, results.csv = v2 (revision 1)
 *   results.csv (v2) ─▶ round 2 changes rows ─▶ results.rev2.csv = v2, results.csv = v3 (revision 2)
 *   results.csv (v3) ─▶ round 3 changes none ─▶ no copy, results.csv = v3 (revision 2)
 */
import { z } from 'zod';
import { isFinalStatus } from '../../tcs/schemas.js';
import {
  buildResultsCsv,
  buildReviewCsv,
  buildSummary,
  OUTPUT_FILES,
  pendingReviewItems,
  writeOutboxFiles,
} from '../batch/results-files.js';
import { outboxKey } from '../core/bucket-layout.js';
import { describeCaughtError } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import {
  CaughtError,
  isOutputStatus,
  type OutputStatus,
  type ReviewItem,
  type RowRecord,
  type RowResult,
} from '../core/records.js';
import { abandonedResult, errorResult, failedResult, resolvedResult } from '../core/row-results.js';
import { answersSourceFromEvent } from './answers-source.js';
import { PrepareAnswersResult, readClassifications } from './prepare-answers.js';

/** The Answers workflow's state: the S3 event's fields (read by `answersSourceFromEvent`) plus these. */
export const FinalizeAnswersInput = z.object({
  prepare: PrepareAnswersResult.nullish(),
  /** Caught from PrepareAnswers. */
  error: CaughtError.nullish(),
  /** Caught from WaitForAnswers: the round timed out waiting for its rows. */
  wait_error: CaughtError.nullish(),
});
export type FinalizeAnswersInput = z.infer<typeof FinalizeAnswersInput>;

export type FinalizeAnswersResult = {
  batch_id: string | null;
  round_id: string | null;
  /** Rows the round put back to work (the round record's `rows_dispatched`). */
  resumed: number;
  /** Rows of the batch still waiting for answers after this run. */
  still_pending: number;
  /** Rows of the batch `abandoned` after this run (not only those found now: re-runs agree). */
  abandoned: number;
  /** How many earlier versions of results.csv are kept beside it (0: it is the batch's first). */
  revision: number;
};

export type FinalizeAnswersPorts = Pick<
  PipelinePorts,
  'clock' | 'service' | 'objects' | 'batches' | 'reviews' | 'events'
>;

/** `results.rev<N>.csv` and `summary.rev<N>.json` beside the current files. */
export const revisionFile = (name: string, revision: number): string =>
  name.replace(/(\.[a-z]+)$/, `.rev${revision}$1`);
const REVISION_OF_RESULTS = /\/results\.rev([1-9][0-9]*)\.csv$/;

export const ROUND_TIMED_OUT_DETAIL =
  'the answered row did not finish before the answers round timed out; its answers may still be processed ' +
  'by the service (see app_url)';
const ROUND_FAILED_DETAIL = 'the answers round failed before the answered row finished';
const ROUND_UNFINISHED_DETAIL = 'the answered row had not finished when the answers round was finalized';

const nothing = (batchId: string | null, roundId: string | null): FinalizeAnswersResult => ({
  batch_id: batchId,
  round_id: roundId,
  resumed: 0,
  still_pending: 0,
  abandoned: 0,
  revision: 0,
});

export const finalizeAnswers = async (
  ports: FinalizeAnswersPorts,
  rawInput: unknown,
): Promise<FinalizeAnswersResult> => {
  const input = FinalizeAnswersInput.parse(rawInput);
  // A duplicate delivery's workflow never owns the round; an unknown batch has no outbox.
  if (input.prepare?.next === 'skip') return nothing(input.prepare.batch_id, input.prepare.round_id);
  const fromEvent = answersSourceFromEvent(rawInput);
  const batchId = input.prepare?.batch_id ?? fromEvent?.batchId ?? null;
  const roundId = input.prepare?.round_id ?? fromEvent?.roundId ?? null;
  if (batchId === null) return nothing(null, roundId);
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) return nothing(batchId, roundId);
  const found = roundId === null ? null : await ports.batches.getBatch(roundId);
  const round = found?.round_of === batchId ? found : null;
  const now = ports.clock.now();

  const rows: RowRecord[] = [];
  for await (const row of ports.batches.listRows(batchId)) rows.push(row);

  const roundProblems: string[] = [];
  if (input.error) roundProblems.push(`The answers round failed: ${describeCaughtError(input.error)}`);
  if (round && roundId !== null) {
    if (round.state === 'preparing') {
      const returned = await returnUnsentRows(ports, batchId, roundId, rows, now);
      if (returned > 0) {
        roundProblems.push(`${returned} answered row(s) were not sent and wait for answers again.`);
      }
    } else {
      const detail = input.wait_error
        ? input.wait_error.Error.startsWith('States.') && input.wait_error.Error.includes('Timeout')
          ? ROUND_TIMED_OUT_DETAIL
          : `the answers round stopped waiting (${input.wait_error.Error}) before the answered row finished`
        : input.error
          ? ROUND_FAILED_DETAIL
          : ROUND_UNFINISHED_DETAIL;
      const ended = await endUnfinishedRoundRows(ports, batchId, roundId, rows, detail, now);
      if (ended > 0) roundProblems.push(`${ended} answered row(s) had not finished and are marked error.`);
    }
  }
  const lookedAgain = await lookAgainAtPendingRows(ports, batchId, rows, now);
  if (lookedAgain.abandoned > 0) {
    roundProblems.push(
      `${lookedAgain.abandoned} row(s) went unanswered for 30 days: the service abandoned them (not billed).`,
    );
  }
  if (lookedAgain.settledElsewhere > 0) {
    roundProblems.push(
      `${lookedAgain.settledElsewhere} pending row(s) were answered outside this batch and have finished at the service.`,
    );
  }
  const items = await settleReviewItems(ports, batchId, rows);

  const roundAlreadyDone =
    round !== null &&
    round.finished_at !== undefined &&
    (round.state === 'completed' || round.state === 'failed');
  const roundState = roundAlreadyDone
    ? round.state
    : round?.state === 'failed' || round?.state === 'preparing' || input.error
      ? 'failed'
      : 'completed';
  const revisedAt = round?.finished_at ?? now.toISOString();
  const problemsOfRound = uniqueSentences([...(round?.problems ?? []), ...roundProblems]);

  const results = buildResultsCsv(batch, rows);
  const revision = await keepRevision(ports.objects, batchId, results);
  const summary = {
    ...buildSummary(
      {
        ...batch,
        problems: uniqueSentences([
          ...batch.problems,
          // Without a round (the daily sweep), what changed happened since the batch finished.
          ...problemsOfRound.map(
            (problem) =>
              `${round ? `Answers ${round.source.file_name}` : 'Since the batch finished'}: ${problem}`,
          ),
        ]),
      },
      rows,
      now,
    ),
    round_id: roundId,
    revision,
    /** Answers rounds that resumed at least one row of the batch. */
    rounds: new Set(rows.flatMap((row) => (row.round ? [row.round.round_id] : []))).size,
    /** Review items someone answered (resumed, then closed once the row finished). */
    answered: items.filter((item) => item.answers !== undefined && item.state !== 'pending').length,
    revised_at: revisedAt,
  };

  await writeOutboxFiles(ports.objects, batchId, {
    results,
    review: buildReviewCsv(pendingReviewItems(items, rows), batch.delimiter),
    summary,
  });

  if (round && roundId !== null && !roundAlreadyDone) {
    // Published before the round is marked done: a crash in between publishes twice, never zero times.
    await ports.events.batchCompleted(summary);
    await ports.batches.updateBatch(roundId, {
      state: roundState,
      finished_at: revisedAt,
      problems: problemsOfRound,
    });
  } else if (!round) {
    // No round record (PrepareAnswers failed before writing it): nothing tells a re-run apart.
    await ports.events.batchCompleted(summary);
  }

  return {
    batch_id: batchId,
    round_id: roundId,
    resumed: round?.rows_dispatched ?? 0,
    still_pending: summary.by_status.pending_data,
    abandoned: summary.by_status.abandoned,
    revision,
  };
};

const uniqueSentences = (sentences: readonly string[]): string[] => [...new Set(sentences)];

const isRowOfRound = (row: RowRecord, roundId: string): boolean => row.round?.round_id === roundId;

/**
 * A round that never left `preparing` sent no message: its rows' answers never reached the
 * service. They go back to `pending_data` (their result still the pending one) and their items
 * to `pending`, so the same file sent again resumes them instead of finding them answered.
 */
const returnUnsentRows = async (
  ports: Pick<FinalizeAnswersPorts, 'batches' | 'reviews'>,
  batchId: string,
  roundId: string,
  rows: RowRecord[],
  now: Date,
): Promise<number> => {
  let returned = 0;
  for (const [index, row] of rows.entries()) {
    if (!isRowOfRound(row, roundId) || row.status !== 'queued') continue;
    const patch = { status: 'pending_data' as const, updated_at: now.toISOString() };
    await ports.batches.updateRow(batchId, row.row, patch);
    if (row.classification_id) await ports.reviews.update(row.classification_id, { state: 'pending' });
    rows[index] = { ...row, ...patch };
    returned += 1;
  }
  return returned;
};

/**
 * The round's rows still working get an `error` now, in `rows` too, keeping their classification
 * and link so the user can follow it. `onlyIfNotFinal`: a row finishing at this moment keeps its result.
 */
const endUnfinishedRoundRows = async (
  ports: Pick<FinalizeAnswersPorts, 'batches'>,
  batchId: string,
  roundId: string,
  rows: RowRecord[],
  detail: string,
  now: Date,
): Promise<number> => {
  let ended = 0;
  for (const [index, row] of rows.entries()) {
    if (!isRowOfRound(row, roundId) || isOutputStatus(row.status)) continue;
    const result = errorResult(detail, {
      ...(row.classification_id ? { classification_id: row.classification_id } : {}),
      ...(row.result?.app_url ? { app_url: row.result.app_url } : {}),
    });
    const patch = {
      status: 'error' as const,
      result,
      finished_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    if (await ports.batches.updateRow(batchId, row.row, patch, { onlyIfNotFinal: true })) {
      rows[index] = { ...row, ...patch };
      ended += 1;
    } else {
      rows[index] = (await ports.batches.getRow(batchId, row.row)) ?? row;
    }
  }
  return ended;
};

const RESOLVED_ELSEWHERE_NOTE =
  'answered outside this batch (e.g. in the web app) and resolved there; the verdict PDF was not stored ' +
  'with this batch: open it from app_url';

/**
 * Every `pending_data` row as the service sees it now. `abandoned` (30 days unanswered) and, when
 * someone answered in the web app, `resolved` or `failed` become the row's result; anything else
 * (still pending, running again, unknown to the service) leaves the row as it is. Not
 * `onlyIfNotFinal`: pending_data is an output status, and the service's final word replaces it.
 */
const lookAgainAtPendingRows = async (
  ports: Pick<FinalizeAnswersPorts, 'service' | 'batches'>,
  batchId: string,
  rows: RowRecord[],
  now: Date,
): Promise<{ abandoned: number; settledElsewhere: number }> => {
  const pending = rows.filter((row) => row.status === 'pending_data' && row.classification_id);
  const found = await readClassifications(
    ports.service,
    pending.map((row) => row.classification_id!),
  );
  const counts = { abandoned: 0, settledElsewhere: 0 };
  for (const row of pending) {
    const c = found.get(row.classification_id!);
    if (!c) continue;
    const appUrl = row.result?.app_url ?? row.app_url;
    let result: RowResult;
    if (c.status === 'abandoned') {
      result = { ...abandonedResult(c), ...(appUrl ? { app_url: appUrl } : {}) };
      counts.abandoned += 1;
    } else if (c.status === 'failed') {
      result = failedResult(c);
      counts.settledElsewhere += 1;
    } else if (c.status === 'resolved') {
      const verdict = resolvedResult(c, {
        currentNcm: row.product?.current_ncm ?? null,
        verdictPdf: null,
        appUrl: appUrl ?? null,
      });
      result = { ...verdict, detail: [RESOLVED_ELSEWHERE_NOTE, verdict.detail].filter(Boolean).join('; ') };
      counts.settledElsewhere += 1;
    } else {
      continue;
    }
    const patch = {
      status: result.status as OutputStatus,
      result,
      finished_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await ports.batches.updateRow(batchId, row.row, patch);
    const index = rows.indexOf(row);
    rows[index] = { ...row, ...patch };
  }
  return counts;
};

/**
 * Review items follow their rows: `closed` once the row has settled; `pending` again when an
 * answered row waits for answers once more (its answers were not sent: a stop, a refusal, a
 * missing sheet), its last answers kept on the item. Returns every item of the batch as it is now.
 */
const settleReviewItems = async (
  ports: Pick<FinalizeAnswersPorts, 'reviews'>,
  batchId: string,
  rows: readonly RowRecord[],
): Promise<ReviewItem[]> => {
  const rowByNumber = new Map(rows.map((row) => [row.row, row]));
  const items = await ports.reviews.listByBatch(batchId);
  return Promise.all(
    items.map(async (item) => {
      const row = rowByNumber.get(item.row);
      const sameClassification = row?.classification_id === item.classification_id;
      if (item.state !== 'closed' && row !== undefined && isFinalStatus(row.status)) {
        await ports.reviews.update(item.classification_id, { state: 'closed' });
        return { ...item, state: 'closed' as const };
      }
      if (item.state === 'answered' && row?.status === 'pending_data' && sameClassification) {
        await ports.reviews.update(item.classification_id, { state: 'pending' });
        return { ...item, state: 'pending' as const };
      }
      return item;
    }),
  );
};

/**
 * Keeps the outbox's results.csv and summary.json as revision N before they are replaced, when
 * the new results.csv differs; returns the revision the new files are. See the file comment.
 */
const keepRevision = async (
  objects: FinalizeAnswersPorts['objects'],
  batchId: string,
  nextResults: Uint8Array,
): Promise<number> => {
  const resultsKey = outboxKey(batchId, OUTPUT_FILES.results);
  const summaryKey = outboxKey(batchId, OUTPUT_FILES.summary);
  const kept = (await objects.list(outboxKey(batchId, 'results.rev')))
    .map((key) => REVISION_OF_RESULTS.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  const highest = Math.max(0, ...kept);
  const current = await objects.getBytes(resultsKey);
  if (current === null || Buffer.from(current).equals(nextResults)) return highest;

  // A run that copied and stopped before writing the new results.csv: its copy is this revision.
  const last =
    highest > 0
      ? await objects.getBytes(outboxKey(batchId, revisionFile(OUTPUT_FILES.results, highest)))
      : null;
  const copiedBefore = last !== null && Buffer.from(last).equals(Buffer.from(current));
  const revision = copiedBefore ? highest : highest + 1;
  if (!copiedBefore)
    await objects.copy(resultsKey, outboxKey(batchId, revisionFile(OUTPUT_FILES.results, revision)));
  const summaryRevisionKey = outboxKey(batchId, revisionFile(OUTPUT_FILES.summary, revision));
  if ((await objects.head(summaryKey)) && !(await objects.head(summaryRevisionKey))) {
    await objects.copy(summaryKey, summaryRevisionKey);
  }
  return revision;
};
