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
 * Run twice, it writes the same files and no second revision (results-revisions.ts says how).
 */
import type { z } from 'zod';
import { isFinalStatus } from '../../tcs/schemas.js';
import { replacePartialFiles } from '../batch/partial-results.js';
import {
  buildResultsCsv,
  buildReviewCsv,
  buildSummary,
  pendingReviewItems,
  pendingRowsOf,
  writeOutboxFiles,
} from '../batch/results-files.js';
import { outboxWorkbooks } from '../batch/results-workbook.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import { describeCaughtError } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import {
  type BatchRecord,
  finalizeInputWith,
  joinedRowOf,
  type ReviewItem,
  type RowRecord,
  type RowResult,
} from '../core/records.js';
import { afterMove, type RowMove, withFollowersDerived } from '../core/row-life.js';
import { errorResult } from '../core/row-results.js';
import { isOutputStatus } from '../core/row-statuses.js';
import { followersByLeader } from '../core/same-product.js';
import { answersSourceFromEvent } from './answers-source.js';
import { lookAgainAtPendingRows } from './look-again-at-pending-rows.js';
import { PrepareAnswersResult } from './prepare-answers.js';
import { keepRevision } from './results-revisions.js';

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

  const rows: RowRecord[] = [];
  for await (const row of ports.batches.listRows(batchId)) rows.push(row);

  const roundProblems: string[] = [];
  if (input.error) roundProblems.push(`The answers round failed: ${describeCaughtError(input.error)}`);
  roundProblems.push(...(await endRoundRows(ports, input, { batchId, roundId, round }, rows, now)));
  const itemsBefore = await ports.reviews.listByBatch(batchId);
  roundProblems.push(...(await lookAgainWithProblems(ports, batchId, rows, now, itemsBefore)));
  // Followers are not written: they show their leader's outcome here, as wherever they are read.
  const standing = withFollowersDerived(rows);
  const joinedBatches =
    options.settleJoined === false ? [] : await settleJoinedRows(ports, batchId, standing, itemsBefore, now);
  const items = await settleReviewItems(ports, batchId, standing);

  const revisedAt = round?.finished_at ?? now.toISOString();
  const problemsOfRound = uniqueSentences([...(round?.problems ?? []), ...roundProblems]);
  const results = buildResultsCsv(batch, standing);
  const revision = await keepRevision(ports.objects, batchId, results);
  const summary = revisedSummary({ batch, round, roundId, rows: standing, items, now }, problemsOfRound, {
    revision,
    revisedAt,
  });

  const review = pendingReviewItems(items, pendingRowsOf(standing));
  const sameProductRows = followersByLeader(standing);
  await writeOutboxFiles(ports.objects, batchId, {
    results,
    review: buildReviewCsv(review, batch.delimiter, { sameProductRows }),
    workbooks: outboxWorkbooks({ batch, rows: standing, summary, review, sameProductRows }),
    summary,
  });
  await replacePartialFiles(ports.objects, batchId, { summary, at: now.toISOString() });
  await announceAndCloseRound(ports, input, { round, roundId }, summary, { revisedAt, problemsOfRound });
  const revisedElsewhere = await reviseJoinedBatches(ports, batchId, joinedBatches);

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

// ---------------------------------------------------------------------------
// Rows of other batches joined to a classification this batch settled
// ---------------------------------------------------------------------------

/** Outcomes the service gives a classification: the ones every row waiting on it takes. */
const SETTLED_BY_SERVICE = new Set(['resolved', 'failed', 'abandoned']);

/** Moves of other batches' rows a run writes at once. */
const JOINED_IN_FLIGHT = 8;

/** Batches whose results another batch's run moves forward at once (each reads its whole batch). */
const BATCHES_IN_FLIGHT = 2;

/**
 * The outcome a row that waited on the same classification takes: the settling row's, at no cost
 * (one classification, billed once, where its answers were sent), its PDF left where it was stored.
 */
export const joinedOutcome = (result: RowResult, settledBy: { batch_id: string; row: number }): RowResult => {
  const pdf = result.verdict_pdf ? ` (verdict PDF: outbox/${settledBy.batch_id}/${result.verdict_pdf})` : '';
  return {
    ...result,
    detail: [
      `Settled with classification ${result.classification_id ?? ''} of batch ${settledBy.batch_id}, row ` +
        `${settledBy.row}, that this row waited on${pdf}; billed there once, no charge here`,
      result.detail,
    ]
      .filter(Boolean)
      .join('; '),
    verdict_pdf: '',
    cost_usd: '0.00',
  };
};

/** Every row waiting on the item's classification (the row that asked, and the rows that joined it). */
const rowsWaitingOn = (item: ReviewItem): { batch_id: string; row: number }[] => [
  item.owner ?? { batch_id: item.batch_id, row: item.row },
  ...(item.joined ?? []).flatMap((name) => {
    const row = joinedRowOf(name);
    return row ? [row] : [];
  }),
];

/**
 * Step 3b. For each classification still open on the review table that a row of this batch has
 * now settled (resolved, failed or abandoned at the service), the rows of other batches waiting on
 * it take that outcome (the `settled_elsewhere` move, guarded: only a row still `pending_data`),
 * a few at a time. Returns the other batches involved: their results move forward after this
 * batch's (`reviseJoinedBatches`), also when a crashed earlier run had already moved their rows.
 */
