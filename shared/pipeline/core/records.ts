/**
 * The pipeline's records, as zod schemas: what sits in DynamoDB, in SQS messages and in the
 * Row workflow's state. The schema is the type; every record crossing a process boundary
 * (a table, a queue, a state machine) is parsed on the way in.
 *
 *   batch record ──1:n── row records ──1:1── (review item while pending_data)
 *        │                    └── product key ──▶ product cache (last resolved verdict)
 *        └── completion shards: which dispatched rows have finished, 1,000 rows per shard
 */
import * as z from 'zod';
import { ColumnUse } from '../../spreadsheet/input-report.js';
import { ProductRow, RowRejection, SpreadsheetFormat } from '../../spreadsheet/schemas.js';
import { ClassificationId, Question } from '../../tcs/schemas.js';
import { StoredMessage } from '../../wording/message.js';
import { BatchOptions } from './batch-options-schema.js';
import { Origin } from './origins.js';
import { KnownBy, Person } from './people.js';
import { RowResult } from './result-columns.js';
import { BornRows, FinishedRows } from './row-counts.js';
import { RowStatus } from './row-statuses.js';

// ---------------------------------------------------------------------------
// DynamoDB records
// ---------------------------------------------------------------------------

/** Where a batch came from: the same object version delivered twice is one batch. */
export const BatchSource = z.object({
  bucket: z.string(),
  key: z.string(),
  /** S3 version id when the bucket is versioned, else the ETag. */
  version_or_etag: z.string(),
  /** `inbox/<batch-name>/`: sheets are resolved inside this prefix. */
  folder: z.string(),
  file_name: z.string(),
});
export type BatchSource = z.infer<typeof BatchSource>;

/** A batch-level stop: dispatching ends and every row not yet submitted is `not_submitted`. */
export const BatchStop = z.object({
  /** The Problem `type` (e.g. `…/plan-without-api`) or a pipeline code such as `invalid_options`. */
  type: z.string(),
  title: z.string(),
  detail: z.string(),
  at: z.string(),
});
export type BatchStop = z.infer<typeof BatchStop>;

/**
 * A batch's window of the rows queue: at most `size` of its messages sit in the queue at once; its
 * later queued rows wait in the batch table until the dispatcher sends them as the window drains.
 * Rows wait there, never in Step Functions (docs/architecture.md, property 3).
 */
export const QueueWindow = z.object({
  /** The most messages of the batch the rows queue holds at once. */
  size: z.number().int().min(1),
  /** The last row considered for a message: every queued row up to it has had its message sent. */
  enqueued_through: z.number().int().min(0),
  /** Rows up to it have all left the window: counting what it holds starts after it. */
  passed_through: z.number().int().min(0),
  /** A dispatcher tops the window up until then (ISO time): the others leave it alone meanwhile. */
  topping_up_until: z.string().optional(),
  /**
   * `send_order`: the two cursors above count places in the batch's send order (a queued row's
   * `send_order`), not rows, and `last` is the last place; absent: they count rows, in file order.
   */
  by: z.literal('send_order').optional(),
  /**
   * In send order: the last place a queued row holds (the window is done once it is past it).
   * Places run 1, 2, 3… with no gap, so a place not read yet is a row not stored (or not in the
   * index) yet: a top-up stops before it.
   */
  last: z.number().int().min(0).optional(),
});
export type QueueWindow = z.infer<typeof QueueWindow>;

/** Where a batch stands, in the order it passes: Prepare, its rows running, Finalize, then done or failed. */
export const BATCH_STATES = ['preparing', 'running', 'finalizing', 'completed', 'failed'] as const;
/** A batch's state, as a schema. */
export const BatchState = z.enum(BATCH_STATES);

/**
 * How far the outbox's audit.csv is written: the last event key, its bytes and writes, and this
 * write's copies.
 */
