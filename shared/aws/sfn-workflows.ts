/**
 * Step Functions: starting Row workflow executions (`RowWorkflows`) and waking the Batch
 * workflow's `WaitForRows` task (`BatchWaiters`).
 *
 * A task token is a secret (README, rules): it is sent to Step Functions and nowhere else,
 * not in an error message and not in a log line. Errors raised here are rebuilt from the
 * SDK's error name and status, without its message or cause, which may quote the token.
 */
import { SendTaskSuccessCommand, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { BatchWaiters, RowWorkflows } from '../pipeline/core/ports.js';

export type SfnRowWorkflowsConfig = {
  client: SFNClient;
  stateMachineArn: string;
  /** The clock `start` compares an execution's start date with. @default Date.now */
  now?: () => number;
};

export type SfnBatchWaitersConfig = { client: SFNClient };

const errorName = (error: unknown): string => (error as { name?: string })?.name ?? 'Error';

/**
 * How much earlier than our call a running execution must have started for `start` to
 * report it as started by someone else: more than any clock skew between Lambda and Step
 * Functions, less than the dispatcher's one-minute schedule.
 */
const EARLIER_START_MS = 5_000;

/**
 * Starts the execution named `name`; the name makes a repeated start a no-op. Step
 * Functions answers a repeat in one of two ways:
 *
 * - the execution has ended, or its input differs: `ExecutionAlreadyExists`;
 * - a Standard execution with this name and the same input is still running: 200, with
 *   that execution's ARN and start date, exactly as for a new start.
 *
 * Both are `already_started`. The second is recognised by its start date lying clearly
 * before this call; an SDK retry of this very call (the first try started it, its response
 * was lost) finds a start date after the call began, and is rightly `started`.
 */
export const createSfnRowWorkflows = (config: SfnRowWorkflowsConfig): RowWorkflows => {
  const now = config.now ?? Date.now;
  return {
    start: async (name, input) => {
      const calledAt = now();
      try {
        const { startDate } = await config.client.send(
          new StartExecutionCommand({
            stateMachineArn: config.stateMachineArn,
            name,
            input: JSON.stringify(input),
          }),
        );
        const startedEarlier = startDate !== undefined && startDate.getTime() < calledAt - EARLIER_START_MS;
        return startedEarlier ? 'already_started' : 'started';
      } catch (error) {
        if (errorName(error) === 'ExecutionAlreadyExists') return 'already_started';
        throw error;
      }
    },
  };
};

/** The token is no longer waiting: already woken, timed out, or its execution ended. */
const GONE_TOKEN_ERRORS = new Set(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist']);

/** An SDK error rebuilt without its message or cause, which may quote the task token. */
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

export const createSfnBatchWaiters = (config: SfnBatchWaitersConfig): BatchWaiters => ({
  wake: async (taskToken, output) => {
    try {
      await config.client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
    } catch (error) {
      const name = errorName(error);
      if (GONE_TOKEN_ERRORS.has(name)) return;
      const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
      throw new TaskTokenCallError('SendTaskSuccess', name, status);
    }
  },
});
