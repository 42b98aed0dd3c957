/**
 * The outbox's audit.csv (docs/answers-round.md, "audit.csv"): every event of a batch's rows, with who,
 * when and the classification, in a file that only grows. Finalize writes it first; every
 * FinalizeAnswers after (a round, the daily sweep) adds the events recorded since. Each write is a
 * new object whose bytes start with the old file's exactly: its first part copied in the bucket
 * when the old file is at least a part's size (`copyPart`), else read back and sent again.
 *
 *   first write   BOM, header; what Prepare made of each row, in row order (`preparedEvents`, told
 *                 from the rows); then the audit log from its start, in key order (time, row, kind)
 *   a later one   the log again from 3 hours before the last key written (`AUDIT_LOOKBACK_MS`):
 *                 an event the last write did not hold (recorded late, by a slow or retried step)
 *                 is added, one it held is not; then every event after it
 *   then          the events recorded late (`RECORDED_LATE_AFTER_MS`, half the look-back), in the
 *                 order they were recorded (`AuditLog.pendingLate`): however late, each is added at
 *                 the next write and settled once its write stands
 *
 * Each write makes its own file beside audit.csv (`outbox/<batch>/.audit/audit-<write>.csv`) and
 * the keys it read from the log, in key order (`.audit/keys-<write>.txt`), which the next write
 * reads alongside the log to tell a late event from one already written (rebuilt from the file if
 * it is lost), and the late events it added (`late-<write>.txt`); then claims the position
 * on the batch record (`audit_through`: the last key, the file's bytes, the writes, its two objects,
 * the chain's head) from the one it started from, and only then copies its file into audit.csv,
 * on the condition that audit.csv is still the object it found when it began (`If-Match`). Of two
 * writes at once, one stands; a write repeated before its position was kept starts again from the
 * position there is; a write that stalled between its claim and its copy finds its copy refused if
 * a later write published since: nothing is written twice, and audit.csv is only ever replaced by a
 * longer copy of itself.
 *
 * Every line ends with its hash, chained to the line before (audit-chain.ts), so a changed or
 * removed line shows (`npm run audit -- verify`).
 *
 * In legs, like Finalize's other passes: a page of rows or of events at a time, the bytes not yet
 * a part waiting in `work/`; where a leg stopped is a few hundred bytes (`AuditWriting`).
 */
import * as z from 'zod';
import { openCsv } from '../../spreadsheet/read-csv.js';
import { formatCsvRecord, writeCsv } from '../../spreadsheet/write-csv.js';
import {
  type AuditEvent,
  auditEventKey,
  eventKeyOfMarker,
  type LateEvent,
  withSender,
} from '../core/audit-records.js';
import { AUDIT_FILE, AUDIT_WRITES_FOLDER, outboxKey } from '../core/bucket-layout.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import { garbageCollector } from '../core/garbage-collection.js';
import { MIN_PART_BYTES, type PipelinePorts } from '../core/ports.js';
import type { BatchRecord } from '../core/records.js';
import { type PartsUpload, PartsUploadProgress, partsUpload } from '../outbox/parts-upload.js';
import { CSV_CONTENT_TYPE } from '../outbox/results-files.js';
import { CHAIN_START, chainedHash, HASH_COLUMN } from './audit-chain.js';
import { preparedEvents } from './audit-events.js';

/** audit.csv's columns, by these names; the last, `hash`, chains each line to the one before (audit-chain.ts). */
export const AUDIT_COLUMNS = [
  'at',
  'row',
  'sku',
  'event',
  'who',
  'who_id',
  'known_by',
  'stated_by',
  'classification_id',
  'detail',
  HASH_COLUMN,
] as const;

/**
 * How long after its time an event may be recorded and still be found by the next write by its key:
 * a step records its event in the same invocation that stored the time it carries, a retried step
 * (Step Functions retries within minutes) records it again under the same key, and a round records
 * its answers and decisions at the round's start (the benchmark's round deciding 69,000 rows takes
 * about 4 minutes). Later than half of this, an event goes on the late list too
 * (`RECORDED_LATE_AFTER_MS`), where it is written whatever its lateness, only at more cost.
 */
export const AUDIT_LOOKBACK_MS = 3 * 60 * 60_000;

/**
 * Each write's own copy of the file, which audit.csv is copied from once its position stands, and
 * the keys it read, for the next write: beside audit.csv (not in `work/`, which expires), named by
 * the write (`<count>-<when it began>`), so two writes at once never write the same object.
 */