const AuditPosition = z.object({
  key: z.string(),
  bytes: z.number().int().min(0),
  writes: z.number().int().min(1),
  /** This write's file, the one audit.csv is a copy of (absent: audit.csv itself). */
  file: z.string().optional(),
  /** The keys this write read from the audit log, in key order (absent: none kept). */
  keys: z.string().optional(),
  /** The hash of the file's last line (audit-chain.ts); absent for a file begun before lines were chained. */
  chain: z.string().optional(),
  /** The file has the columns `who_id`, `known_by`, `stated_by`; absent for a file begun before it had them. */
  people: z.literal(true).optional(),
  /** The markers of the late events this write added (absent: none), for the next write to skip until they are settled. */
  late: z.string().optional(),
});
type AuditPosition = z.infer<typeof AuditPosition>;
/** A write's claim of audit.csv's position: from the one it started from (null: none yet) to its own. */
export type AuditMove = { from: AuditPosition | null; to: AuditPosition };

/**
 * How Prepare ranked a batch's products for exposure order (prepare/exposure-order.ts): over how
 * many products, by which of the file's columns beside the rows each covers, and the cells of
 * those columns it could not read (counted as nothing), so the plan can say so.
 */
export const ExposureSummary = z.object({
  products: z.number().int().min(0),
  value_header: z.string().optional(),
  priority_header: z.string().optional(),
  unread_cells: z.number().int().min(0),
  /** The value of every row in the value column, in cents (what coverage of the value is out of). */
  value_total_cents: z.number().int().min(0).optional(),
  /** The first rows whose value or priority cell could not be read, at most five. */
  unread_rows: z.array(z.number().int().min(1)),
});
export type ExposureSummary = z.infer<typeof ExposureSummary>;

/**
 * A batch's item in the batch table: where it came from, its options, the input's shape, its
 * counts, its window of the rows queue, its completion shards and what went wrong. Read by every
 * step; its completion state is moved only by conditional writes.
 */
export const BatchRecord = z.object({
  batch_id: z.string(),
  name: z.string(),
  source: BatchSource,
  /** The Batch workflow execution that owns this batch: a retried Prepare goes on, another is a duplicate. */
  execution_id: z.string(),
  state: BatchState,
  options: BatchOptions.optional(),
  /** Who sent the batch, proven (core/people.ts), when Prepare knew it; batch.json's `requested_by` is only stated. */
  sent_by: Person.optional(),
  format: SpreadsheetFormat.optional(),
  /** Header cells of the input, as written: the first columns of results.csv. */
  header: z.array(z.string()).default([]),
  /** The input's list separator, reused for the output (`;` for a pt-BR Excel file). */
  delimiter: z.enum([',', ';', '\t']).default(','),
  rows_total: z.number().int().min(0).default(0),
  /** While Prepare reads the file (`preparing`): the rows it has read so far, every 10,000. */
  rows_read: z.number().int().min(0).optional(),
  /** Rows to classify, queued at Prepare; the others were final at Prepare (rejected, reused, not_submitted). */
  rows_dispatched: z.number().int().min(0).default(0),
  /** The batch's window of the rows queue; absent before Prepare queued anything. */
  queue_window: QueueWindow.optional(),
  /** In exposure order: how its products were ranked; absent in the file's order. */
  exposure: ExposureSummary.optional(),
  /**
   * True while Prepare still stores the batch's rows after it opened the window (exposure order:
   * the first places go before the rest are stored, prepare/first-places.ts); its next leg goes on
   * storing. False or absent once every row is stored.
   */
  storing: z.boolean().optional(),
  /**
   * How long WaitForRows waits for the last row, in seconds: sized by Prepare from the rows to
   * classify at the cap (`waitSecondsFor`), and kept so a retried Prepare says it again.
   */
  wait_seconds: z.number().int().min(1).optional(),
  shard_count: z.number().int().min(0).default(0),
  /** Shards whose rows have all finished (a number set in DynamoDB: adding is idempotent). */
  complete_shards: z.array(z.number().int().min(0)).default([]),
  /** The completion shards Prepare created (a number set in DynamoDB), so the open ones are read by key. */
  shards: z.array(z.number().int().min(0)).optional(),
  /** Rows final or following at Prepare (absent on a batch prepared before they were counted). */
  born: BornRows.optional(),
  /** Rows counted finished in the complete shards; only `markRowDone` writes it. */
  finished: FinishedRows.optional(),
  /** Present once the Batch workflow waits for its rows. A secret: never logged, never written out. */
  task_token: z.string().optional(),
  stop: BatchStop.optional(),
  /**
   * Set on the record of an answers round: the batch whose pending rows it resumes.
   * A round is tracked like a batch (its resumed rows, completion shards, task token) but
   * owns no rows: they stay under the batch.
   */
  round_of: z.string().optional(),
  /** What went wrong with the whole batch, as messages (shared/wording/), for summary.json. */
  problems: z.array(StoredMessage).default([]),
  /**
   * The columns of the input read as pipeline fields; the others are passed through, and
   * summary.json and plan.json list every column (`everyColumnUse`). A batch prepared before
   * kept every column here.
   */
  columns: z.array(ColumnUse).optional(),
  /** What the person who sent the file should look at in it, as messages (summary.json). */
  warnings: z.array(StoredMessage).optional(),
  /** When a finishing row last asked for partial results: one asks per `partial_every_minutes`. */
  partial_requested_at: z.string().optional(),
  /**
   * How far the outbox's audit.csv is written: the last event key written,
   * the file's bytes at that point (a repeated write starts again from them), how many writes,
   * and the write's own copy of the file and of the keys it read, by object key. Moved only by
   * `BatchStore.claimAuditPosition`, from the position a write started from.
   */
  audit_through: AuditPosition.optional(),
  started_at: z.string(),
  finished_at: z.string().optional(),
});
export type BatchRecord = z.infer<typeof BatchRecord>;

