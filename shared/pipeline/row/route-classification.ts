/**
 * A classification as read from the service → the row's next step, written once: Poll uses it,
 * and so does every step that finds the classification elsewhere than it expected (a replayed
 * creation, answers already posted, a Store or Review run again after the state moved on).
 */
import { Classification, LIMITS } from '../../tcs/schemas.js';
import type { Clock, PipelinePorts } from '../core/ports.js';
import type { RowState, RowStep } from '../core/records.js';
import { abandonedResult, failedResult } from '../core/row-results.js';
import { decideAfterPoll } from './row-decisions.js';
import { finalStep, type Run, runOf } from './row-state.js';

/**
 * SQS's longest message delay: how long a row whose run outlasted the poll policy waits in the
 * queue before a new dispatch looks at its classification again.
 */
const RECONCILE_DELAY_SECONDS = 900;

/**
 * Gives the row's next step from its classification as just read: wait and poll again, store a
 * verdict, review questions, end the row, or go back to the queue (a new attempt, or a look again
 * much later). Shared by Poll and by the steps that find the classification elsewhere than they
 * expected (a replayed creation, a Store or a Review run again after the state moved on). The
 * row's attempt, dispatch and answers round come from its state; `submittedAt` is when this run
 * began, `now` the moment it is looked at, and `clock` sizes the poll policy's thresholds.
 */
export const routeClassification = (
  c: Classification,
  state: Pick<RowState, 'attempt' | 'dispatch' | 'round_id'>,
  at: { submittedAt: string; now: Date },
  clock: Pick<Clock, 'span'>,
): RowStep => {
  const run: Run = { classification_id: c.id, submitted_at: at.submittedAt };
  const elapsedMs = at.now.getTime() - Date.parse(at.submittedAt);
  const decision = decideAfterPoll({
    classification: c,
    attempt: state.attempt,
    elapsedSeconds: Number.isFinite(elapsedMs) ? Math.max(0, elapsedMs / 1000) : 0,
    clock,
  });
  switch (decision.next) {
    case 'wait':
      return { next: 'wait', wait_seconds: decision.waitSeconds, ...run };
    // The classification rides along so Store and Review need not read it again (one API
    // call fewer per row; a verdict is a few kilobytes, far below the state size limit).
    case 'resolved':
      return { next: 'store', ...run, classification: c };
    case 'pending_data':
      return { next: 'review', ...run, classification: c };
    case 'retry':
      // The run after answers: a new attempt would be a new classification that asks its
      // questions again, the reviewer's answers lost. The row ends `failed` (unbilled) and says so.
      if (state.round_id !== undefined) return finalStep(failedResult(c), run);
      // Spec, rule 4: a failed classification is retried as a new one with a new key;
      // the new attempt waits in the queue for a slot like any row.
      return {
        next: 'complete',
        ...run,
        outcome: {
          kind: 'requeue',
          attempt: decision.attempt,
          dispatch: 1,
          delay_seconds: 0,
          reason: `failed (${decision.reason}); new attempt ${decision.attempt}`,
        },
      };
    case 'failed':
      return finalStep(failedResult(c), run);
    case 'abandoned':
      return finalStep(abandonedResult(c), run);
    case 'reconcile':
      // The slow path (docs/architecture.md, property 5): the run is far longer than any normal one,
      // so this execution ends before it nears the history limit and the row comes back in
      // 15 minutes, when a new dispatch looks at the same classification again (Submit does
      // not create another: the row records which attempt its classification belongs to).
      return {
        next: 'complete',
        ...run,
        outcome: {
          kind: 'requeue',
          attempt: state.attempt,
          dispatch: state.dispatch + 1,
          delay_seconds: RECONCILE_DELAY_SECONDS,
          reason: `${decision.detail}; looked at again in ${RECONCILE_DELAY_SECONDS / 60} min`,
        },
      };
  }
};

/** The classification Poll passed along, else read from the service (a Store run on its own). */
const classificationOf = async (
  ports: Pick<PipelinePorts, 'service'>,
  state: RowState,
  id: string,
): Promise<Classification> => {
  const passed = Classification.safeParse(state.step?.classification);
  if (passed.success && passed.data.id === id) return passed.data;
  return ports.service.getClassification(id);
};

/**
 * Reads the classification from the service and gives the row's next step: for a run found
 * elsewhere than expected.
 */
export const followClassification = async (
  ports: Pick<PipelinePorts, 'clock' | 'service'>,
  state: Pick<RowState, 'attempt' | 'dispatch' | 'round_id'>,
  run: { id: string; submittedAt: string },
): Promise<RowStep> =>
  routeClassification(
    await ports.service.getClassification(run.id),
    state,
    { submittedAt: run.submittedAt, now: ports.clock.now() },
    ports.clock,
  );

/**
 * Gives the next step after an accepted POST (a creation, or answers): a run in progress is polled
 * in 3 s, as the spec recommends; a replay whose classification has moved on already is followed at once.
 */
export const followAcceptedRun = (
  ports: Pick<PipelinePorts, 'clock' | 'service'>,
  state: Pick<RowState, 'attempt' | 'dispatch' | 'round_id'>,
  run: { id: string; submittedAt: string; status: string },
): Promise<RowStep> | RowStep =>
  run.status === 'in_progress'
    ? {
        next: 'wait',
        wait_seconds: LIMITS.recommendedPollSeconds,
        classification_id: run.id,
        submitted_at: run.submittedAt,
      }
    : followClassification(ports, state, run);

/**
 * Gives the classification Store or Review was routed with, while it still has the status that
 * step expects; otherwise the step it leads to now (the step run again after the state moved on).
 */
export const classificationInStatus = async (
  ports: Pick<PipelinePorts, 'clock' | 'service'>,
  state: RowState,
  expected: 'resolved' | 'pending_data',
): Promise<{ classification: Classification; run: Run } | { rerouted: RowStep }> => {
  const run = runOf(state);
  const c = await classificationOf(ports, state, run.classification_id);
  if (c.status === expected) return { classification: c, run };
  return {
    rerouted: routeClassification(
      c,
      state,
      { submittedAt: run.submitted_at, now: ports.clock.now() },
      ports.clock,
    ),
  };
};
