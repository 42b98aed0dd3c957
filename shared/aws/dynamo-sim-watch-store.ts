/**
 * The verdicts whose SIM openings wait for the official registry (`SimWatchStore` port), kept in
 * the review table beside the questions: one item per product of a batch, on its leading row,
 * keyed `sim#<batch_id>#<row>` in the table's `classification_id`, with `kind` = `sim_watch`. The watch itself is a map (`watch`),
 * with its `state` beside it for the daily Scan's filter: no top-level `batch_id` or `row`, so the
 * `by-batch` index never holds these items (nothing lists a batch's watches).
 *
 * The review store skips every item with a `kind`, and its daily Scan for `pending` never matches
 * a watch's states (`open`, `settled`).
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SimWatchStore } from '../pipeline/core/ports.js';
import { SimWatch } from '../pipeline/core/sim-watch.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  isConditionFailure,
  scanOfKindInState,
  withoutUndefined,
} from './dynamo-items.js';

/** The value of `kind` on a watch item. */
const SIM_WATCH_ITEM_KIND = 'sim_watch';

const watchKey = (batchId: string, row: number) => ({ classification_id: `sim#${batchId}#${row}` });

/** A stored item back to the record: the state and its settling are kept beside the map. */
const watchOf = (item: Record<string, unknown>): SimWatch =>
  SimWatch.parse({
    ...(item.watch as Record<string, unknown>),
    state: item.state,
    ...(item.settled_at === undefined ? {} : { settled_at: item.settled_at }),
    ...(item.outcome === undefined ? {} : { outcome: item.outcome }),
  });

export const createDynamoSimWatchStore = (config: DynamoAdapterConfig): SimWatchStore => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;

  const put: SimWatchStore['put'] = async (watch) => {
    const { state, settled_at, outcome, ...rest } = SimWatch.parse(watch);
    try {
      await doc.send(
        new PutCommand({
          TableName,
          Item: withoutUndefined({
            ...watchKey(rest.batch_id, rest.row),
            kind: SIM_WATCH_ITEM_KIND,
            state,
            settled_at,
            outcome,
            watch: rest,
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

  // A Scan, once a day (the sweep): one small item per product of a batch whose SIM openings
  // still wait, and no index is worth keeping for a daily read.
  const listOpen: SimWatchStore['listOpen'] = () =>
    scanOfKindInState(doc, TableName, { kind: SIM_WATCH_ITEM_KIND, state: 'open' }, watchOf);

  const settle: SimWatchStore['settle'] = async (batchId, row, settled) => {
    try {
      await doc.send(
        new UpdateCommand({
          TableName,
          Key: watchKey(batchId, row),
          UpdateExpression: 'SET #state = :settled, settled_at = :at, outcome = :outcome',
          // Only an open watch: settling again keeps the first settling; a missing one is not made.
          ConditionExpression: '#state = :open',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':settled': 'settled',
            ':open': 'open',
            ':at': settled.at,
            ':outcome': settled.outcome,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  };

  return { put, listOpen, settle };
};
