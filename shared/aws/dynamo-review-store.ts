/**
 * The review table (`ReviewStore` port): one item per `pending_data` classification,
 * keyed by `classification_id`, with the GSI `by-batch` (`batch_id` S + `row` N) so the
 * Finalize step lists a batch's items in row order without a Scan.
 *
 * The GSI is eventually consistent: an item written a moment before `listByBatch` may be
 * missing from it. Finalize runs after every row has finished (its Review step included),
 * which in practice is long enough; a read of one item by id (`get`) is strongly consistent.
 *
 * A row of a later batch that joined a classification instead of asking again (`join`) is kept
 * on the item (`joined`, a string set) and as a small index item of its own,
 * `join#<batch_id>#<row>` with `batch_id`, `row` and `joins` (the classification): the GSI lists
 * it under its batch, and `listByBatch` reads the items it names (BatchGetItem) and shows each
 * as that batch sees it. An index item has no `state`: the daily Scan for `pending` skips it.
 * The verdicts a person checks share the table (dynamo-check-store.ts); this store skips them.
 */
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { chunksOf, mapLimited } from '../pipeline/core/calls-in-parallel.js';
import type { ReviewStore } from '../pipeline/core/ports.js';
import { joinedRowName, ReviewItem } from '../pipeline/core/records.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  isConditionFailure,
  queryAll,
  retryUnprocessed,
  scanAll,
  setUpdateOf,
  withoutUndefined,
} from './dynamo-items.js';

type KeysAndAttributes = NonNullable<BatchGetCommandInput['RequestItems']>[string];

export type DynamoReviewStoreConfig = DynamoAdapterConfig & {
  /** Name of the GSI on `batch_id` + `row`. @default 'by-batch' */
  byBatchIndex?: string;
};

/** An item as read: `joined` comes back as a Set (a string set), the record keeps a sorted list. */
const itemOf = (item: Record<string, unknown>): ReviewItem =>
  ReviewItem.parse(
    item.joined instanceof Set ? { ...item, joined: [...(item.joined as Set<string>)].sort() } : item,
  );

/** The items of `ids`, by id, 100 per BatchGetItem (the classifications a batch's rows joined). */
const readItems = async (
  doc: DynamoDBDocumentClient,
  TableName: string,
  ids: readonly string[],
  sleep: DynamoAdapterConfig['sleep'],
): Promise<Map<string, ReviewItem>> => {
  const found = new Map<string, ReviewItem>();
  for (const chunk of chunksOf([...new Set(ids)], 100)) {
    const request: KeysAndAttributes = {
      Keys: chunk.map((classification_id) => ({ classification_id })),
      ConsistentRead: true,
    };
    await retryUnprocessed(
      `joined items from ${TableName}`,
      request,
      async (part) => {
        const { Responses, UnprocessedKeys } = await doc.send(
          new BatchGetCommand({ RequestItems: { [TableName]: part } }),
        );
        for (const item of Responses?.[TableName] ?? []) {
          const parsed = itemOf(item);
          found.set(parsed.classification_id, parsed);
        }
        const left = UnprocessedKeys?.[TableName];
        const count = left?.Keys?.length ?? 0;
        return { leftover: left && count > 0 ? left : null, count };
      },
      sleep,
    );
  }
  return found;
};

type JoinIndexItem = { batch_id: string; row: number; joins: string };

/** Each joined row's classification as its batch sees it: its batch and row, the asking row as `owner`. */
const asJoinedRows = (joins: readonly JoinIndexItem[], targets: ReadonlyMap<string, ReviewItem>) =>
  joins.flatMap((join): ReviewItem[] => {
    const target = targets.get(join.joins);
    if (!target) return [];
    const owner = { batch_id: target.batch_id, row: target.row };
    return [{ ...target, batch_id: join.batch_id, row: Number(join.row), owner }];
  });

