/**
 * What dynalite never does: leave part of a BatchWrite or BatchGet unprocessed (DynamoDB does
 * so under throttling). Mocked, with the backoff's sleep injected so nothing waits.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDynamoBatchStore } from '../../../shared/aws/dynamo-batch-store.js';
import { BATCH_CALL_TRIES } from '../../../shared/aws/dynamo-items.js';
import { createDynamoProductCache } from '../../../shared/aws/dynamo-product-cache.js';
import { RowRecord } from '../../../shared/pipeline/core/records.js';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(doc);
let waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

const rowRecord = (row: number) =>
  RowRecord.parse({ batch_id: 'b', row, line: row + 1, cells: [], status: 'queued', updated_at: 'now' });

beforeEach(() => {
  dynamo.reset();
  waits = [];
});

describe('putRows', () => {
  it('sends the unprocessed items again after a growing wait until all are written', async () => {
    const rows = [rowRecord(1), rowRecord(2), rowRecord(3)];
    const store = createDynamoBatchStore({ client: doc, tableName: 'batches', sleep });
    const request = (row: number) => ({
      PutRequest: { Item: { ...rowRecord(row), pk: 'batch#b', sk: `row#000000${row}` } },
    });
    dynamo
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { batches: [request(2), request(3)] } })
      .resolvesOnce({ UnprocessedItems: { batches: [request(3)] } })
      .resolves({ UnprocessedItems: {} });

    await store.putRows(rows);

    const calls = dynamo
      .commandCalls(BatchWriteCommand)
      .map((call) => call.args[0].input.RequestItems?.batches);
    expect(calls).toEqual([[request(1), request(2), request(3)], [request(2), request(3)], [request(3)]]);
    expect(waits).toEqual([50, 100]);
  });

  it('gives up after the last try, saying how many items are left (not what they hold)', async () => {
    const store = createDynamoBatchStore({ client: doc, tableName: 'batches', sleep });
    dynamo.on(BatchWriteCommand).callsFake((input) => ({ UnprocessedItems: input.RequestItems }));

    await expect(store.putRows([rowRecord(1), rowRecord(2)])).rejects.toThrow(
      `putRows into batches: 2 item(s) still unprocessed after ${BATCH_CALL_TRIES} tries`,
    );
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(BATCH_CALL_TRIES);
    expect(waits).toHaveLength(BATCH_CALL_TRIES - 1);
  });

  it('splits 60 rows into BatchWrites of 25, 25 and 10', async () => {
    const store = createDynamoBatchStore({ client: doc, tableName: 'batches', sleep });
    dynamo.on(BatchWriteCommand).resolves({});
    await store.putRows(Array.from({ length: 60 }, (_, i) => rowRecord(i + 1)));
    const sizes = dynamo
      .commandCalls(BatchWriteCommand)
      .map((call) => call.args[0].input.RequestItems?.batches?.length);
    expect(sizes.sort((a = 0, b = 0) => a - b)).toEqual([10, 25, 25]);
  });
});

describe('getMany', () => {
  it('asks again for the unprocessed keys and merges what each call found', async () => {
    const cache = createDynamoProductCache({ client: doc, tableName: 'cache', sleep });
    const item = (key: string) => ({
      product_key: key,
      fingerprint: 'f',
      classification_id: 'cls_23456789ABCD',
      resolved_at: '2026-11-20T10:00:00.000Z',
      result: { status: 'resolved' },
      pdf_key: null,
      batch_id: 'b',
    });
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { cache: [item('a')] },
        UnprocessedKeys: { cache: { Keys: [{ product_key: 'b' }] } },
      })
      .resolves({ Responses: { cache: [item('b')] } });

    const found = await cache.getMany(['a', 'b', 'c']);

    expect([...found.keys()].sort()).toEqual(['a', 'b']);
    expect(
      dynamo.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems?.cache),
    ).toEqual([
      { Keys: [{ product_key: 'a' }, { product_key: 'b' }, { product_key: 'c' }] },
      { Keys: [{ product_key: 'b' }] },
    ]);
    expect(waits).toEqual([50]);
  });
});
