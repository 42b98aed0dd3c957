/**
 * Waking the Batch and Answers workflows' `WaitForRows` task (`BatchWaiters`): Step Functions'
 * `SendTaskSuccess` as a signed request (signed-requests.ts), so the last row's Complete carries no
 * Step Functions client for this one call.
 *
 * A task token is a secret (README, rules): it is sent to Step Functions and nowhere else, not in
 * an error message and not in a log line. An error here is rebuilt from Step Functions' error name
 * and status, without its message, which may quote the token.
 */
import type { BatchWaiters } from '../pipeline/core/ports.js';
import { AwsRequestError, type AwsRequester, type AwsService, awsRequester } from './signed-requests.js';

/** Step Functions, as its requests are signed and addressed. */
const STEP_FUNCTIONS: AwsService = { signingName: 'states', endpointKey: 'SFN', attemptTimeoutMs: 10_000 };

/** Takes the environment and gives a requester to Step Functions (its region, endpoint and credentials). */
export const stepFunctionsRequester = (env: NodeJS.ProcessEnv = process.env): AwsRequester =>
  awsRequester(STEP_FUNCTIONS, env);

export type SfnBatchWaitersConfig = { sfn: AwsRequester };

/** The token is no longer waiting: already woken, timed out, or its execution ended. */
const GONE_TOKEN_ERRORS = new Set(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist']);

/** A Step Functions error rebuilt without its message or cause, which may quote the task token. */
export class TaskTokenCallError extends Error {
  override readonly name = 'TaskTokenCallError';
  constructor(
    readonly operation: string,
    readonly errorName: string,
    readonly httpStatusCode: number | undefined,
  ) {
    super(`${operation} failed: ${errorName}${httpStatusCode ? ` (HTTP ${httpStatusCode})` : ''}`);
  }
}

/**
 * Takes the requests to Step Functions and gives the waiters: `wake` sends the task's success with
 * its output, once or again (a token no longer waiting is already woken: nothing to do), and
 * throws a `TaskTokenCallError` that never holds the token for any other failure.
 */
export const createSfnBatchWaiters = (config: SfnBatchWaitersConfig): BatchWaiters => ({
  wake: async (taskToken, output) => {
    try {
      const answer = await config.sfn({
        method: 'POST',
        path: '/',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'AWSStepFunctions.SendTaskSuccess',
        },
        body: JSON.stringify({ taskToken, output: JSON.stringify(output) }),
      });
      await answer.body?.cancel();
    } catch (error) {
      const name = (error as { name?: string })?.name ?? 'Error';
      if (GONE_TOKEN_ERRORS.has(name)) return;
      const status = error instanceof AwsRequestError ? error.$metadata.httpStatusCode : undefined;
      throw new TaskTokenCallError('SendTaskSuccess', name, status);
    }
  },
});
