/**
 * Asynchronous Lambda invokes that nobody waits for: the dispatcher kick and the request for
 * partial results. Best effort by design: each has a safety net (the dispatcher's one-minute
 * schedule; the next finishing row asks for partial results again), and failing the caller
 * instead (a finishing row's Complete step, Prepare) would retry work that has already
 * succeeded. So an invoke never throws; a failure goes to `onError`, which the composition root
 * points at its logger, so an invoke that keeps failing is seen.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';

export type AsyncInvokeConfig = {
  client: LambdaClient;
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
  const encoder = new TextEncoder();
  return async (payload: unknown): Promise<void> => {
    try {
      const Payload = encoder.encode(JSON.stringify(payload));
      const { StatusCode } = await config.client.send(
        new InvokeCommand({ FunctionName: config.functionName, InvocationType: 'Event', Payload }),
      );
      // An accepted asynchronous invoke answers 202.
      if (StatusCode !== 202)
        onError({ name: 'UnexpectedStatus', message: `Invoke answered ${StatusCode ?? 'no status'}` });
    } catch (error) {
      const { name = 'Error', message = String(error) } = (error ?? {}) as {
        name?: string;
        message?: string;
      };
      onError({ name, message });
    }
  };
};
