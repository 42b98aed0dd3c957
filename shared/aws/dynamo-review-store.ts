/**
 * The review table (`ReviewStore` port): one item per `pending_data` classification,
 * keyed by `classification_id`, with the GSI `by-batch` (`batch_id` S + `row` N) so the
 * Finalize step lists a batch's items in row order without a Scan.
 *
 * The GSI is eventually consistent: an item written a moment before `listByBatch` may be
 * missing from it. Finalize runs after every row has finished (its Review step included),
 * which in practice is long enough; a read of one item by id (`get`) is strongly consistent.
 */
import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ReviewStore } from '../pipeline/core/index.js';
import { ReviewItem } from '../pipeline/core/index.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  isConditionFailure,
  queryAll,
  setUpdateOf,
  withoutUndefined,
} from './dynamo-items.js';

export type DynamoReviewStoreConfig = DynamoAdapterConfig & {
  /** Name of the GSI on `batch_id` + `row`. @default 'by-batch' */
  byBatchIndex?: string;
};

export const createDynamoReviewStore = (config: DynamoReviewStoreConfig): ReviewStore => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;
  const IndexName = config.byBatchIndex ?? 'by-batch';

  const get: ReviewStore['get'] = async (classificationId) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName, Key: { classification_id: classificationId }, ConsistentRead: true }),
    );
    return Item ? ReviewItem.parse(Item) : null;
  };

  const put: ReviewStore['put'] = async (item) => {
    await doc.send(new PutCommand({ TableName, Item: withoutUndefined(ReviewItem.parse(item)) }));
  };

  const listByBatch: ReviewStore['listByBatch'] = async (batchId) => {
    const items: ReviewItem[] = [];
    const pages = queryAll(doc, {
      TableName,
      IndexName,
      KeyConditionExpression: 'batch_id = :batch',
      ExpressionAttributeValues: { ':batch': batchId },
      ScanIndexForward: true,
    });
    for await (const item of pages) items.push(ReviewItem.parse(item));
    return items;
  };

  // A Scan, once a day (sweep-reviews.ts): the table holds one small item per question-asking
  // row, and no index is worth keeping for a daily read.
  const listPending: ReviewStore['listPending'] = async () => {
    const items: ReviewItem[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new ScanCommand({
          TableName,
          FilterExpression: '#state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':pending': 'pending' },
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) items.push(ReviewItem.parse(item));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  };

  const update: ReviewStore['update'] = async (classificationId, patch) => {
    const missing = () => new Error(`no review item ${classificationId}`);
    const set = setUpdateOf(patch, ['classification_id']);
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

  return { put, get, listByBatch, listPending, update };
};