const auditWriteKeys = (batchId: string, tag: string) => ({
  file: outboxKey(batchId, `${AUDIT_WRITES_FOLDER}audit-${tag}.csv`),
  keys: outboxKey(batchId, `${AUDIT_WRITES_FOLDER}keys-${tag}.txt`),
});

/** The markers of the late events a write added, a line each, beside its keys: until they are settled, the next write skips them. */
const lateListKey = (batchId: string, tag: string) =>
  outboxKey(batchId, `${AUDIT_WRITES_FOLDER}late-${tag}.txt`);

/**
 * The most late events one write adds: read in one leg, their markers listed in one object (20,000
 * events: about 8 MB in memory, and a GetItem each, 16 at a time). A batch records none, or the
 * rows a person redrives from the dead-letter queue; more than this wait for the writes after, in
 * the order they were recorded.
 */
const LATE_PER_WRITE = 20_000;

/**
 * Where a write of audit.csv stopped when its leg's time was spent: which part it was reading, the
 * last row or log key read, and its two uploads; a few hundred bytes, for the next leg to go on from.
 */
export const AuditWriting = z.object({
  /** The write's name: its count and when it began (`auditWriteKeys`). */
  tag: z.string().min(1),
  /**
   * `rows`: what Prepare made of each row (the first write only); `log`: the audit log in key
   * order; `late`: the events recorded late, in the order they were recorded.
   */
  phase: z.enum(['rows', 'log', 'late']),
  rows_after: z.number().int().min(0).nullable(),
  /** The last log key read. */
  log_after: z.string().nullable(),
  /** Where the last write's keys are read from next (bytes). */
  known_offset: z.number().int().min(0),
  /** audit.csv's upload; null until the write has a line to add. */
  file: PartsUploadProgress.nullable(),
  keys: PartsUploadProgress.nullable(),
  /** audit.csv's bytes so far: the old file's and the new lines'. */
  bytes: z.number().int().min(0),
  /** Lines this write added. */
  added: z.number().int().min(0),
  /**
   * audit.csv's ETag when the write began (null: there was none): the write replaces audit.csv only
   * while it is still that object, so a write that stalled never puts back a shorter file.
   */
  over: z.string().nullable(),
  /** The hash of the last line so far (audit-chain.ts); null for a file begun before lines were chained. */
  chain: z.string().nullable(),
  /** The file has the person's columns (`who_id`, `known_by`, `stated_by`); false for one begun before them. */
  people: z.boolean().default(false),
});
export type AuditWriting = z.infer<typeof AuditWriting>;

/** The ports writing audit.csv uses: the clock, the bucket, the batch table and the audit log. */
export type AuditPorts = Pick<PipelinePorts, 'clock' | 'objects' | 'batches' | 'audit'>;

/** How a leg writing audit.csv works: when it stops, how much it reads a page, how large a part is. */
export type AuditOptions = {
  /** When this leg stops to go on in the next (epoch ms): checked between pages, a page at least each leg. */
  until: number;
  pageSize: number;
  partBytes: number;
  /** The old file is copied in the bucket from this size (S3's least part size), else read back. */
  copyAtLeast?: number;
};

/**
 * What one leg of writing audit.csv returns: where it stopped (`again`), or how many lines it added
 * (`done`).
 */
export type AuditOutcome = { next: 'again'; writing: AuditWriting } | { next: 'done'; added: number };

/**
 * One event as a line of audit.csv, in the batch's list separator, its hash chained to the line
 * before (`state.chain`, which it moves on); a file begun before lines were chained stays without.
 */
const auditLine = (
  state: Pick<AuditWriting, 'chain' | 'people'>,
  logged: AuditEvent,
  sku: string,
  batch: Pick<BatchRecord, 'delimiter' | 'sent_by'>,
): string => {
  // A submission recorded before the batch's sender was proven names them once the batch knows.
  const event = withSender(logged, batch.sent_by);
  const people = state.people ? [event.who_id ?? '', event.known_by ?? '', event.stated_by ?? ''] : [];
  const cells = [
    event.at,
    String(event.row),
    sku,
    event.event,
    event.who,
    ...people,
    event.classification_id ?? '',
    event.detail,
  ];
  if (state.chain === null) return formatCsvRecord(cells, batch.delimiter);
  state.chain = chainedHash(state.chain, cells);
  return formatCsvRecord([...cells, state.chain], batch.delimiter);
};

