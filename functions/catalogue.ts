/**
 * What each Lambda function needs, written once: its handler, its size, the ports its handler
 * is given and how each port reaches AWS. Everything else is read from here:
 *
 *   infra/pipeline-functions.ts ─▶ the function itself (entry, timeout, memory, description)
 *   infra/function-reach.ts     ─▶ its environment (environmentOf) and its role's grants
 *   functions/runtime.ts        ─▶ the ports a handler gets (portsFor), read through ENV
 *   test/workflow/harness.ts    ─▶ the same port sets, over in-memory ports (selectPorts)
 *   infra/function-docs.ts      ─▶ the tables in functions/README.md (npm run docs:functions)
 *
 * No aws-cdk-lib import here, nor any SDK client: the handlers' bundles import this file, and
 * the CDK app imports it without pulling Lambda runtime code.
 */
import type { HandlerName } from '../shared/contract.js';
import type { BUCKET_PREFIXES, BucketArea } from '../shared/pipeline/core/bucket-layout.js';

/** Every environment variable a handler reads, by what it names. */
export const ENV = {
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  nodeOptions: 'NODE_OPTIONS',
  bucketName: 'BUCKET_NAME',
  batchTable: 'BATCH_TABLE',
  reviewTable: 'REVIEW_TABLE',
  cacheTable: 'CACHE_TABLE',
  leaseTable: 'LEASE_TABLE',
  leaseScope: 'LEASE_SCOPE',
  rowsQueueUrl: 'ROWS_QUEUE_URL',
  rowStateMachineArn: 'ROW_STATE_MACHINE_ARN',
  dispatcherFunctionName: 'DISPATCHER_FUNCTION_NAME',
  partialResultsFunctionName: 'PARTIAL_RESULTS_FUNCTION_NAME',
  eventBusName: 'EVENT_BUS_NAME',
  tcsBaseUrl: 'TCS_BASE_URL',
  tcsApiKeySecretArn: 'TCS_API_KEY_SECRET_ARN',
  capOverride: 'CAP_OVERRIDE',
  batchTimeoutHours: 'BATCH_TIMEOUT_HOURS',
  auditLockDays: 'AUDIT_LOCK_DAYS',
  noticesTopicArn: 'NOTICES_TOPIC_ARN',
  questionReminderDay: 'QUESTION_REMINDER_DAY',
} as const;
export type EnvName = (typeof ENV)[keyof typeof ENV];

/** What each variable holds (the README's table says it). */
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

/** A key prefix of the bucket; a function's object grants are scoped to the ones it works in. */
export type Prefix = `${(typeof BUCKET_PREFIXES)[BucketArea]}*`;

/**
 * How a function uses each port it is given: the keys are the handler's port set (the names of
 * PipelinePorts), the values how far the port may reach. A port missing here is neither built
 * nor granted. Keys are listed in the order the grants are made, which is the order of the
 * statements in the function's policy.
 */
/**
 * The DynamoDB operations a function's code calls on a table, followed from its handler through
 * the use cases to the adapter: its role is granted these and nothing else (a run that needs
 * another is refused locally with AccessDenied; one never used fails the grant usage test).
 */
type TableOperation =
  /** The batch table's send-order index only (Query): the rows of a window in exposure order. */
  | 'QueryInSendOrder'
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem';
export type TableUse = readonly TableOperation[];

