/**
 * The batch table (`BatchStore` port): one partition per batch,
 *
 *   pk = batch#<id>   sk = batch          the BatchRecord (`complete_shards`, `shards` Number Sets;
 *                                         the counts of its complete shards, `done_…`); a batch
 *                                         (not a round) also has `listed` = batch, the partition of
 *                                         the sparse GSI `by-start` (+ `started_at`) that lists them
 *                     sk = row#0000001    one RowRecord per input row, 7 digits so sk order is row order
 *                     sk = done#0000      a completion shard: { expected: N, done: NS of rows,
 *                                         followers: M of row → its followers, and its counts }
 *   GSI `by-send-order` (pk + `send_order`, sparse): a batch's rows queued in exposure order, in
 *                     that order, each with the few attributes the dispatcher reads (row, status,
 *                     round, attempt, dispatch)
 *   pk = backlogs     sk = open           `batch_ids`: SS of the batches whose queued rows are not all
 *                                         in the rows queue yet (the dispatcher's list to top up)
 *
 * Counting the batch's rows finished is two single-item writes, each an idempotent set ADD
 * (docs/architecture.md, property 10: no transactions, no counters that a retry could count twice):
 *
 *   markRowDone(row 1234) ─▶ done#0001: ADD done {1234}  ── ALL_NEW: size(done) ≥ expected?
 *                                                             │ yes
 *                            batch:    ADD complete_shards {1} ── ALL_NEW: size ≥ shard_count?
 *                                                             │ yes: the task token, if stored
 *   registerWaiter(token) ─▶ batch:    SET task_token ─────── ALL_NEW: same rule
 *
 * The counts a page of the console reads instead of the rows (`FinishedRows`) ride on the same two
 * writes. The shard's write is conditional on the row not being in `done` yet, so a repeat counts
 * nothing; it adds the row by the status it shows (`done_rows_<status>`), its followers by the
 * same status (`done_followers_<status>`, the shard's `followers` entry for the row, server-side)
 * and its billed cents. The write that completes a shard adds the shard's counts to the batch item,
 * conditional on the shard not being in `complete_shards` yet, so they are rolled up once:
 *
 *   markRowDone(1234, resolved) ─▶ done#0001: ADD done {1234}, done_rows_resolved 1, …
 *                                             IF NOT contains(done, 1234)
 *                              ─▶ batch (shard complete): ADD complete_shards {1}, its counts
 *                                             IF NOT contains(complete_shards, 1)
 *
 * A third write, once a shard, keeps the batch's latest `done_last_at` (shards complete in any
 * order): a conditional SET, only if later. A refused mark reads the shard (and then the batch)
 * back to answer as the first did. A reader (`finishedRows`) adds the batch item's counts to
 * those of the shards still open: read after the batch item, a shard completing meanwhile is
 * counted once, from the shard.
 *
 * Each write returns the item as it is after the write, so whichever of "last shard
 * completes" and "workflow stores its token" happens second sees both, and wakes the
 * workflow. A repeat of either returns the same answer again: waking is idempotent.
 * While its own shard is incomplete a row cannot be the batch's last, so `markRowDone`
 * then answers "not complete" without touching the batch item (one write per row, not two).
 *
 * Writes to an item that must exist (batch, row, shard) are conditional on it existing:
 * an update of a missing item would otherwise create a partial one. Such a write fails
 * with "no batch …" / "no row …" / "no completion shard …", as the in-memory store does.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { forEachLimited } from '../pipeline/core/calls-in-parallel.js';
import type { BatchStore, RowDoneResult } from '../pipeline/core/ports.js';
import { BatchRecord, BatchStop, RowRecord, SendOrderRow, shardOfRow } from '../pipeline/core/records.js';
import { addFinished, FinishedRows } from '../pipeline/core/row-counts.js';
import type { RowGuard } from '../pipeline/core/row-life.js';
import { changeOf } from '../pipeline/core/row-life.js';
import type { OutputStatus } from '../pipeline/core/row-statuses.js';
import { OUTPUT_STATUSES } from '../pipeline/core/row-statuses.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  isConditionFailure,
  putAll,
  queryAll,
  setUpdateOf,
  withoutKeys,
  withoutUndefined,
} from './dynamo-items.js';

const KEY_ATTRIBUTES = ['pk', 'sk', 'listed'] as const;
/** The sparse GSI's partition value: set on batch items only (not rounds, rows or shards). */
const LISTED_BATCH = 'batch';
const BATCH_SK = 'batch';
const ROW_SK_PREFIX = 'row#';

