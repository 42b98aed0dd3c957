/**
 * Alarms on what the issue names (DLQ depth, rows ending in `error`, leases held past their
 * expiry) plus workflow failures (Batch, Row, Answers) and Lambda errors. The two pipeline metrics come from
 * CloudWatch Logs metric filters on the handlers' structured logs (shared/contract.ts,
 * ALARM_LOG_FIELDS), a field on a line the handler writes anyway. The business metrics the
 * handlers write as embedded metrics (BUSINESS_METRICS) feed the dashboard (dashboard.ts), which
 * shows these alarms too.
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
import { ALARM_LOG_FIELDS, PIPELINE_METRICS } from '../shared/contract.js';

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

/** The statistic of the workflow and Lambda metrics: sums over five minutes. */
const FIVE_MINUTE_SUM = { period: Duration.minutes(5), statistic: 'Sum' };

/** An alarm that fires on the first datapoint of 1 or more: anything counted is worth a look. */
const atLeastOnceAlarm = (scope: Construct, alarmId: string, metric: IMetric, description: string) =>
  new Alarm(scope, alarmId, {
    metric,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: description,
  });

const deadLetterQueueAlarms = (scope: Construct, queues: Record<string, IQueue>): Alarm[] =>
  Object.entries(queues).map(([name, queue]) =>
    atLeastOnceAlarm(
      scope,
      `${name}Depth`,
      queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      `${name} holds messages: something was given up on. Inspect them, fix the cause, redrive.`,
    ),
  );

const rowsEndedInErrorAlarm = (scope: Construct, rowOutcomeLogGroups: ILogGroup[]): Alarm => {
  const rowsInError = new Metric({
    namespace: PIPELINE_METRICS.namespace,
    metricName: PIPELINE_METRICS.rowsEndedInError,
    statistic: 'Sum',
    period: Duration.minutes(5),
  });
  rowOutcomeLogGroups.forEach((logGroup, index) => {
    new MetricFilter(scope, `RowsEndedInErrorFilter${index}`, {
      logGroup,
      filterPattern: FilterPattern.stringValue(`$.${ALARM_LOG_FIELDS.rowStatus}`, '=', 'error'),
      metricNamespace: rowsInError.namespace,
      metricName: rowsInError.metricName,
      metricValue: '1',
    });
  });
  return atLeastOnceAlarm(
    scope,
    'RowsEndedInError',
    rowsInError,
    'A row ended with status error: the pipeline could not finish it (detail in results.csv).',
  );
};

const leasesHeldPastExpiryAlarm = (scope: Construct, dispatcherLogGroup: ILogGroup): Alarm => {
  const leasesRecovered = new Metric({
    namespace: PIPELINE_METRICS.namespace,
    metricName: PIPELINE_METRICS.leasesRecovered,
    statistic: 'Sum',
    period: Duration.minutes(5),
  });
  new MetricFilter(scope, 'LeasesRecoveredFilter', {
    logGroup: dispatcherLogGroup,
    filterPattern: FilterPattern.numberValue(`$.${ALARM_LOG_FIELDS.leasesRecovered}`, '>', 0),
    metricNamespace: leasesRecovered.namespace,
    metricName: leasesRecovered.metricName,
    metricValue: `$.${ALARM_LOG_FIELDS.leasesRecovered}`,
  });
  return atLeastOnceAlarm(
    scope,
    'LeasesHeldPastExpiry',
    leasesRecovered,
    'A slot lease outlived its expiry and was recovered: a row stopped renewing without releasing.',
  );
};

/** Executions of `workflow` that failed, timed out or were aborted. */
const endedUnfinished = (workflow: StateMachine) =>
  new MathExpression({
    // FILL: a metric with no data in the period would otherwise blank the whole sum.
    expression: 'FILL(failed, 0) + FILL(timedOut, 0) + FILL(aborted, 0)',
    usingMetrics: {
      failed: workflow.metricFailed(FIVE_MINUTE_SUM),
      timedOut: workflow.metricTimedOut(FIVE_MINUTE_SUM),
      aborted: workflow.metricAborted(FIVE_MINUTE_SUM),
    },
    period: Duration.minutes(5),
  });

