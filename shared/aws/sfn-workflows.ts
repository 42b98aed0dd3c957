/**
 * Step Functions: starting Row workflow executions (`RowWorkflows`). Waking a waiting workflow is
 * sfn-batch-waiters.ts's.
 */
import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { RowWorkflows } from '../pipeline/core/ports.js';

export type SfnRowWorkflowsConfig = {
  client: SFNClient;
  stateMachineArn: string;
  /** The clock `start` compares an execution's start date with. @default Date.now */
  now?: () => number;
};

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