/** A batch's partition in the batch table: its record, rows, shards and audit events. */
export const batchPk = (batchId: string) => `batch#${batchId}`;

const rowSk = (row: number) => {
  if (!Number.isInteger(row) || row < 1 || row > 9_999_999)
    throw new RangeError(`row must be an integer in 1..9999999, got ${row}`);
  return `${ROW_SK_PREFIX}${String(row).padStart(7, '0')}`;
};

const shardSk = (shard: number) => `done#${String(shard).padStart(4, '0')}`;

/**
 * The one item listing the batches with a backlog: read whole by every dispatcher run that tops
 * windows up, written only when a batch's backlog opens or closes. A set of batch ids stays far
 * under the 400 KB item limit for thousands of batches at once.
 */
const BACKLOGS_KEY = { pk: 'backlogs', sk: 'open' };

/** The counts' attributes, on a completion shard and on the batch item alike. */
const COUNTED = {
  rows: (status: OutputStatus) => `done_rows_${status}`,
  followers: (status: OutputStatus) => `done_followers_${status}`,
  billedCents: 'done_billed_cents',
  /** The value the rows finished resolved cover (`RowFinish.value_cents`). */
  valueCents: 'done_value_cents',
  lastAt: 'done_last_at',
} as const;

const COUNT_ATTRIBUTES = [
  ...OUTPUT_STATUSES.flatMap((status) => [COUNTED.rows(status), COUNTED.followers(status)]),
  COUNTED.billedCents,
  COUNTED.valueCents,
  COUNTED.lastAt,
];

/** The counts an item carries (absent attributes: nothing counted). */
const finishedOf = (item: Record<string, unknown>): FinishedRows => {
  const rows: FinishedRows['rows'] = {};
  const followers: FinishedRows['followers'] = {};
  for (const status of OUTPUT_STATUSES) {
    const led = Number(item[COUNTED.rows(status)] ?? 0);
    const followed = Number(item[COUNTED.followers(status)] ?? 0);
    if (led > 0) rows[status] = led;
    if (followed > 0) followers[status] = followed;
  }
  const lastAt = item[COUNTED.lastAt];
  return FinishedRows.parse({
    rows,
    followers,
    billed_cents: Number(item[COUNTED.billedCents] ?? 0),
    value_cents: Number(item[COUNTED.valueCents] ?? 0),
    ...(typeof lastAt === 'string' ? { last_at: lastAt } : {}),
  });
};

/** A Number Set as read (absent when empty: DynamoDB has no empty sets) as sorted numbers. */
const numbersOf = (set: unknown): number[] =>
  set instanceof Set ? [...set].map(Number).sort((a, b) => a - b) : [];

const toBatchItem = (record: BatchRecord) => {
  // `finished` is only ever added to, by markRowDone: a new batch has counted nothing.
  const { complete_shards, shards, finished: _counted, ...rest } = record;
  return {
    ...withoutUndefined(rest),
    pk: batchPk(record.batch_id),
    sk: BATCH_SK,
    // An answers round is tracked like a batch but is no batch of its own: it is not listed.
    ...(record.round_of === undefined ? { listed: LISTED_BATCH } : {}),
    ...(complete_shards.length > 0 ? { complete_shards: new Set(complete_shards) } : {}),
    ...(shards && shards.length > 0 ? { shards: new Set(shards) } : {}),
  };
};

const fromBatchItem = (item: Record<string, unknown>): BatchRecord =>
  BatchRecord.parse({
    ...withoutKeys(item, [...KEY_ATTRIBUTES, ...COUNT_ATTRIBUTES]),
    complete_shards: numbersOf(item.complete_shards),
    ...(item.shards instanceof Set ? { shards: numbersOf(item.shards) } : {}),
    // Absent until a shard completes: a batch reads back as it was written.
    ...(COUNT_ATTRIBUTES.some((attribute) => attribute in item) ? { finished: finishedOf(item) } : {}),
  });