/** Rows of a batch are grouped in shards of this many for completion counting. */
const COMPLETION_SHARD_SIZE = 1000;
/** The completion shard a row is counted in: rows 1..1000 in shard 0, 1001..2000 in shard 1, and so on. */
export const shardOfRow = (row: number): number => Math.floor((row - 1) / COMPLETION_SHARD_SIZE);

/** A product sheet (a PDF) a row names, as found in the bucket: its key, hash, size and name. */
export const SheetRef = z.object({
  /** Object key in the input bucket. */
  key: z.string(),
  sha256: z.string(),
  size: z.number().int().min(0),
  file_name: z.string(),
  /** false: the PDF names no font, a scan the service cannot read; absent or null: not known. */
  text_layer: z.boolean().nullable().optional(),
});
export type SheetRef = z.infer<typeof SheetRef>;

/**
 * One row's item in the batch table: its input cells and product, where it stands (status,
 * attempt, dispatch), its classification, the row it follows if any, and its result once final.
 * Its status changes only through the moves of core/row-life.ts.
 */
export const RowRecord = z.object({
  batch_id: z.string(),
  row: z.number().int().min(1),
  line: z.number().int().min(1),
  /** Every input cell as read, in header order: written back first in results.csv. */
  cells: z.array(z.string()),
  status: RowStatus,
  /** Present when the row is valid; absent when it was rejected. */
  product: ProductRow.optional(),
  rejection: RowRejection.optional(),
  sheet: SheetRef.optional(),
  /** `sku:<sku>` or `h:<hash>`; indexes the product cache (docs/architecture.md, property 9). */
  product_key: z.string().optional(),
  /** Hash of what the row's classification request holds (operation, country, description, sheet bytes). */
  fingerprint: z.string().optional(),
  /**
   * The leader: the earlier row of the same product (same description and sheet; of the same origin
   * too under `verdict_per_country`) whose classification this row shares. This row is never
   * dispatched: it shows that row's outcome at no cost, with its own origin's tariffs.
   */
  follows: z.number().int().min(1).optional(),
  /**
   * On a leader: the other origins (`originKey`) its followers are classified for, whose tariffs
   * and SIM openings Store looks up once the verdict is known.
   */
  other_origins: z.array(z.string()).optional(),
  /**
   * On a row queued at Prepare in exposure order: its place in the batch's send order (1 is sent
   * first), its product's rank by rows covered and value (prepare/exposure-order.ts). The
   * dispatcher tops the window up in this order (`BatchStore.sendOrderPage`).
   */
  send_order: z.number().int().min(1).optional(),
  /**
   * On a row queued at Prepare in exposure order from a file with a value column: the value, in
   * cents, of the rows its verdict covers (its own and its followers'), counted when it resolves.
   */
  covers_value_cents: z.number().int().min(0).optional(),
  /** 1-based attempt; a transient failure starts a new attempt with a new key. */
  attempt: z.number().int().min(1).default(1),
  /** 1-based dispatch of this attempt; a 429 puts the row back and the next dispatch is a new execution. */
  dispatch: z.number().int().min(1).default(1),
  classification_id: ClassificationId.optional(),
  /** The attempt that created `classification_id`: a later dispatch of it polls instead of creating. */
  submitted_attempt: z.number().int().min(1).optional(),
  /** The classification in the web app; only the 202 of the creation carries it. */
  app_url: z.string().optional(),
  submitted_at: z.string().optional(),
  /** Set when the row reaches an output status. */
  result: RowResult.optional(),
  /**
   * The answers round that took this row, if any. An `answers` round (the default) resumes a row
   * waiting for answers: Submit posts these answers instead of creating. A `resend` round sends a
   * rejected or failed row again, its cells corrected or with a new sheet: Submit creates a new
   * classification under the row's next attempt (`answers` is then empty).
   */
  round: z
    .object({
      round_id: z.string(),
      kind: z.enum(['answers', 'resend']).optional(),
      answers: z.array(z.object({ question_id: z.string(), answer: z.string() })),
      /** deriveAnswersKey(classification id, answers, sheet sha256): a file dropped twice answers once. */
      answers_key: z.string(),
      sheet: SheetRef.optional(),
      /** The person's name; with their id, how they were known and the name the file stated (core/people.ts). */
      answered_by: z.string(),
      answered_by_id: z.string().optional(),
      known_by: KnownBy.optional(),
      stated_by: z.string().optional(),
      answered_at: z.string(),
      /** When Submit's POST of these answers was accepted: the second run's start, for the poll back-off. */
      posted_at: z.string().optional(),
    })
    .optional(),
  finished_at: z.string().optional(),
  updated_at: z.string(),
});
export type RowRecord = z.infer<typeof RowRecord>;

