/**
 * What the workflows share: execution logs without execution data, the retry of a handler
 * failure, and the acknowledged wildcards of their roles.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Errors,
  LogLevel,
  type LogOptions,
  type RetryProps,
  type StateMachine,
} from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { acknowledge, inFinding, wildcardResource } from '../nag.js';

/**
 * Level ALL with includeExecutionData false: every state transition is logged (a row's whole
 * path can be read back, and AwsSolutions-SF1 asks for it) but no input, output or
 * parameters, so a task token, a row's data or a scrubbed error cause never reaches the logs.
 * A row costs a few dozen small events, far below its USD 2.00 classification.
 */
export const executionLogs = (scope: Construct, id: string, retention: RetentionDays): LogOptions => ({
  destination: new LogGroup(scope, id, {
    // The vended-logs prefix keeps CloudWatch Logs' resource policy from growing per group.
    logGroupName: `/aws/vendedlogs/states/${Stack.of(scope).stackName}-${id}`,
    retention,
    removalPolicy: RemovalPolicy.DESTROY,
  }),
  level: LogLevel.ALL,
  includeExecutionData: false,
});

/**
 * A handler that failed on its own (States.TaskFailed) is tried again with the same input.
 * Safe because every write is conditional and every Idempotency-Key deterministic (shared/
 * pipeline/README.md, "Idempotent under retry").
 */
export const taskFailedRetry = (maxAttempts: number): RetryProps => ({
  errors: [Errors.TASKS_FAILED],
  interval: Duration.seconds(2),
  maxAttempts,
  backoffRate: 2,
});

/** The wildcards CDK puts in a workflow's role, each acknowledged with its reason. */
export const acknowledgeWorkflowRole = (stateMachine: StateMachine, invoked: IFunction[]): void => {
  acknowledge(
    stateMachine.role,
    'X-Ray (PutTraceSegments, GetSamplingRules…) and CloudWatch Logs delivery (CreateLogDelivery…) ' +
      'actions support no resource-level permissions; AWS documents Resource "*" for them.',
    wildcardResource('*'),
  );
  for (const fn of invoked) {
    acknowledge(
      stateMachine.role,
      "LambdaInvoke grants <function>:* so a version or alias of this workflow's own function can be invoked.",
      wildcardResource(`${inFinding(stateMachine, fn.functionArn)}:*`),
    );
  }
};
