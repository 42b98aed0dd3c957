/**
 * What functions/catalogue.ts says in words, for people: each pipeline function's description (the
 * Lambda console shows it), why each grant no test run uses is kept, and what each environment
 * variable holds. The CDK app, the docs generator and the test of unused grants read it; no handler
 * does, so no bundle carries these sentences. Kept beside the catalogue, keyed the same way: a
 * function without its words fails the type check.
 */
import type { HandlerName } from '../shared/contract.js';
import type { EnvName } from './catalogue.js';

/** What each variable holds (the README's list says it). */
export const ENV_MEANING: Record<EnvName, string> = {
  POWERTOOLS_SERVICE_NAME: 'the service name on every log line',
  NODE_OPTIONS: '`--enable-source-maps`: stack traces point at the TypeScript source',
  BUCKET_NAME: 'input and output bucket',
  BATCH_TABLE: 'batch table',
  REVIEW_TABLE: 'review table',
  CACHE_TABLE: 'product cache',
  LEASE_TABLE: 'slot leases',
  LEASE_SCOPE: 'the cap scope (`slots#<scope>` item), context `leaseScope` (default `org`)',
  ROWS_QUEUE_URL: 'rows queue',
  ROW_STATE_MACHINE_ARN: 'the Row workflow the dispatcher starts (its ARN, built from its fixed name)',
  DISPATCHER_FUNCTION_NAME: 'kick target (dispatch-rows)',
  PARTIAL_RESULTS_FUNCTION_NAME: 'asked for partial results (write-partial-results)',
  EVENT_BUS_NAME: 'the default bus, where `Batch Completed` goes',
  TCS_BASE_URL: "the service's base URL",
  TCS_API_KEY_SECRET_ARN: "the key's secret (its ARN, never the key): read at cold start",
  CAP_OVERRIDE: "a lower cap than the organisation's `concurrency_limit`, only with context `capOverride`",
  BATCH_TIMEOUT_HOURS:
    'the most a batch waits for its rows, a ceiling on the wait Prepare sizes; only with context `batchTimeoutHours`',
  AUDIT_LOCK_DAYS:
    'days each version of audit.csv stays under S3 Object Lock (governance mode), context `auditLockDays` (default 1826)',
  NOTICES_TOPIC_ARN: 'the topic of notices (a batch finished, questions wait, verdicts to check)',
  QUESTION_REMINDER_DAY:
    "the day after a row's questions were asked that a reminder goes out if they still wait, context `questionReminderDay` (default 21)",
};

/** A function in words: what it does, and why it keeps the grants no test run uses. */
type FunctionWords = {
  /** What the function does, as the Lambda console shows it. */
  description: string;
  /**
   * Grants kept although no test run uses them, each with why: a path the tests do not reach
   * needs it. Keyed `<statement Sid> <IAM action>` (`Batches dynamodb:Query`; infra/function-reach.ts
   * names the statements).
   */
  kept?: Readonly<Record<string, string>>;
};

/**
 * Why a function that records audit events keeps PutItem on them though no test run records one
 * late: events are recorded as they happen, and a late one needs a step run long after its time.
 */
const RECORDS_LATE_EVENTS = {
  'Audit dynamodb:PutItem':
    'An event recorded more than 90 minutes after its time (a row redriven from its dead-letter queue) goes on the late list: its marker, then the event if new (shared/aws/dynamo-audit-log.ts, tested on dynalite).',
} as const;

/** Why a function that writes audit.csv keeps what settling the late list takes, which no test run has to settle. */
const WRITES_LATE_EVENTS = {
  ...RECORDS_LATE_EVENTS,
  'Audit dynamodb:GetItem':
    'A late event waiting for audit.csv: its marker is checked against the event it names (shared/aws/dynamo-audit-log.ts, pendingLate).',
  'Audit dynamodb:UpdateItem': 'A late event written to audit.csv is marked written (settleLate).',
  'Audit dynamodb:DeleteItem':
    'A late event written, or a second marker of one, leaves the late list (settleLate).',
} as const;

