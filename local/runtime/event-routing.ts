/**
 * EventBridge, wired to the rest of the runtime: the template's rules (rules.ts) receive what
 * local/aws sees (an execution ending, as Step Functions' status change; an event put with
 * PutEvents) and deliver it to their targets: StartExecution through the local Step Functions
 * API, or an asynchronous invocation in the Lambda pool. Then the schedules start ticking.
 */
import { randomUUID } from 'node:crypto';
import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { LocalAws } from '../aws/local-aws.js';
import type { ExecutionRecord } from '../aws/step-functions.js';
import type { InvokeAsync } from './lambda-functions.js';
import type { RuleSpec } from './resources.js';
import { envelope, LocalRules } from './rules.js';
import { type BackgroundWork, type Shutdown, STOP_RANK } from './shutdown.js';
import { functionNameOfArn } from './template.js';

/** "Step Functions Execution Status Change", as EventBridge delivers it. */
const statusChangeEvent = (execution: ExecutionRecord) =>
  envelope({
    source: 'aws.states',
    detailType: 'Step Functions Execution Status Change',
    resources: [execution.executionArn],
    time: new Date(execution.stopDate ?? Date.now()),
    detail: {
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: execution.startDate,
      stopDate: execution.stopDate,
      input: execution.input,
      inputDetails: { included: true },
      output: execution.output,
      outputDetails: execution.output === null ? null : { included: true },
      error: execution.error,
      cause: execution.cause,
    },
  });

export type EventRoutingInput = {
  rules: readonly RuleSpec[];
  localAws: LocalAws;
  sfn: SFNClient;
  invokeAsync: InvokeAsync;
  background: BackgroundWork;
  timeScale: number;
  log: (line: string) => void;
};

type ExecutionEndedListener = (execution: ExecutionRecord) => void;

export type EventRouting = {
  rules: LocalRules;
  /** Subscribes to executions ending; returns an unsubscribe. */
  onExecutionEnded(listener: ExecutionEndedListener): () => void;
};

const createRules = (input: EventRoutingInput): LocalRules =>
  new LocalRules(
    input.rules,
    {
      startExecution: async (stateMachineArn, event) => {
        const { executionArn } = await input.sfn.send(
          new StartExecutionCommand({ stateMachineArn, name: randomUUID(), input: JSON.stringify(event) }),
        );
        if (!executionArn) throw new Error(`StartExecution of ${stateMachineArn} returned no execution`);
        return executionArn;
      },
      invokeAsync: (functionArn, event) =>
        input.background.track(input.invokeAsync(functionNameOfArn(functionArn), event)),
    },
    input.log,
  );

/** Routes every execution's end and every PutEvents through the rules; returns an unsubscribe. */
const listenForEvents = (
  input: EventRoutingInput,
  rules: LocalRules,
  executionListeners: ReadonlySet<ExecutionEndedListener>,
): (() => void) => {
  const { background, log } = input;
  const unsubscribeEnded = input.localAws.onExecutionEnded((execution) => {
    for (const listener of executionListeners) listener(execution);
    background.track(
      rules
        .route('default', statusChangeEvent(execution))
        .catch((error: unknown) =>
          log(`routing ${execution.status} of ${execution.name} failed: ${String(error)}`),
        ),
    );
  });
  const unsubscribeEvents = input.localAws.onEvent(({ eventBusName, event }) => {
    background.track(
      rules
        .route(eventBusName, event)
        .catch((error: unknown) => log(`routing ${event['detail-type']} failed: ${String(error)}`)),
    );
  });
  return () => {
    unsubscribeEnded();
    unsubscribeEvents();
  };
};

export const startEventRouting = (input: EventRoutingInput, shutdown: Shutdown): EventRouting => {
  const rules = createRules(input);
  shutdown.add('schedules', STOP_RANK.schedulesAndListeners, async () => rules.stopSchedules());
  const executionListeners = new Set<ExecutionEndedListener>();
  const unsubscribe = listenForEvents(input, rules, executionListeners);
  shutdown.add('listeners', STOP_RANK.schedulesAndListeners, async () => unsubscribe());
  rules.startSchedules(input.timeScale);
  return {
    rules,
    onExecutionEnded: (listener) => {
      executionListeners.add(listener);
      return () => executionListeners.delete(listener);
    },
  };
};
