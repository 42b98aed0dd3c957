/**
 * FinalizeAnswers: the last task of the Answers workflow (docs/answers-round.md), reached when the
 * round's rows all finished, when PrepareAnswers resumed nothing, when the wait timed out
 * (`wait_error`) or PrepareAnswers failed (`error`). The batch's outputs move forward.
 *
 * Primary course:
 *   1. find the batch and the round: PrepareAnswers' result, else the event (derived without I/O)
 *   2. the round's rows still working end now: back to `pending_data` when the round never left
 *      `preparing` (their answers were never sent), else `error` saying why
 *   3. look again at every row still `pending_data`: the service may have abandoned it (30 days,
 *      unbilled) or it was answered elsewhere (the web app) and has since resolved or failed;
 *      then rows of the same product take their leader's new outcome (one answer resumes them all)
 *   3b. rows of other batches that joined a classification whose outcome this batch's rows just
 *      took (a re-run of the same file while it waited: docs/answers-round.md, "A re-run does not
 *      ask again") take that outcome at no cost, and each such batch's results move forward too
 *   4. review items of rows now final are closed; a decision this round took on a reused
 *      product's verdict is written on the product's other rows (reused-product-rows.ts, a page
 *      at a time, in legs like step 5)
 *   5. the earlier results.csv, results.xlsx and summary.json kept as results.rev<N>.csv,
 *      results.rev<N>.xlsx and summary.rev<N>.json when results.csv changes; then results.csv and
 *      .xlsx, review.csv and .xlsx and summary.json written anew
 *   6. the Batch Completed event (with `round_id`), then the round marked `completed` (or `failed`)
 *
 * It never holds the batch: steps 2 to 4 work on the rows in play (the round's, those waiting for
 * answers, those the review items name), found in one pass a page at a time (rows-in-play.ts);
 * step 5 (revise-files.ts) writes results.csv aside as it adds the batch up, keeps the revision
 * when it differs from the outbox's (by sha256), then writes results.xlsx, each pass in legs: a
 * leg whose time is spent answers `next: "again"` with where it stopped and the workflow calls it
 * again. Then each batch whose rows joined a classification that ended here (step 3b) is revised
 * the same way, one after another, in the same legs. Step 2 is round-rows.ts, step 3b joined-rows.ts.
 *
 * Run twice, it writes the same files and no second revision (results-revisions.ts says how).
 */

import * as z from 'zod';
import type { TableInForce } from '../../ncm-table/reference-table.js';
import { message, roundProblem, uniqueMessages } from '../../wording/index.js';
import { type Message, StoredMessage } from '../../wording/message.js';
import { describeCaughtError } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import { type BatchRecord, finalizeInputWith, type ReviewItem } from '../core/records.js';
import { FINALIZE_SETTINGS, type FinalizeSettings } from '../finalize/finalize-settings.js';
import type { TallyRead } from '../finalize/outbox-rows.js';
import type { ShownSummary } from '../outbox/results-summary-sheet.js';
import { answersSourceFromEvent } from './answers-source.js';
import { PrepareAnswersResult } from './answers-steps.js';
import { joinedRevisionInput, settleJoinedRows } from './joined-rows.js';
import { decideReusedRows } from './reused-product-rows.js';
import { RevisionProgress, reviseFiles } from './revise-files.js';
import { endRoundRows } from './round-rows.js';
import { lookAgainWithProblems, rowsInPlay, settleReviewItems } from './rows-in-play.js';

/**
 * What FinalizeAnswers reports for one batch once done: the batch and round, and how many rows
 * the round resumed, still wait for answers, were abandoned, and which revision results.csv is.
 */
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

/**
 * The ports FinalizeAnswers uses: the clock, the service, the bucket, the tables, the audit log and
 * events.
 */
export type FinalizeAnswersPorts = Pick<
  PipelinePorts,
  'clock' | 'service' | 'objects' | 'batches' | 'reviews' | 'checks' | 'audit' | 'events'
>;

const nothing = (batchId: string | null, roundId: string | null): FinalizeAnswersResult => ({
  batch_id: batchId,
  round_id: roundId,
  resumed: 0,
  still_pending: 0,
  abandoned: 0,
  revision: 0,
});

/** A batch's revision under way: this run's own batch first, then each batch that joined its classifications. */
const RunUnderWay = z.object({
  batch_id: z.string(),
  round_id: z.string().nullable(),
  /** The round's problems and what steps 2 to 4 found. */
  problems_of_round: z.array(StoredMessage),
  /** The round failed (PrepareAnswers' error): the round is marked so. */
  round_failed: z.boolean(),
  width: z.number().int().min(0),
  began_at: z.string(),
  /** Step 4's pass writing the round's decisions on reused products' rows, while under way. */
  deciding: z.object({ after: z.number().int().nullable() }).optional(),
  revision: RevisionProgress,
});
type RunUnderWay = z.infer<typeof RunUnderWay>;

