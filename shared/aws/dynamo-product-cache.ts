/**
 * The product cache table (`ProductCache` port): the last resolved verdict of each product,
 * keyed by `product_key` (docs/architecture.md, property 9). Prepare asks for every row's key at
 * once; `getMany` reads them 100 per BatchGetItem (its limit), retrying what DynamoDB
 * leaves unprocessed.
 *
 * A product's classification still waiting for answers is kept beside it under
 * `pending#<product key>` (`getPending`, `putPending`): Prepare joins it instead of asking again.
 * `scanVerdicts` reads every verdict (a Scan, pages of up to 1 MB) when the NCM table changes.
 *
 * An entry that no longer parses (written by an older release whose columns differ) counts
 * as a miss rather than an error: the row is classified again and `put` replaces the entry,
 * whereas failing would stop every batch that names that product.
 */
import { BatchGetCommand, type BatchGetCommandInput, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { chunksOf } from '../pipeline/core/calls-in-parallel.js';
import type { ProductCache } from '../pipeline/core/ports.js';
import { CachedVerdict, PendingClassification } from '../pipeline/core/records.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  retryUnprocessed,
  withoutUndefined,
} from './dynamo-items.js';

/** Where a product's pending classification is kept (`getPending`). */
const pendingKeyOf = (productKey: string) => `pending#${productKey}`;

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_SIZE = 100;

type KeysAndAttributes = NonNullable<BatchGetCommandInput['RequestItems']>[string];

export const createDynamoProductCache = (config: DynamoAdapterConfig): ProductCache => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;

  /** The stored items under `keys` (any count, repeats allowed), 100 per BatchGetItem. */
  const readItems = async (keys: readonly string[]): Promise<Record<string, unknown>[]> => {
    const items: Record<string, unknown>[] = [];
    // BatchGetItem rejects a call naming the same key twice.
    const unique = [...new Set(keys)];
    for (const chunk of chunksOf(unique, BATCH_GET_SIZE)) {
      const request: KeysAndAttributes = { Keys: chunk.map((product_key) => ({ product_key })) };
      await retryUnprocessed(
        `getMany from ${TableName}`,
        request,
        async (part) => {
          const { Responses, UnprocessedKeys } = await doc.send(
            new BatchGetCommand({ RequestItems: { [TableName]: part } }),
          );
          items.push(...(Responses?.[TableName] ?? []));
          const left = UnprocessedKeys?.[TableName];
          const count = left?.Keys?.length ?? 0;
          return { leftover: left && count > 0 ? left : null, count };
        },
        config.sleep,
      );
    }
    return items;
  };

  const getMany: ProductCache['getMany'] = async (productKeys) => {
    const found = new Map<string, CachedVerdict>();
    for (const item of await readItems(productKeys)) {
      const verdict = CachedVerdict.safeParse(item);
      if (verdict.success) found.set(verdict.data.product_key, verdict.data);
    }
    return found;
  };

  // A product's pending classification is an item of its own, `pending#<product key>`, beside
  // its verdict: a product may have an older verdict and a newer classification waiting.
  const getPending: ProductCache['getPending'] = async (productKeys) => {
    const found = new Map<string, PendingClassification>();
    for (const item of await readItems(productKeys.map(pendingKeyOf))) {
      const pending = PendingClassification.safeParse({ ...item, product_key: item.pending_of });
      if (pending.success) found.set(pending.data.product_key, pending.data);
    }
    return found;
  };

  const putPending: ProductCache['putPending'] = async (pending) => {
    const parsed = PendingClassification.parse(pending);
    await doc.send(
      new PutCommand({
        TableName,
        Item: withoutUndefined({
          ...parsed,
          product_key: pendingKeyOf(parsed.product_key),
          pending_of: parsed.product_key,
        }),
      }),
    );
  };

  const put: ProductCache['put'] = async (verdict) => {
    await doc.send(new PutCommand({ TableName, Item: withoutUndefined(CachedVerdict.parse(verdict)) }));
  };

  // Every verdict item, never a pending one (`pending_of` marks those): the recheck after the NCM
  // table changes reads the whole cache, a page at a time, and goes on from a page's last key.
  const scanVerdicts: ProductCache['scanVerdicts'] = async function* (from = {}) {
    let after = from.after ?? null;
    do {
      const page = await doc.send(
        new ScanCommand({
          TableName,
          FilterExpression: 'attribute_not_exists(pending_of)',
          ...(from.pageSize ? { Limit: from.pageSize } : {}),
          ...(after ? { ExclusiveStartKey: { product_key: after } } : {}),
        }),
      );
      const verdicts: CachedVerdict[] = [];
      for (const item of page.Items ?? []) {
        // An entry an older release wrote, which no longer parses, is no verdict to recheck.
        const verdict = CachedVerdict.safeParse(item);
        if (verdict.success) verdicts.push(verdict.data);
      }
      after = (page.LastEvaluatedKey?.product_key as string | undefined) ?? null;
      yield { verdicts, after };
    } while (after !== null);
  };

  return { getMany, put, getPending, putPending, scanVerdicts };
};
