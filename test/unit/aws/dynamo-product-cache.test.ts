/** The product cache adapter against dynalite: BatchGetItem 100 keys at a time. */
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoProductCache } from '../../../shared/aws/dynamo-product-cache.js';
import type { ProductCache } from '../../../shared/pipeline/core/ports.js';
import { CachedVerdict } from '../../../shared/pipeline/core/records.js';
import { createTableWithKeys, type LocalDynamo, startLocalDynamo } from '../../helpers/dynalite.js';

const verdict = (key: string, overrides: Partial<CachedVerdict> = {}): CachedVerdict =>
  CachedVerdict.parse({
    product_key: key,
    fingerprint: `fp-${key}`,
    classification_id: 'cls_23456789ABCD',
    resolved_at: '2026-11-20T10:00:00.000Z',
    result: { status: 'resolved', ncm: '73181500', confidence: '0.97' },
    pdf_key: null,
    batch_id: 'nightly-abc',
    ...overrides,
  });

let dynamo: LocalDynamo;
let tableName: string;
let tableCount = 0;
let cache: ProductCache;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  tableName = `cache-${++tableCount}`;
  await createTableWithKeys(dynamo.client, tableName, { partitionKey: { name: 'product_key', type: 'S' } });
  cache = createDynamoProductCache({ client: dynamo.client, tableName });
});

describe('product cache', () => {
  it('puts a verdict and reads it back; an unknown key is simply absent', async () => {
    await cache.put(verdict('sku:A-1', { pdf_key: 'outbox/nightly-abc/pdfs/00001-A-1.pdf' }));
    const found = await cache.getMany(['sku:A-1', 'sku:missing']);
    expect([...found.keys()]).toEqual(['sku:A-1']);
    expect(found.get('sku:A-1')).toEqual(
      verdict('sku:A-1', { pdf_key: 'outbox/nightly-abc/pdfs/00001-A-1.pdf' }),
    );
  });

  it('pages more than 100 keys over several BatchGetItem calls, repeated keys included', async () => {
    const stored = Array.from({ length: 230 }, (_, i) => `sku:P-${i}`);
    for (const key of stored) await cache.put(verdict(key));
    const asked = [
      ...stored,
      ...Array.from({ length: 20 }, (_, i) => `sku:absent-${i}`),
      'sku:P-0',
      'sku:P-229',
    ];

    let batchGets = 0;
    dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'BatchGetItemCommand') batchGets += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countBatchGets' },
    );
    const found = await cache
      .getMany(asked)
      .finally(() => dynamo.client.middlewareStack.remove('countBatchGets'));

    expect(batchGets).toBe(3);
    expect(found.size).toBe(230);
    expect([...found.keys()].sort()).toEqual([...stored].sort());
    expect(found.get('sku:P-229')).toEqual(verdict('sku:P-229'));
  });

  it('counts an entry that no longer parses as a miss, not as an error', async () => {
    await cache.put(verdict('sku:good'));
    const doc = DynamoDBDocumentClient.from(dynamo.client);
    await doc.send(new PutCommand({ TableName: tableName, Item: { product_key: 'sku:old', verdict: 'v0' } }));
    const found = await cache.getMany(['sku:good', 'sku:old']);
    expect([...found.keys()]).toEqual(['sku:good']);
  });

  it('asks nothing for no keys', async () => {
    expect((await cache.getMany([])).size).toBe(0);
  });
});
