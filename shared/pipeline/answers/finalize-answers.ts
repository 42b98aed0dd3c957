/**
 * FinalizeAnswers: the last task of the Answers workflow (docs/architecture.md, section 4),
 * reached when the round's rows all finished, when PrepareAnswers resumed nothing, when the wait
 * timed out (`wait_error`) or PrepareAnswers failed (`error`). The batch's outputs move forward.
 *
 * Primary course:
 *   1. find the batch and the round: PrepareAnswers' result, else the event (derived without I/O)
 *   2. the round's rows still working end now: back to `pending_data` when the round never left
 *      `preparing` (their answers were never sent), else `error` saying why
 *   3. look again at every row still `pending_data`: the service may have abandoned it (30 days,
 *      unbilled) or it was answered elsewhere (the web app) and has since resolved or failed;
 *      then rows of the same product take their leader's new outcome (one answer resumes them all)
 *   3b. rows of other batches that joined a classification this batch's rows settled (a re-run
 *      of the same file while it waited: docs/answers-round.md, "A re-run does not ask again")
 *      take its outcome at no cost, and each such batch's results move forward too
 *   4. review items of rows that have settled are closed
 *   5. the earlier results.csv, results.xlsx and summary.json kept as results.rev<N>.csv,
 *      results.rev<N>.xlsx and summary.rev<N>.json when results.csv changes; then results.csv and
 *      .xlsx, review.csv and .xlsx and summary.json written anew
 *   6. the Batch Completed event (with `round_id`), then the round marked `completed` (or `failed`)
 *
 * It never holds the batch: steps 2 to 4 work on the rows in play (the round's, those waiting for
 * answers, those the review items name), found in one pass a page at a time; step 5 adds the batch
 * up in a second pass and writes each file as the batch is read again (outbox-rows.ts), the new
 * results.csv compared with the old by its sha256. Step 2 is round-rows.ts, step 3b joined-rows.ts.
 *
 * Run twice, it writes the same files and no second revision (results-revisions.ts says how).
 */
import type { z } from 'zod';
import { isFinalStatus } from '../../tcs/schemas.js';
import { outboxRows, sha256Of, type TallyRead, tallyBatch } from '../batch/outbox-rows.js';
import { replacePartialFiles } from '../batch/partial-results.js';
import {
  buildReviewCsv,
  pendingReviewItems,
  streamResultsCsv,
  writeOutboxFiles,
} from '../batch/results-files.js';
import { resultsWorkbook, summaryTime } from '../batch/results-workbook.js';
import { reviewWorkbook } from '../batch/review-workbook.js';
import { ROWS_PER_PAGE } from '../batch/standing-rows.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import { describeCaughtError } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import { type BatchRecord, finalizeInputWith, type ReviewItem, type RowRecord } from '../core/records.js';
import { answersSourceFromEvent } from './answers-source.js';
import { reviseJoinedBatches, settleJoinedRows } from './joined-rows.js';
import { lookAgainAtPendingRows } from './look-again-at-pending-rows.js';
import { PrepareAnswersResult } from './prepare-answers.js';
import { keepRevision } from './results-revisions.js';
import { endRoundRows } from './round-rows.js';

export { joinedOutcome } from './joined-rows.js';
export { ROUND_TIMED_OUT_DETAIL } from './round-rows.js';

/** The Answers workflow's state: the S3 event's fields (read by `answersSourceFromEvent`) plus these. */
export const FinalizeAnswersInput = finalizeInputWith(PrepareAnswersResult);
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

const nothing = (batchId: string | null, roundId: string | null): FinalizeAnswersResult => ({
  batch_id: batchId,
  round_id: roundId,
  resumed: 0,
  still_pending: 0,
  abandoned: 0,
  revision: 0,
});

/** Rows read a page at a time. */
const PAGE_SIZE = ROWS_PER_PAGE;