/** audit.csv's first bytes: the BOM and the header, as the batch's other CSVs begin. */
const auditHeader = (batch: Pick<BatchRecord, 'delimiter'>): Uint8Array =>
  writeCsv(AUDIT_COLUMNS, [], { delimiter: batch.delimiter });

const encoder = new TextEncoder();
const startOf = (key: string): string => key.slice(0, key.indexOf('#'));
/** The key to read the log after, `AUDIT_LOOKBACK_MS` before `key`'s time: an ISO time sorts before its own keys. */
const lookbackFrom = (key: string): string | null => {
  const time = Date.parse(startOf(key));
  return Number.isFinite(time) ? new Date(time - AUDIT_LOOKBACK_MS).toISOString() : null;
};

/**
 * Takes an audit.csv and a test of event keys, and gives the keys of the file's lines that pass it:
 * what a write knows of the file when the keys or the late list the last write kept are missing.
 * Read a chunk at a time; only the keys asked for are held.
 */
const keysInFile = async (
  objects: AuditPorts['objects'],
  fileKey: string,
  wanted: (key: string) => boolean,
): Promise<Set<string>> => {
  const keys = new Set<string>();
  const source = await objects.source(fileKey);
  if (!source) throw new Error(`${fileKey} is missing: the audit position names it.`);
  let header = true;
  for await (const { cells } of (await openCsv(source, fileKey)).read().records) {
    if (header) {
      header = false;
      continue;
    }
    const key = auditEventKey({
      at: cells[0] ?? '',
      row: Number(cells[1]),
      event: cells[3] as AuditEvent['event'],
    });
    if (wanted(key)) keys.add(key);
  }
  return keys;
};

/**
 * The keys the last write read, a line each in key order, read forward as the log is: whether the
 * last write held an event is one comparison with the line it stands at. Missing (lost, or never
 * kept by an older version): rebuilt from the last write's file, the lines from the look-back on.
 */
const knownKeys = async (
  objects: AuditPorts['objects'],
  batchId: string,
  from: { position: Position | null; offset: number; lookback: string | null },
) => {
  const { position, offset, lookback } = from;
  const key = position?.keys ?? null;
  const source = key === null ? null : await objects.source(key);
  if (position !== null && source === null) {
    const fileKey = position.file ?? outboxKey(batchId, AUDIT_FILE);
    const held = await keysInFile(objects, fileKey, (found) => lookback === null || found >= lookback);
    return { held: async (found: string) => held.has(found), offset: () => 0 };
  }
  /** The bytes read and not yet passed (ASCII keys: a character is a byte), from `readFrom` on. */
  let buffered = '';
  let readFrom = offset;
  /** Where in `buffered` the current line starts. */
  let start = 0;
  let readTo = offset;
  const fill = async (): Promise<boolean> => {
    if (!source || readTo >= source.size) return false;
    const end = Math.min(source.size, readTo + 64 * 1024);
    const chunks: Uint8Array[] = [];
    for await (const chunk of source.read(readTo, end)) chunks.push(chunk);
    // What was passed is dropped once per chunk, not once per line.
    buffered = buffered.slice(start) + Buffer.concat(chunks).toString('latin1');
    readFrom += start;
    start = 0;
    readTo = end;
    return true;
  };
  /** The line the reader stands at, or null past the end. */
  const current = async (): Promise<string | null> => {
    let end = buffered.indexOf('\n', start);
    while (end < 0 && (await fill())) end = buffered.indexOf('\n', start);
    if (start >= buffered.length) return null;
    return end < 0 ? buffered.slice(start) : buffered.slice(start, end);
  };
  return {
    /** Whether the last write held `key` (keys asked in key order). */
    async held(key: string): Promise<boolean> {
      let line = await current();
      while (line !== null && line < key) {
        start += line.length + 1;
        line = await current();
      }
      return line === key;
    },
    /** Where to read on from, in the next leg. */
    offset: () => readFrom + start,
  };
};