const toRowItem = (record: RowRecord) => ({
  ...withoutUndefined(record),
  pk: batchPk(record.batch_id),
  sk: rowSk(record.row),
});

const fromRowItem = (item: Record<string, unknown>): RowRecord =>
  RowRecord.parse(withoutKeys(item, KEY_ATTRIBUTES));

/** The completeness rule, on the batch item as it is after a write. */
const doneResultOf = (batch: Record<string, unknown>): RowDoneResult => {
  const complete = numbersOf(batch.complete_shards).length >= Number(batch.shard_count ?? 0);
  const token = typeof batch.task_token === 'string' ? batch.task_token : null;
  return { batchComplete: complete, taskToken: complete ? token : null };
};

/**
 * A move's guard (core/row-life.ts) as a condition: the row's status among the guard's, and its
 * attempt, dispatch, round or `updated_at` the guard's. Its own placeholders (`#g…`), beside setUpdateOf's `#f…`.
 */
const guardCondition = (guard: RowGuard) => {
  const names: Record<string, string> = { '#gstatus': 'status' };
  const values: Record<string, unknown> = {};
  guard.statuses.forEach((status, i) => {
    values[`:gstatus${i}`] = status;
  });
  const parts = [`#gstatus IN (${guard.statuses.map((_, i) => `:gstatus${i}`).join(', ')})`];
  for (const field of ['attempt', 'dispatch', 'updated_at'] as const) {
    if (guard[field] === undefined) continue;
    names[`#g${field}`] = field;
    values[`:g${field}`] = guard[field];
    parts.push(`#g${field} = :g${field}`);
  }
  if (guard.round_id !== undefined) {
    Object.assign(names, { '#ground': 'round', '#ground_id': 'round_id' });
    values[':ground_id'] = guard.round_id;
    parts.push('#ground.#ground_id = :ground_id');
  }
  return { condition: parts.join(' AND '), names, values };
};

/** What every operation shares: the document client, the table, and the wait between retries. */
type BatchTable = {
  doc: DynamoDBDocumentClient;
  TableName: string;
  byStartIndex: string;
  bySendOrderIndex: string;
  sleep: DynamoAdapterConfig['sleep'];
};

export type DynamoBatchStoreConfig = DynamoAdapterConfig & {
  /** Name of the sparse GSI on `listed` + `started_at` that lists batches. @default 'by-start' */
  byStartIndex?: string;
  /** Name of the sparse GSI on `pk` + `send_order` that gives queued rows in send order. @default 'by-send-order' */
  bySendOrderIndex?: string;
};

/** A `BatchStore` method that takes the table first. */
type OnTable<F> = F extends (...args: infer A) => infer R ? (table: BatchTable, ...args: A) => R : never;

const batchKey = (batchId: string) => ({ pk: batchPk(batchId), sk: BATCH_SK });
const rowKey = (batchId: string, row: number) => ({ pk: batchPk(batchId), sk: rowSk(row) });
const missingBatch = (batchId: string) => new Error(`no batch ${batchId}`);
const missingRow = (batchId: string, row: number) => new Error(`no row ${batchId}:${row}`);

/** An update of an item that must already exist; false when it does not (or `condition` fails). */
const updateExisting = async (
  { doc, TableName }: BatchTable,
  input: {
    Key: Record<string, string>;
    UpdateExpression: string;
    condition?: string;
    names?: Record<string, string>;
    values?: Record<string, unknown>;
    returnNew?: boolean;
  },
): Promise<{ applied: true; item: Record<string, unknown> } | { applied: false }> => {
  try {
    const { Attributes } = await doc.send(
      new UpdateCommand({
        TableName,
        Key: input.Key,
        UpdateExpression: input.UpdateExpression,
        // Without it an update of a missing item would create a partial one.
        ConditionExpression: ['attribute_exists(pk)', input.condition].filter(Boolean).join(' AND '),
        ExpressionAttributeNames: input.names,
        ExpressionAttributeValues: input.values,
        ReturnValues: input.returnNew ? 'ALL_NEW' : 'NONE',
      }),
    );
    return { applied: true, item: Attributes ?? {} };
  } catch (error) {
    if (isConditionFailure(error)) return { applied: false };
    throw error;
  }
};

