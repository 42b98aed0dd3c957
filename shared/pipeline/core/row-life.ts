/**
 * A row's life: how it is born at Prepare, every move it may make after, the guard that keeps
 * each move safe when a step runs twice or late, the result it shows at any moment, and the keys
 * its verdict is reused under. Every step of the workflows moves a row through `BatchStore.moveRow`
 * with one of these moves; the adapters turn a move into one conditional write (docs/architecture.md,
 * property 7: every row ends in exactly one output row).
 *
 *   Each name is a move, followed by the status it leaves the row in:
 *
 *   born (queued) ─▶ claimed (submitting) ─▶ submitted (in_progress) ─▶ finished (an output status)
 *        ▲                   │                        │
 *        └───────────────────┴────────────────────────┘
 *              requeued (queued): after a 429, or as a new attempt after a transient failure
 *   born following: never moves; it shows its leader's outcome wherever it is read (resultNow)
 *   pending_data ─▶ resumed (queued, with answers) ─▶ answers posted (in_progress) ─▶ finished
 *        ▲               └── returned (the round never sent them)
 *        └── settled elsewhere (answered or abandoned outside the pipeline) ─▶ an output status
 *   rejected or failed ─▶ resent (queued, a new attempt, its cells corrected or a new sheet) ─▶ …
 *   any output ─▶ amended (the same status, its columns completed: a reused verdict's PDF)
 *   resolved or reused ─▶ sim_confirmed (the same status: the SIM openings the registry confirmed)
 *   resolved or reused ─▶ decided (the same status: a person approved the verdict to check)
 *
 * A guard names the statuses a move may start from (and the attempt, dispatch or round it belongs
 * to): a late Complete finds the row already final and changes nothing; a dispatcher that claims
 * a row another dispatch owns is refused.
 */
import { detailMessage, detailMessagesOf, detailOf } from '../../wording/details.js';
import type { Message } from '../../wording/message.js';
import { fingerprintKey, goodsKey } from './keys.js';
import { originOf } from './origins.js';
import type { RowRecord, SheetRef } from './records.js';
import type { RowResult, ShownResult } from './result-columns.js';
import { currentNcmMatches, resultForOrigin, resultNcmDigits } from './row-results.js';
import {
  isOutputStatus,
  type OutputStatus,
  type RowStatus,
  WORKING_STATUSES,
  type WorkingStatus,
} from './row-statuses.js';

// ---------------------------------------------------------------------------
// Birth: what Prepare makes of each row
// ---------------------------------------------------------------------------

/** A row record before its life starts: everything but its status, result and end time. */
export type UnbornRow = Omit<RowRecord, 'status' | 'result' | 'finished_at'>;

/** How Prepare starts a row: queued for a classification, following an earlier row, or final at once. */
export type Birth =
  /** Sent to the rows queue, within the budget. */
  | { as: 'queued' }
  /** An earlier row of the same product is queued: this one waits for its outcome. */
  | { as: 'following' }
  /** Final at Prepare: rejected, reused, or left out by the budget or a stop. */
  | { as: 'final'; result: RowResult };

/**
 * Gives the row record Prepare writes: the unborn row with the status its birth gives it, and for
 * a row final at birth its result and end time (the time it was made).
 */
export const bornRow = (row: UnbornRow, birth: Birth): RowRecord =>
  birth.as === 'final'
    ? { ...row, status: birth.result.status, result: birth.result, finished_at: row.updated_at }
    : { ...row, status: birth.as };

// ---------------------------------------------------------------------------
// Moves
// ---------------------------------------------------------------------------

type Answers = NonNullable<RowRecord['round']>;

/**
 * Every change a step may make to a row after its birth, each with the time it is made: the
 * move's name says what happened; `changeOf` says which fields it sets and from which statuses.
 */