export type PortUses = {
  clock?: 'system';
  /** `hand-back`: a 429 comes back at once instead of being waited out (row-submit requeues). */
  service?: 'wait' | 'hand-back';
  /**
   * Keys read (GetObject, and ListBucket so a missing key is a 404, not a 403) and written
   * (PutObject); `streams`: uploads of unknown length go in parts (lib-storage), which an
   * aborted upload cleans up (AbortMultipartUpload).
   */
  objects?: {
    read?: readonly Prefix[];
    write?: readonly Prefix[];
    streams?: true;
    /**
     * Reads and writes whole objects only (GetObject, PutObject), by signed requests without the
     * S3 client (shared/aws/s3-whole-objects.ts): the Row workflow's steps, whose bundles it would
     * be a quarter of. Never with `streams`.
     */
    whole?: true;
    /** Objects written here under S3 Object Lock (s3:PutObjectRetention): audit.csv and its writes' copies. */
    lock?: readonly Prefix[];
  };
  /** `send` also covers a message put back as a fresh copy; `consume`: receive and delete. */
  queue?: readonly ('consume' | 'send')[];
  batches?: TableUse;
  /** The review table and its by-batch index. */
  reviews?: TableUse;
  /** The review table too (shared/aws/dynamo-check-store.ts): the verdicts a person checks. */
  checks?: TableUse;
  /** The review table too (shared/aws/dynamo-sim-watch-store.ts): SIM openings awaiting confirmation. */
  simWatches?: TableUse;
  /** The review table too (shared/aws/dynamo-writer-records.ts): who wrote the files dropped into answers/ and inbox/. */
  writers?: TableUse;
  /**
   * The batch table too (shared/aws/dynamo-audit-log.ts): each batch's audit events. Recording one
   * is BatchWriteItem, or PutItem for an event recorded late (its marker, then the event if new);
   * writing audit.csv reads the log (Query) and settles the late list (GetItem, PutItem,
   * UpdateItem, DeleteItem).
   */
  audit?: TableUse;
  cache?: TableUse;
  leases?: TableUse;
  /** Starts Row workflow executions. */
  workflows?: 'start';
  /** Wakes the Batch and Answers workflows (SendTaskSuccess). */
  waiters?: 'wake';
  events?: 'put';
  /** Publishes notices to the stack's topic (shared/aws/sns-notifier.ts). */
  notifier?: 'publish';
  /** Invokes dispatch-rows. */
  kick?: 'invoke';
  /** Invokes write-partial-results. */
  partials?: 'invoke';
};
export type PortName = keyof PortUses;

/** The variables each port's adapter reads (functions/runtime.ts). */
const PORT_ENVIRONMENT = {
  clock: [],
  service: [ENV.tcsBaseUrl, ENV.tcsApiKeySecretArn],
  objects: [ENV.bucketName],
  queue: [ENV.rowsQueueUrl],
  batches: [ENV.batchTable],
  reviews: [ENV.reviewTable],
  checks: [ENV.reviewTable],
  simWatches: [ENV.reviewTable],
  writers: [ENV.reviewTable],
  audit: [ENV.batchTable],
  cache: [ENV.cacheTable],
  leases: [ENV.leaseTable, ENV.leaseScope],
  workflows: [ENV.rowStateMachineArn],
  waiters: [],
  events: [ENV.eventBusName],
  notifier: [ENV.noticesTopicArn],
  kick: [ENV.dispatcherFunctionName],
  partials: [ENV.partialResultsFunctionName],
} as const satisfies Record<PortName, readonly EnvName[]>;

/** A setting from the CDK context a handler reads beyond its ports, set only when configured. */
export type Setting = 'capOverride' | 'batchTimeoutHours' | 'auditLockDays' | 'questionReminderDay';
const SETTING_ENVIRONMENT = {
  capOverride: ENV.capOverride,
  batchTimeoutHours: ENV.batchTimeoutHours,
  auditLockDays: ENV.auditLockDays,
  questionReminderDay: ENV.questionReminderDay,
} as const satisfies Record<Setting, EnvName>;