const getBatch: OnTable<BatchStore['getBatch']> = async ({ doc, TableName }, batchId) => {
  const { Item } = await doc.send(
    new GetCommand({ TableName, Key: batchKey(batchId), ConsistentRead: true }),
  );
  return Item ? fromBatchItem(Item) : null;
};

/** A page cursor: the last item's keys, as the index gave them. Opaque to callers. */
const cursorOf = (key: Record<string, unknown> | undefined): string | null =>
  key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;

const keyOfCursor = (cursor: string): Record<string, unknown> => {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (key && typeof key === 'object' && !Array.isArray(key)) return key as Record<string, unknown>;
  } catch {
    // Reported below, as for any value that is not a cursor.
  }
  throw new RangeError('not a batch page cursor');
};

const listBatches: OnTable<BatchStore['listBatches']> = async ({ doc, TableName, byStartIndex }, page) => {
  const { Items, LastEvaluatedKey } = await doc.send(
    new QueryCommand({
      TableName,
      IndexName: byStartIndex,
      KeyConditionExpression: '#listed = :batch',
      ExpressionAttributeNames: { '#listed': 'listed' },
      ExpressionAttributeValues: { ':batch': LISTED_BATCH },
      ScanIndexForward: false,
      Limit: page.limit,
      ...(page.after ? { ExclusiveStartKey: keyOfCursor(page.after) } : {}),
    }),
  );
  return { batches: (Items ?? []).map(fromBatchItem), next: cursorOf(LastEvaluatedKey) };
};

const getRow: OnTable<BatchStore['getRow']> = async ({ doc, TableName }, batchId, row) => {
  const { Item } = await doc.send(
    new GetCommand({ TableName, Key: rowKey(batchId, row), ConsistentRead: true }),
  );
  return Item ? fromRowItem(Item) : null;
};

const createBatch: OnTable<BatchStore['createBatch']> = async (table, record) => {
  try {
    await table.doc.send(
      new PutCommand({
        TableName: table.TableName,
        Item: toBatchItem(record),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const existing = await getBatch(table, record.batch_id);
  if (!existing) throw new Error(`batch ${record.batch_id} exists yet cannot be read`);
  return { created: false, existing };
};

const updateBatch: OnTable<BatchStore['updateBatch']> = async (table, batchId, patch) => {
  // Guarded at run time too: a cast must not let a patch overwrite the completion state.
  const update = setUpdateOf(patch, ['batch_id', 'complete_shards', 'task_token', 'shards', 'finished']);
  if (!update) {
    if (!(await getBatch(table, batchId))) throw missingBatch(batchId);
    return;
  }
  const result = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: update.UpdateExpression,
    names: update.ExpressionAttributeNames,
    values: update.ExpressionAttributeValues,
  });
  if (!result.applied) throw missingBatch(batchId);
};

const recordStop: OnTable<BatchStore['recordStop']> = async (table, batchId, stop) => {
  const result = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: 'SET #stop = :stop',
    condition: 'attribute_not_exists(#stop)',
    names: { '#stop': 'stop' },
    values: { ':stop': withoutUndefined(BatchStop.parse(stop)) },
    returnNew: true,
  });
  if (result.applied) return BatchStop.parse(result.item.stop);
  // Refused: either a stop was already recorded (report that one) or there is no batch.
  const batch = await getBatch(table, batchId);
  if (!batch) throw missingBatch(batchId);
  if (!batch.stop) throw new Error(`batch ${batchId}: stop refused yet none recorded`);
  return batch.stop;
};

const claimPartialRequest: OnTable<BatchStore['claimPartialRequest']> = async (table, batchId, at) => {
  const result = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: 'SET #requested = :now',
    condition: at.last === null ? 'attribute_not_exists(#requested)' : '#requested = :last',
    names: { '#requested': 'partial_requested_at' },
    values: { ':now': at.now, ...(at.last === null ? {} : { ':last': at.last }) },
    returnNew: false,
  });
  return result.applied;
};