/**
 * What the dispatcher reads of a row queued in send order (the batch table's send-order index
 * projects just this): enough to count it in its window and send its message.
 */
export const SendOrderRow = RowRecord.pick({
  row: true,
  status: true,
  round: true,
  attempt: true,
  dispatch: true,
}).extend({ send_order: z.number().int().min(1) });
export type SendOrderRow = z.infer<typeof SendOrderRow>;

/** A `pending_data` row waiting for someone to answer the classifier's questions. */
export const ReviewItem = z.object({
  classification_id: ClassificationId,
  batch_id: z.string(),
  row: z.number().int().min(1),
  sku: z.string().nullable(),
  external_reference: z.string().nullable(),
  description: z.string().nullable(),
  questions: z.array(Question),
  /** The provisional proposal, when the service gave one. */
  provisional_ncm: z.string().nullable(),
  provisional_confidence: z.number().nullable(),
  /** When the service abandons the classification if unanswered (30 days after pending_data). */
  abandons_at: z.string(),
  state: z.enum(['pending', 'answered', 'closed']),
  created_at: z.string(),
  answered_at: z.string().optional(),
  answered_by: z.string().optional(),
  answers: z.array(z.object({ question_id: z.string(), answer: z.string() })).optional(),
  /** When the daily sweep reminded people that these questions still wait (pipeline/notices/). */
  reminded_at: z.string().optional(),
  /**
   * Rows of later batches that joined this classification instead of asking again
   * (docs/answers-round.md, "A re-run does not ask again"), each `<batch_id>#<row>`: the one
   * answer settles them too. Added by `ReviewStore.join`, never by `put` or `update`.
   */
  joined: z.array(z.string()).optional(),
  /**
   * Present only on an item as `listByBatch` lists it for a batch whose row joined it: the batch
   * and row that asked the questions (`batch_id` and `row` are then the joined batch's and row's).
   */
  owner: z.object({ batch_id: z.string(), row: z.number().int().min(1) }).optional(),
});
export type ReviewItem = z.infer<typeof ReviewItem>;

/**
 * Takes a review item and gives the answers it keeps, each beside its question as the service
 * asked it (its id when the question is not on the item); null when it keeps none.
 */
