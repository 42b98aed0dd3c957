/**
 * The product cache table (`ProductCache` port): the last resolved verdict of each product,
 * keyed by `product_key` (docs/architecture.md, property 9). Prepare asks for every row's key at
 * once; `getMany` reads them 100 per BatchGetItem (its limit), retrying what DynamoDB
 * leaves unprocessed.
 *
 * An entry that no longer parses (written by an older release whose columns differ) counts
 * as a miss rather than an error: the row is classified again and `put` replaces the entry,
 * whereas failing would stop every batch that names that product.
 */
import { BatchGetCommand, type BatchGetCommandInput, PutCommand } from '@aws-sdk/lib-dynamodb';
import { chunksOf } from '../pipeline/core/calls-in-parallel.js';
import type { ProductCache } from '../pipeline/core/index.js';
import { CachedVerdict } from '../pipeline/core/index.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  retryUnprocessed,
  withoutUndefined,
} from './dynamo-items.js';

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_SIZE = 100;

type KeysAndAttributes = NonNullable<BatchGetCommandInput['RequestItems']>[string];

export const createDynamoProductCache = (config: DynamoAdapterConfig): ProductCache => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;

  const getMany: ProductCache['getMany'] = async (productKeys) => {
    const found = new Map<string, CachedVerdict>();
    // BatchGetItem rejects a call naming the same key twice.
    const unique = [...new Set(productKeys)];
    for (const chunk of chunksOf(unique, BATCH_GET_SIZE)) {
      const request: KeysAndAttributes = { Keys: chunk.map((product_key) => ({ product_key })) };
      await retryUnprocessed(
        `getMany from ${TableName}`,
        request,
        async (part) => {
          const { Responses, UnprocessedKeys } = await doc.send(
            new BatchGetCommand({ RequestItems: { [TableName]: part } }),
          );
          for (const item of Responses?.[TableName] ?? []) {
            const verdict = CachedVerdict.safeParse(item);
            if (verdict.success) found.set(verdict.data.product_key, verdict.data);
          }
          const left = UnprocessedKeys?.[TableName];
          const count = left?.Keys?.length ?? 0;
          return { leftover: left && count > 0 ? left : null, count };
        },
        config.sleep,
      );
    }
    return found;
  };

  const put: ProductCache['put'] = async (verdict) => {
    await doc.send(new PutCommand({ TableName, Item: withoutUndefined(CachedVerdict.parse(verdict)) }));
  };

  return { getMany, put };
};