const claimAuditPosition: OnTable<BatchStore['claimAuditPosition']> = async (table, batchId, move) => {
  const result = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: 'SET #audit = :to',
    condition: move.from === null ? 'attribute_not_exists(#audit)' : '#audit.#writes = :writes',
    names: { '#audit': 'audit_through', ...(move.from === null ? {} : { '#writes': 'writes' }) },
    values: { ':to': move.to, ...(move.from === null ? {} : { ':writes': move.from.writes }) },
    returnNew: false,
  });
  return result.applied;
};

const putRows: OnTable<BatchStore['putRows']> = ({ doc, TableName, sleep }, rows) =>
  putAll(
    doc,
    TableName,
    `putRows into ${TableName}`,
    rows.map(toRowItem),
    (item) => `${item.pk} ${item.sk}`,
    sleep,
  );

const moveRow: OnTable<BatchStore['moveRow']> = async (table, batchId, row, move) => {
  const { set, guard, remove } = changeOf(move);
  const update = setUpdateOf(set, ['batch_id', 'row'], remove);
  if (!update) throw new Error(`move ${move.move} of row ${batchId}:${row} sets nothing`);
  const guarded = guardCondition(guard);
  const result = await updateExisting(table, {
    Key: rowKey(batchId, row),
    UpdateExpression: update.UpdateExpression,
    condition: guarded.condition,
    names: { ...update.ExpressionAttributeNames, ...guarded.names },
    values: { ...update.ExpressionAttributeValues, ...guarded.values },
  });
  if (result.applied) return true;
  // Refused: a missing row is a bug upstream; a row the guard refuses has moved on (a late step).
  if (!(await getRow(table, batchId, row))) throw missingRow(batchId, row);
  return false;
};

const listRows: OnTable<BatchStore['listRows']> = async function* ({ doc, TableName }, batchId) {
  const items = queryAll(doc, {
    TableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rows)',
    ExpressionAttributeValues: { ':pk': batchPk(batchId), ':rows': ROW_SK_PREFIX },
    ScanIndexForward: true,
    ConsistentRead: true,
  });
  for await (const item of items) yield fromRowItem(item);
};

/** Rows whose sort key is past `after`'s: `row#` keys are zero-padded, so key order is row order. */
const rowsPage: OnTable<BatchStore['rowsPage']> = async ({ doc, TableName }, batchId, page) => {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > 1_000)
    throw new RangeError(`limit must be an integer in 1..1000, got ${page.limit}`);
  const { Items = [], LastEvaluatedKey } = await doc.send(
    new QueryCommand({
      TableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': batchPk(batchId),
        ':from': rowSk((page.after ?? 0) + 1),
        ':to': `${ROW_SK_PREFIX}~`,
      },
      ScanIndexForward: true,
      ConsistentRead: true,
      Limit: page.limit,
    }),
  );
  const rows = Items.map(fromRowItem);
  // A full page may be the last: the next Query then returns nothing, which is cheaper than counting.
  const next = LastEvaluatedKey && rows.length > 0 ? rows[rows.length - 1]!.row : null;
  return { rows, next };
};

/**
 * Rows past `after` in send order, from the sparse index: a Query a page, eventually consistent
 * (an index cannot be read otherwise), which the window allows for (dispatch/rows-window.ts).
 */
const sendOrderPage: OnTable<BatchStore['sendOrderPage']> = async (
  { doc, TableName, bySendOrderIndex },
  batchId,
  page,
) => {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > 1_000)
    throw new RangeError(`limit must be an integer in 1..1000, got ${page.limit}`);
  const { Items = [], LastEvaluatedKey } = await doc.send(
    new QueryCommand({
      TableName,
      IndexName: bySendOrderIndex,
      KeyConditionExpression: 'pk = :pk AND send_order > :after',
      ExpressionAttributeValues: { ':pk': batchPk(batchId), ':after': page.after },
      ScanIndexForward: true,
      Limit: page.limit,
    }),
  );
  const rows = Items.map((item) => SendOrderRow.parse(withoutKeys(item, KEY_ATTRIBUTES)));
  const next = LastEvaluatedKey && rows.length > 0 ? rows[rows.length - 1]!.send_order : null;
  return { rows, next };
};

