/**
 * The Answers workflow (issue 6): one Standard execution per answers file version dropped into
 * `answers/<batch-id>/`. Same conventions as the Batch workflow; the round it runs is tracked
 * like a batch (shared/pipeline/README.md, "Answer rounds"), so WaitForAnswers is await-rows on
 * the round id.
 *
 *   PrepareAnswers ─▶ RouteAfterPrepareAnswers ─┬─ wait ─────▶ WaitForAnswers (.waitForTaskToken) ─┐
 *      │                                        ├─ finalize ─────────────────────────────────────────┼─▶ FinalizeAnswers ─▶ AnswersDone
 *      │                                        └─ otherwise ─▶ AnswersSkipped (Succeed)              │
 *      └── Catch States.ALL ($.error) ───────────────────────────────────────────────────────────────┤
 *                                   WaitForAnswers Catch States.ALL ($.wait_error), timeout too ─────┘
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

export type AnswersWorkflowProps = {
  prepareAnswers: IFunction;
  /** await-rows, the same function as the Batch workflow's WaitForRows. */
  awaitRows: IFunction;
  finalizeAnswers: IFunction;
  /** How long WaitForAnswers waits for the round's last row before the round is finalized as it stands. */
  waitForAnswersTimeout: Duration;
  logRetention: RetentionDays;
};

export class AnswersWorkflow extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: AnswersWorkflowProps) {
    super(scope, id);

    const finalize = LambdaInvoke.jsonPath(this, 'FinalizeAnswers', {
      lambdaFunction: props.finalizeAnswers,
      payloadResponseOnly: true,
      // The whole state: the S3 event, $.prepare, and $.rows or $.error / $.wait_error.
      resultPath: '$.summary',
    })
      .addRetry(taskFailedRetry(3))
      .next(new Succeed(this, 'AnswersDone'));

    const prepare = LambdaInvoke.jsonPath(this, 'PrepareAnswers', {
      lambdaFunction: props.prepareAnswers,
      payloadResponseOnly: true,
      // The execution id tells a retried PrepareAnswers (same execution: go on) from a second
      // execution for the same object version (a duplicate delivery: the round is another's).
      payload: TaskInput.fromObject({ event: JsonPath.entirePayload, execution_id: JsonPath.executionId }),
      resultPath: '$.prepare',
    })
      .addRetry(taskFailedRetry(2))
      .addCatch(finalize, { errors: [Errors.ALL], resultPath: '$.error' });

    const waitForAnswers = LambdaInvoke.jsonPath(this, 'WaitForAnswers', {
      lambdaFunction: props.awaitRows,
      integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: TaskInput.fromObject({
        // The round record is a BatchRecord of its own: await-rows keeps the token there.
        batch_id: JsonPath.stringAt('$.prepare.round_id'),
        task_token: JsonPath.taskToken,
      }),
      resultPath: '$.rows',
      taskTimeout: Timeout.duration(props.waitForAnswersTimeout),
    })
      // A failed await-rows must not finalize a round whose rows are still running.
      .addRetry(taskFailedRetry(2))
      .addCatch(finalize, { errors: [Errors.ALL], resultPath: '$.wait_error' });

    const route = Choice.jsonPath(this, 'RouteAfterPrepareAnswers')
      .when(Condition.stringEquals('$.prepare.next', 'wait'), waitForAnswers.next(finalize))
      .when(Condition.stringEquals('$.prepare.next', 'finalize'), finalize)
      .otherwise(
        new Succeed(this, 'AnswersSkipped', {
          comment: 'Not an answers file of a known batch, or another execution owns this object version',
        }),
      );

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(prepare.next(route)),
      // PrepareAnswers and FinalizeAnswers (15 min each, with retries) around the wait.
      timeout: props.waitForAnswersTimeout.plus(Duration.hours(3)),
      logs: executionLogs(this, 'answers-workflow', props.logRetention),
      tracingEnabled: true,
    });
    acknowledgeWorkflowRole(this.stateMachine, [
      props.prepareAnswers,
      props.awaitRows,
      props.finalizeAnswers,
    ]);
  }
}
