/**
 * In-memory versions of the pipeline's ports, for use-case unit tests. They keep the
 * semantics the use cases rely on (conditional create, idempotent set ADDs, "only if not
 * final", the lease cap), and record what was asked of them so tests can assert it.
 */
import { createHash } from 'node:crypto';
import {
  AuditEvent,
  auditEventKey,
  eventKeyOfMarker,
  type LateEvent,
  type LoggedEvent,
  RECORDED_LATE_AFTER_MS,
} from '../../shared/pipeline/core/audit-records.js';
import { CheckDecision, CheckItem } from '../../shared/pipeline/core/check-records.js';
import { Notice } from '../../shared/pipeline/core/notices.js';
import { isUploadGrant, WriterRecord } from '../../shared/pipeline/core/people.js';
import type {
  AuditLog,
  BatchEvents,
  BatchStore,
  BatchWaiters,
  CheckStore,
  ClassificationService,
  Clock,
  DispatcherKick,
  Notifier,
  ObjectStore,
  PartialResultsRequests,
  ProductCache,
  ReceivedRow,
  ReviewStore,
  RowDoneResult,
  RowQueue,
  RowWorkflows,
  SimWatchStore,
  WriterRecords,
} from '../../shared/pipeline/core/ports.js';
import { MIN_PART_BYTES } from '../../shared/pipeline/core/ports.js';
import {
  BatchRecord,
  CachedVerdict,
  joinedRowName,
  type KickReason,
  PendingClassification,
  ReviewItem,
  type RowExecutionInput,
  RowMessage,
  type RowRecord,
  shardOfRow,
} from '../../shared/pipeline/core/records.js';
import { addFinished, type FinishedRows, NOTHING_FINISHED } from '../../shared/pipeline/core/row-counts.js';
import { afterMove, changeOf, passesGuard } from '../../shared/pipeline/core/row-life.js';
import { SimWatch } from '../../shared/pipeline/core/sim-watch.js';
import type { AcquireResult, Lease, SlotLeases } from '../../shared/pipeline/core/slot-leases.js';
import { bytesSource } from '../../shared/spreadsheet/byte-source.js';

const clone = <T>(value: T): T => structuredClone(value);

const etagOf = (bytes: Uint8Array) => `"${createHash('md5').update(bytes).digest('hex')}"`;

/**
 * The defined members of a patch, copied, without the `protectedFields`: as the DynamoDB
 * adapters' SET expressions are built, where an `undefined` member leaves the stored value as
 * it is and keys (or fields only their own method writes) are never overwritten.
 */
const setFieldsOf = <T extends object>(patch: T, protectedFields: readonly string[]): Partial<T> =>
  Object.fromEntries(
    Object.entries(clone(patch)).filter(
      ([field, value]) => value !== undefined && !protectedFields.includes(field),
    ),
  ) as Partial<T>;

const ascending = (numbers: readonly number[]) => [...new Set(numbers)].sort((a, b) => a - b);

export const fixedClock = (iso = '2026-11-21T12:00:00.000Z') => {
  let now = new Date(iso).getTime();
  const clock: Clock & { advance(ms: number): void; set(iso: string): void } = {
    now: () => new Date(now),
    // Production spans as they are, as on AWS: a test's thresholds read as the policy writes them.
    span: (productionMs) => productionMs,
    advance: (ms) => {
      now += ms;
    },
    set: (value) => {
      now = new Date(value).getTime();
    },
  };
  return clock;
};

/**
 * The bucket in memory. `minPartBytes`: the least size of an upload's part but the last, S3's 5 MiB
 * unless a test writes files in legs at a smaller scale.
 */