/** Why a function that moves a batch's results forward (an answers round, the daily sweep) keeps these grants. */
const MOVES_RESULTS_FORWARD = {
  'ObjectsList s3:ListBucket':
    'A batch that never wrote partial files: the head of summary.partial.json is a 404, not a 403.',
  'ObjectsWriteOutbox s3:AbortMultipartUpload':
    'A review.xlsx of 5 MiB or more goes up in parts as it is written, and a failed one is aborted.',
  'ObjectsWriteWork s3:AbortMultipartUpload':
    'Granted with the uploads in parts; an upload in parts to work/ is never aborted: the bucket’s rule ends one left open.',
  'Reviews dynamodb:BatchGetItem':
    "A batch whose rows joined an earlier batch's classification: its items are read by key.",
} as const;

/** Each pipeline function in words, by its handler's name (functions/catalogue.ts describes what it runs on). */
const FUNCTION_WORDS = {
  'prepare-batch': {
    description: 'Batch workflow Prepare: read and validate the input, write rows, queue them',
    kept: {
      'Batches dynamodb:GetItem':
        'A duplicate delivery of the same S3 event finds the batch another Prepare already created.',
      'Batches dynamodb:Query': 'A retried Prepare finds the rows it already wrote.',
      'BatchesInSendOrder dynamodb:Query':
        'A retried first leg of Prepare in exposure order sends its window again, read in send order.',
      'ObjectsWriteOutbox s3:AbortMultipartUpload': 'A plan.csv of 5 MiB or more goes up in parts.',
    },
  },
  'await-rows': {
    description:
      'Batch WaitForRows and Answers WaitForAnswers: keep the task token, wake at once if already done',
    kept: {
      'Waiters states:SendTaskSuccess':
        'Every row finished before the task token was stored: await-rows wakes the workflow itself.',
    },
  },
  'finalize-batch': {
    description:
      'Batch workflow Finalize: results.csv and .xlsx, review.csv and .xlsx, summary.json, reused PDFs, event',
    kept: {
      ...WRITES_LATE_EVENTS,
      'Writers dynamodb:GetItem':
        "A batch whose sender S3's record (CloudTrail's) names only after Prepare began: locally the record comes first, or the CLI names the sender.",
      'ObjectsList s3:ListBucket':
        'A batch that never wrote partial files: the head of summary.partial.json is a 404, not a 403.',
      'ObjectsWriteOutbox s3:AbortMultipartUpload':
        'A review.xlsx of 5 MiB or more goes up in parts as it is written, and a failed one is aborted.',
      'ObjectsWriteWork s3:PutObject':
        'A batch whose Finalize takes more than one leg of 8 minutes hands the next its tally and unsent bytes (the benchmark at 400,000 rows; tests run legs on the pure core).',
      'ObjectsWriteWork s3:AbortMultipartUpload':
        'Granted with the outbox’s uploads in parts; nothing Finalize keeps in work/ goes up in parts.',
      'Audit dynamodb:BatchWriteItem':
        'Rows still working when the wait for them timed out end at Finalize and record their verdict; the local runs end every row before Finalize (the pure core tests that path).',
    },
  },
  'dispatch-rows': {
    description: 'Fill free slot leases from the rows queue, one Row workflow per row',
    kept: {
      'Batches dynamodb:Query':
        'A batch sent in the file\'s order ("order": "file") has its window read in row order; the local runs send in exposure order.',
      'Waiters states:SendTaskSuccess': "A stopped batch's last rows end here, and the batch is woken.",
      'Queue sqs:SendMessage':
        'A message it cannot start now (no slot, a lost race, a stop) goes back as a fresh copy.',
    },
  },
  'row-submit': {
    description: 'Row workflow Submit: upload the sheet, create the classification',
    kept: { ...RECORDS_LATE_EVENTS },
  },
  'row-poll': {
    description: 'Row workflow Poll: read the classification, renew the lease, decide the next step',
  },
  'row-store': {
    description: 'Row workflow Store: resolved verdict to the row and its PDF to the outbox',
  },
  'row-review': {
    description: 'Row workflow Review: pending_data questions to the review table',
    kept: { ...RECORDS_LATE_EVENTS },
  },
  'row-complete': {
    description: 'Row workflow Complete: final row result or requeue, release the lease, kick',
    kept: {
      ...RECORDS_LATE_EVENTS,
      'Kick lambda:InvokeFunction':
        'Complete released the lease itself (Poll had not) or requeued: the freed slot is refilled at once.',
      'Partials lambda:InvokeFunction':
        'At most every partial_every_minutes while rows finish (a batch option).',
    },
  },
  'row-execution-ended': {
    description:
      'Row workflow FAILED/TIMED_OUT/ABORTED: follow its classification in a new dispatch, or complete the row as error; release the lease',
    kept: {
      ...RECORDS_LATE_EVENTS,
      'Cache dynamodb:PutItem':
        'An execution that died after Store recorded the resolved verdict, before Complete: this completion caches it.',
      'Waiters states:SendTaskSuccess': 'The row whose execution died was the last of its batch or round.',
      'Kick lambda:InvokeFunction':
        'The lease the dead execution held is released: the freed slot is refilled at once.',
      'Partials lambda:InvokeFunction':
        'The row changed to error while its batch runs: partial results may be due.',
      'Queue sqs:SendMessage':
        'An execution that ended after its classification was created (timed out, failed outside a Catch) sends its row back to follow it: no test run ends one that way.',
    },
  },
  'prepare-answers': {
    description:
      'Answers workflow PrepareAnswers: read the answers, report, resume answered rows, queue them',
    kept: {
      ...RECORDS_LATE_EVENTS,
      'ObjectsList s3:ListBucket':
        'A sheet the answers file names that is not beside it is reported on its row (a 404), not a failed round (a 403).',
      'Batches dynamodb:Query': 'A retried PrepareAnswers finds the rows it already resumed.',
      'Checks dynamodb:GetItem':
        'Another round decided a verdict to check between this round reading the items and deciding it: the item is read again to say who decided it.',
      'Reviews dynamodb:BatchGetItem':
        "Answers for a batch whose rows joined an earlier batch's classification: its items are read by key.",
    },
  },
  'record-writer': {
    description: "Record who wrote a file dropped into answers/ or inbox/, from S3's record of the write",
  },
  'finalize-answers': {
    description:
      'Answers workflow FinalizeAnswers: revised results.csv and .xlsx, summary.json, review.csv and .xlsx, event',
    kept: {
      ...WRITES_LATE_EVENTS,
      'Checks dynamodb:PutItem':
        "A row answered in the web app, or a row of another batch that joined a classification, resolves under its batch's check_below: its check item is written.",
      ...MOVES_RESULTS_FORWARD,
    },
  },
  'sweep-reviews': {
    description:
      'Daily: batches with rows abandoned after 30 days unanswered, or whose SIM openings were confirmed since, get their results moved forward',
    kept: {
      ...WRITES_LATE_EVENTS,
      ...MOVES_RESULTS_FORWARD,
    },
  },
  'write-partial-results': {
    description:
      'While a batch runs: results.partial.csv and .xlsx, summary.partial.json, every row as it stands',
    kept: {
      'ObjectsList s3:ListBucket':
        'A request object a leg dropped that has expired since reads as missing (404), not forbidden.',
      'ObjectsWriteOutbox s3:AbortMultipartUpload':
        'Granted with the uploads in parts; one left open by a failed leg is ended by the bucket’s rule.',
      'ObjectsWriteWork s3:AbortMultipartUpload':
        'Granted with the uploads in parts; nothing it keeps in work/ goes up in parts.',
      'ObjectsWriteRequests s3:PutObject':
        'Partial results that take more than one leg of 8 minutes drop a request object for the next (no test batch is that large on the local runtime; the legs are tested on the core).',
      'ObjectsWriteRequests s3:AbortMultipartUpload':
        'Granted with the uploads in parts; a request object is a few hundred bytes, put whole.',
    },
  },
  'recheck-verdicts': {
    description:
      'A new NCM table in reference/ncm/: list the earlier verdicts whose code is no longer in force',
    kept: {
      'ObjectsWriteWork s3:PutObject':
        'A product cache too large for one leg of 8 minutes hands the next its progress and unsent bytes (no test cache is that large on the local runtime; the legs are tested on the core).',
    },
  },
} as const satisfies Record<HandlerName, FunctionWords>;

/** Takes a pipeline function's name and gives its words: its description and why it keeps each unused grant. */
export const functionWords = (name: HandlerName): FunctionWords => FUNCTION_WORDS[name];
