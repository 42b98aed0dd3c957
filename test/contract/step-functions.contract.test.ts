/** The RowWorkflows and BatchWaiters contracts, in memory and on the local Step Functions stand-in. */
import { randomUUID } from 'node:crypto';
import { SFNClient } from '@aws-sdk/client-sfn';
import { expect, vi } from 'vitest';
import { type LocalAws, startLocalAws } from '../../local/aws/local-aws.js';
import { createSfnBatchWaiters, stepFunctionsRequester } from '../../shared/aws/sfn-batch-waiters.js';
import { createSfnRowWorkflows } from '../../shared/aws/sfn-workflows.js';
import { memoryBatchWaiters, memoryRowWorkflows } from '../helpers/memory-ports.js';
import type { Implementation } from './implementation.js';
import {
  describeBatchWaitersContract,
  describeRowWorkflowsContract,
  type WaitersSubject,
  type WorkflowsSubject,
} from './step-functions.contract.js';

/** The local AWS stand-ins on loopback, and an SFN client for them, shared by a suite's cases. */
const localStepFunctions = () => {
  let aws: LocalAws | null = null;
  let client: SFNClient | null = null;
  return {
    start: async () => {
      aws = await startLocalAws({ log: 'silent' });
      client = new SFNClient({
        endpoint: aws.endpoint,
        region: aws.region,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
    },
    running: () => {
      if (!aws || !client) throw new Error('the Step Functions stand-in is not running');
      return { aws, client };
    },
    stop: async () => {
      client?.destroy();
      await aws?.close();
    },
  };
};

/** A new state machine per case, whose runner holds each execution until the case finishes it. */
const onLocalRowWorkflows = (): Implementation<WorkflowsSubject> => {
  const stepFunctions = localStepFunctions();
  let machines = 0;
  return {
    start: stepFunctions.start,
    stop: stepFunctions.stop,
    make: async () => {
      const { aws, client } = stepFunctions.running();
      const stateMachineArn = aws.stateMachineArn(`RowWorkflow-${++machines}`);
      const runs: { name: string; input: unknown }[] = [];
      const finishers = new Map<string, () => void>();
      const ended = new Set<string>();
      aws.registerStateMachine(stateMachineArn, (execution) => {
        runs.push({ name: execution.name, input: execution.input });
        return new Promise((resolve) => finishers.set(execution.name, () => resolve({})));
      });
      aws.onExecutionEnded((execution) => {
        if (execution.stateMachineArn === stateMachineArn) ended.add(execution.name);
      });
      return {
        // The adapter reads the stand-in's clock, as a Lambda and Step Functions share real time.
        workflows: createSfnRowWorkflows({ client, stateMachineArn, now: () => aws.clock.now() }),
        runsOf: async (name) => runs.filter((run) => run.name === name).map((run) => run.input),
        finish: async (name) => {
          finishers.get(name)?.();
          await vi.waitFor(() => expect(ended.has(name), `execution ${name} to end`).toBe(true), {
            timeout: 5_000,
            interval: 20,
          });
        },
        advance: (ms) => aws.clock.advance(ms),
      };
    },
  };
};

const onLocalBatchWaiters = (): Implementation<WaitersSubject> => {
  const stepFunctions = localStepFunctions();
  return {
    start: stepFunctions.start,
    stop: stepFunctions.stop,
    make: async () => {
      const { aws } = stepFunctions.running();
      const delivered = new Map<string, unknown[]>();
      const sfn = stepFunctionsRequester({
        AWS_ENDPOINT_URL_SFN: aws.endpoint,
        AWS_REGION: aws.region,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      });
      return {
        waiters: createSfnBatchWaiters({ sfn }),
        waitingToken: () => {
          const outputs: unknown[] = [];
          const token = aws.createTaskToken(
            (output) => outputs.push(output),
            () => undefined,
          );
          delivered.set(token, outputs);
          return token;
        },
        deliveries: (token) => delivered.get(token) ?? [],
      };
    },
  };
};

describeRowWorkflowsContract('in memory', {
  make: async () => {
    const workflows = memoryRowWorkflows();
    return {
      workflows,
      runsOf: async (name) => (workflows.started.has(name) ? [workflows.started.get(name)] : []),
      finish: async () => undefined,
      advance: () => undefined,
    };
  },
});
describeRowWorkflowsContract('Step Functions adapter on the local stand-in', onLocalRowWorkflows());

describeBatchWaitersContract('in memory', {
  make: async () => {
    const waiters = memoryBatchWaiters();
    return {
      waiters,
      waitingToken: () => `token-${randomUUID()}`,
      deliveries: (token) =>
        waiters.woken.filter((entry) => entry.taskToken === token).map((entry) => entry.output),
    };
  },
});
describeBatchWaitersContract('Step Functions adapter on the local stand-in', onLocalBatchWaiters());
