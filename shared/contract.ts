/**
 * Names the CDK app shares with the handlers, the local runtime and the tests
 * (shared/pipeline/README.md, "Names shared by code, infra and the local runtime"): handler
 * names, Task state → handler, state names, the completion event, the log fields the alarms read.
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
  'AnswersSkipped',
  'AnswersDone',
] as const;

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

/** CloudWatch namespace and metric names the metric filters publish. */
export const PIPELINE_METRICS = {
  namespace: 'NcmBatchClassifier',
  rowsEndedInError: 'RowsEndedInError',
  leasesRecovered: 'LeasesRecovered',
} as const;
