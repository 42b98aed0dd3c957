/**
 * The small ports the use cases depend on: each says what the pipeline needs of a store or a
 * service, never how it is done. Lambda handlers wire them to AWS (`shared/aws/`), the local runtime
 * to its loopback stand-ins, unit tests to the in-memory versions in `test/helpers/memory-ports.ts`.
 * A use case never imports an SDK, so it runs the same in all three (docs/architecture.md, property 8).
 */
import type { ByteSource } from '../../spreadsheet/byte-source.js';
import type { TcsClient } from '../../tcs/client.js';
import type { AuditEvent, LateEvent, LoggedEvent } from './audit-records.js';
import type { CheckDecision, CheckItem } from './check-records.js';
import type { Notice } from './notices.js';
import type { WriterRecord, WrittenObject } from './people.js';
import type {
  AuditMove,
  BatchRecord,
  BatchStop,
  CachedVerdict,
  KickReason,
  PendingClassification,
  ReviewItem,
  RowExecutionInput,
  RowMessage,
  RowRecord,
  SendOrderRow,
} from './records.js';
import type { FinishedRows } from './row-counts.js';
import type { RowMove } from './row-life.js';
import type { OutputStatus } from './row-statuses.js';
import type { SimWatch } from './sim-watch.js';
import type { SlotLeases } from './slot-leases.js';

/**
 * Time as the core reads it: the current time, and how long a span of production time lasts here.
 * Thresholds and delays are written in production time (5 min of run, 5 s before a message is
 * offered again); the core sizes every one of them through `span` before comparing or choosing,
 * and never learns how time runs where it is. On AWS a span is itself; the local runtime, which
 * runs the service and the workflows' waits faster, hands its functions a clock whose spans are
 * shorter in the same proportion.
 */
export type Clock = {
  now(): Date;
  /** The real milliseconds that `productionMs` of production time take here. */
  span(productionMs: number): number;
};

/** The calls of the service the pipeline makes. */
export type ClassificationService = Pick<
  TcsClient,
  | 'createClassification'
  | 'answerQuestions'
  | 'getClassification'
  | 'listClassifications'
  | 'downloadVerdictPdf'
  | 'uploadSheet'
  | 'getBalance'
  | 'listCountries'
  | 'getSimOpenings'
  | 'getTariffs'
>;

/** What the bucket says of one object without reading it: its size, ETag, version and metadata. */
export type ObjectHead = {
  size: number;
  etag: string;
  versionId: string | null;
  /**
   * Set on an object that stands for a file its uploader did not copy: a link (symlink) to a file
   * outside the folder being uploaded, which is not followed (the local runtime's upload,
   * local/runtime/bucket.ts). A reader takes the object for that refusal, never for the file.
   */
  notFollowed?: 'link_outside_folder';
  /** The object's user metadata (`x-amz-meta-…`), names in lower case; absent when it has none. */
  metadata?: Readonly<Record<string, string>>;
};

/**
 * The user metadata naming who wrote an answers file into `answers/<batch-id>/` (the console's
 * signed-in person), URI-encoded: S3 metadata is ASCII. PrepareAnswers takes it as who answered.
 */
export const ANSWERED_BY_METADATA = 'answered-by';

/**
 * The user metadata (`x-amz-meta-…`) that marks an object standing for a link not followed, and
 * its value: how an uploader tells the bucket's readers (`ObjectHead.notFollowed`).
 */
export const NOT_FOLLOWED_METADATA = {
  name: 'not-followed',
  linkOutsideFolder: 'link-outside-folder',
} as const;

/** A page of batches; `next` is null on the last page. */
type BatchPage = { batches: BatchRecord[]; next: string | null };

/** The object version a put made: its ETag without quotes, and its version where the bucket keeps versions. */
export type PutObjectVersion = { etag: string; versionId: string | null };

/**
 * The bucket: reads and writes objects by key (`inbox/` input files, sheets and batch.json,
 * `outbox/` results, `work/` what a leg hands on), including uploads in parts that outlive one call.
 */