/** The primary course above, steps 1 to 6 in order. */
export const finalizeAnswers = async (
  ports: FinalizeAnswersPorts,
  rawInput: unknown,
  /** `settleJoined: false`: this run revises a batch another run settled rows of (no chain back). */
  options: { settleJoined?: boolean } = {},
): Promise<FinalizeAnswersResult & { joined_batches?: FinalizeAnswersResult[] }> => {
  const input = FinalizeAnswersInput.parse(rawInput);
  const found = await findBatchAndRound(ports, input, rawInput);
  if ('nothing' in found) return found.nothing;
  const { batch, batchId, roundId, round } = found;
  const now = ports.clock.now();

  const itemsBefore = await ports.reviews.listByBatch(batchId);
  const rows = await rowsInPlay(ports.batches, batchId, roundId, itemsBefore);
  const roundProblems: string[] = [];
  if (input.error) roundProblems.push(`The answers round failed: ${describeCaughtError(input.error)}`);
  roundProblems.push(...(await endRoundRows(ports, input, { batchId, roundId, round }, rows, now)));
  roundProblems.push(...(await lookAgainWithProblems(ports, batchId, rows, now, itemsBefore)));
  const joinedBatches =
    options.settleJoined === false ? [] : await settleJoinedRows(ports, batchId, rows, itemsBefore, now);
  const items = await settleReviewItems(ports, batchId, rows);

  // Read-only from here: the batch added up, then its files written as it is read again. Followers
  // are not written: they show their leader's outcome as they are read (core/same-product.ts).
  const read = await tallyBatch(ports.batches, batch, PAGE_SIZE);
  const shownRows = () => outboxRows(ports.batches, batchId, PAGE_SIZE);
  const results = () => streamResultsCsv(batch, read.width, shownRows());
  const revision = await keepRevision(ports.objects, batchId, await sha256Of(results()));
  const revisedAt = round?.finished_at ?? now.toISOString();
  const problemsOfRound = uniqueSentences([...(round?.problems ?? []), ...roundProblems]);
  const summary = revisedSummary({ batch, round, roundId, read, items, now }, problemsOfRound, {
    revision,
    revisedAt,
  });

  const review = pendingReviewItems(items, read.pendingRows);
  const { sameProductRows } = read;
  await writeOutboxFiles(ports.objects, batchId, {
    results,
    review: buildReviewCsv(review, batch.delimiter, { sameProductRows }),
    workbooks: {
      results: () => resultsWorkbook({ batch, summary, width: read.width, shownRows: shownRows() }),
      review: () => reviewWorkbook({ batch, items: review, sameProductRows, at: summaryTime(summary) }),
    },
    summary,
  });
  await replacePartialFiles(ports.objects, batchId, { summary, at: now.toISOString() });
  await announceAndCloseRound(ports, input, { round, roundId }, summary, { revisedAt, problemsOfRound });
  const revisedElsewhere = await reviseJoinedBatches(ports, batchId, joinedBatches, (revise) =>
    finalizeAnswers(ports, revise, { settleJoined: false }),
  );

  return {
    batch_id: batchId,
    round_id: roundId,
    resumed: round?.rows_dispatched ?? 0,
    still_pending: summary.by_status.pending_data,
    abandoned: summary.by_status.abandoned,
    revision,
    ...(revisedElsewhere.length > 0 ? { joined_batches: revisedElsewhere } : {}),
  };
};

/**
 * The rows this run may move, found in one pass a page at a time: the round's, those waiting for
 * answers (the service may have settled them since), and those the batch's review items name. They
 * grow with the questions asked, not with the batch.
 */
const rowsInPlay = async (
  batches: Pick<FinalizeAnswersPorts['batches'], 'rowsPage'>,
  batchId: string,
  roundId: string | null,
  items: readonly ReviewItem[],
): Promise<RowRecord[]> => {
  const named = new Set(items.map((item) => item.row));
  const rows: RowRecord[] = [];
  let after: number | null = null;
  do {
    const page = await batches.rowsPage(batchId, { after, limit: PAGE_SIZE });
    for (const row of page.rows) {
      const ofRound = roundId !== null && row.round?.round_id === roundId;
      if (ofRound || row.status === 'pending_data' || named.has(row.row)) rows.push(row);
    }
    after = page.next;
  } while (after !== null);
  return rows;
};

/** The batch this run finalizes and, when it has one, its answers round. */
type FinalizeTarget = {
  batch: BatchRecord;
  batchId: string;
  roundId: string | null;
  round: BatchRecord | null;
};