export const memoryObjectStore = (
  initial: Record<string, Uint8Array | string> = {},
  { minPartBytes = MIN_PART_BYTES }: { minPartBytes?: number } = {},
) => {
  const objects = new Map<
    string,
    { bytes: Uint8Array; contentType: string; version: number; metadata?: Record<string, string> }
  >();
  let versions = 0;
  type OpenUpload = {
    key: string;
    contentType: string;
    parts: Map<number, { bytes: Uint8Array; etag: string }>;
  };
  const uploads = new Map<string, OpenUpload>();
  const completed: string[] = [];
  let uploadIds = 0;
  const openUpload = (key: string, uploadId: string): OpenUpload => {
    const upload = uploads.get(uploadId);
    if (!upload || upload.key !== key)
      throw Object.assign(new Error(`NoSuchUpload: ${uploadId}`), { name: 'NoSuchUpload' });
    return upload;
  };
  const toBytes = (body: Uint8Array | string) =>
    typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
  for (const [key, body] of Object.entries(initial))
    objects.set(key, { bytes: toBytes(body), contentType: 'application/octet-stream', version: ++versions });

  const store: ObjectStore & {
    objects: typeof objects;
    /** Uploads started and not completed, by id. */
    uploads: typeof uploads;
    /** Keys whose upload in parts completed, in order. */
    completed: string[];
    text(key: string): string | undefined;
    set(key: string, body: Uint8Array | string): void;
  } = {
    objects,
    text: (key) => {
      const found = objects.get(key);
      return found ? new TextDecoder().decode(found.bytes) : undefined;
    },
    set: (key, body) => {
      objects.set(key, {
        bytes: toBytes(body),
        contentType: 'application/octet-stream',
        version: ++versions,
      });
    },
    head: async (key) => {
      const found = objects.get(key);
      // S3's ETag of an object put in one part: the MD5 of its bytes, in quotes.
      if (!found) return null;
      const head = { size: found.bytes.byteLength, etag: etagOf(found.bytes), versionId: null };
      return found.metadata ? { ...head, metadata: { ...found.metadata } } : head;
    },
    getBytes: async (key) => {
      const found = objects.get(key);
      return found ? new Uint8Array(found.bytes) : null;
    },
    getPrefix: async (key, length) => {
      const found = objects.get(key);
      return found ? found.bytes.slice(0, length) : null;
    },
    // Small chunks, so every file of a test crosses chunk boundaries as a large one does on S3.
    source: async (key) => {
      const found = objects.get(key);
      return found ? bytesSource(new Uint8Array(found.bytes), 4096) : null;
    },
    put: async (key, body, contentType, metadata) => {
      let bytes: Uint8Array;
      if (typeof body === 'string' || body instanceof Uint8Array) bytes = toBytes(body);
      else {
        const chunks: Buffer[] = [];
        for await (const chunk of body as AsyncIterable<Buffer | string>)
          chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        bytes = new Uint8Array(Buffer.concat(chunks));
      }
      objects.set(key, {
        bytes,
        contentType,
        version: ++versions,
        ...(metadata && Object.keys(metadata).length > 0 ? { metadata: { ...metadata } } : {}),
      });
      return { etag: etagOf(bytes).replace(/"/g, ''), versionId: null };
    },
    copy: async (fromKey, toKey) => {
      const found = objects.get(fromKey);
      if (!found) throw new Error(`NoSuchKey: ${fromKey}`);
      objects.set(toKey, { ...found, version: ++versions });
    },
    copyIfUnchanged: async (fromKey, toKey, expected) => {
      const found = objects.get(fromKey);
      if (!found) throw new Error(`NoSuchKey: ${fromKey}`);
      const target = objects.get(toKey);
      if ((target ? etagOf(target.bytes) : null) !== expected) return false;
      objects.set(toKey, { ...found, version: ++versions });
      return true;
    },
    list: async (prefix) => [...objects.keys()].filter((key) => key.startsWith(prefix)).sort(),
    startUpload: async (key, contentType) => {
      const id = `upload-${++uploadIds}`;
      uploads.set(id, { key, contentType, parts: new Map() });
      return id;
    },
    uploadPart: async (key, uploadId, partNumber, bytes) => {
      const upload = openUpload(key, uploadId);
      const etag = etagOf(bytes);
      upload.parts.set(partNumber, { bytes: new Uint8Array(bytes), etag });
      return etag;
    },
    // As S3's UploadPartCopy: the source's first bytes, as they are when the part is made.
    copyPart: async (key, uploadId, partNumber, from) => {
      const upload = openUpload(key, uploadId);
      const source = objects.get(from.key);
      if (!source) throw new Error(`NoSuchKey: ${from.key}`);
      if (from.bytes > source.bytes.byteLength)
        throw new Error(
          `InvalidRange: ${from.bytes} bytes of ${from.key}, which holds ${source.bytes.byteLength}`,
        );
      const bytes = source.bytes.slice(0, from.bytes);
      const etag = etagOf(bytes);
      upload.parts.set(partNumber, { bytes, etag });
      return etag;
    },
    // As S3 does: the parts named, in order, each as sent; a part under the least size but the last refused.
    completeUpload: async (key, uploadId, parts) => {
      const upload = openUpload(key, uploadId);
      const chosen = parts.map((part, i) => {
        const sent = upload.parts.get(part.number);
        if (!sent || sent.etag !== part.etag) throw new Error(`InvalidPart: part ${part.number} of ${key}`);
        if (i < parts.length - 1 && sent.bytes.byteLength < minPartBytes)
          throw new Error(
            `EntityTooSmall: part ${part.number} of ${key} holds ${sent.bytes.byteLength} bytes`,
          );
        if (i > 0 && part.number <= parts[i - 1]!.number) throw new Error(`InvalidPartOrder: ${key}`);
        return sent.bytes;
      });
      objects.set(key, {
        bytes: new Uint8Array(Buffer.concat(chosen)),
        contentType: upload.contentType,
        version: ++versions,
      });
      uploads.delete(uploadId);
      completed.push(key);
    },
    uploads,
    completed,
  };
  return store;
};

export const memoryRowQueue = (clock: Clock) => {
  type Entry = { id: number; message: RowMessage; visibleAt: number; receiveCount: number; receipt?: string };
  const entries: Entry[] = [];
  let ids = 0;
  const sent: { message: RowMessage; delaySeconds: number }[] = [];
  const queue: RowQueue & { entries: Entry[]; sent: typeof sent; visible(): RowMessage[] } = {
    entries,
    sent,
    visible: () =>
      entries.filter((entry) => entry.visibleAt <= clock.now().getTime()).map((entry) => entry.message),
    // As the SQS adapter: every message and delay is checked before any is sent.
    send: async (messages) => {
      const checked = messages.map(({ message, delaySeconds = 0 }) => {
        if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > 900)
          throw new RangeError(`delaySeconds must be an integer in 0..900, got ${delaySeconds}`);
        return { message: RowMessage.parse(message), delaySeconds };
      });
      for (const { message, delaySeconds } of checked) {
        sent.push({ message: clone(message), delaySeconds });
        entries.push({
          id: ++ids,
          message: clone(message),
          visibleAt: clock.now().getTime() + delaySeconds * 1000,
          receiveCount: 0,
        });
      }
    },
    receive: async (max) => {
      if (!Number.isInteger(max) || max < 1 || max > 10)
        throw new RangeError(`max must be an integer in 1..10, got ${max}`);
      const now = clock.now().getTime();
      const received: ReceivedRow[] = [];
      for (const entry of entries) {
        if (received.length >= max) break;
        if (entry.visibleAt > now) continue;
        entry.receiveCount += 1;
        entry.visibleAt = now + 30_000;
        entry.receipt = `r-${entry.id}-${entry.receiveCount}`;
        received.push({
          message: clone(entry.message),
          receipt: entry.receipt,
          receiveCount: entry.receiveCount,
        });
      }
      return received;
    },
    delete: async (receipt) => {
      const index = entries.findIndex((entry) => entry.receipt === receipt);
      if (index >= 0) entries.splice(index, 1);
    },
  };
  return queue;
};

/**
 * DynamoDB refuses an item over 400 KB (names and values in UTF-8); the batch table in memory
 * refuses one the same way, measured as its JSON, a little over what DynamoDB counts.
 */
export const DYNAMODB_ITEM_MAX_BYTES = 400 * 1024;
const refuseOversizedItem = (record: RowRecord): void => {
  const bytes = Buffer.byteLength(JSON.stringify(record), 'utf8');
  if (bytes > DYNAMODB_ITEM_MAX_BYTES)
    throw Object.assign(
      new Error(`Item size has exceeded the maximum allowed size (row ${record.row}: ${bytes} bytes)`),
      { name: 'ValidationException' },
    );
};

export const memoryBatchStore = () => {
  const batches = new Map<string, BatchRecord>();
  const rows = new Map<string, RowRecord>();
  const shards = new Map<string, { expected: number; done: Set<number> }>();
  /** Each shard's followers by row, and its counts (the shard item's `followers` and `done_…`). */
  const shardFollowers = new Map<string, Map<number, number>>();
  const shardCounts = new Map<string, FinishedRows>();
  /** The batches with a backlog: one item's string set in DynamoDB. */
  const backlogs = new Set<string>();
  const rowId = (batchId: string, row: number) => `${batchId}#${row}`;

  const doneResult = (batch: BatchRecord): RowDoneResult => {
    const complete = batch.complete_shards.length >= batch.shard_count;
    return { batchComplete: complete, taskToken: complete ? (batch.task_token ?? null) : null };
  };

  const mustGetBatch = (batchId: string) => {
    const batch = batches.get(batchId);
    if (!batch) throw new Error(`no batch ${batchId}`);
    return batch;
  };

  const store: BatchStore & {
    batches: typeof batches;
    rows: typeof rows;
    shards: typeof shards;
    backlogs: typeof backlogs;
    placeRow: (batchId: string, row: number, fields: Partial<Omit<RowRecord, 'batch_id' | 'row'>>) => void;
  } = {
    batches,
    rows,
    shards,
    backlogs,
    /**
     * Not a port method: puts a row where a test needs it, as if earlier steps had moved it there
     * (a row already final, one claimed by a dispatcher that died).
     */
    placeRow: (batchId, row, fields) => {
      const record = rows.get(rowId(batchId, row));
      if (!record) throw new Error(`no row ${batchId}:${row}`);
      rows.set(rowId(batchId, row), { ...record, ...setFieldsOf(fields, ['batch_id', 'row']) });
    },
    createBatch: async (record) => {
      const existing = batches.get(record.batch_id);
      if (existing) return { created: false, existing: clone(existing) };
      // A number set in DynamoDB: read back ascending, each shard once.
      // `finished` is only ever added to, by markRowDone: a new batch has counted nothing.
      const { finished: _counted, ...written } = clone(record);
      batches.set(record.batch_id, {
        ...written,
        complete_shards: ascending(record.complete_shards),
        ...(record.shards ? { shards: ascending(record.shards) } : {}),
      });
      return { created: true };
    },
    getBatch: async (batchId) => clone(batches.get(batchId) ?? null),
    listBatches: async ({ limit, after }) => {
      // Newest first, as the index orders them; the cursor is the last batch's place.
      const placeOf = (batch: BatchRecord) => `${batch.started_at}|${batch.batch_id}`;
      if (after && !/^[^|]+\|[^|]+$/.test(after)) throw new RangeError('not a batch page cursor');
      const listed = [...batches.values()]
        .filter((batch) => batch.round_of === undefined)
        .sort((a, b) => placeOf(b).localeCompare(placeOf(a)))
        .filter((batch) => !after || placeOf(batch) < after);
      const page = listed.slice(0, limit);
      return { batches: page.map(clone), next: listed.length > limit ? placeOf(page.at(-1)!) : null };
    },
    updateBatch: async (batchId, patch) => {
      const batch = mustGetBatch(batchId);
      batches.set(batchId, {
        ...batch,
        ...setFieldsOf(patch, ['batch_id', 'complete_shards', 'task_token', 'shards', 'finished']),
      });
    },
    recordStop: async (batchId, stop) => {
      const batch = mustGetBatch(batchId);
      if (!batch.stop) batch.stop = clone(stop);
      return clone(batch.stop);
    },
    claimPartialRequest: async (batchId, at) => {
      const batch = mustGetBatch(batchId);
      if ((batch.partial_requested_at ?? null) !== at.last) return false;
      batch.partial_requested_at = at.now;
      return true;
    },
    claimAuditPosition: async (batchId, move) => {
      const batch = mustGetBatch(batchId);
      if ((batch.audit_through?.writes ?? null) !== (move.from?.writes ?? null)) return false;
      batch.audit_through = clone(move.to);
      return true;
    },
    putRows: async (records) => {
      for (const record of records) refuseOversizedItem(record);
      for (const record of records) rows.set(rowId(record.batch_id, record.row), clone(record));
    },
    getRow: async (batchId, row) => clone(rows.get(rowId(batchId, row)) ?? null),
    moveRow: async (batchId, row, move) => {
      const record = rows.get(rowId(batchId, row));
      if (!record) throw new Error(`no row ${batchId}:${row}`);
      if (!passesGuard(record, changeOf(move).guard)) return false;
      const moved = afterMove(record, move);
      refuseOversizedItem(moved);
      rows.set(rowId(batchId, row), clone(moved));
      return true;
    },
    rowsPage: async (batchId, page) => {
      const after = page.after ?? 0;
      const found = [...rows.values()]
        .filter((record) => record.batch_id === batchId && record.row > after)
        .sort((a, b) => a.row - b.row);
      const taken = found.slice(0, page.limit).map(clone);
      return { rows: taken, next: found.length > page.limit ? taken[taken.length - 1]!.row : null };
    },
    sendOrderPage: async (batchId, page) => {
      const found = [...rows.values()]
        .filter((record) => record.batch_id === batchId && (record.send_order ?? 0) > page.after)
        .sort((a, b) => a.send_order! - b.send_order!);
      const taken = found.slice(0, page.limit).map((record) => ({
        row: record.row,
        status: record.status,
        ...(record.round ? { round: clone(record.round) } : {}),
        attempt: record.attempt,
        dispatch: record.dispatch,
        send_order: record.send_order!,
      }));
      return { rows: taken, next: found.length > page.limit ? taken[taken.length - 1]!.send_order : null };
    },
    listRows: async function* (batchId) {
      const found = [...rows.values()].filter((record) => record.batch_id === batchId);
      found.sort((a, b) => a.row - b.row);
      for (const record of found) yield clone(record);
    },
    listBacklogs: async () => [...backlogs].sort(),
    markBacklog: async (batchId, open) => {
      if (open) backlogs.add(batchId);
      else backlogs.delete(batchId);
    },
    claimTopUp: async (batchId, hold) => {
      const window = batches.get(batchId)?.queue_window;
      if (!window || window.enqueued_through !== hold.enqueuedThrough) return false;
      if (window.topping_up_until !== undefined && window.topping_up_until > hold.now) return false;
      window.topping_up_until = hold.until;
      return true;
    },
    advanceWindow: async (batchId, advance) => {
      const batch = batches.get(batchId);
      const window = batch?.queue_window;
      if (!batch || !window || window.enqueued_through !== advance.from) return false;
      // As the table's update does: both cursors set and the hold removed, the rest kept.
      const { topping_up_until: _hold, ...kept } = window;
      batch.queue_window = { ...kept, enqueued_through: advance.to, passed_through: advance.passedThrough };
      return true;
    },
    putCompletionShards: async (batchId, expected, followers = new Map()) => {
      const batch = mustGetBatch(batchId);
      // A retried Prepare sets `expected` again but keeps the rows a shard has already seen finish.
      for (const [shard, count] of expected) {
        const id = `${batchId}#${shard}`;
        shards.set(id, { expected: count, done: shards.get(id)?.done ?? new Set() });
        shardFollowers.set(
          id,
          new Map([...followers].filter(([row, n]) => shardOfRow(row) === shard && n > 0)),
        );
      }
      if (expected.size > 0) batch.shards = ascending([...(batch.shards ?? []), ...expected.keys()]);
    },
    followerCount: async (batchId, row) => shardFollowers.get(`${batchId}#${shardOfRow(row)}`)?.get(row) ?? 0,
    markRowDone: async (batchId, row, finish) => {
      const shardNo = shardOfRow(row);
      const id = `${batchId}#${shardNo}`;
      const shard = shards.get(id);
      if (!shard) throw new Error(`no completion shard ${shardNo} for batch ${batchId}`);
      if (!Number.isInteger(finish.billed_cents) || finish.billed_cents < 0)
        throw new RangeError(`billed_cents must be a whole number of cents, got ${finish.billed_cents}`);
      // Counted with the row's first ADD only, as the adapter's condition does.
      if (!shard.done.has(row)) {
        shard.done.add(row);
        const followed = shardFollowers.get(id)?.get(row) ?? 0;
        shardCounts.set(
          id,
          addFinished(shardCounts.get(id) ?? NOTHING_FINISHED, {
            rows: { [finish.status]: 1 },
            followers: followed > 0 ? { [finish.status]: followed } : {},
            billed_cents: finish.billed_cents,
            value_cents: finish.status === 'resolved' ? (finish.value_cents ?? 0) : 0,
            last_at: finish.at,
          }),
        );
      }
      // While its shard is incomplete a row cannot be the batch's last: the batch is not read.
      if (shard.done.size < shard.expected) return { batchComplete: false, taskToken: null };
      const batch = mustGetBatch(batchId);
      if (!batch.complete_shards.includes(shardNo)) {
        batch.complete_shards = ascending([...batch.complete_shards, shardNo]);
        batch.finished = addFinished(
          batch.finished ?? NOTHING_FINISHED,
          shardCounts.get(id) ?? NOTHING_FINISHED,
        );
      }
      return doneResult(batch);
    },
    finishedRows: async (batch) => {
      const complete = new Set(batch.complete_shards);
      let total = clone(batch.finished ?? NOTHING_FINISHED);
      for (const shardNo of batch.shards ?? []) {
        const counted = shardCounts.get(`${batch.batch_id}#${shardNo}`);
        if (counted && !complete.has(shardNo)) total = addFinished(total, counted);
      }
      return total;
    },
    registerWaiter: async (batchId, taskToken) => {
      const batch = mustGetBatch(batchId);
      batch.task_token = taskToken;
      return doneResult(batch);
    },
  };
  return store;
};

export const memoryReviewStore = () => {
  const items = new Map<string, ReviewItem>();
  /** Rows of later batches that joined a classification, by `<batch_id>#<row>`: the index `join` writes. */
  const joins = new Map<string, { batch_id: string; row: number; joins: string }>();
  const store: ReviewStore & { items: typeof items; joins: typeof joins } = {
    items,
    joins,
    // Parsed on the way in, as the adapter does: a malformed item is refused, not stored.
    put: async (item) => {
      const { owner: _owner, ...parsed } = ReviewItem.parse(item);
      items.set(parsed.classification_id, parsed);
    },
    get: async (id) => clone(items.get(id) ?? null),
    listByBatch: async (batchId) => {
      const own = [...items.values()].filter((item) => item.batch_id === batchId).map(clone);
      const joined = [...joins.values()].flatMap((join) => {
        const target = items.get(join.joins);
        if (join.batch_id !== batchId || !target) return [];
        const owner = { batch_id: target.batch_id, row: target.row };
        return [{ ...clone(target), batch_id: join.batch_id, row: join.row, owner }];
      });
      return [...own, ...joined].sort((a, b) => a.row - b.row);
    },
    join: async (id, rows, at) => {
      const item = items.get(id);
      if (item?.state !== 'pending' || !(item.abandons_at > at)) return false;
      const names = rows.map(joinedRowName);
      items.set(id, { ...item, joined: [...new Set([...(item.joined ?? []), ...names])].sort() });
      for (const row of rows)
        joins.set(joinedRowName(row), { batch_id: row.batch_id, row: row.row, joins: id });
      return true;
    },
    listPending: async () => [...items.values()].filter((item) => item.state === 'pending').map(clone),
    update: async (id, patch) => {
      const item = items.get(id);
      if (!item) throw new Error(`no review item ${id}`);
      items.set(id, { ...item, ...setFieldsOf(patch, ['classification_id', 'joined', 'owner']) });
    },
  };
  return store;
};

/** Verdicts to check, by `<batch_id>#<row>`, parsed on the way in as the adapter does. */
export const memoryCheckStore = () => {
  const items = new Map<string, CheckItem>();
  const keyOf = (batchId: string, row: number) => `${batchId}#${row}`;
  const store: CheckStore & { items: typeof items } = {
    items,
    create: async (item) => {
      const parsed = CheckItem.parse(item);
      const key = keyOf(parsed.batch_id, parsed.row);
      if (items.has(key)) return false;
      items.set(key, parsed);
      return true;
    },
    get: async (batchId, row) => clone(items.get(keyOf(batchId, row)) ?? null),
    listByBatch: async (batchId) =>
      [...items.values()]
        .filter((item) => item.batch_id === batchId)
        .sort((a, b) => a.row - b.row)
        .map(clone),
    listOpen: async () =>
      [...items.values()]
        .filter((item) => item.state === 'to_check')
        .sort((a, b) => a.batch_id.localeCompare(b.batch_id) || a.row - b.row)
        .map(clone),
    decide: async (batchId, row, decision) => {
      const item = items.get(keyOf(batchId, row));
      if (item?.state !== 'to_check') return false;
      items.set(keyOf(batchId, row), { ...item, state: 'decided', decision: CheckDecision.parse(decision) });
      return true;
    },
    offerSimOptions: async (batchId, row, offer) => {
      const item = items.get(keyOf(batchId, row));
      if (item?.state !== 'to_check') return false;
      items.set(keyOf(batchId, row), CheckItem.parse({ ...item, ...offer }));
      return true;
    },
  };
  return store;
};

/** SIM watches by `<batch_id>#<row>`, parsed on the way in as the adapter does. */
export const memorySimWatchStore = () => {
  const watches = new Map<string, SimWatch>();
  const keyOf = (batchId: string, row: number) => `${batchId}#${row}`;
  const store: SimWatchStore & { watches: typeof watches } = {
    watches,
    put: async (watch) => {
      const parsed = SimWatch.parse(watch);
      const key = keyOf(parsed.batch_id, parsed.row);
      if (watches.has(key)) return false;
      watches.set(key, parsed);
      return true;
    },
    listOpen: async () =>
      [...watches.values()]
        .filter((watch) => watch.state === 'open')
        .sort((a, b) => a.batch_id.localeCompare(b.batch_id) || a.row - b.row)
        .map(clone),
    settle: async (batchId, row, settled) => {
      const watch = watches.get(keyOf(batchId, row));
      if (watch?.state !== 'open') return;
      watches.set(keyOf(batchId, row), {
        ...watch,
        state: 'settled',
        settled_at: settled.at,
        outcome: settled.outcome,
      });
    },
  };
  return store;
};

/** The topic of notices: what was published, in order. */
export const memoryNotifier = () => {
  const published: Notice[] = [];
  const notifier: Notifier = {
    publish: async (notice) => {
      published.push(Notice.parse(notice));
    },
  };
  return { ...notifier, published };
};

/** Writer records by object key, found by ETag or version as the review table's adapter finds them. */
export const memoryWriterRecords = () => {
  const records: WriterRecord[] = [];
  const store: WriterRecords = {
    record: async (writer) => {
      records.push(WriterRecord.parse(writer));
    },
    find: async (object) =>
      records.filter(
        (record) =>
          record.key === object.key &&
          ((object.etag !== null && record.etag === object.etag) ||
            (object.versionId !== null && record.version_id === object.versionId) ||
            isUploadGrant(record)),
      ),
  };
  return { ...store, records };
};

/**
 * Audit events by batch, each under its key, read back in key order as the adapter does; one
 * recorded late (by `now`, when given) is put on the batch's late list too, as
 * shared/aws/dynamo-audit-log.ts does. Without `now`, no event is late.
 */
export const memoryAuditLog = (now?: () => Date) => {
  type Stored = AuditEvent & { late?: string; late_written?: true };
  const events = new Map<string, Map<string, Stored>>();
  /** Late markers by batch: marker → event. */
  const markers = new Map<string, Map<string, AuditEvent>>();
  const byKey = <T>(map: Map<string, T> | undefined) =>
    [...(map ?? new Map<string, T>()).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const batchOf = <T>(all: Map<string, Map<string, T>>, batchId: string) => {
    const found = all.get(batchId) ?? new Map<string, T>();
    all.set(batchId, found);
    return found;
  };
  const withoutLate = ({ late: _late, late_written: _written, ...event }: Stored): AuditEvent => clone(event);
  const log: AuditLog & {
    events: typeof events;
    markers: typeof markers;
    all(batchId: string): AuditEvent[];
  } = {
    events,
    markers,
    record: async (recorded) => {
      const lateBefore = now ? now().getTime() - RECORDED_LATE_AFTER_MS : Number.NEGATIVE_INFINITY;
      for (const event of recorded) {
        const parsed = AuditEvent.parse(event);
        const batch = batchOf(events, parsed.batch_id);
        const key = auditEventKey(parsed);
        if (Date.parse(parsed.at) >= lateBefore) {
          batch.set(key, parsed);
          continue;
        }
        const marker = `${now!().toISOString()}#${key}`;
        batchOf(markers, parsed.batch_id).set(marker, parsed);
        if (!batch.has(key)) batch.set(key, { ...parsed, late: marker });
      }
    },
    page: async (batchId, from) =>
      byKey(events.get(batchId))
        .filter(([key]) => from.after === null || key > from.after)
        .slice(0, from.limit)
        .map(
          ([, stored]): LoggedEvent =>
            stored.late ? { ...withoutLate(stored), late: true } : withoutLate(stored),
        ),
    pendingLate: async (batchId, limit) => {
      const pending: LateEvent[] = [];
      for (const [marker, event] of byKey(markers.get(batchId))) {
        if (pending.length >= limit) break;
        const stored = batchOf(events, batchId).get(eventKeyOfMarker(marker));
        if (!stored) batchOf(events, batchId).set(eventKeyOfMarker(marker), { ...event, late: marker });
        const own = batchOf(events, batchId).get(eventKeyOfMarker(marker))!;
        if (own.late === marker && !own.late_written) pending.push({ marker, event: clone(event) });
        else markers.get(batchId)?.delete(marker);
      }
      return pending;
    },
    settleLate: async (batchId, settled) => {
      for (const marker of settled) {
        const stored = events.get(batchId)?.get(eventKeyOfMarker(marker));
        if (stored?.late === marker) stored.late_written = true;
        markers.get(batchId)?.delete(marker);
      }
    },
    all: (batchId) => byKey(events.get(batchId)).map(([, stored]) => withoutLate(stored)),
  };
  return log;
};

export const memoryProductCache = () => {
  const entries = new Map<string, CachedVerdict>();
  const pending = new Map<string, PendingClassification>();
  const cache: ProductCache & { entries: typeof entries; pending: typeof pending } = {
    entries,
    pending,
    getPending: async (keys) => {
      const found = new Map<string, PendingClassification>();
      for (const key of keys) {
        const entry = pending.get(key);
        if (entry) found.set(key, clone(entry));
      }
      return found;
    },
    putPending: async (entry) => {
      const parsed = PendingClassification.parse(entry);
      pending.set(parsed.product_key, parsed);
    },
    getMany: async (keys) => {
      const found = new Map<string, CachedVerdict>();
      for (const key of keys) {
        const entry = entries.get(key);
        if (entry) found.set(key, clone(entry));
      }
      return found;
    },
    // Parsed on the way in, as the adapter does: a malformed verdict is refused, not stored.
    put: async (verdict) => {
      const parsed = CachedVerdict.parse(verdict);
      entries.set(parsed.product_key, parsed);
    },
    // In key order, pages of `pageSize` (100 by default), each saying where the next begins.
    scanVerdicts: async function* (from = {}) {
      const keys = [...entries.keys()].sort().filter((key) => !from.after || key > from.after);
      const size = from.pageSize ?? 100;
      let start = 0;
      do {
        const page = keys.slice(start, start + size);
        start += size;
        const more = start < keys.length;
        yield { verdicts: page.map((key) => clone(entries.get(key)!)), after: more ? page.at(-1)! : null };
      } while (start < keys.length);
    },
  };
  return cache;
};

/** The lease semantics of `createDynamoSlotLeases`, in memory. */
export const memorySlotLeases = () => {
  const holders = new Map<string, number>();
  const leases: SlotLeases & { holders: typeof holders } = {
    holders,
    acquire: async ({ holder, cap, ttlMs, now }): Promise<AcquireResult> => {
      if (holders.has(holder)) {
        holders.set(holder, now + ttlMs);
        return { acquired: true, alreadyHeld: true, inUse: holders.size };
      }
      const recovered: string[] = [];
      if (holders.size >= cap) {
        for (const [other, expiresAt] of holders)
          if (expiresAt <= now) {
            holders.delete(other);
            recovered.push(other);
          }
      }
      if (holders.size >= cap) return { acquired: false, inUse: holders.size, recovered };
      holders.set(holder, now + ttlMs);
      return { acquired: true, alreadyHeld: false, inUse: holders.size };
    },
    renew: async ({ holder, ttlMs, now }) => {
      if (!holders.has(holder)) return false;
      holders.set(holder, now + ttlMs);
      return true;
    },
    release: async (holder) => holders.delete(holder),
    list: async (): Promise<Lease[]> => [...holders].map(([holder, expiresAt]) => ({ holder, expiresAt })),
    recoverExpired: async (now) => {
      const recovered: string[] = [];
      for (const [holder, expiresAt] of holders)
        if (expiresAt <= now) {
          holders.delete(holder);
          recovered.push(holder);
        }
      return recovered;
    },
  };
  return leases;
};

export const memoryRowWorkflows = () => {
  const started = new Map<string, RowExecutionInput>();
  const workflows: RowWorkflows & { started: typeof started } = {
    started,
    start: async (name, input) => {
      if (started.has(name)) return 'already_started';
      started.set(name, clone(input));
      return 'started';
    },
  };
  return workflows;
};

export const memoryBatchWaiters = () => {
  const woken: { taskToken: string; output: { batch_id: string } }[] = [];
  const waiters: BatchWaiters & { woken: typeof woken } = {
    woken,
    wake: async (taskToken, output) => {
      if (!woken.some((entry) => entry.taskToken === taskToken)) woken.push({ taskToken, output });
    },
  };
  return waiters;
};

export const memoryBatchEvents = () => {
  const published: Record<string, unknown>[] = [];
  const events: BatchEvents & { published: typeof published } = {
    published,
    batchCompleted: async (summary) => {
      published.push(clone(summary));
    },
  };
  return events;
};

/** Records each batch whose partial results were asked for. */
export const recordingPartials = () => {
  const partials: PartialResultsRequests & { requested: string[] } = {
    requested: [],
    request: async (batchId) => {
      partials.requested.push(batchId);
    },
  };
  return partials;
};

/**
 * The service as Prepare asks it, for `countries` (the codes `GET /countries` answers) and a
 * balance with 3 of the organisation's 10 slots in use; counts the countries calls.
 */
export const preparingService = (countries: Iterable<string>) => {
  let countryCalls = 0;
  const service = {
    listCountries: async () => {
      countryCalls += 1;
      return [...countries].map((code) => ({ code, name: code, mercosur: false }));
    },
    getBalance: async () => ({
      balance_credits: 0,
      in_progress_count: 3,
      concurrency_limit: 10,
      plan_tier: 'profesional',
      api_available: true,
    }),
  } as unknown as ClassificationService;
  return { service, countryCalls: () => countryCalls };
};

export const countingKick = () => {
  const kick: DispatcherKick & { count: number; reasons: KickReason[] } = {
    count: 0,
    reasons: [],
    kick: async (reason) => {
      kick.count += 1;
      kick.reasons.push(reason);
    },
  };
  return kick;
};

/**
 * An answers round as PrepareAnswers leaves it running, before its rows: the round record (a
 * BatchRecord with `round_of`), one completion shard for `rows` rows, the workflow's task token.
 * The rows themselves are the caller's to take into the round.
 */
export const openRound = async (
  batches: BatchStore,
  round: { batchId: string; roundId: string; rows: number; taskToken: string; fileName: string; now: Date },
): Promise<void> => {
  await batches.createBatch(
    BatchRecord.parse({
      batch_id: round.roundId,
      name: 'nightly',
      source: {
        bucket: 'b',
        key: `answers/${round.batchId}/${round.fileName}`,
        version_or_etag: 'e2',
        folder: `answers/${round.batchId}/`,
        file_name: round.fileName,
      },
      execution_id: `exec-answers-${round.roundId}`,
      state: 'running',
      rows_total: round.rows,
      rows_dispatched: round.rows,
      shard_count: 1,
      round_of: round.batchId,
      started_at: round.now.toISOString(),
    }),
  );
  await batches.putCompletionShards(round.roundId, new Map([[0, round.rows]]));
  await batches.registerWaiter(round.roundId, round.taskToken);
};

/**
 * Every port a batch's workflow takes, in memory, with `files` in the bucket and a service that
 * answers `countries` at a cap of 10 with none in use, and every NCM's SIM openings as the
 * registry's `<ncm>01` and `<ncm>02` ("Destaque 01", "Destaque 02"): where a Prepare or Finalize
 * test starts.
 */
export const memoryPipelinePorts = (
  files: Record<string, Uint8Array | string>,
  countries: Iterable<string>,
  objectOptions: { minPartBytes?: number } = {},
) => {
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  return {
    clock,
    service: {
      listCountries: async () => [...countries].map((code) => ({ code, name: code, mercosur: false })),
      getBalance: async () => ({ concurrency_limit: 10, in_progress_count: 0 }),
      getSimOpenings: async ({ ncm, operation }: { ncm: string; operation: string }) => ({
        ncm,
        operation,
        status: 'available',
        openings: ['01', '02'].map((n) => ({ code: `${ncm}${n}`, description: `Destaque ${n}` })),
        verified_at: '2026-11-20T12:00:00.000Z',
      }),
    } as unknown as ClassificationService,
    objects: memoryObjectStore(files, objectOptions),
    queue: memoryRowQueue(clock),
    batches: memoryBatchStore(),
    cache: memoryProductCache(),
    kick: countingKick(),
    reviews: memoryReviewStore(),
    checks: memoryCheckStore(),
    simWatches: memorySimWatchStore(),
    writers: memoryWriterRecords(),
    notifier: memoryNotifier(),
    audit: memoryAuditLog(() => clock.now()),
    events: memoryBatchEvents(),
    waiters: memoryBatchWaiters(),
  };
};

/** A file of a batch's outbox, as bytes; one not written is an error naming it. */
export const outboxFile =
  (objects: ReturnType<typeof memoryObjectStore>, batchId: string) =>
  (name: string): Buffer => {
    const stored = objects.objects.get(`outbox/${batchId}/${name}`);
    if (!stored) throw new Error(`${name} was not written`);
    return Buffer.from(stored.bytes);
  };
