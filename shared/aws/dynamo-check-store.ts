/**
 * The verdicts a person checks (`CheckStore` port), kept in the review table beside the questions:
 * one item per product of a batch, on its leading row, keyed `check#<batch_id>#<row>` in the
 * table's `classification_id`, so the `by-batch` GSI (`batch_id` + `row`) lists a batch's items in
 * row order without a Scan.
 *
 * The review store skips these items (`kind` = `check`): its `listByBatch` and its daily Scan for
 * `pending` see only questions. Their states (`to_check`, `decided`) are never `pending`.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CheckItem } from '../pipeline/core/check-records.js';
import type { CheckStore } from '../pipeline/core/ports.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  isConditionFailure,
  queryAll,
  scanOfKindInState,
  withoutUndefined,
} from './dynamo-items.js';

export type DynamoCheckStoreConfig = DynamoAdapterConfig & {
  /** Name of the GSI on `batch_id` + `row`. @default 'by-batch' */
  byBatchIndex?: string;
};

/** The value of `kind` on a check item: how the review store tells it from a question item. */
const CHECK_ITEM_KIND = 'check';

const checkKey = (batchId: string, row: number) => ({ classification_id: `check#${batchId}#${row}` });

/** A stored item back to the record: the table's key and `kind` are the adapter's, not the record's. */
const itemOf = (item: Record<string, unknown>): CheckItem =>
  CheckItem.parse({ ...item, classification_id: item.check_of });

/** One conditional update of an item still `to_check`: false when it was decided already, or is absent. */
const updateWhileToCheck = async (
  doc: DynamoDBDocumentClient,
  TableName: string,
  Key: Record<string, string>,
  UpdateExpression: string,
  values: Record<string, unknown>,
): Promise<boolean> => {
  try {
    await doc.send(
      new UpdateCommand({
        TableName,
        Key,
        UpdateExpression,
        ConditionExpression: '#state = :open',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':open': 'to_check', ...values },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const createDynamoCheckStore = (config: DynamoCheckStoreConfig): CheckStore => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;
  const IndexName = config.byBatchIndex ?? 'by-batch';

  const create: CheckStore['create'] = async (item) => {
    const { classification_id, ...rest } = CheckItem.parse(item);
    try {
      await doc.send(
        new PutCommand({
          TableName,
          Item: withoutUndefined({
            ...rest,
            ...checkKey(rest.batch_id, rest.row),
            check_of: classification_id,
            kind: CHECK_ITEM_KIND,
          }),
          ConditionExpression: 'attribute_not_exists(classification_id)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  };

  const get: CheckStore['get'] = async (batchId, row) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName, Key: checkKey(batchId, row), ConsistentRead: true }),
    );
    return Item ? itemOf(Item) : null;
  };

  const listByBatch: CheckStore['listByBatch'] = async (batchId) => {
    const items: CheckItem[] = [];
    const pages = queryAll(doc, {
      TableName,
      IndexName,
      KeyConditionExpression: 'batch_id = :batch',
      FilterExpression: 'kind = :check',
      ExpressionAttributeValues: { ':batch': batchId, ':check': CHECK_ITEM_KIND },
      ScanIndexForward: true,
    });
    for await (const item of pages) items.push(itemOf(item));
    return items;
  };

  // A Scan when a person opens the console's list: the table holds one small item per product of
  // a batch that asked something of a person, and the list is read far less often than written.
  const listOpen: CheckStore['listOpen'] = () =>
    scanOfKindInState(doc, TableName, { kind: CHECK_ITEM_KIND, state: 'to_check' }, itemOf);

  const decide: CheckStore['decide'] = (batchId, row, decision) =>
    updateWhileToCheck(
      doc,
      TableName,
      checkKey(batchId, row),
      'SET #state = :decided, decision = :decision',
      {
        ':decided': 'decided',
        ':decision': decision,
      },
    );

  const offerSimOptions: CheckStore['offerSimOptions'] = (batchId, row, offer) => {
    const { reasons, sim_options } = CheckItem.pick({ reasons: true, sim_options: true }).parse(offer);
    return updateWhileToCheck(
      doc,
      TableName,
      checkKey(batchId, row),
      'SET reasons = :reasons, sim_options = :options',
      {
        ':reasons': reasons,
        ':options': sim_options,
      },
    );
  };

  return { create, get, listByBatch, listOpen, decide, offerSimOptions };
};
