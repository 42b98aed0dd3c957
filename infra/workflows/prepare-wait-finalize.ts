/**
 * The shape the Batch and Answers workflows share: prepare the work, wait for its rows on a task
 * token, finalize what came of it. One Standard execution per dropped object version.
 *
 *   <prepare> ─▶ <route> ─┬─ wait ──────▶ <wait> (.waitForTaskToken) ─┐
 *      │                  ├─ finalize ─────────────────────────────────┼─▶ <finalize> ─▶ [<again>] ─▶ <done>
 *      │                  └─ otherwise ─▶ <skipped> (Succeed)          │        ▲            │
 *      └── Catch States.ALL ($.error) ─────────────────────────────────┤        └── again ───┘
 *                  <wait> Catch States.ALL ($.wait_error), timeout too ┘
 *
 * <again>, when the workflow has it, calls <finalize> again while its last answer (`$.finalized`)
 * says `next: "again"`, and <route> calls <prepare> again while its answer (`$.prepare`) says so:
 * work that did not fit one invocation goes on in the next.
 *
 * The wait's timeout is fixed (an answers round), or read from the state where <prepare> put it
 * (`TimeoutSecondsPath`: the Batch workflow, whose Prepare sizes it from the batch); the
 * execution's own timeout is the longest wait plus the 3 h Prepare and Finalize may take.
 *
 * JSONPath only (no JSONata, no Assign, no ItemReader): the local runtime executes these very
 * definitions with aws-local-stepfunctions, which supports none of those.
 */
import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  Errors,
  IntegrationPattern,
  JsonPath,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  Timeout,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { BATCH_WAIT } from '../../shared/contract.js';
import { acknowledgeWorkflowRole, executionLogs, taskFailedRetry } from './workflow-defaults.js';

export type PrepareWaitFinalizeProps = {
  /** State names (shared/contract.ts). */
  states: {
    prepare: string;
    route: string;
    wait: string;
    finalize: string;
    done: string;
    skipped: string;
    /** A Succeed for Prepare's `planned` (a plan-only batch: its plan is in the outbox), if the workflow has one. */
    planned?: string;
    /** A Choice that calls <finalize> again while it answers `next: "again"`, if the workflow has one. */
    again?: string;
  };
  /** <route> calls <prepare> again while it answers `next: "again"` (a Prepare that writes in legs). */
  prepareInLegs?: boolean;
  /** Why the Succeed state that ends a skipped execution is there. */
  skippedComment: string;
  prepare: IFunction;
  /** await-rows: keeps the task token on the record at `waitRecordPath`, or wakes at once. */
  awaitRows: IFunction;
  finalize: IFunction;
  /** Where Prepare's result names the record the rows count on (a batch id, or a round id). */
  waitRecordPath: string;
  /**
   * How long the wait lasts before the work is finalized as it stands: always the same, or the
   * seconds at `path` in the state (a positive integer <prepare> put there), at most `longest`.
   */
  waitTimeout: { fixed: Duration } | { path: string; longest: Duration };
  /** Execution log group id (`<stack>-<id>`). */
  logId: string;
  logRetention: RetentionDays;
};

export const prepareWaitFinalize = (scope: Construct, props: PrepareWaitFinalizeProps): StateMachine => {
  const { states } = props;
  const finalize = LambdaInvoke.jsonPath(scope, states.finalize, {
    lambdaFunction: props.finalize,
    payloadResponseOnly: true,
    // The whole state: the S3 event, $.prepare, $.rows or $.error / $.wait_error, and the last
    // leg's answer when it is called again.
    resultPath: '$.finalized',
  }).addRetry(taskFailedRetry(3));
  const done = new Succeed(scope, states.done);
  if (states.again) {
    finalize.next(
      Choice.jsonPath(scope, states.again)
        .when(
          Condition.and(
            Condition.isPresent('$.finalized.next'),
            Condition.stringEquals('$.finalized.next', 'again'),
          ),
          finalize,
        )
        .otherwise(done),
    );
  } else finalize.next(done);

  const prepare = LambdaInvoke.jsonPath(scope, states.prepare, {
    lambdaFunction: props.prepare,
    payloadResponseOnly: true,
    // The execution id tells a retried prepare (same execution: go on) from a second execution
    // for the same object version (a duplicate delivery).
    payload: TaskInput.fromObject({ event: JsonPath.entirePayload, execution_id: JsonPath.executionId }),
    resultPath: '$.prepare',
  })
    .addRetry(taskFailedRetry(2))
    .addCatch(finalize, { errors: [Errors.ALL], resultPath: '$.error' });

  const wait = LambdaInvoke.jsonPath(scope, states.wait, {
    lambdaFunction: props.awaitRows,
    integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    payload: TaskInput.fromObject({
      batch_id: JsonPath.stringAt(props.waitRecordPath),
      task_token: JsonPath.taskToken,
    }),
    resultPath: '$.rows',
    taskTimeout:
      'fixed' in props.waitTimeout
        ? Timeout.duration(props.waitTimeout.fixed)
        : Timeout.at(props.waitTimeout.path),
  })
    // A failed await-rows must not finalize work whose rows are still running.
    .addRetry(taskFailedRetry(2))
    .addCatch(finalize, { errors: [Errors.ALL], resultPath: '$.wait_error' });

  const route = Choice.jsonPath(scope, states.route)
    .when(Condition.stringEquals('$.prepare.next', 'wait'), wait.next(finalize))
    .when(Condition.stringEquals('$.prepare.next', 'finalize'), finalize);
  if (states.planned) {
    route.when(
      Condition.stringEquals('$.prepare.next', 'planned'),
      new Succeed(scope, states.planned, { comment: 'Plan only: plan.json and plan.csv are in the outbox' }),
    );
  }
  // <prepare> again, given the whole state (its last answer at $.prepare): it goes on from there.
  if (props.prepareInLegs) route.when(Condition.stringEquals('$.prepare.next', 'again'), prepare);
  route.otherwise(new Succeed(scope, states.skipped, { comment: props.skippedComment }));

  const stateMachine = new StateMachine(scope, 'StateMachine', {
    stateMachineType: StateMachineType.STANDARD,
    definitionBody: DefinitionBody.fromChainable(prepare.next(route)),
    // Prepare and finalize (15 min each, with retries) around the longest wait for the rows.
    timeout: ('fixed' in props.waitTimeout ? props.waitTimeout.fixed : props.waitTimeout.longest).plus(
      Duration.seconds(BATCH_WAIT.aroundSeconds),
    ),
    logs: executionLogs(scope, props.logId, props.logRetention),
    tracingEnabled: true,
  });
  acknowledgeWorkflowRole(stateMachine, [props.prepare, props.awaitRows, props.finalize]);
  return stateMachine;
};
