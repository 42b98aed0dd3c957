/**
 * The Row workflow: one Standard execution per row attempt and dispatch, started by
 * dispatch-rows once it holds a slot lease. Each task returns a RowStep at `$.step`
 * (shared/pipeline/core/records.ts) and RouteStep branches on its `next`.
 *
 *   Submit ─▶ RouteStep ─┬─ wait ───▶ WaitForRun ($.step.wait_seconds) ─▶ Poll ─▶ RouteStep
 *                        ├─ store ──▶ Store ──┐
 *                        ├─ review ─▶ Review ─┤
 *                        └─ otherwise ────────┴─▶ Complete (End)
 *   Submit, Poll, Store, Review: Catch States.ALL ($.error) ─▶ Complete
 *
 * Complete has no Catch: if it still fails after its retries the execution fails, and the
 * EventBridge rule on FAILED/TIMED_OUT/ABORTED runs row-execution-ended, which completes the
 * row as `error` and releases the lease. JSONPath only, for the local runtime.
 */
import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  Errors,
  StateMachine,
  StateMachineType,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { acknowledgeWorkflowRole, executionLogs, taskFailedRetry } from './workflow-defaults.js';

/**
 * Poll gives up at 6 h and hands the row to reconciliation (shared/pipeline/row/row-decisions.ts);
 * an hour more covers the last polls, Store and Complete with their retries.
 */
const ROW_WORKFLOW_TIMEOUT = Duration.hours(7);

export type RowWorkflowProps = {
  submit: IFunction;
  poll: IFunction;
  store: IFunction;
  review: IFunction;
  complete: IFunction;
  /**
   * A fixed name, so dispatch-rows can be given this workflow's ARN without a reference to it
   * (the workflow invokes row-complete, which invokes dispatch-rows: a reference would be a cycle).
   */
  stateMachineName: string;
  logRetention: RetentionDays;
};

export class RowWorkflow extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: RowWorkflowProps) {
    super(scope, id);

    const complete = LambdaInvoke.jsonPath(this, 'Complete', {
      lambdaFunction: props.complete,
      payloadResponseOnly: true,
      resultPath: '$.completion',
    }).addRetry(taskFailedRetry(6));

    // Every step sees the whole RowState and replaces $.step; a failure goes to Complete with
    // $.error, which Complete turns into an `error` row (or a retry as a new attempt).
    const step = (id: string, fn: IFunction) =>
      LambdaInvoke.jsonPath(this, id, { lambdaFunction: fn, payloadResponseOnly: true, resultPath: '$.step' })
        .addRetry(taskFailedRetry(2))
        .addCatch(complete, { errors: [Errors.ALL], resultPath: '$.error' });

    const submit = step('Submit', props.submit);
    const poll = step('Poll', props.poll);
    const store = step('Store', props.store).next(complete);
    const review = step('Review', props.review).next(complete);
    const waitForRun = new Wait(this, 'WaitForRun', { time: WaitTime.secondsPath('$.step.wait_seconds') });

    const routeStep = Choice.jsonPath(this, 'RouteStep')
      .when(Condition.stringEquals('$.step.next', 'wait'), waitForRun.next(poll))
      .when(Condition.stringEquals('$.step.next', 'store'), store)
      .when(Condition.stringEquals('$.step.next', 'review'), review)
      .otherwise(complete);
    poll.next(routeStep);

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(submit.next(routeStep)),
      timeout: ROW_WORKFLOW_TIMEOUT,
      logs: executionLogs(this, 'row-workflow', props.logRetention),
      tracingEnabled: true,
    });
    acknowledgeWorkflowRole(this.stateMachine, [
      props.submit,
      props.poll,
      props.store,
      props.review,
      props.complete,
    ]);
  }
}
