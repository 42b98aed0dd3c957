/**
 * The dispatcher kick (`DispatcherKick` port): an asynchronous invoke of the dispatch
 * function, so a freed slot is refilled within seconds instead of at the next minute.
 *
 * Best effort by design: the dispatcher's one-minute schedule is the safety net
 * (docs/architecture.md, property 3), so a failed kick only delays the next row by up to a minute.
 * Failing the caller instead (a finishing row's Complete step, Prepare) would retry work
 * that has already succeeded. So `kick` never throws; a failure goes to `onError`, which
 * the composition root points at its logger, so a kick that keeps failing is seen.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { DispatcherKick, KickEvent } from '../pipeline/core/index.js';

export type LambdaDispatcherKickConfig = {
  client: LambdaClient;
  functionName: string;
  /** Told of each failed kick. @default a one-line warning on the console */
  onError?: (error: { name: string; message: string }) => void;
};

const warnOnConsole = (error: { name: string; message: string }) =>
  console.warn(JSON.stringify({ level: 'WARN', message: 'dispatcher kick failed', error }));

export const createLambdaDispatcherKick = (config: LambdaDispatcherKickConfig): DispatcherKick => {
  const onError = config.onError ?? warnOnConsole;
  const encoder = new TextEncoder();
  return {
    kick: async (reason) => {
      try {
        const event: KickEvent = { source: 'kick', reason };
        const Payload = encoder.encode(JSON.stringify(event));
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
    },
  };
};
