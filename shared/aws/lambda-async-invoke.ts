/**
 * Asynchronous Lambda invokes that nobody waits for: the dispatcher kick and the request for
 * partial results. Best effort by design: each has a safety net (the dispatcher's one-minute
 * schedule; the next finishing row asks for partial results again), and failing the caller
 * instead (a finishing row's Complete step, Prepare) would retry work that has already
 * succeeded. So an invoke never throws; a failure goes to `onError`, which the composition root
 * points at its logger, so an invoke that keeps failing is seen.
 *
 * The invoke is Lambda's REST call (`POST /2015-03-31/functions/<name>/invocations`,
 * `X-Amz-Invocation-Type: Event`) as a signed request (signed-requests.ts): the Lambda client would
 * bring every operation of its service into the bundles of the Row workflow's steps for this one.
 */
import { type AwsRequester, type AwsService, awsRequester } from './signed-requests.js';

/**
 * Lambda, as its requests are signed and addressed. An Event invoke is answered as soon as Lambda
 * has queued it: a few seconds is already long, and a kick held for a minute would hold the Poll
 * or Complete that sent it.
 */
const LAMBDA_SERVICE: AwsService = { signingName: 'lambda', endpointKey: 'LAMBDA', attemptTimeoutMs: 5_000 };

/** Takes the environment and gives a requester to Lambda (its region, endpoint and credentials). */
export const lambdaRequester = (env: NodeJS.ProcessEnv = process.env): AwsRequester =>
  awsRequester(LAMBDA_SERVICE, env);

export type AsyncInvokeConfig = {
  lambda: AwsRequester;
  /** The function's name or ARN. */
  functionName: string;
  /** Told of each failed invoke. @default a one-line warning on the console */
  onError?: (error: { name: string; message: string }) => void;
};

/** A function that invokes `functionName` asynchronously with its payload, never throwing. */
export const asyncInvoker = (config: AsyncInvokeConfig, what: string) => {
  const onError =
    config.onError ??
    ((error: { name: string; message: string }) =>
      console.warn(JSON.stringify({ level: 'WARN', message: `${what} failed`, error })));
  const path = `/2015-03-31/functions/${encodeURIComponent(config.functionName)}/invocations`;
  return async (payload: unknown): Promise<void> => {
    try {
      const answer = await config.lambda({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
        body: JSON.stringify(payload),
      });
      await answer.body?.cancel();
      // An accepted asynchronous invoke answers 202.
      if (answer.status !== 202)
        onError({ name: 'UnexpectedStatus', message: `Invoke answered ${answer.status}` });
    } catch (error) {
      const { name = 'Error', message = String(error) } = (error ?? {}) as {
        name?: string;
        message?: string;
      };
      onError({ name, message });
    }
  };
};
