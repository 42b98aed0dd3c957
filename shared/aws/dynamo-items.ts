/**
 * What the DynamoDB adapters built on it share: the document client, items without `undefined`,
 * SET expressions built from a patch, the retry of a batch call's unprocessed part, every item
 * put with BatchWriteItem (`putAll`), and every page of a Query or a Scan (`queryAll`, `scanAll`).
 *
 * Architecture, property 10: only single-item conditional writes, ADD, BatchWrite, Query
 * and Get. dynalite (the local stand-in) has no transactions, so nothing here uses them.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { chunksOf, forEachLimited } from '../pipeline/core/calls-in-parallel.js';

export type DynamoAdapterConfig = {
  client: DynamoDBClient | DynamoDBDocumentClient;
  tableName: string;
  /** Waits between retries of unprocessed batch items; injected so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
};

/**
 * The caller's document client as it is, or a new one around a plain client. No
 * `translateConfig` is passed: `DynamoDBDocumentClient.from` writes it onto the config the
 * plain client shares with every other document client made from it (the slot leases'
 * among them), so options set here would silently change theirs. Undefined values are
 * removed by `withoutUndefined` instead.
 */
export const documentClient = (client: DynamoDBClient | DynamoDBDocumentClient): DynamoDBDocumentClient =>
  client instanceof DynamoDBDocumentClient ? client : DynamoDBDocumentClient.from(client);

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException ||
  (error as { name?: string })?.name === 'ConditionalCheckFailedException';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Set) &&
  !(value instanceof Uint8Array);

/**
 * A copy without `undefined` members, at every depth: zod leaves absent optionals out, but
 * a patch such as `{ finished_at: undefined }` reaches us, and the marshaller rejects it.
 */
export const withoutUndefined = <T>(value: T): T => {
  if (Array.isArray(value)) return value.map(withoutUndefined) as T;
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value))
    if (member !== undefined) copy[key] = withoutUndefined(member);
  return copy as T;
};

/** An item as read, without the table's own key attributes. */
export const withoutKeys = (item: Record<string, unknown>, keys: readonly string[]) => {
  const copy = { ...item };
  for (const key of keys) delete copy[key];
  return copy;
};

export type SetUpdate = {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
};

/**
 * `SET #f0 = :f0, #f1 = :f1, …` for the defined members of `patch`, leaving out the
 * `protectedFields` (keys, and attributes only their own method may write). Null when
 * nothing is left to set. Placeholders are positional, so any field name is safe.
 */
export const setUpdateOf = (
  patch: Record<string, unknown>,
  protectedFields: readonly string[],
  /** Attributes to remove in the same update (`REMOVE #r0, …`): a row sent again drops its old result. */
  remove: readonly string[] = [],
): SetUpdate | null => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments: string[] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || protectedFields.includes(field)) continue;
    const n = assignments.length;
    names[`#f${n}`] = field;
    values[`:f${n}`] = withoutUndefined(value);
    assignments.push(`#f${n} = :f${n}`);
  }
  if (assignments.length === 0) return null;
  const removals = remove.filter((field) => !protectedFields.includes(field) && patch[field] === undefined);
  removals.forEach((field, n) => {
    names[`#r${n}`] = field;
  });
  const removeClause = removals.length > 0 ? ` REMOVE ${removals.map((_, n) => `#r${n}`).join(', ')}` : '';
  return {
    UpdateExpression: `SET ${assignments.join(', ')}${removeClause}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
};

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Tries of one batch call, the first included; the waits before tries 2.. grow 50 ms, 100 ms, … 3.2 s. */
export const BATCH_CALL_TRIES = 8;
const backoffMs = (failedTry: number) => Math.min(3_200, 50 * 2 ** (failedTry - 1));

/**
 * Sends a BatchWrite/BatchGet, then again with whatever DynamoDB left unprocessed (it does
 * so under throttling, not as an error) after a growing wait, as AWS advises. `call` returns
 * the part left over, or null when all was done. Throws when something is still left after
 * the last try, naming only how much: items can hold things not to be logged.
 */
export const retryUnprocessed = async <P>(
  what: string,
  first: P,
  call: (part: P) => Promise<{ leftover: P | null; count: number }>,
  sleep: (ms: number) => Promise<void> = defaultSleep,
): Promise<void> => {
  let part: P = first;
  for (let attempt = 1; ; attempt++) {
    const { leftover, count } = await call(part);
    if (leftover === null) return;
    if (attempt >= BATCH_CALL_TRIES)
      throw new Error(`${what}: ${count} item(s) still unprocessed after ${BATCH_CALL_TRIES} tries`);
    await sleep(backoffMs(attempt));
    part = leftover;
  }
};

/** Every item a Scan finds, page after page: the daily and on-demand reads across batches. */
export async function* scanAll(
  doc: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
): AsyncGenerator<Record<string, unknown>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ ...input, ExclusiveStartKey }));
    for (const item of page.Items ?? []) yield item;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/**
 * The review table's items of one `kind` still in one `state`, across batches (a Scan filtered on
 * both), each read back by `parse`, in batch and row order: the verdicts to check, the SIM watches.
 */
export const scanOfKindInState = async <T extends { batch_id: string; row: number }>(
  doc: DynamoDBDocumentClient,
  TableName: string,
  of: { kind: string; state: string },
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> => {
  const found: T[] = [];
  const pages = scanAll(doc, {
    TableName,
    FilterExpression: 'kind = :kind AND #state = :state',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':kind': of.kind, ':state': of.state },
  });
  for await (const item of pages) found.push(parse(item));
  return found.sort((a, b) => a.batch_id.localeCompare(b.batch_id) || a.row - b.row);
};

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** Items in one BatchWriteItem, DynamoDB's most; and how many of them are in flight at once. */
const BATCH_WRITE_SIZE = 25;
const BATCH_WRITES_IN_FLIGHT = 4;

/**
 * Puts every item with BatchWriteItem, 25 a call and a few calls at once, each call's unprocessed
 * part sent again (`retryUnprocessed`). One request per key: BatchWriteItem refuses a call naming
 * the same item twice, so of items with the same key (`keyOf`) the last one wins.
 */
export const putAll = async (
  doc: DynamoDBDocumentClient,
  TableName: string,
  /** What the puts are, for the error when some stay unprocessed (`putRows into <table>`). */
  what: string,
  items: Iterable<Record<string, unknown>>,
  keyOf: (item: Record<string, unknown>) => string,
  sleep?: (ms: number) => Promise<void>,
): Promise<void> => {
  const byKey = new Map<string, WriteRequest>();
  for (const Item of items) byKey.set(keyOf(Item), { PutRequest: { Item } });
  await forEachLimited(chunksOf([...byKey.values()], BATCH_WRITE_SIZE), BATCH_WRITES_IN_FLIGHT, (chunk) =>
    retryUnprocessed(
      what,
      chunk,
      async (requests) => {
        const { UnprocessedItems } = await doc.send(
          new BatchWriteCommand({ RequestItems: { [TableName]: requests } }),
        );
        const left = UnprocessedItems?.[TableName] ?? [];
        return { leftover: left.length > 0 ? left : null, count: left.length };
      },
      sleep,
    ),
  );
};

/** Every item of a Query, page after page (DynamoDB stops a page at 1 MB). */
export async function* queryAll(
  doc: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): AsyncGenerator<Record<string, unknown>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    for (const item of page.Items ?? []) yield item;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
