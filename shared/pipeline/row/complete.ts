import { detailMessage } from '../../wording/details.js';
import { resultEvents } from '../audit/audit-events.js';
import { outboxKey } from '../core/bucket-layout.js';
import { describeCaughtError } from '../core/error-text.js';
import { originOf } from '../core/origins.js';
import type { PipelinePorts, RowFinish } from '../core/ports.js';
import { type KickReason, type RowOutcome, type RowRecord, RowState } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { isFinalResult, resultNow, reuseKeysOf } from '../core/row-life.js';
import { errorResult } from '../core/row-results.js';
import { isOutputStatus, type RowStatus } from '../core/row-statuses.js';
import { goodsFingerprintOfRow } from '../reuse/reuse.js';
import { completionIdOf, isSuperseded, loadRow } from './row-state.js';

/**
 * What Complete did to a row: the outcome, the status it left, and what else it did (counted, woke,
 * released, kicked).
 */
export type CompleteReport = {
  batch_id: string;
  row: number;
  /**
   * `final`: the row has its result (now or already); `requeue`: the row is back in the
   * queue; `superseded`: a later dispatch owns the row and nothing of it was changed.
   */
  outcome: 'final' | 'requeue' | 'superseded';
  /** The row's status after this call. */
  status: RowStatus;
  /** Whether this call changed the row (false for a retried or late Complete). */
  changed: boolean;
  /** The row was the batch's (or round's) last to finish. */
  batchComplete: boolean;
  /** This call woke the waiting Batch workflow. */
  woke: boolean;
  /** This call released the row attempt's lease (false when it was released already). */
  leaseReleased: boolean;
  /** This call kicked the dispatcher. */
  kicked: boolean;
};

type FinishReport = { changed: boolean; batchComplete: boolean; woke: boolean };

/**
 * Reads the result a row already holds and when it was stored: what a finishing call counts when
 * its own write was refused because another call finished the row first. Null when the row is not
 * final (a follower, whose outcome is its leader's and is never written on it).
 */
const resultKept = async (
  batches: PipelinePorts['batches'],
  batchId: string,
  row: number,
): Promise<{ result: RowResult; at: string } | null> => {
  const record = await batches.getRow(batchId, row);
  return record && isOutputStatus(record.status)
    ? { result: record.result ?? { status: record.status }, at: record.finished_at ?? record.updated_at }
    : null;
};

/**
 * Takes a row's result, when it ended and the value its verdict covers (cents), and gives how it is
 * counted done: its status, what it billed in whole cents, when, and the value if it resolved.
 */
export const finishOf = (result: RowResult, at: string, valueCents = 0): RowFinish => {
  const cost = Number(result.cost_usd ?? 0);
  return {
    status: result.status,
    billed_cents: Number.isFinite(cost) && cost > 0 ? Math.round(cost * 100) : 0,
    at,
    ...(result.status === 'resolved' && valueCents > 0 ? { value_cents: valueCents } : {}),
  };
};

/**
 * Where a finished row is counted: its batch, or the answers round it ran in (`countOn`); its SKU
 * for audit.csv, when the caller has the row.
 */
type FinishOptions = { countOn?: string | undefined; sku?: string | null; valueCents?: number | undefined };

/**
 * Gives a row its final result (only if it has none), records the result's audit events, counts
 * it done and wakes the batch (or the answers round, `countOn`) if it was the last. Safe to repeat:
 * a retry counts and records what the row kept, once.
 */
export const finishRow = async (
  // `audit`: the verdict in audit.csv. The dispatcher ends only rows never sent (not_submitted),
  // which audit.csv tells from the rows themselves, and goes without it.
  ports: Pick<PipelinePorts, 'clock' | 'batches' | 'waiters'> & Partial<Pick<PipelinePorts, 'audit'>>,
  batchId: string,
  row: number,
  result: RowResult,
  options: FinishOptions = {},
): Promise<FinishReport> => {
  const countOn = options.countOn ?? batchId;
  const at = ports.clock.now().toISOString();
  const changed = await ports.batches.moveRow(batchId, row, { move: 'finished', result, at });
  // Counted whether or not this call wrote the result: a retry after a crash between the
  // two writes must still count the row (a set ADD: counting twice is counting once). By the
  // result the row keeps: when this call did not write it, another one may have, first.
  const stored = changed ? { result, at } : await resultKept(ports.batches, batchId, row);
  const kept = stored?.result ?? result;
  // Before the row is counted: its batch is finalized (and audit.csv written) only after. At the
  // time the result was stored, so a retry records the same event, once.
  if (stored && ports.audit) {
    const events = resultEvents({ batch_id: batchId, row, sku: options.sku }, stored.result, stored.at);
    if (events.length > 0) await ports.audit.record(events);
  }
  const done = await ports.batches.markRowDone(countOn, row, finishOf(kept, at, options.valueCents));
  // Every call that sees the batch complete wakes it: a retry may be the only one left to
  // do it, and waking an already woken token is a no-op (BatchWaiters).
  if (done.batchComplete && done.taskToken) {
    await ports.waiters.wake(done.taskToken, { batch_id: countOn });
    return { changed, batchComplete: true, woke: true };
  }
  return { changed, batchComplete: done.batchComplete, woke: false };
};