export type RowMove = {
  at: string;
} /** The dispatcher claims the row for its message (attempt, dispatch): before it starts an execution. */ & (
  | { move: 'claimed'; attempt: number; dispatch: number }
  /** Submit's creation was accepted: the classification runs at the service. */
  | {
      move: 'submitted';
      classification_id: string;
      submitted_attempt: number;
      submitted_at: string;
      app_url?: string | undefined;
    }
  /** Submit's POST of an answers round's answers was accepted: the classification runs again. */
  | { move: 'answers_posted'; round: Answers }
  /** Back to the queue as a later attempt or dispatch (a 429, a transient failure). */
  | { move: 'requeued'; attempt: number; dispatch: number }
  /** The row's output: its classification's verdict, a failure, or the pipeline's error. */
  | { move: 'finished'; result: RowResult }
  /** An answers round takes a row waiting for answers back to work. */
  | { move: 'resumed'; round: Answers }
  /**
   * A resend round sends a rejected or failed row again: its product as corrected, its sheet (new
   * or as before), a new attempt (a new classification under a new key), the round on the row.
   * Only on the row as the round read it (`read_at`). Its old result and classification are removed.
   */
  | {
      move: 'resent';
      round: Answers;
      product: NonNullable<RowRecord['product']>;
      sheet: SheetRef | undefined;
      identity: { product_key: string; fingerprint: string };
      cells: string[];
      attempt: number;
      read_at: string;
    }
  /** The round that took the row never sent its answers: it waits for answers again. */
  | { move: 'returned'; round_id: string }
  /** A row waiting for answers whose classification settled outside the pipeline. */
  | { move: 'settled_elsewhere'; result: RowResult }
  /** A final row's columns completed; its status stays (a reused verdict's PDF copied). */
  | { move: 'amended'; result: RowResult }
  /**
   * A person decided the row's verdict to check (applied by an answers round): its result with
   * `check: approved` and the approved columns; its status and cost stay. Only on the row as it was
   * read (`read_at`, its `updated_at`): a SIM confirmation written meanwhile is never lost.
   */
  | { move: 'decided'; result: RowResult; read_at: string }
  /**
   * The daily sweep: the verdict's SIM openings, still being verified when it was stored, are
   * confirmed. Only on the row as the sweep read it (`read_at`, its
   * `updated_at`): a decision written meanwhile is never overwritten, the sweep reads it again.
   */
  | { move: 'sim_confirmed'; result: RowResult; read_at: string }
);

/** Which rows a move may apply to: the status it starts from, and whose row it must still be. */
export type RowGuard = {
  statuses: readonly RowStatus[];
  attempt?: number;
  dispatch?: number;
  round_id?: string;
  /** The row unchanged since it was read (its `updated_at`): for a move that rewrites a result it read. */
  updated_at?: string;
};

/**
 * The fields a move sets, those it removes, and its guard: what an adapter writes in one
 * conditional update.
 */
export type RowChange = {
  set: Partial<Omit<RowRecord, 'batch_id' | 'row'>>;
  remove?: readonly (keyof RowRecord)[];
  guard: RowGuard;
};

/** The statuses a resend round may send again: a row that never reached the service, or whose run failed. */
export const RESENDABLE_STATUSES: readonly RowStatus[] = ['rejected', 'failed'];

/** What a row sent again leaves behind: its old ending and classification (the audit keeps them). */
const OLD_OUTCOME: readonly (keyof RowRecord)[] = [
  'result',
  'finished_at',
  'rejection',
  'classification_id',
  'submitted_attempt',
  'submitted_at',
  'app_url',
];

const STILL_WORKING: RowGuard = { statuses: WORKING_STATUSES };

/** The statuses of a row whose verdict a person may decide. */
export const DECIDABLE_STATUSES: readonly RowStatus[] = ['resolved', 'reused'];

const final = (result: RowResult, at: string) => ({
  status: result.status,
  result,
  finished_at: at,
  updated_at: at,
});

/**
 * Gives what a move writes and its guard: the fields it sets on the row and the statuses (and
 * attempt, dispatch, round or read time) the row must still have for the write to apply. Throws
 * for a decision on a row whose status holds no verdict.
 */
