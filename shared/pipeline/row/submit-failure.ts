/**
 * How a failed upload, creation or answers POST ends Submit (docs/architecture.md, properties 2
 * and 6): a 429 requeues the row, a 401/403 stops the batch, another 4xx or the row's own bad
 * input ends it as an `error`; everything worth a retry is thrown for the workflow's Retry.
 */
import { problemNameOf, TcsProblemError, TcsValidationError } from '../../tcs/errors.js';
import { scrubErrorText } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import type { RowState, RowStep } from '../core/records.js';
import { errorResult, stoppedResult } from '../core/row-results.js';
import { isBatchStopError, stopFromProblem } from '../core/service-stop.js';
import { completionIdOf, finalStep } from './row-state.js';
import { RowInputError } from './sheet-upload.js';

/** Bounds of a requeue delay (an SQS DelaySeconds is 0..900). */
const REQUEUE_DELAY_MIN_SECONDS = 1;
const REQUEUE_DELAY_MAX_SECONDS = 900;
/** A 429 without `Retry-After`: the spec names no value; a few polls' worth. */
const REQUEUE_DELAY_DEFAULT_SECONDS = 5;

/**
 * Gives the step a failed upload, creation or answers POST ends Submit with: back to the queue
 * for a 429, the batch stopped for a 401/403, the row ended as an `error` for another 4xx or its
 * own bad input. Rethrows every error worth a retry (5xx, network) for the workflow's Retry.
 */
export const submitFailure = async (
  ports: Pick<PipelinePorts, 'batches'>,
  state: RowState,
  error: unknown,
  now: Date,
): Promise<RowStep> => {
  if (error instanceof RowInputError) {
    return finalStep(errorResult(error.message, { reason: error.reason }));
  }
  if (error instanceof TcsProblemError && error.status === 429) {
    // Property 2: the cap is shared; the row goes back to the queue (its lease released
    // by Complete) and a later dispatch, a new execution, tries the same key again.
    const seconds = Math.ceil((error.retryAfterMs ?? REQUEUE_DELAY_DEFAULT_SECONDS * 1000) / 1000);
    const delay = Math.min(REQUEUE_DELAY_MAX_SECONDS, Math.max(REQUEUE_DELAY_MIN_SECONDS, seconds));
    return {
      next: 'complete',
      outcome: {
        kind: 'requeue',
        attempt: state.attempt,
        dispatch: state.dispatch + 1,
        delay_seconds: delay,
        reason: 'rate_limited',
      },
    };
  }
  if (isBatchStopError(error)) {
    // A revoked key or a plan without the API stops the whole batch, said once in the summary.
    // An answers round stops on its own record: the batch's earlier verdicts stand.
    const stop = stopFromProblem(error, now);
    await ports.batches.recordStop(completionIdOf(state), stop);
    return finalStep(stoppedResult(stop));
  }
  if (error instanceof TcsProblemError && error.status >= 400 && error.status < 500 && !error.retryable) {
    // Spec, Errors rule 2: a 4xx will not change on retry; the row records why.
    return finalStep(
      errorResult(`${error.detail}${error.requestId ? ` (request_id ${error.requestId})` : ''}`, {
        reason: error.problem ?? problemNameOf(error.type ?? `http-${error.status}`),
      }),
    );
  }
  if (error instanceof TcsValidationError) {
    return finalStep(errorResult(scrubErrorText(error.message), { reason: 'invalid_request' }));
  }
  // 5xx, network, a 409 in flight that outlasted the client's retries: thrown. The key is
  // deterministic, so a Step Functions Retry replays rather than creates; the Catch makes
  // the row an `error` otherwise.
  throw error;
};