export const givenAnswersOf = (
  item: Pick<ReviewItem, 'questions' | 'answers'>,
): { question: string; answer: string }[] | null => {
  if (!item.answers || item.answers.length === 0) return null;
  const question = new Map(item.questions.map((q) => [q.id, q.text]));
  return item.answers.map((a) => ({
    question: question.get(a.question_id) ?? a.question_id,
    answer: a.answer,
  }));
};

const DAY_MS = 86_400_000;

/**
 * Takes a review item's `abandons_at` and the time now, and gives the whole days left before the
 * service abandons the classification (0 once it has): review.xlsx and the console's inbox show it.
 */
export const daysLeft = (abandonsAt: string, now: Date): number =>
  Math.max(0, Math.floor((Date.parse(abandonsAt) - now.getTime()) / DAY_MS));

/** `<batch_id>#<row>`: how a joined row is named on its review item (`ReviewItem.joined`). */
export const joinedRowName = (row: { batch_id: string; row: number }): string => `${row.batch_id}#${row.row}`;
/** Reads a joined row's name (`<batch_id>#<row>`) back into its batch and row; null when it is not one. */
export const joinedRowOf = (name: string): { batch_id: string; row: number } | null => {
  const at = name.lastIndexOf('#');
  const row = Number(name.slice(at + 1));
  return at > 0 && Number.isInteger(row) && row >= 1 ? { batch_id: name.slice(0, at), row } : null;
};

/**
 * A product's classification waiting for answers, kept in the product cache beside its verdict
 * (by `product_key`) by the Review step: Prepare of a later batch of the same product (same key,
 * same fingerprint) joins it instead of asking again. Only a pointer: the review item says whether
 * it is still open (`ReviewStore.join` refuses one that is not).
 */
export const PendingClassification = z.object({
  product_key: z.string(),
  fingerprint: z.string(),
  classification_id: ClassificationId,
  batch_id: z.string(),
  row: z.number().int().min(1),
  abandons_at: z.string(),
  /** The asking row's pending result (questions, provisional proposal, app_url). */
  result: RowResult,
});
export type PendingClassification = z.infer<typeof PendingClassification>;

/** The last resolved verdict of a product, for reuse by later batches. */
export const CachedVerdict = z.object({
  product_key: z.string(),
  fingerprint: z.string(),
  /**
   * Hash of what decides the NCM alone (description, sheet bytes): a row of another origin with the
   * same one may take this verdict. Absent on verdicts kept before origins were shared.
   */
  product_fingerprint: z.string().optional(),
  /** The operation and country the verdict was made for; absent on verdicts kept before. */
  origin: Origin.optional(),
  classification_id: ClassificationId,
  resolved_at: z.string(),
  /** The verdict's output columns (status `resolved`), copied into a reusing row. */
  result: RowResult,
  /** Where the verdict PDF is kept (the outbox of the batch that resolved it), if any. */
  pdf_key: z.string().nullable(),
  batch_id: z.string(),
});
export type CachedVerdict = z.infer<typeof CachedVerdict>;

// ---------------------------------------------------------------------------
// The rows queue and the Row workflow's state
// ---------------------------------------------------------------------------

/** The body of a message in the rows queue: a row attempt (and dispatch) waiting for a slot. */
export const RowMessage = z.object({
  batch_id: z.string(),
  row: z.number().int().min(1),
  attempt: z.number().int().min(1),
  dispatch: z.number().int().min(1),
  /** An answers round: the row's classification resumes with the answers on the row record. */
  round_id: z.string().optional(),
});
export type RowMessage = z.infer<typeof RowMessage>;

/**
 * Why a kick: `slot_freed`, a row's classification left in_progress and its lease was released
 * (the dispatcher fills that slot before counting the others); `rows_queued`, new messages wait.
 */
export const KickReason = z.enum(['slot_freed', 'rows_queued']);
export type KickReason = z.infer<typeof KickReason>;

/** What a kick sends the dispatcher; its schedule sends `{ source: 'schedule' }`. */
export const KickEvent = z.object({ source: z.literal('kick'), reason: KickReason });
export type KickEvent = z.infer<typeof KickEvent>;

