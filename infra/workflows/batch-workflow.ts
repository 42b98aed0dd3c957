/**
 * The Batch workflow: one Standard execution per input object version.
 *
 *   Prepare ─▶ RouteAfterPrepare ─┬─ wait ──────▶ WaitForRows (.waitForTaskToken) ─┐
 *      │                          ├─ finalize ──────────────────────────────────────┼─▶ Finalize ─▶ Done
 *      │                          └─ otherwise ─▶ Duplicate (Succeed)                │
 *      └── Catch States.ALL ($.error) ───────────────────────────────────────────────┤
 *                          WaitForRows Catch States.ALL ($.wait_error), timeout too ─┘
 *
 * JSONPath only (no JSONata, no Assign, no ItemReader): the local runtime executes this very
 * definition with aws-local-stepfunctions, which supports none of those.
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
import { Construct } from 'constructs';
import { acknowledgeWorkflowRole, executionLogs, taskFailedRetry } from './workflow-defaults.js';

export type BatchWorkflowProps = {
  prepare: IFunction;
  awaitRows: IFunction;
  finalize: IFunction;
  /** How long WaitForRows waits for the last row before the batch is finalized as it stands. */
  waitForRowsTimeout: Duration;
  logRetention: RetentionDays;
};

export class BatchWorkflow extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: BatchWorkflowProps) {
    super(scope, id);

    const finalize = LambdaInvoke.jsonPath(this, 'Finalize', {
      lambdaFunction: props.finalize,
      payloadResponseOnly: true,
      // The whole state: the S3 event, $.prepare, and $.rows or $.error / $.wait_error.
      resultPath: '$.summary',
    })
      .addRetry(taskFailedRetry(3))
      .next(new Succeed(this, 'Done'));

    const prepare = LambdaInvoke.jsonPath(this, 'Prepare', {
      lambdaFunction: props.prepare,
      payloadResponseOnly: true,
      // The execution id tells a retried Prepare (same execution: go on) from a second
      // execution for the same object version (a duplicate delivery).
      payload: TaskInput.fromObject({ event: JsonPath.entirePayload, execution_id: JsonPath.executionId }),
      resultPath: '$.prepare',
    })
      .addRetry(taskFailedRetry(2))
      .addCatch(finalize, { errors: [Errors.ALL], resultPath: '$.error' });

    const waitForRows = LambdaInvoke.jsonPath(this, 'WaitForRows', {
      lambdaFunction: props.awaitRows,
      integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: TaskInput.fromObject({
        batch_id: JsonPath.stringAt('$.prepare.batch_id'),
        task_token: JsonPath.taskToken,
      }),
      resultPath: '$.rows',
      taskTimeout: Timeout.duration(props.waitForRowsTimeout),
    })
      // A failed await-rows must not finalize a batch whose rows are still running.
      .addRetry(taskFailedRetry(2))
      .addCatch(finalize, { errors: [Errors.ALL], resultPath: '$.wait_error' });

    const route = Choice.jsonPath(this, 'RouteAfterPrepare')
      .when(Condition.stringEquals('$.prepare.next', 'wait'), waitForRows.next(finalize))
      .when(Condition.stringEquals('$.prepare.next', 'finalize'), finalize)
      .otherwise(new Succeed(this, 'Duplicate', { comment: 'Another execution owns this object version' }));

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(prepare.next(route)),
      // Prepare and Finalize (15 min each, with retries) around the wait for the rows.
      timeout: props.waitForRowsTimeout.plus(Duration.hours(3)),
      logs: executionLogs(this, 'batch-workflow', props.logRetention),
      tracingEnabled: true,
    });
    acknowledgeWorkflowRole(this.stateMachine, [props.prepare, props.awaitRows, props.finalize]);
  }
}