/**
 * The dispatches a row's classification is followed through when its executions fail after it was
 * created: past this one, the failure ends the row as `error`.
 */
export const FOLLOWED_AFTER_FAILURE_DISPATCHES = 4;

/**
 * Whether a failed execution's row goes on with its classification instead of ending as an error:
 * its caller lets it (`follow`), this attempt created it (the service runs it, and bills it once it
 * resolves, whatever became of the execution), the row is not final, and it has had fewer than
 * `FOLLOWED_AFTER_FAILURE_DISPATCHES` dispatches. The next dispatch's Submit reads the
 * classification instead of creating one (row/submit.ts). An answers round's row ends as before.
 */
const followsAfterFailure = (state: RowState, row: RowRecord, follow: boolean): boolean =>
  follow &&
  state.round_id === undefined &&
  row.classification_id !== undefined &&
  row.submitted_attempt === state.attempt &&
  !isOutputStatus(row.status) &&
  state.dispatch < FOLLOWED_AFTER_FAILURE_DISPATCHES;

/**
 * What this execution reports: its outcome, a caught error, or the absence of both. A caught error
 * after the classification was created sends the row to follow it in a new dispatch
 * (`followsAfterFailure`): the verdict it pays for is not dropped for a step that failed.
 */
const outcomeOf = (state: RowState, row: RowRecord, follow: boolean): RowOutcome => {
  const classificationId = state.step?.classification_id;
  const extra = classificationId ? { classification_id: classificationId } : {};
  if (state.error) {
    const caught = describeCaughtError(state.error);
    if (!followsAfterFailure(state, row, follow))
      return { kind: 'final', result: errorResult(caught, extra) };
    const dispatch = state.dispatch + 1;
    return {
      kind: 'requeue',
      attempt: state.attempt,
      dispatch,
      delay_seconds: 0,
      reason: `${caught}; its classification followed again in dispatch ${dispatch}`,
    };
  }
  if (state.step?.outcome) return state.step.outcome;
  return { kind: 'final', result: errorResult(detailMessage('row_no_outcome', {}), extra) };
};

const kickSafely = async (kick: PipelinePorts['kick'], reason: KickReason): Promise<boolean> => {
  try {
    await kick.kick(reason);
    return true;
  } catch {
    // The dispatcher's one-minute schedule is the safety net: a lost kick only delays.
    return false;
  }
};

type CompletePorts = Pick<
  PipelinePorts,
  'clock' | 'queue' | 'batches' | 'cache' | 'leases' | 'waiters' | 'kick' | 'partials' | 'audit'
>;
type Requeue = Extract<RowOutcome, { kind: 'requeue' }>;
type Settled = Omit<CompleteReport, 'kicked'>;

/**
 * Complete: the end of every path of the Row workflow.
 *
 *   final   ─▶ result on the row (once) ─▶ product cache ─▶ count done ─▶ wake batch if last
 *   requeue ─▶ release lease ─▶ row queued (attempt, dispatch) ─▶ message with delay
 *   always  ─▶ release the lease; kick the dispatcher if that freed a slot or queued a message
 *
 * A requeue releases before it updates the row: once the row names the next dispatch, the
 * lease of this attempt may already belong to it (same attempt, same holder), so a retried
 * Complete that finds the row moved on must not release it again.
 */
export const completeRow = async (
  ports: CompletePorts,
  input: unknown,
  /** `followClassification: false`: a caught error ends the row even after its classification was created. */
  options: { followClassification?: boolean } = {},
): Promise<CompleteReport> => {
  const state = RowState.parse(input);
  const row = await loadRow(ports.batches, state.batch_id, state.row);
  const outcome = outcomeOf(state, row, options.followClassification ?? true);

  let report: Settled;
  if (isSuperseded(row, state)) report = await completeSuperseded(ports, state, row, outcome);
  else if (outcome.kind === 'requeue' && !isOutputStatus(row.status))
    report = await requeueRow(ports, state, row, outcome);
  else report = await completeFinal(ports, state, row, outcome);
  // Poll released the lease and kicked when the run left in_progress: a second kick for the same
  // slot only races the first (the loser puts its message back). A requeue's message is new work,
  // so it kicks even then: a retry with no delay would otherwise wait for the schedule.
  const reason: KickReason | null = report.leaseReleased
    ? 'slot_freed'
    : report.outcome === 'requeue'
      ? 'rows_queued'
      : null;
  const kicked = reason ? await kickSafely(ports.kick, reason) : false;
  // After the kick: a freed slot is refilled first, the partial results can wait a moment.
  if (report.outcome === 'final' && report.changed && !report.batchComplete)
    await askForPartialResults(ports, state, report.batch_id);
  return { ...report, kicked };
};

/**
 * A row of a running batch finished: its partial results are asked for when the last were asked
 * for at least `partial_every_minutes` ago. The batch record keeps when,
 * and a conditional write lets one finishing row of each period ask. Never for an answers round.
 */
