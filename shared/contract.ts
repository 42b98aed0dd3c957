/**
 * Names the CDK app shares with the handlers, the local runtime and the tests
 * (shared/pipeline/README.md, "Names shared by code, infra and the local runtime"): handler
 * names, Task state → handler, state names, the Batch workflow's wait for its rows, the completion
 * event, the log fields the alarms read, the metrics and their one namespace.
 * It lives in shared/ because every side reads it and none owns it: infra builds on it, and the
 * handlers import it without importing the CDK app.
 *
 * No aws-cdk-lib import here on purpose: a handler or the local runner can import this file
 * without pulling the CDK into its bundle.
 */

/** Every Lambda handler, `functions/<name>/handler.ts`, export `handler`. */
export const HANDLER_NAMES = [
  'prepare-batch',
  'await-rows',
  'finalize-batch',
  'dispatch-rows',
  'row-submit',
  'row-poll',
  'row-store',
  'row-review',
  'row-complete',
  'row-execution-ended',
  'prepare-answers',
  'finalize-answers',
  'sweep-reviews',
  'write-partial-results',
  'recheck-verdicts',
  'record-writer',
] as const;
export type HandlerName = (typeof HANDLER_NAMES)[number];

/** Template metadata key on each AWS::Lambda::Function naming its handler (definitions.ts reads it). */
export const HANDLER_METADATA_KEY = 'ncm-batch-classifier:handler';

/** Which handler each Task state invokes, per workflow. */
export const TASK_HANDLERS = {
  batch: { Prepare: 'prepare-batch', WaitForRows: 'await-rows', Finalize: 'finalize-batch' },
  row: {
    Submit: 'row-submit',
    Poll: 'row-poll',
    Store: 'row-store',
    Review: 'row-review',
    Complete: 'row-complete',
  },
  /** WaitForAnswers reuses await-rows: a round is tracked like a batch (its own token and shards). */
  answers: {
    PrepareAnswers: 'prepare-answers',
    WaitForAnswers: 'await-rows',
    FinalizeAnswers: 'finalize-answers',
  },
} as const satisfies Record<'batch' | 'row' | 'answers', Record<string, HandlerName>>;

export const BATCH_WORKFLOW_STATES = [
  'Prepare',
  'RouteAfterPrepare',
  'WaitForRows',
  'Finalize',
  'FinalizeAgain',
  'Duplicate',
  'Planned',
  'Done',
] as const;
export const ROW_WORKFLOW_STATES = [
  'Submit',
  'RouteStep',
  'WaitForRun',
  'Poll',
  'Store',
  'Review',
  'Complete',
] as const;
/** The Answers workflow: one answers round per answers file version. */
export const ANSWERS_WORKFLOW_STATES = [
  'PrepareAnswers',
  'RouteAfterPrepareAnswers',
  'WaitForAnswers',
  'FinalizeAnswers',
  'FinalizeAnswersAgain',
  'AnswersSkipped',
  'AnswersDone',
] as const;

/**
 * How long the Batch workflow's WaitForRows waits for the last row before Finalize takes the batch
 * as it stands. Prepare sizes it from the rows to classify at the cap, within these bounds
 * (shared/pipeline/prepare/batch-plan.ts, `waitSecondsFor`), and returns it where the definition's
 * TimeoutSecondsPath reads it (infra/workflows/batch-workflow.ts).
 */
export const BATCH_WAIT = {
  /** Where the seconds are in the workflow's state: Prepare's result is at `$.prepare`. */
  secondsPath: '$.prepare.wait_seconds',
  /** The fixed 72 h every batch waited before its wait was sized: never less. */
  shortestSeconds: 72 * 3600,
  /** What the workflow keeps around the wait for Prepare and Finalize (15 min each, with retries). */
  aroundSeconds: 3 * 3600,
  /** A Standard execution runs at most a year: the wait gets the year less the time around it. */
  longestSeconds: 365 * 24 * 3600 - 3 * 3600,
} as const;

/**
 * The event Finalize puts on the default bus when a batch completes, and FinalizeAnswers when an
 * answers round moved the batch's results forward (detail carries `round_id` then); detail = summary.json.
 */