/** Step 1; `nothing` when there is nothing to finalize (a duplicate delivery, an unknown batch). */
const findBatchAndRound = async (
  ports: Pick<FinalizeAnswersPorts, 'batches'>,
  input: FinalizeAnswersInput,
  rawInput: unknown,
): Promise<FinalizeTarget | { nothing: FinalizeAnswersResult }> => {
  // A duplicate delivery's workflow never owns the round; an unknown batch has no outbox.
  if (input.prepare?.next === 'skip')
    return { nothing: nothing(input.prepare.batch_id, input.prepare.round_id) };
  const fromEvent = answersSourceFromEvent(rawInput);
  const batchId = input.prepare?.batch_id ?? fromEvent?.batchId ?? null;
  const roundId = input.prepare?.round_id ?? fromEvent?.roundId ?? null;
  if (batchId === null) return { nothing: nothing(null, roundId) };
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) return { nothing: nothing(batchId, roundId) };
  const found = roundId === null ? null : await ports.batches.getBatch(roundId);
  const round = found?.round_of === batchId ? found : null;
  return { batch, batchId, roundId, round };
};

/** Step 3; returns the sentences it adds to the round's problems. */
const lookAgainWithProblems = async (
  ports: Pick<FinalizeAnswersPorts, 'service' | 'batches'>,
  batchId: string,
  rows: RowRecord[],
  now: Date,
  items: readonly ReviewItem[],
): Promise<string[]> => {
  // A row that joined another batch's classification, or whose classification was answered
  // through another batch's row, is not where it was billed: it shows no cost.
  const billedElsewhere = new Set(
    items
      .filter((item) => item.owner !== undefined || (item.answers !== undefined && item.state !== 'pending'))
      .map((item) => item.row),
  );
  const lookedAgain = await lookAgainAtPendingRows(ports, batchId, rows, now, {
    billedHere: (row) => !billedElsewhere.has(row.row),
  });
  const problems: string[] = [];
  if (lookedAgain.abandoned > 0) {
    problems.push(
      `${lookedAgain.abandoned} row(s) went unanswered for 30 days: the service abandoned them (not billed).`,
    );
  }
  if (lookedAgain.settledElsewhere > 0) {
    problems.push(
      `${lookedAgain.settledElsewhere} pending row(s) were answered outside this batch and have finished at the service.`,
    );
  }
  return problems;
};

/** Step 5's summary.json: the batch's summary with the round's problems, and what the rounds changed. */
const revisedSummary = (
  of: Pick<FinalizeTarget, 'batch' | 'round' | 'roundId'> & {
    read: TallyRead;
    items: readonly ReviewItem[];
    now: Date;
  },
  problemsOfRound: readonly string[],
  revised: { revision: number; revisedAt: string },
) => {
  const { batch, round, roundId, read, items, now } = of;
  return {
    ...read.tally.summary(
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
      now,
    ),
    round_id: roundId,
    revision: revised.revision,
    /** Answers rounds that resumed at least one row of the batch. */
    rounds: read.rounds.size,
    /** Review items someone answered (resumed, then closed once the row finished). */
    answered: items.filter((item) => item.answers !== undefined && item.state !== 'pending').length,
    revised_at: revised.revisedAt,
  };
};

/** Step 6: the Batch Completed event, then the round marked done, unless an earlier run did both. */
const announceAndCloseRound = async (
  ports: Pick<FinalizeAnswersPorts, 'events' | 'batches'>,
  input: FinalizeAnswersInput,
  target: Pick<FinalizeTarget, 'round' | 'roundId'>,
  summary: ReturnType<typeof revisedSummary>,
  closing: { revisedAt: string; problemsOfRound: string[] },
): Promise<void> => {
  const { round, roundId } = target;
  const roundAlreadyDone =
    round !== null &&
    round.finished_at !== undefined &&
    (round.state === 'completed' || round.state === 'failed');
  if (round && roundId !== null && !roundAlreadyDone) {
    // Published before the round is marked done: a crash in between publishes twice, never zero times.
    await ports.events.batchCompleted(summary);
    await ports.batches.updateBatch(roundId, {
      state: round.state === 'failed' || round.state === 'preparing' || input.error ? 'failed' : 'completed',
      finished_at: closing.revisedAt,
      problems: closing.problemsOfRound,
    });
  } else if (!round) {
    // No round record (PrepareAnswers failed before writing it): nothing tells a re-run apart.
    await ports.events.batchCompleted(summary);
  }
};

const uniqueSentences = (sentences: readonly string[]): string[] => [...new Set(sentences)];

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
  return mapLimited(items, ITEMS_IN_FLIGHT, async (item) => {
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
  });
};

/** Review items updated at once. */
const ITEMS_IN_FLIGHT = 16;