const askForPartialResults = async (
  ports: CompletePorts,
  state: RowState,
  batchId: string,
): Promise<void> => {
  if (state.round_id !== undefined) return;
  const batch = await ports.batches.getBatch(batchId);
  const everyMinutes = batch?.options?.partial_every_minutes ?? 0;
  if (batch?.state !== 'running' || everyMinutes === 0) return;
  const now = ports.clock.now();
  const due = new Date(now.getTime() - everyMinutes * 60_000).toISOString();
  const last = batch.partial_requested_at;
  if (last !== undefined && last > due) return;
  if (await ports.batches.claimPartialRequest(batchId, { last: last ?? null, now: now.toISOString() }))
    await ports.partials.request(batchId);
};

/** The row's message back in the queue, for the attempt and dispatch of the requeue. */
const sendRequeued = (ports: Pick<CompletePorts, 'queue'>, state: RowState, outcome: Requeue) =>
  ports.queue.send([
    {
      message: {
        batch_id: state.batch_id,
        row: state.row,
        attempt: outcome.attempt,
        dispatch: outcome.dispatch,
        ...(state.round_id !== undefined ? { round_id: state.round_id } : {}),
      },
      delaySeconds: outcome.delay_seconds,
    },
  ]);

/**
 * This Complete ran before (or a late execution ends): the row is a later dispatch's. The one
 * thing left may be the message of an interrupted requeue.
 */
const completeSuperseded = async (
  ports: CompletePorts,
  state: RowState,
  row: RowRecord,
  outcome: RowOutcome,
): Promise<Settled> => {
  const requeueInterrupted =
    outcome.kind === 'requeue' &&
    row.status === 'queued' &&
    row.attempt === outcome.attempt &&
    row.dispatch === outcome.dispatch;
  if (requeueInterrupted) await sendRequeued(ports, state, outcome);
  // Another attempt holds another lease: ours can go. The same attempt shares our holder.
  const leaseReleased = row.attempt !== state.attempt ? await ports.leases.release(state.holder) : false;
  return {
    batch_id: state.batch_id,
    row: state.row,
    outcome: requeueInterrupted ? 'requeue' : 'superseded',
    status: row.status,
    changed: false,
    batchComplete: false,
    woke: false,
    leaseReleased,
  };
};

/**
 * The row goes back to the queue as the next attempt or dispatch. The lease is released first:
 * once the row names the next dispatch, the lease may already be that dispatch's.
 */
const requeueRow = async (
  ports: CompletePorts,
  state: RowState,
  row: RowRecord,
  outcome: Requeue,
): Promise<Settled> => {
  const leaseReleased = await ports.leases.release(state.holder);
  const changed = await ports.batches.moveRow(state.batch_id, state.row, {
    move: 'requeued',
    attempt: outcome.attempt,
    dispatch: outcome.dispatch,
    at: ports.clock.now().toISOString(),
  });
  if (changed) await sendRequeued(ports, state, outcome);
  return {
    batch_id: state.batch_id,
    row: state.row,
    outcome: 'requeue',
    status: changed ? 'queued' : row.status,
    changed,
    batchComplete: false,
    woke: false,
    leaseReleased,
  };
};

/**
 * A row already final keeps its result: a late or repeated Complete only makes sure what follows
 * a result (cache, count, wake) has happened. (A requeue outcome reaches here only when the row
 * is already final.)
 */
const completeFinal = async (
  ports: CompletePorts,
  state: RowState,
  row: RowRecord,
  outcome: RowOutcome,
): Promise<Settled> => {
  const shown = resultNow(row);
  const result = isFinalResult(shown) || outcome.kind !== 'final' ? (shown as RowResult) : outcome.result;
  const classificationId = result.classification_id ?? row.classification_id;
  if (result.status === 'resolved' && row.product_key && row.fingerprint && classificationId) {
    const origin = originOf(row.product);
    const productFingerprint = goodsFingerprintOfRow(row);
    const verdict = {
      fingerprint: row.fingerprint,
      ...(productFingerprint ? { product_fingerprint: productFingerprint } : {}),
      ...(origin ? { origin } : {}),
      classification_id: classificationId,
      resolved_at: row.finished_at ?? ports.clock.now().toISOString(),
      result,
      pdf_key: result.verdict_pdf ? outboxKey(state.batch_id, result.verdict_pdf) : null,
      batch_id: state.batch_id,
    };
    const keys = reuseKeysOf({
      product_key: row.product_key,
      fingerprint: row.fingerprint,
      product_fingerprint: productFingerprint,
    });
    for (const product_key of keys) await ports.cache.put({ ...verdict, product_key });
  }
  const finished = await finishRow(ports, state.batch_id, state.row, result, {
    countOn: completionIdOf(state),
    sku: row.product?.sku ?? null,
    valueCents: row.covers_value_cents,
  });
  const leaseReleased = await ports.leases.release(state.holder);
  return {
    batch_id: state.batch_id,
    row: state.row,
    outcome: 'final',
    status: result.status,
    ...finished,
    leaseReleased,
  };
};
