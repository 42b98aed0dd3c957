/**
 * What each Lambda function needs, written once: its handler, its size, the ports its handler
 * is given and how each port reaches AWS. Everything else is read from here:
 *
 *   infra/pipeline-functions.ts ─▶ the function itself (entry, timeout, memory; its description
 *                                  from catalogue-words.ts)
 *   infra/function-reach.ts     ─▶ its environment (environmentOf) and its role's grants
 *   functions/runtime.ts        ─▶ the ports a handler gets (portsFor), read through ENV
 *   test/workflow/harness.ts    ─▶ the same port sets, over in-memory ports (selectPorts)
 *   infra/function-docs.ts      ─▶ the tables in functions/README.md (npm run docs:functions)
 *
 * No aws-cdk-lib import here, nor any SDK client: the handlers' bundles import this file, and
 * the CDK app imports it without pulling Lambda runtime code. Nor any sentence for people: a
 * function's description, why it keeps a grant no test uses and what each variable holds are in
 * catalogue-words.ts, which no handler imports, so that every bundle holds only what runs.
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
  ports: PortUses;
  settings?: readonly Setting[];
};

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
  },
  'await-rows': {
    entry: 'functions/await-rows/handler.ts',
    timeoutSeconds: 30,
    memoryMb: 256,
    // Keeps the task token on the batch (or round) record; wakes at once when all rows are done.
    ports: { batches: ['UpdateItem'], waiters: 'wake' },
  },
  'finalize-batch': {
    entry: 'functions/finalize-batch/handler.ts',
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
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
  },
  'dispatch-rows': {
    entry: 'functions/dispatch-rows/handler.ts',
    // Short on purpose: the rows queue's visibility timeout must outlast it (the pipeline stack checks).
    timeoutSeconds: 60,
    memoryMb: 256,
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
  },
  'row-submit': {
    entry: 'functions/row-submit/handler.ts',
    // Uploads a sheet of up to 10 MB, then POSTs with retries.
    timeoutSeconds: 2 * 60,
    memoryMb: 512,
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
  },
  'row-poll': {
    entry: 'functions/row-poll/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    // Renews the lease; releases it once the run has left in_progress and kicks, so a freed slot
    // is refilled at once.
    ports: { clock: 'system', leases: ['UpdateItem'], service: 'wait', kick: 'invoke' },
  },
  'row-store': {
    entry: 'functions/row-store/handler.ts',
    timeoutSeconds: 2 * 60,
    memoryMb: 512,
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
  },
  'row-complete': {
    entry: 'functions/row-complete/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    ports: COMPLETING_A_ROW,
  },
  'row-execution-ended': {
    entry: 'functions/row-execution-ended/handler.ts',
    timeoutSeconds: 60,
    memoryMb: 256,
    ports: COMPLETING_A_ROW,
  },
  'prepare-answers': {
    entry: 'functions/prepare-answers/handler.ts',
    // Reads the filled review.csv (only pending rows) and its sheets, looks up the answered
    // classifications at the service eight at a time, writes each resumed row.
    timeoutSeconds: 15 * 60,
    memoryMb: 1024,
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
  },
  'record-writer': {
    entry: 'functions/record-writer/handler.ts',
    timeoutSeconds: 30,
    memoryMb: 256,
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
    settings: ['auditLockDays'],
    ports: REVISING_RESULTS,
  },
  'sweep-reviews': {
    entry: 'functions/sweep-reviews/handler.ts',
    // Lists the abandoned classifications once a day, then finalizes each batch they belong to
    // (as finalize-answers does, one batch after another); then looks up again the SIM openings
    // still being verified, and finalizes each batch with rows the registry has since confirmed.
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
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
  },
  'write-partial-results': {
    entry: 'functions/write-partial-results/handler.ts',
    // Lists every row of the batch, as Finalize does.
    timeoutSeconds: 15 * 60,
    memoryMb: 2048,
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
  },
  'recheck-verdicts': {
    entry: 'functions/recheck-verdicts/handler.ts',
    // Reads the whole product cache a page at a time, in legs of 8 minutes.
    timeoutSeconds: 15 * 60,
    memoryMb: 1024,
    // Reads the table in force (reference/; listing it finds the newest) and scans the product
    // cache; writes recheck.csv (in parts) and recheck.json to outbox/rechecks/<table date>/. A leg
    // whose time is spent keeps its unsent bytes and its progress in work/rechecks/, whose Object
    // Created event calls the function again, which reads them back.
    ports: {
      clock: 'system',
      objects: { read: ['reference/*', 'work/*'], write: ['outbox/*', 'work/*'] },
      cache: ['Scan'],
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