const listBacklogs: OnTable<BatchStore['listBacklogs']> = async ({ doc, TableName }) => {
  const { Item } = await doc.send(new GetCommand({ TableName, Key: BACKLOGS_KEY, ConsistentRead: true }));
  const ids = Item?.batch_ids;
  return ids instanceof Set ? [...ids].map(String).sort() : [];
};

const markBacklog: OnTable<BatchStore['markBacklog']> = async ({ doc, TableName }, batchId, open) => {
  await doc.send(
    new UpdateCommand({
      TableName,
      Key: BACKLOGS_KEY,
      UpdateExpression: open ? 'ADD batch_ids :ids' : 'DELETE batch_ids :ids',
      ExpressionAttributeValues: { ':ids': new Set([batchId]) },
    }),
  );
};

/** The window's nested attributes (`queue_window.<field>`), named once for both writes. */
const WINDOW_NAMES = {
  '#window': 'queue_window',
  '#through': 'enqueued_through',
  '#passed': 'passed_through',
  '#until': 'topping_up_until',
};

const claimTopUp: OnTable<BatchStore['claimTopUp']> = async (table, batchId, hold) => {
  const result = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: 'SET #window.#until = :until',
    // ISO times of one format compare as strings do.
    condition:
      '#window.#through = :through AND (attribute_not_exists(#window.#until) OR #window.#until <= :now)',
    names: {
      '#window': WINDOW_NAMES['#window'],
      '#through': WINDOW_NAMES['#through'],
      '#until': WINDOW_NAMES['#until'],
    },
    values: { ':until': hold.until, ':through': hold.enqueuedThrough, ':now': hold.now },
  });
  return result.applied;
};

const advanceWindow: OnTable<BatchStore['advanceWindow']> = async (table, batchId, advance) => {
  const result = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: 'SET #window.#through = :to, #window.#passed = :passed REMOVE #window.#until',
    condition: '#window.#through = :from',
    names: WINDOW_NAMES,
    values: { ':to': advance.to, ':passed': advance.passedThrough, ':from': advance.from },
  });
  return result.applied;
};

const putCompletionShards: OnTable<BatchStore['putCompletionShards']> = async (
  table,
  batchId,
  expected,
  followers = new Map(),
) => {
  const { doc, TableName } = table;
  const followersByShard = new Map<number, Record<string, number>>();
  for (const [row, count] of followers) {
    if (count <= 0) continue;
    const shard = shardOfRow(row);
    followersByShard.set(shard, { ...followersByShard.get(shard), [String(row)]: count });
  }
  for (const [shard, count] of expected) {
    if (!Number.isInteger(shard) || shard < 0 || shard > 9_999)
      throw new RangeError(`shard must be an integer in 0..9999, got ${shard}`);
    // SET, not Put: a retried Prepare must not wipe the rows a shard has already seen finish.
    await doc.send(
      new UpdateCommand({
        TableName,
        Key: { pk: batchPk(batchId), sk: shardSk(shard) },
        UpdateExpression: 'SET expected = :expected, #followers = :followers',
        ExpressionAttributeNames: { '#followers': 'followers' },
        ExpressionAttributeValues: { ':expected': count, ':followers': followersByShard.get(shard) ?? {} },
      }),
    );
  }
  if (expected.size === 0) return;
  const listed = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: 'ADD shards :shards',
    values: { ':shards': new Set(expected.keys()) },
  });
  if (!listed.applied) throw missingBatch(batchId);
};

const shardKey = (batchId: string, shard: number) => ({ pk: batchPk(batchId), sk: shardSk(shard) });

/** An item read whole and consistently, or null. */
const getItem = async ({ doc, TableName }: BatchTable, Key: Record<string, string>) =>
  (await doc.send(new GetCommand({ TableName, Key, ConsistentRead: true }))).Item ?? null;