const workflowAlarms = (
  scope: Construct,
  workflows: Pick<PipelineAlarmsProps, 'batchWorkflow' | 'answersWorkflow' | 'rowWorkflow'>,
): Alarm[] => [
  atLeastOnceAlarm(
    scope,
    'BatchWorkflowFailed',
    endedUnfinished(workflows.batchWorkflow),
    'A Batch workflow execution ended without finishing its batch (Finalize failed, timed out or aborted).',
  ),
  atLeastOnceAlarm(
    scope,
    'AnswersWorkflowFailed',
    endedUnfinished(workflows.answersWorkflow),
    'An Answers workflow execution ended without finishing its round (FinalizeAnswers failed, timed out ' +
      "or aborted): the batch's results.csv may not show the answered rows yet.",
  ),
  atLeastOnceAlarm(
    scope,
    'RowWorkflowFailed',
    workflows.rowWorkflow.metricFailed(FIVE_MINUTE_SUM),
    'A Row workflow execution failed: Complete itself failed; row-execution-ended finished the row.',
  ),
];

// One alarm per group of functions rather than one per function: a handler error the
// workflows retry is normal now and then, a burst of them is not. CloudWatch allows ten
// metrics per alarm, hence groups (the batch and row path; the answers path).
const lambdaErrorAlarms = (scope: Construct, functionGroups: Record<string, IFunction[]>): Alarm[] =>
  Object.entries(functionGroups).map(([alarmId, functions]) => {
    if (functions.length === 0 || functions.length > 10) {
      throw new Error(`${alarmId}: an error alarm sums 1 to 10 functions, got ${functions.length}`);
    }
    const errors = Object.fromEntries(
      functions.map((fn, index) => [`e${index}`, fn.metricErrors(FIVE_MINUTE_SUM)]),
    );
    return new Alarm(scope, alarmId, {
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
  });

/** A topic that emails `alarmEmail`, made the action of every alarm in `alarms`. */
const emailAlarms = (scope: Construct, alarmEmail: string, alarms: Alarm[]): Topic => {
  // CloudWatch can publish to an encrypted topic only with a customer managed key whose
  // policy lets it use the key (the AWS managed alias/aws/sns key does not).
  const key = new Key(scope, 'AlarmTopicKey', {
    enableKeyRotation: true,
    description: 'Encrypts the alarm topic; CloudWatch alarms may use it',
  });
  key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
  const topic = new Topic(scope, 'AlarmTopic', { masterKey: key, enforceSSL: true });
  topic.addSubscription(new EmailSubscription(alarmEmail));
  const action = new SnsAction(topic);
  for (const alarm of alarms) alarm.addAlarmAction(action);
  return topic;
};

export class PipelineAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  /** The alarms on the pipeline's own metrics, which the dashboard graphs with their thresholds. */
  readonly rowsEndedInError: Alarm;
  readonly leasesHeldPastExpiry: Alarm;
  /** Present when an alarm email was configured. */
  readonly topic?: Topic;

  constructor(scope: Construct, id: string, props: PipelineAlarmsProps) {
    super(scope, id);
    // The order of creation is the order of the template's resources: keep it.
    const deadLetters = deadLetterQueueAlarms(this, props.deadLetterQueues);
    this.rowsEndedInError = rowsEndedInErrorAlarm(this, props.rowOutcomeLogGroups);
    this.leasesHeldPastExpiry = leasesHeldPastExpiryAlarm(this, props.dispatcherLogGroup);
    this.alarms.push(
      ...deadLetters,
      this.rowsEndedInError,
      this.leasesHeldPastExpiry,
      ...workflowAlarms(this, props),
      ...lambdaErrorAlarms(this, props.functionGroups),
    );
    if (props.alarmEmail !== undefined) this.topic = emailAlarms(this, props.alarmEmail, this.alarms);
  }
}