/** `ReviewStore.join`: the conditional ADD to the item, then each joined row's index item. */
const joinRows = async (
  doc: DynamoDBDocumentClient,
  TableName: string,
  classificationId: string,
  rows: readonly { batch_id: string; row: number }[],
  at: string,
): Promise<boolean> => {
  if (rows.length === 0) return true;
  try {
    await doc.send(
      new UpdateCommand({
        TableName,
        Key: { classification_id: classificationId },
        UpdateExpression: 'ADD joined :rows',
        ConditionExpression: '#state = :pending AND abandons_at > :at',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':rows': new Set(rows.map(joinedRowName)),
          ':pending': 'pending',
          ':at': at,
        },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
  await mapLimited(rows, 8, (row) =>
    doc.send(
      new PutCommand({
        TableName,
        Item: {
          classification_id: `join#${joinedRowName(row)}`,
          batch_id: row.batch_id,
          row: row.row,
          joins: classificationId,
        },
      }),
    ),
  );
  return true;
};

export const createDynamoReviewStore = (config: DynamoReviewStoreConfig): ReviewStore => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;
  const IndexName = config.byBatchIndex ?? 'by-batch';

  const get: ReviewStore['get'] = async (classificationId) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName, Key: { classification_id: classificationId }, ConsistentRead: true }),
    );
    return Item ? itemOf(Item) : null;
  };

  const put: ReviewStore['put'] = async (item) => {
    const { owner: _owner, joined, ...stored } = ReviewItem.parse(item);
    await doc.send(
      new PutCommand({
        TableName,
        Item: withoutUndefined({ ...stored, ...(joined?.length ? { joined: new Set(joined) } : {}) }),
      }),
    );
  };

  const getMany = (ids: readonly string[]) => readItems(doc, TableName, ids, config.sleep);

  const listByBatch: ReviewStore['listByBatch'] = async (batchId) => {
    const items: ReviewItem[] = [];
    const pages = queryAll(doc, {
      TableName,
      IndexName,
      KeyConditionExpression: 'batch_id = :batch',
      ExpressionAttributeValues: { ':batch': batchId },
      ScanIndexForward: true,
    });
    const joins: JoinIndexItem[] = [];
    for await (const item of pages) {
      // Items of other kinds share the table (dynamo-check-store.ts, dynamo-sim-watch-store.ts): not questions.
      if (item.kind !== undefined) continue;
      if (typeof item.joins === 'string') joins.push(item as (typeof joins)[number]);
      else items.push(itemOf(item));
    }
    if (joins.length === 0) return items;
    const targets = await getMany(joins.map((join) => join.joins));
    return [...items, ...asJoinedRows(joins, targets)].sort((a, b) => a.row - b.row);
  };

  const join: ReviewStore['join'] = (classificationId, rows, at) =>
    joinRows(doc, TableName, classificationId, rows, at);

  // A Scan, once a day (sweep-reviews.ts): the table holds one small item per question-asking
  // row, and no index is worth keeping for a daily read.
  const listPending: ReviewStore['listPending'] = async () => {
    const items: ReviewItem[] = [];
    const found = scanAll(doc, {
      TableName,
      FilterExpression: '#state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':pending': 'pending' },
    });
    for await (const item of found) items.push(itemOf(item));
    return items;
  };

  const update: ReviewStore['update'] = async (classificationId, patch) => {
    const missing = () => new Error(`no review item ${classificationId}`);
    const set = setUpdateOf(patch, ['classification_id', 'joined', 'owner']);
    if (!set) {
      if (!(await get(classificationId))) throw missing();
      return;
    }
    try {
      await doc.send(
        new UpdateCommand({
          TableName,
          Key: { classification_id: classificationId },
          ...set,
          // Without it an update of a missing item would create a partial one.
          ConditionExpression: 'attribute_exists(classification_id)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw missing();
      throw error;
    }
  };

  return { put, get, listByBatch, listPending, update, join };
};
