/**
 * The operators' dashboard: what the service did for the money (the business metrics the handlers
 * write as embedded metrics, shared/contract.ts BUSINESS_METRICS), whether anything needs a look
 * (every alarm), and each batch by its id (Logs Insights on the same lines).
 *
 *   text: what is where
 *   alarm status: every alarm of the stack
 *   rows finished by final status │ USD billed │ totals over the time range
 *   slots of the cap              │ what the service answered 429 or refused
 *   finished batches: rows by status │ finished batches: USD billed and saved
 *   rows ending in error (alarm)     │ leases held past expiry (alarm)
 *   per batch as rows finish         │ per finished batch
 *
 * The metrics carry no batch dimension (see BUSINESS_METRICS), so the graphs are totals over
 * batches; the two tables at the bottom are the per-batch view.
 */
import { Aws, Duration, Stack } from 'aws-cdk-lib';
import {
  AlarmStatusWidget,
  AlarmStatusWidgetSortBy,
  AlarmWidget,
  Dashboard,
  GraphWidget,
  LogQueryWidget,
  Metric,
  SingleValueWidget,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { BUSINESS_METRIC_FIELDS, BUSINESS_METRICS, SERVICE_NAME } from '../shared/contract.js';
import { OUTPUT_STATUSES, type OutputStatus } from '../shared/pipeline/core/row-statuses.js';
import type { PipelineAlarms } from './alarms.js';

export type PipelineDashboardProps = {
  alarms: PipelineAlarms;
  /** Where the lines of rows finishing are written: row-complete, row-execution-ended. */
  rowOutcomeLogGroups: ILogGroup[];
  /** Where the lines of finished batches are written: finalize-batch. */
  finalizeLogGroup: ILogGroup;
};

type BusinessMetricName = (typeof BUSINESS_METRICS)[Exclude<keyof typeof BUSINESS_METRICS, 'namespace'>];

/** One of the business metrics, under the dimensions the handlers write it with. */
const businessMetric = (
  metricName: BusinessMetricName,
  options: { statistic: string; period: Duration; label: string; status?: OutputStatus },
): Metric =>
  new Metric({
    namespace: BUSINESS_METRICS.namespace,
    metricName,
    dimensionsMap: {
      [BUSINESS_METRIC_FIELDS.service]: SERVICE_NAME,
      ...(options.status ? { [BUSINESS_METRIC_FIELDS.status]: options.status } : {}),
    },
    statistic: options.statistic,
    period: options.period,
    label: options.label,
  });

/** `metricName` once per output status, each labelled with its status. */
const byStatus = (metricName: 'RowsFinished' | 'BatchRows', period: Duration): Metric[] =>
  OUTPUT_STATUSES.map((status) =>
    businessMetric(metricName, { statistic: 'Sum', period, label: status, status }),
  );

const FIVE_MINUTES = Duration.minutes(5);
const ONE_HOUR = Duration.hours(1);
const M = BUSINESS_METRICS;

const introduction = () =>
  new TextWidget({
    width: 24,
    height: 3,
    markdown: [
      '# NCM batch classifier',
      `Namespace \`${M.namespace}\`, dimension \`${BUSINESS_METRIC_FIELDS.service}\` = \`${SERVICE_NAME}\`: ` +
        'what the handlers wrote as embedded metrics (infra/README.md, "Metrics and the dashboard"), ' +
        'totals over every batch. Per batch: the two tables at the bottom read the same log lines by ' +
        `\`${BUSINESS_METRIC_FIELDS.batchId}\`; a batch's exact numbers are its \`summary.json\`.`,
    ].join('\n\n'),
  });

/** Rows as they finish (the Row workflow's Complete) and what the service billed for them. */
const rowWidgets = () => [
  new GraphWidget({
    title: 'Rows finished by final status (Row workflow, per 5 minutes)',
    width: 12,
    height: 6,
    stacked: true,
    left: byStatus(M.rowsFinished, FIVE_MINUTES),
  }),
  new GraphWidget({
    title: 'USD billed (per hour)',
    width: 6,
    height: 6,
    left: [businessMetric(M.billedUsd, { statistic: 'Sum', period: ONE_HOUR, label: 'USD billed' })],
    leftYAxis: { min: 0 },
  }),
  new SingleValueWidget({
    title: 'Over the time range',
    width: 6,
    height: 6,
    setPeriodToTimeRange: true,
    metrics: [
      businessMetric(M.billedUsd, { statistic: 'Sum', period: ONE_HOUR, label: 'USD billed' }),
      businessMetric(M.batchSavedUsd, { statistic: 'Sum', period: ONE_HOUR, label: 'USD saved' }),
      businessMetric(M.batchesFinished, { statistic: 'Sum', period: ONE_HOUR, label: 'batches finished' }),
    ],
  }),
];

/** The cap as the dispatcher sees it, and what the service said no to. */
const capWidgets = () => [
  new GraphWidget({
    title: "Slots of the organisation's cap (each dispatcher run, highest per minute)",
    width: 12,
    height: 6,
    left: [
      businessMetric(M.slotCap, { statistic: 'Maximum', period: Duration.minutes(1), label: 'cap' }),
      businessMetric(M.slotsInUse, { statistic: 'Maximum', period: Duration.minutes(1), label: 'ours' }),
      businessMetric(M.slotsUsedByOthers, {
        statistic: 'Maximum',
        period: Duration.minutes(1),
        label: 'others (web app, other clients)',
      }),
    ],
    leftYAxis: { min: 0 },
  }),
  new GraphWidget({
    title: 'Submissions the service answered 429 or refused (per 5 minutes)',
    width: 12,
    height: 6,
    left: [
      businessMetric(M.submissionsRateLimited, {
        statistic: 'Sum',
        period: FIVE_MINUTES,
        label: '429: back to the queue',
      }),
      businessMetric(M.submissionsRefused, {
        statistic: 'Sum',
        period: FIVE_MINUTES,
        label: 'refused (4xx)',
      }),
    ],
    leftYAxis: { min: 0 },
  }),
];

/** Batches as Finalize counts them: every row, the reused and the rejected ones too. */
const batchWidgets = () => [
  new GraphWidget({
    title: 'Finished batches: rows by final status (per hour)',
    width: 12,
    height: 6,
    stacked: true,
    left: byStatus(M.batchRows, ONE_HOUR),
  }),
  new GraphWidget({
    title: 'Finished batches: USD billed and saved (per hour)',
    width: 12,
    height: 6,
    left: [
      businessMetric(M.batchBilledUsd, { statistic: 'Sum', period: ONE_HOUR, label: 'USD billed' }),
      businessMetric(M.batchSavedUsd, { statistic: 'Sum', period: ONE_HOUR, label: 'USD saved' }),
    ],
    leftYAxis: { min: 0 },
  }),
];

/** The same numbers by batch id, from the embedded-metric lines (Logs Insights). */
const perBatchTables = (props: PipelineDashboardProps) => [
  new LogQueryWidget({
    title: 'Per batch, as rows finish (latest first)',
    width: 12,
    height: 6,
    logGroupNames: props.rowOutcomeLogGroups.map((group) => group.logGroupName),
    queryLines: [
      `filter ispresent(${M.rowsFinished}) or ispresent(${M.billedUsd})`,
      `stats sum(${M.rowsFinished}) as rows_finished, sum(${M.billedUsd}) as usd_billed, ` +
        `max(@timestamp) as last_line by ${BUSINESS_METRIC_FIELDS.batchId}`,
      'sort last_line desc',
      'limit 20',
    ],
  }),
  new LogQueryWidget({
    title: 'Finished batches (latest first)',
    width: 12,
    height: 6,
    logGroupNames: [props.finalizeLogGroup.logGroupName],
    queryLines: [
      `fields @timestamp, ${BUSINESS_METRIC_FIELDS.batchId}, batch_state, rows_total, ` +
        `${M.batchBilledUsd} as usd_billed, ${M.batchSavedUsd} as usd_saved`,
      `filter ispresent(${M.batchesFinished})`,
      'sort @timestamp desc',
      'limit 20',
    ],
  }),
];

export class PipelineDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: PipelineDashboardProps) {
    super(scope, id);
    // Dashboards are named per account, not per region: the region keeps two deployments apart.
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${Aws.REGION}`,
      defaultInterval: Duration.days(1),
    });
    const { alarms } = props;
    this.dashboard.addWidgets(introduction());
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Alarms',
        width: 24,
        height: 4,
        alarms: alarms.alarms,
        sortBy: AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
      }),
    );
    this.dashboard.addWidgets(...rowWidgets());
    this.dashboard.addWidgets(...capWidgets());
    this.dashboard.addWidgets(...batchWidgets());
    this.dashboard.addWidgets(
      new AlarmWidget({
        title: 'Rows ending in error',
        width: 12,
        height: 6,
        alarm: alarms.rowsEndedInError,
      }),
      new AlarmWidget({
        title: 'Leases held past their expiry',
        width: 12,
        height: 6,
        alarm: alarms.leasesHeldPastExpiry,
      }),
    );
    this.dashboard.addWidgets(...perBatchTables(props));
  }
}