export type ObjectStore = {
  /** Null when there is no such object. */
  head(key: string): Promise<ObjectHead | null>;
  /** Null when there is no such object. */
  getBytes(key: string): Promise<Uint8Array | null>;
  /** First `length` bytes, to sniff a file's type without reading it all; null when absent. */
  getPrefix(key: string, length: number): Promise<Uint8Array | null>;
  /** The object to read by ranges, without holding it whole (an input file); null when absent. */
  source(key: string): Promise<ByteSource | null>;
  /**
   * `metadata`: user metadata (`x-amz-meta-…`), ASCII values (URI-encode others). Gives the ETag
   * (quotes removed) and the version S3 gave the object (null where the bucket keeps none).
   */
  put(
    key: string,
    body: Uint8Array | string | NodeJS.ReadableStream,
    contentType: string,
    metadata?: Readonly<Record<string, string>>,
  ): Promise<PutObjectVersion>;
  copy(fromKey: string, toKey: string): Promise<void>;
  /**
   * Copies `fromKey` over `toKey` only while `toKey` is still the object the caller read (the one
   * whose ETag is `expected`; null: no object), and says whether it did: false, with nothing
   * written, when another write came between (S3's conditional CopyObject, `If-Match`).
   */
  copyIfUnchanged(fromKey: string, toKey: string, expected: string | null): Promise<boolean>;
  /** Keys under a prefix, in key order. */
  list(prefix: string): Promise<string[]>;
  /**
   * An upload that outlives an invocation (a results file Finalize writes across legs): started
   * once, its parts sent as they fill, by whichever leg fills them, and put together at the end.
   * Every part but the last holds at least `MIN_PART_BYTES` (S3's rule); a part sent again under
   * its number replaces the first (a retried leg). Returns the upload's id.
   */
  startUpload(key: string, contentType: string): Promise<string>;
  /** Returns the part's ETag, which `completeUpload` names it by. */
  uploadPart(key: string, uploadId: string, partNumber: number, bytes: Uint8Array): Promise<string>;
  /** A part copied in the bucket from another object's first `bytes` (UploadPartCopy); its ETag. */
  copyPart(
    key: string,
    uploadId: string,
    part: number,
    from: { key: string; bytes: number },
  ): Promise<string>;
  completeUpload(key: string, uploadId: string, parts: readonly UploadedPart[]): Promise<void>;
};

/**
 * The bucket as the Row workflow's Submit and Store use it: an object read whole and written
 * whole. Their functions reach S3 by signed requests instead of the S3 client (functions/catalogue.ts,
 * `objects.whole`), so their steps are given only what those requests do.
 */
export type WholeObjects = Pick<ObjectStore, 'getBytes' | 'put'>;

/** A part of an upload in parts, as `completeUpload` names it. */
type UploadedPart = { number: number; etag: string };

/** The least a part of an upload may hold, but the last (S3's rule). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/** A message taken from the rows queue: the row attempt it asks for, and how to delete it. */
export type ReceivedRow = {
  message: RowMessage;
  /** Opaque handle to delete or release the message. */
  receipt: string;
  receiveCount: number;
};

/**
 * The rows queue (SQS): sends row messages (with a delay), takes a few visible ones, deletes one
 * handled. Rows wait here (and in the batch table) for a slot, never in Step Functions.
 */
export type RowQueue = {
  send(messages: readonly { message: RowMessage; delaySeconds?: number }[]): Promise<void>;
  /** Up to `max` (1..10) visible messages, without waiting; malformed bodies are not returned. */
  receive(max: number): Promise<ReceivedRow[]>;
  delete(receipt: string): Promise<void>;
};

/**
 * What counting a row finished tells: whether the batch's last row is now done, and the token to
 * wake it with.
 */
export type RowDoneResult = {
  /** Every dispatched row of the batch has finished. */
  batchComplete: boolean;
  /** Present when the batch is complete and its workflow is waiting. A secret. */
  taskToken: string | null;
};

/**
 * How a row finished, as `markRowDone` counts it: the status it shows (its followers show the
 * same), what it billed, and when.
 */
export type RowFinish = {
  status: OutputStatus;
  billed_cents: number;
  at: string;
  /** The value, in cents, the row's verdict covers (`covers_value_cents`), when it resolved. */
  value_cents?: number;
};

/** A page of a batch's rows (`BatchStore.rowsPage`). */
type RowsPage = { rows: RowRecord[]; next: number | null };