export const BATCH_COMPLETED_EVENT = {
  source: 'ncm-batch-classifier',
  detailType: 'Batch Completed',
} as const;

/** Powertools service name of every function (`POWERTOOLS_SERVICE_NAME`). */
export const SERVICE_NAME = 'ncm-batch-classifier';

/**
 * Structured log fields the alarms read through CloudWatch Logs metric filters. A handler
 * writes them as top-level keys of one JSON log line (Powertools Logger: `logger.info(msg,
 * { row_status })`), so no metrics library is needed.
 */
export const ALARM_LOG_FIELDS = {
  /** row-complete and row-execution-ended, on the line that records a row's final status. */
  rowStatus: 'row_status',
  /** dispatch-rows: how many expired leases it removed in this invocation (a number; log it when > 0). */
  leasesRecovered: 'leases_recovered',
} as const;

/**
 * The one CloudWatch namespace of the pipeline's metrics: those the alarms' metric filters
 * publish and those the handlers write as embedded metrics, so an operator finds both in one place.
 */
const METRICS_NAMESPACE = 'NcmBatchClassifier';

/** CloudWatch namespace and metric names the metric filters publish. */
export const PIPELINE_METRICS = {
  namespace: METRICS_NAMESPACE,
  rowsEndedInError: 'RowsEndedInError',
  leasesRecovered: 'LeasesRecovered',
} as const;

/**
 * What the service did for the money, written by the handlers as CloudWatch embedded metrics
 * (EMF lines in their logs, Powertools Metrics: functions/pipeline-metrics.ts) and read by the
 * dashboard (infra/dashboard.ts). Every metric has the dimension `service` (SERVICE_NAME); the
 * row counts also `status`, a row's final status. A batch is not a dimension: each batch id would
 * make new custom metrics holding a handful of datapoints, and totals over batches would need a
 * set without it anyway. Its id is a property of each line instead (`batch_id`), for Logs Insights.
 */
export const BUSINESS_METRICS = {
  namespace: METRICS_NAMESPACE,
  /** row-complete, row-execution-ended: a row got its final result (Count; service, status). */
  rowsFinished: 'RowsFinished',
  /** row-complete: the row's `cost_usd`, only when it cost something (None, in USD; service). */
  billedUsd: 'BilledUsd',
  /** row-submit: the service answered 429 to a submission; the row waits in the queue (Count; service). */
  submissionsRateLimited: 'SubmissionsRateLimited',
  /** row-submit: the service refused a submission, a 4xx a retry would not change (Count; service). */
  submissionsRefused: 'SubmissionsRefused',
  /** dispatch-rows, each run: our leases, held when it began plus the rows it started (Count; service). */
  slotsInUse: 'SlotsInUse',
  /** dispatch-rows: the organisation's classifications in progress that are not ours (Count; service). */
  slotsUsedByOthers: 'SlotsUsedByOthers',
  /** dispatch-rows: the cap in force, `concurrency_limit` or the lower override (Count; service). */
  slotCap: 'SlotCap',
  /** finalize-batch: a batch finished, with its totals on the same line (Count; service). */
  batchesFinished: 'BatchesFinished',
  /** finalize-batch: the batch's rows by final status, as in its summary (Count; service, status). */
  batchRows: 'BatchRows',
  /** finalize-batch: the finished batch's `billed_usd` (None, in USD; service). */
  batchBilledUsd: 'BatchBilledUsd',
  /** finalize-batch: the batch's `saved_usd`: reused rows, rows of one product (None, in USD; service). */
  batchSavedUsd: 'BatchSavedUsd',
} as const;

/** The dimensions and the properties (not dimensions) of the lines BUSINESS_METRICS are written on. */
export const BUSINESS_METRIC_FIELDS = {
  /** Dimension on every metric: Powertools' default dimension, valued SERVICE_NAME. */
  service: 'service',
  /** Dimension of RowsFinished and BatchRows: an output status (`resolved`, `error`, …). */
  status: 'status',
  /** Property: the batch (or answers round) the line is about. */
  batchId: 'batch_id',
  /** Property of a refusal: the Problem's name (catalogue name, else the end of its `type`). */
  problem: 'problem',
} as const;