/** The SKU of each event's row: as recorded, else read from the row (a few rows a page). */
const skusOf = async (
  batches: AuditPorts['batches'],
  batchId: string,
  events: readonly AuditEvent[],
): Promise<Map<number, string>> => {
  const skus = new Map<number, string>();
  for (const event of events) if (typeof event.sku === 'string') skus.set(event.row, event.sku);
  const missing = [...new Set(events.filter((event) => !skus.has(event.row)).map((event) => event.row))];
  await mapLimited(missing, 16, async (row) => {
    skus.set(row, (await batches.getRow(batchId, row))?.product?.sku ?? '');
  });
  return skus;
};

type Position = NonNullable<BatchRecord['audit_through']>;

/**
 * audit.csv's upload and its keys', as a write goes: audit.csv begun with the old file's bytes
 * (copied in the bucket when they make a part, else read back) or, the first time, the header, at
 * the first line added; the keys read wait in memory until a line is added or a part's worth is
 * read, so a write that adds nothing (a repeated run) leaves no upload behind.
 */
const auditUploads = async (
  ports: AuditPorts,
  batch: BatchRecord,
  state: AuditWriting,
  options: AuditOptions & { position: Position | null },
) => {
  const { batch_id: batchId } = batch;
  const { position } = options;
  const { file: fileKey, keys: keysKey } = auditWriteKeys(batchId, state.tag);
  const copyAtLeast = options.copyAtLeast ?? MIN_PART_BYTES;
  // The last write's own file; audit.csv itself for a position kept before writes had one.
  const oldFile = position?.file ?? outboxKey(batchId, AUDIT_FILE);
  const upload = (name: string, key: string, progress: PartsUploadProgress | null) =>
    partsUpload(
      ports.objects,
      {
        batchId,
        key,
        name: `audit-${state.tag}.${name}`,
        contentType: CSV_CONTENT_TYPE,
        partBytes: options.partBytes,
      },
      progress,
    );
  let file: PartsUpload | null = state.file ? await upload('csv', fileKey, state.file) : null;
  let keys: PartsUpload | null = state.keys ? await upload('keys', keysKey, state.keys) : null;
  let keysWaiting = '';

  const openFile = async (): Promise<PartsUpload> => {
    if (file) return file;
    const old = position?.bytes ?? 0;
    if (old >= copyAtLeast) {
      const uploadId = await ports.objects.startUpload(fileKey, CSV_CONTENT_TYPE);
      const etag = await ports.objects.copyPart(fileKey, uploadId, 1, { key: oldFile, bytes: old });
      file = await upload('csv', fileKey, {
        upload_id: uploadId,
        parts: [{ number: 1, etag }],
        carried: null,
      });
      return file;
    }
    const first = old > 0 ? await ports.objects.getPrefix(oldFile, old) : auditHeader(batch);
    if (!first || first.byteLength < old)
      throw new Error(`${oldFile} holds fewer bytes than the ${old} its write kept.`);
    file = await upload('csv', fileKey, null);
    await file.append(first);
    state.bytes = first.byteLength;
    return file;
  };
  const flushKeys = async (force: boolean) => {
    if (!keys && !force && state.added === 0 && keysWaiting.length < options.partBytes) return;
    keys ??= await upload('keys', keysKey, null);
    if (keysWaiting !== '') await keys.append(encoder.encode(keysWaiting));
    keysWaiting = '';
  };
  return {
    openFile,
    /** Lines at the file's end. */
    async add(lines: string) {
      if (lines === '') return;
      const bytes = encoder.encode(lines);
      await (await openFile()).append(bytes);
      state.bytes += bytes.byteLength;
    },
    /** Keys read from the log, a line each. */
    async read(keyLines: string) {
      keysWaiting += keyLines;
      await flushKeys(false);
    },
    /** At a leg's end: what is not a part yet waits in `work/`. */
    async pause(): Promise<Pick<AuditWriting, 'file' | 'keys'>> {
      await flushKeys(true);
      return { file: file ? await file.pause() : null, keys: keys ? await keys.pause() : null };
    },
    async complete() {
      await flushKeys(true);
      await keys!.complete();
      await (await openFile()).complete();
    },
  };
};

