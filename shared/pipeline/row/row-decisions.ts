/**
 * What a row does next, decided from what the service said. Pure: the Row workflow's Poll
 * task turns this decision into its step, and a Choice state branches on its `next`.
 *
 *   submit ─▶ wait ─▶ poll ─┬─ in_progress / unknown status ─▶ wait (3 s, longer for long runs)
 *                           ├─ resolved      ─▶ store verdict
 *                           ├─ pending_data  ─▶ review (frees the slot)
 *                           ├─ failed, transient reason, attempts left ─▶ new attempt, new key
 *                           ├─ failed otherwise ─▶ record failure
 *                           ├─ abandoned     ─▶ record
 *                           └─ polled too long ─▶ back to the queue, looked at again much later
 */
import { type Classification, isFinalStatus, type KnownStatus, LIMITS } from '../../tcs/schemas.js';
import type { Clock } from '../core/ports.js';

/**
 * Failure reasons worth a new attempt: the run broke for reasons outside the product's
 * data. The others (`unexpected_format`, `no_valid_candidates`, `unreadable_pdf`) would fail
 * again on the same input. An unknown reason is not retried: failed runs are free, but a
 * loop on something we do not understand is not.
 */
export const TRANSIENT_FAILURE_REASONS: ReadonlySet<string> = new Set([
  'timed_out',
  'service_unavailable',
  'persist_failed',
]);

/**
 * How a row is polled: how often, when to poll less often, when to stop, and how many attempts a
 * row gets.
 */
export type PollPolicy = {
  /** Spec, Limits: 3 s between polls while in progress. */
  intervalSeconds: number;
  /** Past this much run time, poll less often: the run is far longer than the usual minute. */
  slowAfterSeconds: number;
  slowIntervalSeconds: number;
  /**
   * Past this, the execution stops polling and the row goes back to the queue, to be looked at
   * again by a later dispatch, so an execution never nears Step Functions' 25,000-event history
   * limit (~5 events a poll).
   */
  giveUpAfterSeconds: number;
  /** New attempts after a transient failure, the first attempt included. */
  maxAttempts: number;
};

/**
 * The policy the Row workflow runs by: a poll every 3 s, every 30 s after 5 min, none after 6 h; 3
 * attempts.
 */
export const DEFAULT_POLL_POLICY: PollPolicy = {
  intervalSeconds: LIMITS.recommendedPollSeconds,
  slowAfterSeconds: 5 * 60,
  slowIntervalSeconds: 30,
  giveUpAfterSeconds: 6 * 60 * 60,
  maxAttempts: 3,
};

/**
 * What a row does after a poll: wait and poll again, store the verdict, ask for answers, try a new
 * attempt, end failed or abandoned, or go back to the queue to be looked at again later (`reconcile`).
 */
export type RowDecision =
  | { next: 'wait'; waitSeconds: number }
  | { next: 'resolved' }
  | { next: 'pending_data' }
  | { next: 'retry'; attempt: number; reason: string }
  | { next: 'failed'; reason: string }
  | { next: 'abandoned' }
  | { next: 'reconcile'; detail: string };

/**
 * Decides what a row does after a poll, from the classification's status and failure reason, the
 * row's attempt and how long the run has lasted. A transient failure gets a new attempt while
 * attempts are left; a status this code does not know is treated as still running.
 */
export const decideAfterPoll = (input: {
  classification: Pick<Classification, 'status' | 'failure_reason'>;
  attempt: number;
  /** Seconds since the classification was submitted (or answered). */
  elapsedSeconds: number;
  policy?: PollPolicy;
  /**
   * Sizes the policy's thresholds: the elapsed seconds are real ones, the thresholds production
   * ones. `waitSeconds` stays in production seconds because Wait states take whole seconds on
   * AWS and the local runner scales every Wait itself.
   */
  clock: Pick<Clock, 'span'>;
}): RowDecision => {
  const policy = input.policy ?? DEFAULT_POLL_POLICY;
  const reached = (productionSeconds: number) =>
    input.elapsedSeconds * 1000 >= input.clock.span(productionSeconds * 1000);
  const { status, failure_reason } = input.classification;

  if (!isFinalStatus(status) && status !== 'pending_data') {
    // in_progress, or a status added after v1: not finished (spec, States).
    if (reached(policy.giveUpAfterSeconds)) {
      return {
        next: 'reconcile',
        detail: `still ${status} after ${Math.round(input.elapsedSeconds)} s; left to reconciliation`,
      };
    }
    const slow = reached(policy.slowAfterSeconds);
    return {
      next: 'wait',
      waitSeconds: slow ? policy.slowIntervalSeconds : policy.intervalSeconds,
    };
  }

  switch (status as KnownStatus) {
    case 'resolved':
      return { next: 'resolved' };
    case 'pending_data':
      return { next: 'pending_data' };
    case 'abandoned':
      return { next: 'abandoned' };
    default: {
      const reason = failure_reason ?? 'unknown';
      if (TRANSIENT_FAILURE_REASONS.has(reason) && input.attempt < policy.maxAttempts) {
        return { next: 'retry', attempt: input.attempt + 1, reason };
      }
      return { next: 'failed', reason };
    }
  }
};