export const changeOf = (move: RowMove): RowChange => {
  const { at } = move;
  switch (move.move) {
    case 'claimed':
      // `submitting` too: a dispatcher that died after claiming is followed by a redelivery.
      return {
        set: { status: 'submitting', updated_at: at },
        guard: { statuses: ['queued', 'submitting'], attempt: move.attempt, dispatch: move.dispatch },
      };
    case 'submitted':
      return {
        set: {
          status: 'in_progress',
          classification_id: move.classification_id,
          submitted_attempt: move.submitted_attempt,
          ...(move.app_url ? { app_url: move.app_url } : {}),
          submitted_at: move.submitted_at,
          updated_at: at,
        },
        guard: STILL_WORKING,
      };
    case 'answers_posted':
      return { set: { status: 'in_progress', round: move.round, updated_at: at }, guard: STILL_WORKING };
    case 'requeued':
      return {
        set: { status: 'queued', attempt: move.attempt, dispatch: move.dispatch, updated_at: at },
        guard: STILL_WORKING,
      };
    case 'finished':
      return { set: final(move.result, at), guard: STILL_WORKING };
    case 'resumed':
      // From an output status back to work (as `resent`). The round restarts dispatching at 1.
      return {
        set: { status: 'queued', round: move.round, dispatch: 1, updated_at: at },
        guard: { statuses: ['pending_data'] },
      };
    case 'resent':
      return {
        set: {
          status: 'queued',
          round: move.round,
          product: move.product,
          sheet: move.sheet,
          product_key: move.identity.product_key,
          fingerprint: move.identity.fingerprint,
          cells: move.cells,
          attempt: move.attempt,
          dispatch: 1,
          updated_at: at,
        },
        remove: move.sheet ? OLD_OUTCOME : [...OLD_OUTCOME, 'sheet'],
        guard: { statuses: RESENDABLE_STATUSES, updated_at: move.read_at },
      };
    case 'returned':
      return {
        set: { status: 'pending_data', updated_at: at },
        guard: { statuses: ['queued'], round_id: move.round_id },
      };
    case 'settled_elsewhere':
      return { set: final(move.result, at), guard: { statuses: ['pending_data'] } };
    case 'amended':
      return { set: { result: move.result, updated_at: at }, guard: { statuses: [move.result.status] } };
    case 'decided':
      // Only a verdict is decided, as the status it has; the same decision again sets the same.
      if (!DECIDABLE_STATUSES.includes(move.result.status)) {
        throw new Error(`A ${move.result.status} row has no verdict to decide.`);
      }
      return {
        set: { result: move.result, updated_at: at },
        guard: { statuses: [move.result.status], updated_at: move.read_at },
      };
    case 'sim_confirmed':
      return {
        set: { result: move.result, updated_at: at },
        guard: { statuses: [move.result.status], updated_at: move.read_at },
      };
  }
};

/**
 * Gives the row as a move leaves it, without checking the guard: what a caller keeps of a row it
 * moved, and what the in-memory adapter stores.
 */
export const afterMove = <Row extends RowRecord>(row: Row, move: RowMove): Row => {
  const { set, remove = [] } = changeOf(move);
  const defined = Object.entries(set).filter(([, value]) => value !== undefined);
  const moved: Row = { ...row, ...Object.fromEntries(defined) };
  for (const field of remove) if (set[field as keyof typeof set] === undefined) delete moved[field];
  return moved;
};

/**
 * Whether a row passes a move's guard: the in-memory adapter's check, which must agree with the
 * DynamoDB adapter's condition.
 */
export const passesGuard = (
  row: Pick<RowRecord, 'status' | 'attempt' | 'dispatch' | 'round' | 'updated_at'>,
  guard: RowGuard,
) =>
  guard.statuses.includes(row.status) &&
  (guard.attempt === undefined || row.attempt === guard.attempt) &&
  (guard.dispatch === undefined || row.dispatch === guard.dispatch) &&
  (guard.round_id === undefined || row.round?.round_id === guard.round_id) &&
  (guard.updated_at === undefined || row.updated_at === guard.updated_at);

// ---------------------------------------------------------------------------
// The result a row shows
// ---------------------------------------------------------------------------

/** What a working row is doing, by its status, as its `detail`. */
const workingDetail = (status: WorkingStatus) => detailOf([detailMessage(status, {})]);

/**
 * Gives the message a follower shows before its leader's own detail: which row it follows, and how
 * that row ended.
 */
const followerDetail = (leaderRow: number, leaderStatus: OutputStatus): Message =>
  detailMessage('same_product', { leader: leaderRow, leader_status: leaderStatus });