/** One page of the write: a page of rows (what Prepare made of them), or of the audit log. Done: false. */
const writePage = async (
  ports: AuditPorts,
  batch: BatchRecord,
  state: AuditWriting,
  context: {
    pageSize: number;
    position: Position | null;
    uploads: Awaited<ReturnType<typeof auditUploads>>;
    known: Awaited<ReturnType<typeof knownKeys>>;
    /** Counts what each page read, for a full collection every few thousand (core/garbage-collection.ts). */
    collect: (handled: number) => void;
    /** The markers of the late events this write added, once its late page is read. */
    lateAdded: string[];
  },
): Promise<boolean> => {
  const { pageSize, position, uploads, known, collect } = context;
  if (state.phase === 'late') {
    context.lateAdded = await writeLatePage(ports, batch, state, context);
    return false;
  }
  let lines = '';
  if (state.phase === 'rows') {
    const page = await ports.batches.rowsPage(batch.batch_id, { after: state.rows_after, limit: pageSize });
    // A row rejected has no product: its SKU is read from its cells, where the batch found the column.
    const skuAt = (batch.columns ?? []).findIndex((use) => use.understood_as === 'sku');
    for (const row of page.rows)
      for (const event of preparedEvents(row)) {
        lines += auditLine(
          state,
          event,
          row.product?.sku ?? (skuAt >= 0 ? (row.cells[skuAt] ?? '').trim() : ''),
          batch,
        );
        state.added += 1;
      }
    await uploads.add(lines);
    state.rows_after = page.rows.at(-1)?.row ?? state.rows_after;
    collect(page.rows.length);
    if (page.next === null) state.phase = 'log';
    return true;
  }
  const events = await ports.audit.page(batch.batch_id, { after: state.log_after, limit: pageSize });
  if (events.length === 0) {
    state.phase = 'late';
    return true;
  }
  const skus = await skusOf(ports.batches, batch.batch_id, events);
  let keyLines = '';
  for (const event of events) {
    const key = auditEventKey(event);
    keyLines += `${key}\n`;
    // Up to the last key written, the last write's keys say which it held; a late event it did not.
    // Recorded late: written from the late list, in the order of recording.
    if (event.late) continue;
    if (position !== null && key <= position.key && (await known.held(key))) continue;
    lines += auditLine(state, event, skus.get(event.row) ?? '', batch);
    state.added += 1;
  }
  await uploads.add(lines);
  await uploads.read(keyLines);
  state.log_after = auditEventKey(events.at(-1)!);
  state.known_offset = known.offset();
  collect(events.length);
  return true;
};

/**
 * The late events the last write added (by marker), which may not be settled yet: its list, or,
 * if the list is lost, the pending ones whose event its file holds.
 */
const addedByLastWrite = async (
  objects: AuditPorts['objects'],
  batchId: string,
  position: Position | null,
  pending: readonly LateEvent[],
): Promise<Set<string>> => {
  if (!position?.late) return new Set();
  const list = await objects.getBytes(position.late);
  if (list) return new Set(Buffer.from(list).toString('utf8').split('\n').filter(Boolean));
  const wanted = new Set(pending.map((late) => eventKeyOfMarker(late.marker)));
  const held = await keysInFile(objects, position.file ?? outboxKey(batchId, AUDIT_FILE), (key) =>
    wanted.has(key),
  );
  return new Set(
    pending.filter((late) => held.has(eventKeyOfMarker(late.marker))).map((late) => late.marker),
  );
};

/**
 * The write's last page: the events recorded late and not yet in the file, in the order they were
 * recorded (`AuditLog.pendingLate`); those the last write added already are settled, not added
 * again. Gives the markers this write added, listed beside its file for the next write.
 */
const writeLatePage = async (
  ports: AuditPorts,
  batch: BatchRecord,
  state: AuditWriting,
  context: { position: Position | null; uploads: Awaited<ReturnType<typeof auditUploads>> },
): Promise<string[]> => {
  const pending = await ports.audit.pendingLate(batch.batch_id, LATE_PER_WRITE);
  if (pending.length === 0) return [];
  const before = await addedByLastWrite(ports.objects, batch.batch_id, context.position, pending);
  await ports.audit.settleLate(
    batch.batch_id,
    pending.filter((late) => before.has(late.marker)).map((late) => late.marker),
  );
  const fresh = pending.filter((late) => !before.has(late.marker));
  if (fresh.length === 0) return [];
  const events = fresh.map((late) => late.event);
  const skus = await skusOf(ports.batches, batch.batch_id, events);
  await context.uploads.add(
    events.map((event) => auditLine(state, event, skus.get(event.row) ?? '', batch)).join(''),
  );
  state.added += fresh.length;
  const markers = fresh.map((late) => late.marker);
  await ports.objects.put(lateListKey(batch.batch_id, state.tag), `${markers.join('\n')}\n`, 'text/plain');
  return markers;
};