const settleJoinedRows = async (
  ports: Pick<FinalizeAnswersPorts, 'batches'>,
  batchId: string,
  rows: readonly RowRecord[],
  items: readonly ReviewItem[],
  now: Date,
): Promise<string[]> => {
  const rowByNumber = new Map(rows.map((row) => [row.row, row]));
  const moves: { batch_id: string; row: number; result: RowResult }[] = [];
  for (const item of items) {
    if (item.state === 'closed') continue;
    const row = rowByNumber.get(item.row);
    if (!row?.result || row.classification_id !== item.classification_id) continue;
    if (!SETTLED_BY_SERVICE.has(row.status)) continue;
    const result = joinedOutcome(row.result, { batch_id: batchId, row: row.row });
    for (const waiting of rowsWaitingOn(item)) {
      if (waiting.batch_id === batchId) continue;
      moves.push({ ...waiting, result });
    }
  }
  const at = now.toISOString();
  await mapLimited(moves, JOINED_IN_FLIGHT, async (move) => {
    try {
      await ports.batches.moveRow(move.batch_id, move.row, {
        move: 'settled_elsewhere',
        result: move.result,
        at,
      });
    } catch {
      // A joined batch whose Prepare never wrote the row (it failed after joining): nothing waits there.
    }
  });
  return [...new Set(moves.map((move) => move.batch_id))].sort();
};

/** The other batches' results moved forward, as the daily sweep does (no round), for completed ones. */
const reviseJoinedBatches = async (
  ports: FinalizeAnswersPorts,
  batchId: string,
  batchIds: readonly string[],
): Promise<FinalizeAnswersResult[]> => {
  const revised = await mapLimited(batchIds, BATCHES_IN_FLIGHT, async (other) => {
    const batch = await ports.batches.getBatch(other);
    // A batch still running writes its results at its own end and reads the rows as they are then.
    if (batch?.state !== 'completed') return null;
    return finalizeAnswers(
      ports,
      {
        prepare: {
          batch_id: other,
          round_id: null,
          next: 'finalize',
          detail: `rows waiting on classifications settled by batch ${batchId}`,
        },
      },
      { settleJoined: false },
    );
  });
  return revised.filter((result): result is FinalizeAnswersResult => result !== null);
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

/** Why the round's unfinished rows end as `error`: its wait timed out or stopped, it failed, or neither. */
const unfinishedRowDetail = (input: FinalizeAnswersInput): string =>
  input.wait_error
    ? input.wait_error.Error.startsWith('States.') && input.wait_error.Error.includes('Timeout')
      ? ROUND_TIMED_OUT_DETAIL
      : `the answers round stopped waiting (${input.wait_error.Error}) before the answered row finished`
    : input.error
      ? ROUND_FAILED_DETAIL
      : ROUND_UNFINISHED_DETAIL;

/** Step 2; returns the sentences it adds to the round's problems. */
const endRoundRows = async (
  ports: Pick<FinalizeAnswersPorts, 'batches' | 'reviews'>,
  input: FinalizeAnswersInput,
  target: Pick<FinalizeTarget, 'batchId' | 'roundId' | 'round'>,
  rows: RowRecord[],
  now: Date,
): Promise<string[]> => {
  const { batchId, roundId, round } = target;
  if (!round || roundId === null) return [];
  if (round.state === 'preparing') {
    const returned = await returnUnsentRows(ports, batchId, roundId, rows, now);
    return returned > 0 ? [`${returned} answered row(s) were not sent and wait for answers again.`] : [];
  }
  const ended = await endUnfinishedRoundRows(ports, batchId, roundId, rows, unfinishedRowDetail(input), now);
  return ended > 0 ? [`${ended} answered row(s) had not finished and are marked error.`] : [];
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
    rows: readonly RowRecord[];
    items: readonly ReviewItem[];
    now: Date;
  },
  problemsOfRound: readonly string[],
  revised: { revision: number; revisedAt: string },
) => {
  const { batch, round, roundId, rows, items, now } = of;
  return {
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
    revision: revised.revision,
    /** Answers rounds that resumed at least one row of the batch. */
    rounds: new Set(rows.flatMap((row) => (row.round ? [row.round.round_id] : []))).size,
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
    const move: RowMove = { move: 'returned', round_id: roundId, at: now.toISOString() };
    if (!(await ports.batches.moveRow(batchId, row.row, move))) continue;
    if (row.classification_id) await ports.reviews.update(row.classification_id, { state: 'pending' });
    rows[index] = afterMove(row, move);
    returned += 1;
  }
  return returned;
};

/**
 * The round's rows still working get an `error` now, in `rows` too, keeping their classification
 * and link so the user can follow it. A row finishing at this moment keeps its result (the move's guard).
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
    const move: RowMove = { move: 'finished', result, at: now.toISOString() };
    if (await ports.batches.moveRow(batchId, row.row, move)) {
      rows[index] = afterMove(row, move);
      ended += 1;
    } else {
      rows[index] = (await ports.batches.getRow(batchId, row.row)) ?? row;
    }
  }
  return ended;
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