/**
 * A follower's outcome: its leader's columns, at no cost, with a detail naming the leader, the
 * follower's own comparison with the NCM it declared, and its own origin's tariffs.
 */
const followerOutcome = (
  leader: Pick<RowRecord, 'row' | 'status' | 'result'> &
    Partial<Pick<RowRecord, 'product'>> & { status: OutputStatus },
  follower: Pick<RowRecord, 'product'>,
): RowResult => {
  // The leader's verdict with the follower's own tariffs when their origins differ (core/origins.ts).
  const result = resultForOrigin(
    leader.result ?? { status: leader.status },
    { origin: originOf(leader.product) },
    originOf(follower.product),
  );
  const ncm = resultNcmDigits(result);
  return {
    ...result,
    ...detailOf([followerDetail(leader.row, result.status), ...detailMessagesOf(result)]),
    cost_usd: '0.00',
    ...(ncm ? { current_ncm_matches: currentNcmMatches(follower.product?.current_ncm ?? null, ncm) } : {}),
  };
};

/**
 * Gives the result a row shows now (its shown result). A follower whose leader is final shows its
 * leader's outcome at no cost, whether or not that was written yet (pass the leader); a final row
 * its result (a row made final without one keeps at least its status); a working row where it is
 * on its way.
 */
export const resultNow = (
  row: Pick<RowRecord, 'status' | 'result' | 'follows' | 'product' | 'classification_id' | 'app_url'>,
  leader?: (Pick<RowRecord, 'row' | 'status' | 'result'> & Partial<Pick<RowRecord, 'product'>>) | undefined,
): ShownResult => {
  if (row.follows !== undefined && leader && isOutputStatus(leader.status))
    return followerOutcome({ ...leader, status: leader.status }, row);
  if (isOutputStatus(row.status)) return row.result ?? { status: row.status };
  return {
    status: row.status,
    ...workingDetail(row.status as WorkingStatus),
    ...(row.classification_id ? { classification_id: row.classification_id } : {}),
    ...(row.app_url ? { app_url: row.app_url } : {}),
  };
};

/** Whether a shown result is an output: the row has ended (for now). */
export const isFinalResult = (shown: ShownResult): shown is RowResult => isOutputStatus(shown.status);

/**
 * Gives a lookup of each follower's leader among `rows` (undefined when it is not among them), for
 * `resultNow`.
 */
const leadersOf = (rows: readonly RowRecord[]): ((row: RowRecord) => RowRecord | undefined) => {
  const byNumber = new Map(rows.map((row) => [row.row, row]));
  return (row) => (row.follows === undefined ? undefined : byNumber.get(row.follows));
};

/**
 * The rows with every follower whose leader is final showing that outcome (status and result),
 * in memory: for a step that holds a batch's rows (FinalizeAnswers) and reads them as they stand.
 * Nothing is written: a follower's outcome is derived wherever it is read, so a batch's followers
 * cost no write however many there are.
 */
export const withFollowersDerived = (rows: readonly RowRecord[]): RowRecord[] => {
  const leaderOf = leadersOf(rows);
  return rows.map((row) => {
    const leader = leaderOf(row);
    if (!leader) return row;
    const shown = resultNow(row, leader);
    return isFinalResult(shown) ? { ...row, status: shown.status, result: shown } : row;
  });
};

// ---------------------------------------------------------------------------
// Reuse
// ---------------------------------------------------------------------------

/**
 * Gives the keys a product's resolved verdict is kept under in the product cache, in the order
 * Prepare looks them up, without repeats: its own product key (`sku:` or `h:`), then its
 * fingerprint's, so a later batch reuses it for every row of the product, its followers included;
 * then, for a product without a SKU, its product fingerprint's (`p:`), for rows of other origins.
 */
export const reuseKeysOf = (row: {
  product_key: string;
  fingerprint: string;
  /** What decides the NCM whatever the origin: a product without a SKU is kept under it too. */
  product_fingerprint?: string | undefined;
}): string[] => [
  ...new Set([
    row.product_key,
    fingerprintKey(row.fingerprint),
    ...(row.product_fingerprint && !row.product_key.startsWith('sku:')
      ? [goodsKey(row.product_fingerprint)]
      : []),
  ]),
];