export type FunctionDescription = {
  /** The handler, from the repository root; its export is `handler`. */
  entry: string;
  /**
   * Bounds the service client's own retries (shared/tcs/retry.ts): a handler's `maxElapsedMs`
   * must leave room under it.
   */
  timeoutSeconds: number;
  memoryMb: number;
  description: string;
  ports: PortUses;
  settings?: readonly Setting[];
  /**
   * Grants kept although no test run uses them, each with why: a path the tests do not reach
   * needs it. Keyed `<statement Sid> <IAM action>` (`Batches dynamodb:Query`; function-reach.ts names the statements).
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

/** Completing a row: row-complete, and row-execution-ended when the Row workflow died before Complete. */
const COMPLETING_A_ROW = {
  clock: 'system',
  batches: ['GetItem', 'UpdateItem'],
  cache: ['PutItem'],
  leases: ['UpdateItem'],
  queue: ['send'], // a requeue (429, new attempt) goes back with a delay
  kick: 'invoke',
  waiters: 'wake', // the last row wakes its batch or round
  partials: 'invoke', // at most every partial_every_minutes while rows finish
  audit: ['BatchWriteItem', 'PutItem'], // the row's verdict in audit.csv (resolved, to_check, failed, abandoned, error)
} as const satisfies PortUses;

/**
 * Moving a batch's results forward: finalize-answers after a round, sweep-reviews for each batch
 * with rows the service abandoned. Looks again at the rows still pending at the service, keeps
 * results.csv and summary.json as revisions (copies within the outbox), writes the new ones and
 * review.csv, closes settled review items, announces the batch again.
 */
const REVISING_RESULTS = {
  clock: 'system',
  // `streams`: results.csv and .xlsx go up in parts across legs, review.xlsx as it is written;
  // `work/`: the new results.csv written aside, and what one leg hands the next.
  // reference/: the NCM table in force, which the rows' codes are checked against.
  // lock: audit.csv's new version and the write's own copy, under Object Lock.
  objects: {
    read: ['outbox/*', 'work/*', 'reference/*'],
    write: ['outbox/*', 'work/*'],
    streams: true,
    lock: ['outbox/*'],
  },
  batches: ['GetItem', 'Query', 'UpdateItem'],
  // BatchGetItem: the items of other batches' classifications that rows of this batch joined.
  reviews: ['Query', 'UpdateItem', 'BatchGetItem'],
  // The verdicts still to check: to-check.csv and review.xlsx's sheet of them (Query); a verdict a
  // row took elsewhere (answered in the web app, or joined from another batch) under its batch's
  // check_below gets its check item, written once (PutItem).
  checks: ['Query', 'PutItem'],
  // audit.csv: the events since its last write read a page at a time (Query); the verdicts of the
  // rows it settles recorded (BatchWriteItem).
  audit: ['Query', 'BatchWriteItem', 'PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
  events: 'put',
  service: 'wait',
} as const satisfies PortUses;

export const FUNCTION_CATALOGUE = {
  'prepare-batch': {
    entry: 'functions/prepare-batch/handler.ts',
    // Reads and validates the whole spreadsheet in memory and writes every row.
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
    description: 'Batch workflow Prepare: read and validate the input, write rows, queue them',
    // Reads batch.json, the file and the sheets' sizes (List* makes a missing sheet a 404, not a
    // 403); writes the batch and its rows; reuses cached verdicts; queues the first window of the
    // dispatchable rows and lists the batch's backlog; kicks. The cap (GET /balance, and a lower
    // one configured) sizes the window and the wait. A plan-only batch writes plan.json and plan.csv
    // to its outbox instead.
    ports: {
      clock: 'system',
      objects: { read: ['inbox/*', 'reference/*'], write: ['outbox/*'], streams: true },
      batches: ['GetItem', 'PutItem', 'UpdateItem', 'Query', 'BatchWriteItem', 'QueryInSendOrder'],
      // A product still waiting for answers from an earlier batch: its rows join that
      // classification (one conditional UpdateItem per product, a PutItem per joined row).
      reviews: ['UpdateItem', 'PutItem'],
      // A reused verdict under the batch's check_below gets its check item, written once.
      checks: ['PutItem'],
      // A reused verdict whose SIM openings are still being verified gets its watch, written once.
      simWatches: ['PutItem'],
      // Who sent the batch: the records of who wrote the file, as far as they are there yet.
      writers: ['GetItem'],
      cache: ['BatchGetItem'],
      queue: ['send'],
      kick: 'invoke',
      service: 'wait',
    },
    settings: ['capOverride', 'batchTimeoutHours'],
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
    entry: 'functions/await-rows/handler.ts',
    timeoutSeconds: 30,
    memoryMb: 256,
    description:
      'Batch WaitForRows and Answers WaitForAnswers: keep the task token, wake at once if already done',
    // Keeps the task token on the batch (or round) record; wakes at once when all rows are done.
    ports: { batches: ['UpdateItem'], waiters: 'wake' },
    kept: {
      'Waiters states:SendTaskSuccess':
        'Every row finished before the task token was stored: await-rows wakes the workflow itself.',
    },
  },
  'finalize-batch': {
    entry: 'functions/finalize-batch/handler.ts',
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
    description:
      'Batch workflow Finalize: results.csv and .xlsx, review.csv and .xlsx, summary.json, reused PDFs, event',
    // Writes the outbox (results files in parts across its legs, review.xlsx as it is written)
    // and copies reused verdict PDFs from earlier batches' outboxes; keeps in `work/` what one leg
    // hands the next (the tally, bytes not yet a part).
    settings: ['auditLockDays'],
    ports: {
      clock: 'system',
      // lock: audit.csv and the write's own copy, under Object Lock.
      objects: {
        read: ['outbox/*', 'work/*', 'reference/*'],
        write: ['outbox/*', 'work/*'],
        streams: true,
        lock: ['outbox/*'],
      },
      batches: ['GetItem', 'UpdateItem', 'Query'],
      // BatchGetItem: the items of other batches' classifications that rows of this batch joined.
      reviews: ['Query', 'BatchGetItem'],
      // The verdicts still to check: to-check.csv and review.xlsx's sheet of them.
      checks: ['Query'],
      // audit.csv: the audit log read a page at a time (Query); the rows the settling pass ends
      // record their verdict (BatchWriteItem).
      audit: ['Query', 'BatchWriteItem', 'PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
      events: 'put',
      // The notices: it finished, questions wait, verdicts to check (notifications.log, then the topic).
      notifier: 'publish',
      // Who sent the batch, when S3's record of the drop came after Prepare.
      writers: ['GetItem'],
    },
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
    entry: 'functions/dispatch-rows/handler.ts',
    // Short on purpose: the rows queue's visibility timeout must outlast it (the pipeline stack checks).
    timeoutSeconds: 60,
    memoryMb: 256,
    description: 'Fill free slot leases from the rows queue, one Row workflow per row',
    // Balance, slots, receive, lease, StartExecution; a message it cannot start now goes back as
    // a fresh copy (not counted toward the DLQ). Records a batch-level stop (401/403) and finishes
    // a stopped batch's rows as not_submitted, waking the batch if it was the last. Tops each
    // batch's window of the queue up: the backlogs item, the window's rows a page at a time
    // (Query), the hold and the window's ends (UpdateItem).
    ports: {
      clock: 'system',
      batches: ['GetItem', 'UpdateItem', 'Query', 'QueryInSendOrder'],
      leases: ['GetItem', 'PutItem', 'UpdateItem'],
      queue: ['consume', 'send'],
      service: 'wait',
      workflows: 'start',
      waiters: 'wake',
    },
    settings: ['capOverride'],
    kept: {
      'Batches dynamodb:Query':
        'A batch sent in the file\'s order ("order": "file") has its window read in row order; the local runs send in exposure order.',
      'Waiters states:SendTaskSuccess': "A stopped batch's last rows end here, and the batch is woken.",
      'Queue sqs:SendMessage':
        'A message it cannot start now (no slot, a lost race, a stop) goes back as a fresh copy.',
    },
  },
  'row-submit': {
    entry: 'functions/row-submit/handler.ts',
    // Uploads a sheet of up to 10 MB, then POSTs with retries.
    timeoutSeconds: 2 * 60,
    memoryMb: 512,
    description: 'Row workflow Submit: upload the sheet, create the classification',
    ports: {
      clock: 'system',
      // The row's technical sheet (inbox/); a row resumed by an answers round may carry a new
      // sheet where the user put it (answers/<batch>/…); work/<batch>/uploads/<row>-a<attempt>.json
      // keeps the sheet's file_url, so every retry of an attempt sends the same body under the
      // same Idempotency-Key (a new upload = a new URL).
      objects: { read: ['inbox/*', 'answers/*', 'work/*'], write: ['work/*'], whole: true },
      batches: ['GetItem', 'UpdateItem'],
      // The submission (or a round's answers posted) in audit.csv.
      audit: ['BatchWriteItem', 'PutItem'],
      service: 'hand-back',
    },
    kept: { ...RECORDS_LATE_EVENTS },
  },
  'row-poll': {
    entry: 'functions/row-poll/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    description: 'Row workflow Poll: read the classification, renew the lease, decide the next step',
    // Renews the lease; releases it once the run has left in_progress and kicks, so a freed slot
    // is refilled at once.
    ports: { clock: 'system', leases: ['UpdateItem'], service: 'wait', kick: 'invoke' },
  },
  'row-store': {
    entry: 'functions/row-store/handler.ts',
    timeoutSeconds: 2 * 60,
    memoryMb: 512,
    description: 'Row workflow Store: resolved verdict to the row and its PDF to the outbox',
    // outbox/<batch>/pdfs/<verdict>, read from the service and written whole.
    ports: {
      clock: 'system',
      objects: { write: ['outbox/*'], whole: true },
      batches: ['GetItem'],
      // A verdict under the batch's check_below gets its check item, written once.
      checks: ['PutItem'],
      // A verdict whose SIM openings are still being verified gets its watch, written once.
      simWatches: ['PutItem'],
      service: 'wait',
    },
  },
  'row-review': {
    entry: 'functions/row-review/handler.ts',
    timeoutSeconds: 30,
    memoryMb: 256,
    description: 'Row workflow Review: pending_data questions to the review table',
    // Reads the classification (its questions and provisional candidates) from the service.
    // Keeps the product's pending classification in the product cache: a later batch of the same
    // product joins it instead of asking again.
    ports: {
      clock: 'system',
      batches: ['GetItem'],
      reviews: ['GetItem', 'PutItem'],
      cache: ['PutItem'],
      // The questions asked, in audit.csv.
      audit: ['BatchWriteItem', 'PutItem'],
      service: 'wait',
    },
    kept: { ...RECORDS_LATE_EVENTS },
  },
  'row-complete': {
    entry: 'functions/row-complete/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    description: 'Row workflow Complete: final row result or requeue, release the lease, kick',
    ports: COMPLETING_A_ROW,
    kept: {
      ...RECORDS_LATE_EVENTS,
      'Kick lambda:InvokeFunction':
        'Complete released the lease itself (Poll had not) or requeued: the freed slot is refilled at once.',
      'Partials lambda:InvokeFunction':
        'At most every partial_every_minutes while rows finish (a batch option).',
    },
  },
  'row-execution-ended': {
    entry: 'functions/row-execution-ended/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    description: 'Row workflow FAILED/TIMED_OUT/ABORTED: complete the row as error, release the lease',
    ports: COMPLETING_A_ROW,
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
        "Complete's port set, shared with row-complete: an ended execution completes its row as an error, which never requeues.",
    },
  },
  'prepare-answers': {
    entry: 'functions/prepare-answers/handler.ts',
    // Reads the filled review.csv (only pending rows) and its sheets, looks up the answered
    // classifications at the service eight at a time, writes each resumed row.
    timeoutSeconds: 15 * 60,
    memoryMb: 1024,
    description:
      'Answers workflow PrepareAnswers: read the answers, report, resume answered rows, queue them',
    // Reads the filled review file and the sheets beside it (List*: a missing sheet is a 404, not
    // a 403); writes answers-report.csv to the batch's outbox; marks review items answered; puts
    // resumed rows back to `queued` with their round and queues them; kicks. Looks up the
    // answered classifications at the service (nothing is posted here).
    ports: {
      clock: 'system',
      // reference/: the NCM table in force, which a decided NCM typed is checked against.
      objects: { read: ['answers/*', 'reference/*'], write: ['outbox/*'] },
      batches: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
      reviews: ['Query', 'UpdateItem', 'BatchGetItem'],
      // Decisions on verdicts to check: the batch's check items read, each decided once
      // (conditional); the product cache's verdict gets the approved columns; a `decided` event each.
      checks: ['Query', 'UpdateItem', 'GetItem'],
      cache: ['BatchGetItem', 'PutItem'],
      audit: ['BatchWriteItem', 'PutItem'],
      // Who wrote the answers file: the console's or S3's record of it, by its ETag and version.
      writers: ['GetItem'],
      queue: ['send'],
      kick: 'invoke',
      service: 'wait',
    },
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
    entry: 'functions/record-writer/handler.ts',
    timeoutSeconds: 30,
    memoryMb: 256,
    description: "Record who wrote a file dropped into answers/ or inbox/, from S3's record of the write",
    // S3's record of a write (CloudTrail's data event through EventBridge; the local S3's gate
    // here) names the principal; kept in the review table under the object's version and ETag.
    ports: { writers: ['PutItem'] },
  },
  'finalize-answers': {
    entry: 'functions/finalize-answers/handler.ts',
    // Rewrites results.csv and .xlsx and summary.json as finalize-batch writes them, a page of
    // rows at a time, in legs the Answers workflow calls one after another.
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
    description:
      'Answers workflow FinalizeAnswers: revised results.csv and .xlsx, summary.json, review.csv and .xlsx, event',
    settings: ['auditLockDays'],
    ports: REVISING_RESULTS,
    kept: {
      ...WRITES_LATE_EVENTS,
      'Checks dynamodb:PutItem':
        "A row answered in the web app, or a row of another batch that joined a classification, resolves under its batch's check_below: its check item is written.",
      'ObjectsList s3:ListBucket':
        'A batch that never wrote partial files: the head of summary.partial.json is a 404, not a 403.',
      'ObjectsWriteOutbox s3:AbortMultipartUpload':
        'A review.xlsx of 5 MiB or more goes up in parts as it is written, and a failed one is aborted.',
      'ObjectsWriteWork s3:AbortMultipartUpload':
        'Granted with the uploads in parts; an upload in parts to work/ is never aborted: the bucket’s rule ends one left open.',
      'Reviews dynamodb:BatchGetItem':
        "A batch whose rows joined an earlier batch's classification: its items are read by key.",
    },
  },
  'sweep-reviews': {
    entry: 'functions/sweep-reviews/handler.ts',
    // Lists the abandoned classifications once a day, then finalizes each batch they belong to
    // (as finalize-answers does, one batch after another); then looks up again the SIM openings
    // still being verified, and finalizes each batch with rows the registry has since confirmed.
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
    description:
      'Daily: batches with rows abandoned after 30 days unanswered, or whose SIM openings were confirmed since, get their results moved forward',
    settings: ['auditLockDays', 'questionReminderDay'],
    ports: {
      ...REVISING_RESULTS,
      // Scans the review table for the items of abandoned classifications; marks the items a
      // reminder named (UpdateItem).
      reviews: ['Query', 'UpdateItem', 'BatchGetItem', 'Scan'],
      // The reminder on the reminder day: questions still waiting, and the days left.
      notifier: 'publish',
      // The SIM openings still being verified: the open watches (a Scan), each settled once.
      simWatches: ['Scan', 'UpdateItem'],
      // A row confirmed with several openings under check_below gets its check item, written once,
      // or the item it has already (a low confidence) is offered the openings (UpdateItem).
      checks: ['Query', 'PutItem', 'UpdateItem'],
      // The sim_confirmed event of each row moved forward; audit.csv's events read (Query).
      audit: ['Query', 'BatchWriteItem', 'PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
      // The product cache's verdict of a confirmed classification follows.
      cache: ['BatchGetItem', 'PutItem'],
    },
    kept: {
      ...WRITES_LATE_EVENTS,
      'ObjectsList s3:ListBucket':
        'A batch that never wrote partial files: the head of summary.partial.json is a 404, not a 403.',
      'ObjectsWriteOutbox s3:AbortMultipartUpload':
        'A review.xlsx of 5 MiB or more goes up in parts as it is written, and a failed one is aborted.',
      'ObjectsWriteWork s3:AbortMultipartUpload':
        'Granted with the uploads in parts; an upload in parts to work/ is never aborted: the bucket’s rule ends one left open.',
      'Reviews dynamodb:BatchGetItem':
        "A batch whose rows joined an earlier batch's classification: its items are read by key.",
    },
  },
  'write-partial-results': {
    entry: 'functions/write-partial-results/handler.ts',
    // Lists every row of the batch, as Finalize does.
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
    description:
      'While a batch runs: results.partial.csv and .xlsx, summary.partial.json, every row as it stands',
    // Reads the batch and its rows; writes the partial files to the batch's outbox in parts, in
    // legs: a leg whose time is spent keeps its tally and unsent bytes in work/ and drops a
    // request object under requests/ that calls the function again, which reads it back.
    ports: {
      clock: 'system',
      objects: {
        read: ['requests/*', 'work/*', 'reference/*'],
        write: ['outbox/*', 'work/*', 'requests/*'],
        streams: true,
      },
      batches: ['GetItem', 'Query'],
    },
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
    entry: 'functions/recheck-verdicts/handler.ts',
    // Reads the whole product cache a page at a time, in legs of 8 minutes.
    timeoutSeconds: 15 * 60,
    memoryMb: 1024,
    description:
      'A new NCM table in reference/ncm/: list the earlier verdicts whose code is no longer in force',
    // Reads the table in force (reference/; listing it finds the newest) and scans the product
    // cache; writes recheck.csv (in parts) and recheck.json to outbox/rechecks/<table date>/. A leg
    // whose time is spent keeps its unsent bytes and its progress in work/rechecks/, whose Object
    // Created event calls the function again, which reads them back.
    ports: {
      clock: 'system',
      objects: { read: ['reference/*', 'work/*'], write: ['outbox/*', 'work/*'] },
      cache: ['Scan'],
    },
    kept: {
      'ObjectsWriteWork s3:PutObject':
        'A product cache too large for one leg of 8 minutes hands the next its progress and unsent bytes (no test cache is that large on the local runtime; the legs are tested on the core).',
    },
  },
} as const satisfies Record<HandlerName, FunctionDescription>;

type Catalogue = typeof FUNCTION_CATALOGUE;

/** The ports a function's handler is given. */
export type PortNamesOf<N extends HandlerName> = keyof Catalogue[N]['ports'] & PortName;

const portNamesOf = <N extends HandlerName>(name: N): PortNamesOf<N>[] =>
  Object.keys(FUNCTION_CATALOGUE[name].ports) as PortNamesOf<N>[];

/** The ports of `name`, taken from a complete set (the harness's in-memory ports). */
export const selectPorts = <N extends HandlerName, All extends Record<PortName, unknown>>(
  name: N,
  all: All,
): Pick<All, PortNamesOf<N>> =>
  Object.fromEntries(portNamesOf(name).map((port) => [port, all[port]])) as Pick<All, PortNamesOf<N>>;

export const describeFunction = (name: HandlerName): FunctionDescription => FUNCTION_CATALOGUE[name];

/**
 * The variables the CDK app sets on a function, in the order it sets them: its ports' (in the
 * catalogue's order), then its settings that are configured. POWERTOOLS_SERVICE_NAME and
 * NODE_OPTIONS come on top, on every function.
 */
export const environmentOf = (
  name: HandlerName,
  configured: Readonly<Record<Setting, boolean>>,
): EnvName[] => {
  const { ports, settings = [] } = describeFunction(name);
  // Once each: ports kept in one table (reviews, checks) read the same variable.
  return [
    ...new Set([
      ...(Object.keys(ports) as PortName[]).flatMap((port): readonly EnvName[] => PORT_ENVIRONMENT[port]),
      ...settings.filter((setting) => configured[setting]).map((setting) => SETTING_ENVIRONMENT[setting]),
    ]),
  ];
};