/**
 * The input of one Row workflow execution: its row message, the row's key and the lease's holder.
 * The holder is the row attempt, not the execution, so a later dispatch of the same attempt holds
 * the same lease.
 */
export const RowExecutionInput = RowMessage.extend({
  row_key: z.string(),
  holder: z.string(),
});
export type RowExecutionInput = z.infer<typeof RowExecutionInput>;

/**
 * What a finished Row workflow reports to Complete. `final`: the row's output status.
 * `requeue`: back to the queue for a later dispatch (429, or a new attempt after a transient
 * failure), the lease released, the row not yet counted as finished.
 */
export const RowOutcome = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('final'), result: RowResult }),
  z.object({
    kind: z.literal('requeue'),
    attempt: z.number().int().min(1),
    dispatch: z.number().int().min(1),
    delay_seconds: z.number().int().min(0).max(900),
    reason: z.string(),
  }),
]);
export type RowOutcome = z.infer<typeof RowOutcome>;

/**
 * The result of each Row workflow task, kept at `$.step`. A Choice state branches on `next`:
 * `wait` → Wait(`wait_seconds`) → Poll; `store` → Store; `review` → Review; `complete` → Complete.
 */
export const RowStep = z.object({
  next: z.enum(['wait', 'store', 'review', 'complete']),
  classification_id: ClassificationId.optional(),
  /** When the current run started (submission or answers), for the poll back-off. */
  submitted_at: z.string().optional(),
  /** Whole seconds, production scale: AWS Wait states take integers; the local runner scales. */
  wait_seconds: z.number().int().min(1).optional(),
  /** When Poll last pushed the lease's expiry forward: it renews once a third of the TTL has gone. */
  lease_renewed_at: z.string().optional(),
  /** The classification as Poll read it, for Store and Review (they parse it themselves). */
  classification: z.unknown().optional(),
  outcome: RowOutcome.optional(),
});
export type RowStep = z.infer<typeof RowStep>;

/** What a Catch puts at `$.error`. `Cause` can quote a request: it is scrubbed before it is stored. */
export const CaughtError = z.object({ Error: z.string(), Cause: z.string().optional() });
export type CaughtError = z.infer<typeof CaughtError>;

/**
 * What one Prepare leg gives the Batch workflow, kept in its state at `$.prepare`: the batch's id
 * (null when the event was not a batch file) and what the workflow does next. Finalize reads it
 * there, and the next Prepare leg reads where the last one stopped.
 */
export const PrepareResult = z.object({
  batch_id: z.string().nullable(),
  /**
   * `wait`: rows were queued; the workflow waits for them (WaitForRows). `skip`: a duplicate
   * delivery or not a batch file. `finalize`: nothing to wait for. `planned`: a plan-only batch;
   * its plan is in the outbox and nothing else happens. `again`: the rows are not all written yet;
   * the workflow calls Prepare again.
   */
  next: z.enum(['wait', 'finalize', 'skip', 'planned', 'again']),
  /**
   * With `again`: every row up to this one is written; the next leg writes only the rows after it
   * (this leg's time was spent: `PrepareSettings.legMs`).
   */
  written_through: z.number().int().min(0).optional(),
  /**
   * With `wait`: how long WaitForRows waits for the last row, in seconds (its `TimeoutSecondsPath`),
   * sized from the rows to classify at the cap.
   */
  wait_seconds: z.number().int().min(1).optional(),
});
export type PrepareResult = z.infer<typeof PrepareResult>;

/**
 * What a workflow's Finalize task receives besides the S3 event's fields: its Prepare's result,
 * or what a Catch caught from Prepare (`error`) or from the wait for the rows (`wait_error`: the
 * rows did not all finish before the workflow's timeout).
 */
export const finalizeInputWith = <Prepared extends z.ZodType>(prepared: Prepared) =>
  z.object({
    prepare: prepared.nullish(),
    error: CaughtError.nullish(),
    wait_error: CaughtError.nullish(),
  });

/**
 * The Row workflow's state as every task of it receives it: its input, the last task's result at
 * `step`, and what a Catch caught at `error`.
 */
export const RowState = RowExecutionInput.extend({
  step: RowStep.optional(),
  error: CaughtError.optional(),
});
export type RowState = z.infer<typeof RowState>;