/** The batch table: one batch record, its row records and its completion shards. */
export type BatchStore = {
  /** Conditional create. `exists` carries the record already there (a duplicate or a retried Prepare). */
  createBatch(record: BatchRecord): Promise<{ created: true } | { created: false; existing: BatchRecord }>;
  getBatch(batchId: string): Promise<BatchRecord | null>;
  /**
   * Batches newest first (by `started_at`), a page at a time, for people to browse (the
   * operations console); answers rounds are not listed. `after` is the previous page's `next`;
   * one the store did not give is refused with a RangeError.
   */
  listBatches(page: { limit: number; after?: string | null }): Promise<BatchPage>;
  /** SET the given top-level fields. Never touches the completion state (shards, counts, token). */
  updateBatch(
    batchId: string,
    patch: Partial<Omit<BatchRecord, 'batch_id' | 'complete_shards' | 'task_token' | 'shards' | 'finished'>>,
  ): Promise<void>;
  /** Sets `stop` only if the batch has none yet: the first stop is the one reported. Returns the stop in force. */
  recordStop(batchId: string, stop: BatchStop): Promise<BatchStop>;
  /**
   * Sets `partial_requested_at` to `now` only if it still is `last` (null: absent): of the rows
   * finishing in the same period, one asks for partial results. True when this call set it.
   */
  claimPartialRequest(batchId: string, at: { last: string | null; now: string }): Promise<boolean>;
  /** Sets `audit_through` to `to` only while it is still `from` (by its count of writes); true if set. */
  claimAuditPosition(batchId: string, move: AuditMove): Promise<boolean>;
  /** Writes (overwrites) row records as Prepare made them (`bornRow`), 25 per BatchWrite. */
  putRows(rows: readonly RowRecord[]): Promise<void>;
  getRow(batchId: string, row: number): Promise<RowRecord | null>;
  /**
   * Moves a row (`RowMove`): writes the move's fields only if the row passes its guard, in one
   * conditional write. False when the guard refused it (a late or repeated step: the row has
   * moved on); throws when the batch has no such row.
   */
  moveRow(batchId: string, row: number, move: RowMove): Promise<boolean>;
  /**
   * One page of the batch's rows in row order: at most `limit` rows after row `after` (null: from
   * the first). `next` is the row to pass as `after` for the following page, null after the last.
   * What a step that must not hold a whole batch reads (one Query, whatever the batch's size).
   */
  rowsPage(batchId: string, page: { after: number | null; limit: number }): Promise<RowsPage>;
  /**
   * Up to `limit` of the batch's rows that have a `send_order` past `after`, in send order, and the
   * last place read when more may follow (else null). Read from an index that may lag a write by
   * a moment: a row just written may be missing, a status just moved may show the one before.
   */
  sendOrderPage(
    batchId: string,
    page: { after: number; limit: number },
  ): Promise<{ rows: SendOrderRow[]; next: number | null }>;
  /** Every row of the batch in row order (paged Query). */
  listRows(batchId: string): AsyncIterable<RowRecord>;
  /**
   * The batches whose queued rows are not all in the rows queue yet, kept on one item so the
   * dispatcher finds them without reading every batch.
   */
  listBacklogs(): Promise<string[]>;
  /** Puts the batch on that list (`open`) or takes it off: a set ADD or DELETE, idempotent. */
  markBacklog(batchId: string, open: boolean): Promise<void>;
  /**
   * Takes the top-up of the batch's `queue_window` until `until`, only if no other dispatcher
   * holds it (or its hold ran out by `now`) and the window still ends at `enqueuedThrough`. True
   * when this call took it; false for a batch without a window.
   */
  claimTopUp(
    batchId: string,
    hold: { now: string; until: string; enqueuedThrough: number },
  ): Promise<boolean>;
  /**
   * After the top-up's messages went out: the window ends at `to` and rows up to `passedThrough`
   * have left it, only if it still ends at `from`; the hold is released. True when this call moved it.
   */
  advanceWindow(
    batchId: string,
    advance: { from: number; to: number; passedThrough: number },
  ): Promise<boolean>;
  /**
   * Creates the completion shards with how many dispatched rows each must see finish, and how many
   * rows follow each dispatched row that has followers (by row; absent: none), so a row is counted
   * with its followers; lists the shards on the batch record (`shards`).
   */
  putCompletionShards(
    batchId: string,
    expected: ReadonlyMap<number, number>,
    followers?: ReadonlyMap<number, number>,
  ): Promise<void>;
  /** How many rows follow `row`, as its completion shard keeps it (0 without a shard or followers). */
  followerCount(batchId: string, row: number): Promise<number>;
  /**
   * Idempotent: counts `row` as finished (a number-set ADD) with its followers, by the status it
   * shows, in the same conditional write (a repeat counts nothing), and the batch when it was the
   * last of its shard and of the batch.
   */
  markRowDone(batchId: string, row: number, finish: RowFinish): Promise<RowDoneResult>;
  /**
   * The rows counted finished so far: the batch's roll-up of its complete shards plus what each
   * open shard with rows sent has counted (one read each: a handful, bounded by the batch's queue
   * window, whatever the batch's size). `batch` as `getBatch` just read it.
   */
  finishedRows(batch: BatchRecord): Promise<FinishedRows>;
  /** Stores the Batch workflow's task token; tells whether the rows had already all finished. */
  registerWaiter(batchId: string, taskToken: string): Promise<RowDoneResult>;
};