/**
 * Takes the position a write starts from and makes audit.csv what it says (a write that kept its
 * position and stalled before copying its file into place is made good here), then gives
 * audit.csv's ETag, which the write's own copy must still find (null: no audit.csv yet). Never a
 * shorter copy: a position read before another write moved it is behind the file, which stays.
 */
const publish = async (
  objects: AuditPorts['objects'],
  batchId: string,
  position: Position | null,
): Promise<string | null> => {
  const key = outboxKey(batchId, AUDIT_FILE);
  for (;;) {
    const now = await objects.head(key);
    if (!position?.file || (now?.size ?? 0) >= position.bytes) return now?.etag ?? null;
    if (await objects.copyIfUnchanged(position.file, key, now?.etag ?? null))
      return (await objects.head(key))?.etag ?? null;
    // Refused: another write replaced it since the head; look again at what it is now.
  }
};

/**
 * Writes audit.csv, or adds to it, from where the last leg stopped (`from`, null: the start), and
 * returns `next: "again"` with where it stopped when the leg's time ran out first.
 * Done: this write's file and keys beside audit.csv, its position claimed on the batch record (from
 * the one it started from: of two writes at once, one stands; the other starts again from the new
 * position), then audit.csv copied from its file. A write that had nothing to add leaves everything
 * as it was.
 */
export const writeAuditFile = async (
  ports: AuditPorts,
  batch: BatchRecord,
  from: AuditWriting | null,
  options: AuditOptions,
): Promise<AuditOutcome> => {
  const position = batch.audit_through ?? null;
  const write = (position?.writes ?? 0) + 1;
  const over = from === null ? await publish(ports.objects, batch.batch_id, position) : from.over;
  const state: AuditWriting = from ?? {
    tag: `${write}-${ports.clock.now().getTime()}`,
    phase: position === null ? 'rows' : 'log',
    rows_after: null,
    log_after: position === null ? null : lookbackFrom(position.key),
    known_offset: 0,
    file: null,
    keys: null,
    bytes: position?.bytes ?? 0,
    added: 0,
    over,
    // A file begun before lines were chained goes on without; a new one starts the chain.
    chain: position === null ? CHAIN_START : (position.chain ?? null),
    // Likewise the person's columns: a file keeps the columns its header has.
    people: position === null || position.people === true,
  };
  const known = await knownKeys(ports.objects, batch.batch_id, {
    position,
    offset: state.known_offset,
    lookback: position === null ? null : lookbackFrom(position.key),
  });
  const uploads = await auditUploads(ports, batch, state, { ...options, position });
  if (position === null) await uploads.openFile();
  const page = {
    pageSize: options.pageSize,
    position,
    uploads,
    known,
    collect: garbageCollector(),
    lateAdded: [] as string[],
  };
  while (await writePage(ports, batch, state, page)) {
    if (ports.clock.now().getTime() >= options.until)
      return { next: 'again', writing: { ...state, ...(await uploads.pause()) } };
  }
  if (state.added === 0 && position !== null) return { next: 'done', added: 0 };
  await uploads.complete();
  const last =
    state.log_after !== null && state.log_after > (position?.key ?? '') ? state.log_after : position?.key;
  const to = {
    key: last ?? '',
    bytes: state.bytes,
    writes: write,
    ...auditWriteKeys(batch.batch_id, state.tag),
    ...(state.chain === null ? {} : { chain: state.chain }),
    ...(state.people ? { people: true as const } : {}),
    ...(page.lateAdded.length > 0 ? { late: lateListKey(batch.batch_id, state.tag) } : {}),
  };
  if (!(await ports.batches.claimAuditPosition(batch.batch_id, { from: position, to }))) {
    // Another write stood: this one starts again from its position, adding only what it lacks.
    const now = await ports.batches.getBatch(batch.batch_id);
    return now ? writeAuditFile(ports, now, null, options) : { next: 'done', added: 0 };
  }
  // Refused only when a later write, begun from this position, has published it already (and more).
  await ports.objects.copyIfUnchanged(to.file, outboxKey(batch.batch_id, AUDIT_FILE), state.over);
  // If this stops first, the next write finds them in this write's list and settles them.
  await ports.audit.settleLate(batch.batch_id, page.lateAdded);
  return { next: 'done', added: state.added };
};