const RunResult = z.object({
  batch_id: z.string().nullable(),
  round_id: z.string().nullable(),
  resumed: z.number(),
  still_pending: z.number(),
  abandoned: z.number(),
  revision: z.number(),
});

/**
 * What a leg of FinalizeAnswers returns when its time is spent (`next: "again"`): the revision under
 * way, the joined batches still to revise, the runs done. The workflow passes it back as `finalized`.
 */
export const FinalizeAnswersLegs = z.object({
  next: z.literal('again'),
  run: RunUnderWay,
  /** Batches that joined this run's classifications, still to revise. */
  joined_left: z.array(z.string()),
  /** The runs done: this batch's first. */
  done: z.array(RunResult),
});
export type FinalizeAnswersLegs = z.infer<typeof FinalizeAnswersLegs>;

/** The Answers workflow's state: the S3 event's fields (read by `answersSourceFromEvent`) plus these. */
const FinalizeAnswersInput = finalizeInputWith(PrepareAnswersResult).extend({
  finalized: z.unknown().optional(),
});
type FinalizeAnswersInput = z.infer<typeof FinalizeAnswersInput>;

/**
 * FinalizeAnswers' leg length, page size and part size: Finalize's, since the same Lambda and S3
 * limits bound both.
 */
export const FINALIZE_ANSWERS_SETTINGS: FinalizeSettings = FINALIZE_SETTINGS;

/**
 * Runs one leg of FinalizeAnswers for the round the workflow's state names (steps 1 to 6 above).
 * Returns the outcome for the round's batch, and for each batch whose rows joined its
 * classifications, or `next: "again"` with where it stopped when the leg's time ran out first.
 */
export const finalizeAnswers = async (
  ports: FinalizeAnswersPorts,
  rawInput: unknown,
  settings: FinalizeSettings = FINALIZE_ANSWERS_SETTINGS,
): Promise<(FinalizeAnswersResult & { joined_batches?: FinalizeAnswersResult[] }) | FinalizeAnswersLegs> => {
  const input = FinalizeAnswersInput.parse(rawInput);
  // Real time, not a span: the 15 minutes a Lambda runs do not shrink with the local time scale.
  const until = ports.clock.now().getTime() + settings.legMs;
  const handed = FinalizeAnswersLegs.safeParse(input.finalized);
  let legs: FinalizeAnswersLegs;
  if (handed.success) legs = handed.data;
  else {
    const started = await startRun(ports, input, rawInput, { settleJoined: true });
    if ('nothing' in started) return started.nothing;
    legs = { next: 'again', run: started.run, joined_left: started.joined, done: [] };
  }
  for (;;) {
    if (legs.run.deciding) {
      const { deciding, ...run } = legs.run;
      const clock = () => ports.clock.now().getTime();
      const leg = { after: deciding.after, until, now: clock };
      const pass = await decideReusedRows(ports, run.batch_id, run.round_id ?? '', leg);
      if (pass.after !== null) return { ...legs, run: { ...run, deciding: { after: pass.after } } };
      legs = { ...legs, run };
    }
    const outcome = await reviseRun(ports, legs.run, until, settings);
    if (outcome.next === 'again') return { ...legs, run: { ...legs.run, revision: outcome.progress } };
    legs = { ...legs, done: [...legs.done, outcome.result] };
    const next = await nextJoinedRun(ports, legs);
    if (next === null) break;
    legs = { ...legs, run: next.run, joined_left: next.left };
    if (ports.clock.now().getTime() >= until) return legs;
  }
  const [own, ...joined] = legs.done;
  return { ...own!, ...(joined.length > 0 ? { joined_batches: joined } : {}) };
};

/**
 * Steps 1 to 4 for a batch: its round found, its rows in play moved, its review items brought up
 * to date; then the revision of its files is under way. `settleJoined: false`: a batch whose rows
 * another run just ended (no chain back).
 */
const startRun = async (
  ports: FinalizeAnswersPorts,
  input: FinalizeAnswersInput,
  rawInput: unknown,
  options: { settleJoined: boolean },
): Promise<{ run: RunUnderWay; joined: string[] } | { nothing: FinalizeAnswersResult }> => {
  const found = await findBatchAndRound(ports, input, rawInput);
  if ('nothing' in found) return found;
  const { batch, batchId, roundId, round } = found;
  const now = ports.clock.now();

  const itemsBefore = await ports.reviews.listByBatch(batchId);
  const { rows, width } = await rowsInPlay(ports.batches, batch, roundId, itemsBefore);
  const roundProblems: Message[] = [];
  if (input.error) roundProblems.push(message('round_failed', { text: describeCaughtError(input.error) }));
  roundProblems.push(...(await endRoundRows(ports, input, { batchId, roundId, round }, rows, now)));
  roundProblems.push(...(await lookAgainWithProblems(ports, batchId, rows, now, itemsBefore)));
  const joined = options.settleJoined ? await settleJoinedRows(ports, batchId, rows, itemsBefore, now) : [];
  await settleReviewItems(ports, batchId, rows);
  return {
    run: {
      batch_id: batchId,
      round_id: roundId,
      problems_of_round: uniqueMessages([...(round?.problems ?? []), ...roundProblems]),
      round_failed: input.error !== undefined && input.error !== null,
      width,
      began_at: now.toISOString(),
      // A round's decisions on reused products are written on their rows next, in legs.
      ...(roundId !== null ? { deciding: { after: null } } : {}),
      // Objects in `work/` are named by the round, or by when a round-less run began.
      revision: { run: roundId ?? `revise-${now.getTime()}`, pass: 'csv', writing: null, revision: null },
    },
    joined,
  };
};