/**
 * The shard's counts added to the batch item with the shard, once: a repeat (a retried Complete
 * that finds its shard complete) is refused by the condition and reads the batch as it is.
 */
const completeShard = async (
  table: BatchTable,
  batchId: string,
  shard: number,
  counted: FinishedRows,
): Promise<RowDoneResult> => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':shards': new Set([shard]), ':shard': shard };
  const adds = ['complete_shards :shards'];
  const add = (attribute: string, count: number) => {
    if (count <= 0) return;
    const n = adds.length;
    names[`#c${n}`] = attribute;
    values[`:c${n}`] = count;
    adds.push(`#c${n} :c${n}`);
  };
  for (const [status, count] of Object.entries(counted.rows) as [OutputStatus, number][])
    add(COUNTED.rows(status), count);
  for (const [status, count] of Object.entries(counted.followers) as [OutputStatus, number][])
    add(COUNTED.followers(status), count);
  add(COUNTED.billedCents, counted.billed_cents);
  add(COUNTED.valueCents, counted.value_cents);
  const completed = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: `ADD ${adds.join(', ')}`,
    condition: 'NOT contains(complete_shards, :shard)',
    names,
    values,
    returnNew: true,
  });
  if (completed.applied) {
    // Its own write, once a shard: shards complete in any order, and the batch keeps the latest.
    if (counted.last_at)
      await updateExisting(table, {
        Key: batchKey(batchId),
        UpdateExpression: 'SET #last = :last',
        condition: '(attribute_not_exists(#last) OR #last < :last)',
        names: { '#last': COUNTED.lastAt },
        values: { ':last': counted.last_at },
      });
    return doneResultOf(completed.item);
  }
  const batch = await getItem(table, batchKey(batchId));
  if (!batch) throw missingBatch(batchId);
  return doneResultOf(batch);
};

/** One attribute of the row's shard item: the `followers` map's entry for the row. */
const followerCount: OnTable<BatchStore['followerCount']> = async ({ doc, TableName }, batchId, row) => {
  const { Item } = await doc.send(
    new GetCommand({
      TableName,
      Key: shardKey(batchId, shardOfRow(row)),
      ProjectionExpression: '#followers.#row',
      ExpressionAttributeNames: { '#followers': 'followers', '#row': String(row) },
      ConsistentRead: true,
    }),
  );
  const count = (Item?.followers as Record<string, unknown> | undefined)?.[String(row)];
  return typeof count === 'number' ? count : 0;
};

const markRowDone: OnTable<BatchStore['markRowDone']> = async (table, batchId, row, finish) => {
  const shard = shardOfRow(row);
  if (!Number.isInteger(finish.billed_cents) || finish.billed_cents < 0)
    throw new RangeError(`billed_cents must be a whole number of cents, got ${finish.billed_cents}`);
  // The value a verdict covers, only on a row that resolved: in the same write, counted once.
  const valueCents = finish.status === 'resolved' ? (finish.value_cents ?? 0) : 0;
  const value =
    valueCents > 0 ? { names: { '#value': COUNTED.valueCents }, values: { ':value': valueCents } } : null;
  const counted = await updateExisting(table, {
    Key: shardKey(batchId, shard),
    UpdateExpression:
      `ADD done :rows, #led :one, #cents :cents${value ? ', #value :value' : ''} ` +
      'SET #followed = if_not_exists(#followed, :zero) + if_not_exists(#followers.#row, :zero), #last = :at',
    condition: 'NOT contains(done, :row)',
    names: {
      '#led': COUNTED.rows(finish.status),
      '#followed': COUNTED.followers(finish.status),
      '#followers': 'followers',
      '#row': String(row),
      '#cents': COUNTED.billedCents,
      '#last': COUNTED.lastAt,
      ...value?.names,
    },
    values: {
      ':rows': new Set([row]),
      ':row': row,
      ':one': 1,
      ':zero': 0,
      ':cents': finish.billed_cents,
      ':at': finish.at,
      ...value?.values,
    },
    returnNew: true,
  });
  // Refused: the row was counted before (a retry, which counts nothing), or there is no such shard.
  const item = counted.applied ? counted.item : await getItem(table, shardKey(batchId, shard));
  if (!item) throw new Error(`no completion shard ${shard} for batch ${batchId}`);
  if (numbersOf(item.done).length < Number(item.expected ?? 0))
    return { batchComplete: false, taskToken: null };
  return completeShard(table, batchId, shard, finishedOf(item));
};