/**
 * The review table's questions: one item per classification waiting for answers, with the rows of
 * later batches that joined it; read by batch and across batches, updated as answers come.
 */
export type ReviewStore = {
  put(item: ReviewItem): Promise<void>;
  get(classificationId: string): Promise<ReviewItem | null>;
  /**
   * The batch's items in row order, with the items of other batches' classifications that rows
   * of this batch joined (`join`), each as this batch sees it: `batch_id` and `row` are the
   * joined row's, `owner` the row that asked.
   */
  listByBatch(batchId: string): Promise<ReviewItem[]>;
  /**
   * Rows of a later batch join the classification instead of asking again: only while its item
   * is `pending` and not past `abandons_at` (`at`), one conditional write that adds them to
   * `joined`; then each row is indexed under its batch for `listByBatch`. False when refused
   * (the item is answered, closed, abandoned or gone): the rows must be classified themselves.
   */
  join(
    classificationId: string,
    rows: readonly { batch_id: string; row: number }[],
    at: string,
  ): Promise<boolean>;
  /** Every item still waiting for answers, across batches (the daily sweep; a Scan on AWS). */
  listPending(): Promise<ReviewItem[]>;
  update(classificationId: string, patch: Partial<Omit<ReviewItem, 'classification_id'>>): Promise<void>;
};

/**
 * Who wrote the objects dropped into `answers/` and `inbox/` (core/people.ts): the console records
 * its signed-in person for each file it writes, S3's record of the write the principal; kept in the
 * review table, never in metadata a writer can set.
 */
export type WriterRecords = {
  /** Keeps the record under the object's key and each of its ETag and version that it names; writing it again changes nothing. */
  record(writer: WriterRecord): Promise<void>;
  /** The records of one object version, found by its key and its ETag or version (either may match); [] when none yet. */
  find(object: WrittenObject): Promise<WriterRecord[]>;
};

/**
 * Verdicts a person checks: one item per product of a batch, on its leader's row, kept in the
 * review table beside the questions; written once, decided once.
 */
export type CheckStore = {
  /**
   * Writes the item unless the row has one already: a retried Store or Prepare never resets an item
   * someone has decided meanwhile. True when written.
   */
  create(item: CheckItem): Promise<boolean>;
  get(batchId: string, row: number): Promise<CheckItem | null>;
  /** The batch's items in row order: its review files, its answers rounds. */
  listByBatch(batchId: string): Promise<CheckItem[]>;
  /** Every item still `to_check`, across batches: the console's list (a Scan on AWS). */
  listOpen(): Promise<CheckItem[]>;
  /** Records the decision while the item is `to_check`; false when it was decided already. */
  decide(batchId: string, row: number, decision: CheckDecision): Promise<boolean>;
  /** SIM openings confirmed later (the SIM sweep): `reasons`, `sim_options` set while `to_check`, else false. */
  offerSimOptions(
    batchId: string,
    row: number,
    offer: Pick<CheckItem, 'reasons' | 'sim_options'>,
  ): Promise<boolean>;
};

/**
 * Verdicts whose SIM openings were still being verified when they were stored: a watch per row,
 * listed by the daily sweep until the registry settles it.
 */
export type SimWatchStore = {
  /** Writes the watch unless the row has one already (a retried Store): true when written. */
  put(watch: SimWatch): Promise<boolean>;
  /** Every watch still open, across batches, in batch and row order (the daily sweep; a Scan on AWS). */
  listOpen(): Promise<SimWatch[]>;
  /** Closes the watch with what the registry said; settling it again changes nothing. */
  settle(batchId: string, row: number, settled: { at: string; outcome: 'available' | 'none' }): Promise<void>;
};

/**
 * A batch's audit log: events kept as they happen, read back in the order of their keys
 * (`auditEventKey`: time, row, kind). Recording an event again with the same key writes
 * it once. Kept in the batch table beside the rows (`audit#<key>`).
 */
