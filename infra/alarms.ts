/**
 * Alarms on what the issue names (DLQ depth, rows ending in `error`, leases held past their
 * expiry) plus workflow failures (Batch, Row, Answers) and Lambda errors. The two pipeline metrics come from
 * CloudWatch Logs metric filters on the handlers' structured logs (infra/contract.ts,
 * ALARM_LOG_FIELDS): no metrics client in the handlers, nothing to flush.
 */
import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { ALARM_LOG_FIELDS, PIPELINE_METRICS } from './contract.js';

export type PipelineAlarmsProps = {
  /** Queues whose messages mean something was given up on: any message is an alarm. */
  deadLetterQueues: Record<string, IQueue>;
  /** Log groups of the handlers that record a row's final status (row-complete, row-execution-ended). */
  rowOutcomeLogGroups: ILogGroup[];
  /** The log group of dispatch-rows, which recovers expired leases. */
  dispatcherLogGroup: ILogGroup;
  batchWorkflow: StateMachine;
  rowWorkflow: StateMachine;
  answersWorkflow: StateMachine;
  /**
   * Alarm id → the functions whose errors it sums. At most ten per group: an alarm on a metric
   * math expression may reference no more than ten metrics (a hard CloudWatch limit).
   */
  functionGroups: Record<string, IFunction[]>;
  /** Emails the alarms when given. */
  alarmEmail?: string;
};

export class PipelineAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  /** Present when an alarm email was configured. */
  readonly topic?: Topic;

  constructor(scope: Construct, id: string, props: PipelineAlarmsProps) {
    super(scope, id);

    const atLeastOnce = (alarmId: string, metric: IMetric, description: string) => {
      const alarm = new Alarm(this, alarmId, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      this.alarms.push(alarm);
      return alarm;
    };

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      atLeastOnce(
        `${name}Depth`,
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        `${name} holds messages: something was given up on. Inspect them, fix the cause, redrive.`,
      );
    }

    const rowsInError = new Metric({
      namespace: PIPELINE_METRICS.namespace,
      metricName: PIPELINE_METRICS.rowsEndedInError,
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
    props.rowOutcomeLogGroups.forEach((logGroup, index) => {
      new MetricFilter(this, `RowsEndedInErrorFilter${index}`, {
        logGroup,
        filterPattern: FilterPattern.stringValue(`$.${ALARM_LOG_FIELDS.rowStatus}`, '=', 'error'),
        metricNamespace: rowsInError.namespace,
        metricName: rowsInError.metricName,
        metricValue: '1',
      });
    });
    atLeastOnce(
      'RowsEndedInError',
      rowsInError,
      'A row ended with status error: the pipeline could not finish it (detail in results.csv).',
    );

    const leasesRecovered = new Metric({
      namespace: PIPELINE_METRICS.namespace,
      metricName: PIPELINE_METRICS.leasesRecovered,
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
    new MetricFilter(this, 'LeasesRecoveredFilter', {
      logGroup: props.dispatcherLogGroup,
      filterPattern: FilterPattern.numberValue(`$.${ALARM_LOG_FIELDS.leasesRecovered}`, '>', 0),
      metricNamespace: leasesRecovered.namespace,
      metricName: leasesRecovered.metricName,
      metricValue: `$.${ALARM_LOG_FIELDS.leasesRecovered}`,
    });
    atLeastOnce(
      'LeasesHeldPastExpiry',
      leasesRecovered,
      'A slot lease outlived its expiry and was recovered: a row stopped renewing without releasing.',
    );

    const fiveMinutes = { period: Duration.minutes(5), statistic: 'Sum' };
    const endedUnfinished = (workflow: StateMachine) =>
      new MathExpression({
        // FILL: a metric with no data in the period would otherwise blank the whole sum.
        expression: 'FILL(failed, 0) + FILL(timedOut, 0) + FILL(aborted, 0)',
        usingMetrics: {
          failed: workflow.metricFailed(fiveMinutes),
          timedOut: workflow.metricTimedOut(fiveMinutes),
          aborted: workflow.metricAborted(fiveMinutes),
        },
        period: Duration.minutes(5),
      });
    atLeastOnce(
      'BatchWorkflowFailed',
      endedUnfinished(props.batchWorkflow),
      'A Batch workflow execution ended without finishing its batch (Finalize failed, timed out or aborted).',
    );
    atLeastOnce(
      'AnswersWorkflowFailed',
      endedUnfinished(props.answersWorkflow),
      'An Answers workflow execution ended without finishing its round (FinalizeAnswers failed, timed out ' +
        "or aborted): the batch's results.csv may not show the answered rows yet.",
    );
    atLeastOnce(
      'RowWorkflowFailed',
      props.rowWorkflow.metricFailed(fiveMinutes),
      'A Row workflow execution failed: Complete itself failed; row-execution-ended finished the row.',
    );

    // One alarm per group of functions rather than one per function: a handler error the
    // workflows retry is normal now and then, a burst of them is not. CloudWatch allows ten
    // metrics per alarm, hence groups (the batch and row path; the answers path).
    for (const [alarmId, functions] of Object.entries(props.functionGroups)) {
      if (functions.length === 0 || functions.length > 10) {
        throw new Error(`${alarmId}: an error alarm sums 1 to 10 functions, got ${functions.length}`);
      }
      const errors = Object.fromEntries(
        functions.map((fn, index) => [`e${index}`, fn.metricErrors(fiveMinutes)]),
      );
      const lambdaErrors = new Alarm(this, alarmId, {
        metric: new MathExpression({
          expression: Object.keys(errors)
            .map((key) => `FILL(${key}, 0)`)
            .join(' + '),
          usingMetrics: errors,
          period: Duration.minutes(5),
        }),
        threshold: 5,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `Five or more Lambda errors in five minutes across ${functions.length} functions (${alarmId}).`,
      });
      this.alarms.push(lambdaErrors);
    }

    if (props.alarmEmail !== undefined) {
      // CloudWatch can publish to an encrypted topic only with a customer managed key whose
      // policy lets it use the key (the AWS managed alias/aws/sns key does not).
      const key = new Key(this, 'AlarmTopicKey', {
        enableKeyRotation: true,
        description: 'Encrypts the alarm topic; CloudWatch alarms may use it',
      });
      key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
      this.topic = new Topic(this, 'AlarmTopic', { masterKey: key, enforceSSL: true });
      this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
      const action = new SnsAction(this.topic);
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }
}