/** The shards whose rows may have finished and are not rolled up yet: sent, and not complete. */
const openShardsOf = (batch: BatchRecord): number[] => {
  const complete = new Set(batch.complete_shards);
  const window = batch.queue_window;
  // No row past the window's end has had its message: its shard has counted nothing yet. In send
  // order the window's end is a place, not a row: any shard may have counted.
  const lastSent =
    window && window.by !== 'send_order'
      ? window.enqueued_through >= 1
        ? shardOfRow(window.enqueued_through)
        : -1
      : Infinity;
  return (batch.shards ?? []).filter((shard) => !complete.has(shard) && shard <= lastSent);
};

/** Reads of open shards in flight at once. */
const SHARD_READS_IN_FLIGHT = 8;

const finishedRows: OnTable<BatchStore['finishedRows']> = async (table, batch) => {
  const names = Object.fromEntries(COUNT_ATTRIBUTES.map((attribute, i) => [`#c${i}`, attribute]));
  let total = batch.finished ?? FinishedRows.parse({});
  await forEachLimited(openShardsOf(batch), SHARD_READS_IN_FLIGHT, async (shard) => {
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.TableName,
        Key: shardKey(batch.batch_id, shard),
        ConsistentRead: true,
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
      }),
    );
    if (Item) total = addFinished(total, finishedOf(Item));
  });
  return total;
};

const registerWaiter: OnTable<BatchStore['registerWaiter']> = async (table, batchId, taskToken) => {
  const result = await updateExisting(table, {
    Key: batchKey(batchId),
    UpdateExpression: 'SET task_token = :token',
    values: { ':token': taskToken },
    returnNew: true,
  });
  if (!result.applied) throw missingBatch(batchId);
  return doneResultOf(result.item);
};

export const createDynamoBatchStore = (config: DynamoBatchStoreConfig): BatchStore => {
  const table: BatchTable = {
    doc: documentClient(config.client),
    TableName: config.tableName,
    byStartIndex: config.byStartIndex ?? 'by-start',
    bySendOrderIndex: config.bySendOrderIndex ?? 'by-send-order',
    sleep: config.sleep,
  };
  return {
    createBatch: (record) => createBatch(table, record),
    getBatch: (batchId) => getBatch(table, batchId),
    listBatches: (page) => listBatches(table, page),
    updateBatch: (batchId, patch) => updateBatch(table, batchId, patch),
    recordStop: (batchId, stop) => recordStop(table, batchId, stop),
    claimPartialRequest: (batchId, at) => claimPartialRequest(table, batchId, at),
    claimAuditPosition: (batchId, move) => claimAuditPosition(table, batchId, move),
    putRows: (rows) => putRows(table, rows),
    getRow: (batchId, row) => getRow(table, batchId, row),
    moveRow: (batchId, row, move) => moveRow(table, batchId, row, move),
    rowsPage: (batchId, page) => rowsPage(table, batchId, page),
    listRows: (batchId) => listRows(table, batchId),
    sendOrderPage: (batchId, page) => sendOrderPage(table, batchId, page),
    listBacklogs: () => listBacklogs(table),
    markBacklog: (batchId, open) => markBacklog(table, batchId, open),
    claimTopUp: (batchId, hold) => claimTopUp(table, batchId, hold),
    advanceWindow: (batchId, advance) => advanceWindow(table, batchId, advance),
    putCompletionShards: (batchId, expected, followers) =>
      putCompletionShards(table, batchId, expected, followers),
    followerCount: (batchId, row) => followerCount(table, batchId, row),
    markRowDone: (batchId, row, finish) => markRowDone(table, batchId, row, finish),
    finishedRows: (batch) => finishedRows(table, batch),
    registerWaiter: (batchId, taskToken) => registerWaiter(table, batchId, taskToken),
  };
};