/** The next batch that joined this run's classifications and has finished, with its steps 1 to 4 done. */
const nextJoinedRun = async (
  ports: FinalizeAnswersPorts,
  legs: FinalizeAnswersLegs,
): Promise<{ run: RunUnderWay; left: string[] } | null> => {
  const left = [...legs.joined_left];
  const ownBatchId = legs.done[0]?.batch_id ?? legs.run.batch_id;
  for (let other = left.shift(); other !== undefined; other = left.shift()) {
    // A batch still running writes its results at its own end and reads the rows as they are then.
    if ((await ports.batches.getBatch(other))?.state !== 'completed') continue;
    const input = joinedRevisionInput(ownBatchId, other);
    const started = await startRun(ports, FinalizeAnswersInput.parse(input), input, { settleJoined: false });
    if ('run' in started) return { run: started.run, left };
  }
  return null;
};

/** Steps 5 and 6 for the run under way, from where the last leg left them. */
const reviseRun = async (
  ports: FinalizeAnswersPorts,
  run: RunUnderWay,
  until: number,
  settings: FinalizeSettings,
): Promise<
  { next: 'again'; progress: RevisionProgress } | { next: 'done'; result: FinalizeAnswersResult }
> => {
  const batch = await ports.batches.getBatch(run.batch_id);
  if (!batch) throw new Error(`The batch ${run.batch_id} is gone while its results were revised.`);
  const found = run.round_id === null ? null : await ports.batches.getBatch(run.round_id);
  const round = found?.round_of === run.batch_id ? found : null;
  const items = await ports.reviews.listByBatch(run.batch_id);
  const now = new Date(run.began_at);
  const revisedAt = round?.finished_at ?? run.began_at;
  const problemsOfRound = run.problems_of_round;
  const outcome = await reviseFiles(ports, batch, run.revision, {
    width: run.width,
    until,
    pageSize: settings.pageSize,
    partBytes: settings.partBytes,
    items,
    now,
    summaryOf: (read, revision, ncm) =>
      revisedSummary({ batch, round, roundId: run.round_id, read, items, now, ncm }, problemsOfRound, {
        revision,
        revisedAt,
      }),
  });
  if (outcome.next === 'again') return outcome;
  const { summary, revision } = outcome;
  await announceAndCloseRound(ports, run.round_failed, { round, roundId: run.round_id }, summary, {
    revisedAt,
    problemsOfRound,
  });
  return {
    next: 'done',
    result: {
      batch_id: run.batch_id,
      round_id: run.round_id,
      resumed: round?.rows_dispatched ?? 0,
      still_pending: summary.by_status.pending_data,
      abandoned: summary.by_status.abandoned,
      revision,
    },
  };
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

/** Step 5's summary.json: the batch's summary with the round's problems, and what the rounds changed. */
const revisedSummary = (
  of: Pick<FinalizeTarget, 'batch' | 'round' | 'roundId'> & {
    read: TallyRead;
    items: readonly ReviewItem[];
    now: Date;
    ncm?: TableInForce;
  },
  problemsOfRound: readonly Message[],
  revised: { revision: number; revisedAt: string },
) => {
  const { batch, round, roundId, read, items, now, ncm } = of;
  return {
    ...read.tally.summary(
      {
        ...batch,
        problems: uniqueMessages([
          ...batch.problems,
          // Without a round (the daily sweep), what changed happened since the batch finished.
          ...problemsOfRound.map((problem) => roundProblem(problem, round ? round.source.file_name : null)),
        ]),
      },
      now,
      ncm,
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
  roundFailed: boolean,
  target: Pick<FinalizeTarget, 'round' | 'roundId'>,
  summary: ShownSummary,
  closing: { revisedAt: string; problemsOfRound: Message[] },
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
      state: round.state === 'failed' || round.state === 'preparing' || roundFailed ? 'failed' : 'completed',
      finished_at: closing.revisedAt,
      problems: closing.problemsOfRound,
    });
  } else if (!round) {
    // No round record (PrepareAnswers failed before writing it): nothing tells a re-run apart.
    await ports.events.batchCompleted(summary);
  }
};