export type AuditLog = {
  /**
   * Records events; one recorded more than `RECORDED_LATE_AFTER_MS` after its time is also put on
   * the batch's list of late events (unless the log holds it already), for the next write of audit.csv.
   */
  record(events: readonly AuditEvent[]): Promise<void>;
  /**
   * The batch's events after `after` (an `auditEventKey`, exclusive), at most `limit`, in key
   * order; those recorded late say so (`late`).
   */
  page(batchId: string, from: { after: string | null; limit: number }): Promise<LoggedEvent[]>;
  /**
   * The late events not yet settled, in the order they were recorded, at most `limit`, each once:
   * a copy recorded again (a retried step), or of an event the log held already, is dropped here.
   */
  pendingLate(batchId: string, limit: number): Promise<LateEvent[]>;
  /** Marks these late events (by their markers) written to audit.csv: `pendingLate` never gives them again. */
  settleLate(batchId: string, markers: readonly string[]): Promise<void>;
};

/**
 * The product cache: each product's last resolved verdict (by product key and by fingerprint) for
 * later batches to reuse, and its classification waiting for answers, for them to join.
 */
export type ProductCache = {
  /** The cached verdicts among `productKeys` (any count; the adapter pages). */
  getMany(productKeys: readonly string[]): Promise<Map<string, CachedVerdict>>;
  put(verdict: CachedVerdict): Promise<void>;
  /**
   * The classifications waiting for answers among `productKeys` (one pointer per product, the
   * last one put; any count, the adapter pages): Prepare's one lookup per chunk.
   */
  getPending(productKeys: readonly string[]): Promise<Map<string, PendingClassification>>;
  /** Keeps (replaces) the product's pending classification (the Review step). */
  putPending(pending: PendingClassification): Promise<void>;
  /**
   * Every cached verdict, a page at a time, in no promised order (pending entries are not
   * verdicts): the recheck after the NCM table changes. Each page says where the next begins
   * (`after`, null on the last), so a use case bounded in time goes on from there in another
   * invocation; `after` given, the scan begins past that point.
   */
  scanVerdicts(from?: { after?: string | null; pageSize?: number }): AsyncIterable<VerdictPage>;
};

/** A page of `ProductCache.scanVerdicts`: the verdicts, and where the scan goes on (null: done). */
type VerdictPage = { verdicts: CachedVerdict[]; after: string | null };

/** Step Functions: starts a Row workflow execution; the name makes a repeated start a no-op. */
export type RowWorkflows = {
  start(name: string, input: RowExecutionInput): Promise<'started' | 'already_started'>;
};

/** Step Functions task tokens: wakes the Batch workflow's WaitForRows. */
export type BatchWaiters = {
  /** Ignores a token that is no longer waiting (already woken, timed out): waking is idempotent. */
  wake(taskToken: string, output: { batch_id: string }): Promise<void>;
};

/** EventBridge: tells the world a batch completed. */
export type BatchEvents = {
  batchCompleted(summary: Record<string, unknown>): Promise<void>;
};

/** The stack's topic of notices (SNS): its subscribers are told a batch finished, questions wait, … */
export type Notifier = {
  /** Publishes the notice once per call; a subscriber filters by its `kind` and `batch_id` attributes. */
  publish(notice: Notice): Promise<void>;
};

/** Asks the dispatcher to fill free slots now (async Lambda invoke); the schedule is the safety net. */
export type DispatcherKick = { kick(reason: KickReason): Promise<void> };

/**
 * Asks for a batch's partial results (results.partial.csv, summary.partial.json) to be written,
 * without waiting: best effort, never throws; the next finishing row asks again.
 */
export type PartialResultsRequests = { request(batchId: string): Promise<void> };

/** The ports of the whole pipeline; each handler wires only the ones it uses. */
export type PipelinePorts = {
  clock: Clock;
  service: ClassificationService;
  objects: ObjectStore;
  queue: RowQueue;
  batches: BatchStore;
  reviews: ReviewStore;
  checks: CheckStore;
  writers: WriterRecords;
  simWatches: SimWatchStore;
  audit: AuditLog;
  cache: ProductCache;
  leases: SlotLeases;
  workflows: RowWorkflows;
  waiters: BatchWaiters;
  events: BatchEvents;
  notifier: Notifier;
  kick: DispatcherKick;
  partials: PartialResultsRequests;
};
