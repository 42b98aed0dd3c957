/**
 * The batch table adapter against dynalite over the real wire protocol: conditions, set
 * ADDs, ReturnValues, BatchWrite and paged Queries are evaluated by a real engine.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoBatchStore } from '../../../shared/aws/dynamo-batch-store.js';
import type { BatchStore } from '../../../shared/pipeline/core/ports.js';
import type { BatchStop } from '../../../shared/pipeline/core/records.js';
import { textMessage } from '../../../shared/wording/message.js';
import { createTable, type LocalDynamo, startLocalDynamo } from '../../helpers/dynalite.js';
import { AT, batchOptions, batchRecord, rowRecord, TOKEN } from '../../helpers/records.js';

let dynamo: LocalDynamo;
let doc: DynamoDBDocumentClient;
let tableName: string;
let tableCount = 0;
let store: BatchStore;
/** How a row finished, as markRowDone counts it: resolved, billed USD 2.00. */
const DONE = { status: 'resolved', billed_cents: 200, at: AT } as const;

const rawItem = async (sk: string, batchId = 'nightly-abc') =>
  (await doc.send(new GetCommand({ TableName: tableName, Key: { pk: `batch#${batchId}`, sk } }))).Item;

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  doc = DynamoDBDocumentClient.from(dynamo.client);
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  tableName = `batches-${++tableCount}`;
  await createTable(dynamo.client, tableName, true);
  store = createDynamoBatchStore({ client: dynamo.client, tableName });
});

describe('createBatch', () => {
  it('creates once; a second create returns the record already there, unchanged', async () => {
    const first = batchRecord({ execution_id: 'exec-1', header: ['sku', 'descrição'] });
    expect(await store.createBatch(first)).toEqual({ created: true });

    const duplicate = await store.createBatch(batchRecord({ execution_id: 'exec-2' }));
    expect(duplicate).toEqual({ created: false, existing: first });
    expect((await store.getBatch('nightly-abc'))?.execution_id).toBe('exec-1');
  });

  it('stores the key attributes, leaves complete_shards out while empty, and reads it back as []', async () => {
    await store.createBatch(batchRecord());
    const item = await rawItem('batch');
    expect(item).toMatchObject({ pk: 'batch#nightly-abc', sk: 'batch', batch_id: 'nightly-abc' });
    expect(item).not.toHaveProperty('complete_shards');

    const read = await store.getBatch('nightly-abc');
    expect(read).toEqual(batchRecord());
    expect(read).not.toHaveProperty('pk');
  });

  it('keeps a non-empty complete_shards as a number set', async () => {
    await store.createBatch(batchRecord({ shard_count: 3, complete_shards: [2, 0] }));
    expect((await rawItem('batch'))?.complete_shards).toEqual(new Set([0, 2]));
    expect((await store.getBatch('nightly-abc'))?.complete_shards).toEqual([0, 2]);
  });

  it('reads null for a batch that does not exist', async () => {
    expect(await store.getBatch('nope')).toBeNull();
  });
});

describe('updateBatch', () => {
  it('sets only the given fields, skipping undefined ones', async () => {
    await store.createBatch(batchRecord({ problems: [textMessage('first')] }));
    await store.updateBatch('nightly-abc', {
      state: 'running',
      rows_total: 1002,
      options: batchOptions(),
      finished_at: undefined,
    });
    const read = await store.getBatch('nightly-abc');
    expect(read).toMatchObject({
      state: 'running',
      rows_total: 1002,
      options: batchOptions(),
      problems: [textMessage('first')],
      execution_id: 'exec-1',
    });
    expect(read).not.toHaveProperty('finished_at');
  });

  it('never writes complete_shards or task_token, even when a patch carries them', async () => {
    await store.createBatch(batchRecord({ shard_count: 1 }));
    await store.registerWaiter('nightly-abc', TOKEN);
    const sneaky = { state: 'finalizing', complete_shards: [0], task_token: 'other' } as Parameters<
      BatchStore['updateBatch']
    >[1];
    await store.updateBatch('nightly-abc', sneaky);
    const read = await store.getBatch('nightly-abc');
    expect(read).toMatchObject({ state: 'finalizing', complete_shards: [], task_token: TOKEN });
  });

  it('fails for a batch that does not exist, without creating a partial one', async () => {
    await expect(store.updateBatch('ghost', { state: 'running' })).rejects.toThrow('no batch ghost');
    expect(await rawItem('batch', 'ghost')).toBeUndefined();
  });
});

describe('recordStop', () => {
  const stop = (type: string): BatchStop => ({ type, title: type, detail: `${type} detail`, at: AT });

  it('keeps the first stop and returns it to every later caller', async () => {
    await store.createBatch(batchRecord());
    expect(await store.recordStop('nightly-abc', stop('plan-without-api'))).toEqual(stop('plan-without-api'));
    expect(await store.recordStop('nightly-abc', stop('invalid-api-key'))).toEqual(stop('plan-without-api'));
    expect((await store.getBatch('nightly-abc'))?.stop).toEqual(stop('plan-without-api'));
  });

  it('fails for a batch that does not exist', async () => {
    await expect(store.recordStop('ghost', stop('x'))).rejects.toThrow('no batch ghost');
  });
});

describe('rows', () => {
  it('writes more than 25 rows (several BatchWrites), the last of a repeated row winning', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => rowRecord(i + 1));
    rows.push(rowRecord(7, { status: 'rejected', cells: ['again'] }));
    await store.putRows(rows);

    const listed = await collect(store.listRows('nightly-abc'));
    expect(listed.map((row) => row.row)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(await store.getRow('nightly-abc', 7)).toMatchObject({ status: 'rejected', cells: ['again'] });
    expect(await store.getRow('nightly-abc', 60)).toEqual(rowRecord(60));
    expect((await rawItem('row#0000060'))?.sk).toBe('row#0000060');
  });

  it('reads null for a row that does not exist', async () => {
    expect(await store.getRow('nightly-abc', 1)).toBeNull();
  });

  it('lists only row items, in row order, across Query pages', async () => {
    // ~1 KB per row: 1,100 rows exceed the 1 MB a Query page holds.
    const padding = 'x'.repeat(1000);
    const rows = Array.from({ length: 1100 }, (_, i) => rowRecord(i + 1, { cells: [padding] }));
    await store.putRows([...rows].reverse());
    await store.createBatch(batchRecord({ shard_count: 2 }));
    await store.putCompletionShards(
      'nightly-abc',
      new Map([
        [0, 1000],
        [1, 100],
      ]),
    );
    await store.putRows([rowRecord(1, { batch_id: 'other-batch' })]);

    let queries = 0;
    dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') queries += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countQueries' },
    );
    try {
      const listed = await collect(store.listRows('nightly-abc'));
      expect(listed).toHaveLength(1100);
      expect(listed.map((row) => row.row)).toEqual(Array.from({ length: 1100 }, (_, i) => i + 1));
      expect(listed.every((row) => row.batch_id === 'nightly-abc')).toBe(true);
      expect(queries).toBeGreaterThan(1);
    } finally {
      dynamo.client.middlewareStack.remove('countQueries');
    }
  });
});

describe('moveRow', () => {
  const LATER = '2026-11-21T12:00:01.000Z';
  const resolved = { status: 'resolved' as const, ncm: '73181500' };

  beforeEach(async () => {
    await store.putRows([rowRecord(1), rowRecord(2)]);
  });

  it('sets the fields of its move and leaves the others', async () => {
    expect(await store.moveRow('nightly-abc', 1, { move: 'requeued', attempt: 2, dispatch: 1, at: AT })).toBe(
      true,
    );
    expect(await store.getRow('nightly-abc', 1)).toEqual(rowRecord(1, { status: 'queued', attempt: 2 }));
  });

  it('finished: writes while the row is working and refuses once it is final', async () => {
    expect(await store.moveRow('nightly-abc', 1, { move: 'finished', result: resolved, at: AT })).toBe(true);

    // A late or repeated step: the final result stays.
    expect(
      await store.moveRow('nightly-abc', 1, { move: 'finished', result: { status: 'error' }, at: LATER }),
    ).toBe(false);
    expect(await store.getRow('nightly-abc', 1)).toMatchObject({
      status: 'resolved',
      result: resolved,
      finished_at: AT,
    });
  });

  it('fails for a row that does not exist, whatever the move, creating nothing', async () => {
    await expect(
      store.moveRow('nightly-abc', 3, { move: 'requeued', attempt: 1, dispatch: 2, at: AT }),
    ).rejects.toThrow('no row nightly-abc:3');
    await expect(
      store.moveRow('nightly-abc', 3, { move: 'finished', result: resolved, at: AT }),
    ).rejects.toThrow('no row nightly-abc:3');
    expect(await rawItem('row#0000003')).toBeUndefined();
  });

  it('claimed: marks a row waiting under this attempt and dispatch, queued or already submitting', async () => {
    await store.putRows([rowRecord(1, { attempt: 2, dispatch: 3 }), rowRecord(2, { status: 'submitting' })]);
    const claim = (attempt: number, dispatch: number) => ({
      move: 'claimed' as const,
      attempt,
      dispatch,
      at: LATER,
    });
    expect(await store.moveRow('nightly-abc', 1, claim(2, 3))).toBe(true);
    expect(await store.moveRow('nightly-abc', 2, claim(1, 1))).toBe(true);
    expect(await store.getRow('nightly-abc', 1)).toEqual(
      rowRecord(1, { attempt: 2, dispatch: 3, status: 'submitting', updated_at: LATER }),
    );
  });

  it('claimed: never overwrites a later step: in progress, requeued as another dispatch, or final', async () => {
    await store.putRows([
      rowRecord(1, { status: 'in_progress' }),
      rowRecord(2, { dispatch: 2 }),
      rowRecord(3, { status: 'resolved', result: { status: 'resolved' } }),
    ]);
    for (const row of [1, 2, 3])
      expect(
        await store.moveRow('nightly-abc', row, { move: 'claimed', attempt: 1, dispatch: 1, at: LATER }),
      ).toBe(false);
    expect((await store.getRow('nightly-abc', 1))?.status).toBe('in_progress');
    expect((await store.getRow('nightly-abc', 2))?.status).toBe('queued');
    expect((await store.getRow('nightly-abc', 3))?.updated_at).toBe(AT);
  });
});

// A batch completing across shards, a retried last Complete and a waiter that registers late are
// the BatchStore contract's (test/contract/batch-store.contract.ts), on dynalite and DynamoDB Local;
// here, the items the adapter writes.
describe('completion', () => {
  const BATCH = 'nightly-abc';
  // Rows 1..1000 in shard 0, rows 1001..1003 in shard 1.
  const prepare = async () => {
    await store.createBatch(batchRecord({ shard_count: 2, rows_dispatched: 1003 }));
    await store.putCompletionShards(
      BATCH,
      new Map([
        [0, 1000],
        [1, 3],
      ]),
    );
  };

  it('creates one item per shard with its expected count', async () => {
    await prepare();
    expect(await rawItem('done#0000')).toEqual({
      pk: `batch#${BATCH}`,
      sk: 'done#0000',
      expected: 1000,
      followers: {},
    });
    expect(await rawItem('done#0001')).toEqual({
      pk: `batch#${BATCH}`,
      sk: 'done#0001',
      expected: 3,
      followers: {},
    });
    expect((await store.getBatch(BATCH))?.shards).toEqual([0, 1]);
  });

  it('counts a repeated row once: repeats never complete a shard early', async () => {
    await prepare();
    for (let i = 0; i < 5; i++) await store.markRowDone(BATCH, 1001, DONE);
    expect(await store.markRowDone(BATCH, 1002, DONE)).toEqual({ batchComplete: false, taskToken: null });
    expect((await rawItem('done#0001'))?.done).toEqual(new Set([1001, 1002]));
    expect((await store.getBatch(BATCH))?.complete_shards).toEqual([]);
  });

  it('keeps the rows already done when a retried Prepare writes the shards again', async () => {
    await prepare();
    await store.markRowDone(BATCH, 1001, DONE);
    await store.markRowDone(BATCH, 1002, DONE);
    await prepare();
    expect(await store.markRowDone(BATCH, 1003, DONE)).toMatchObject({ batchComplete: false });
    expect((await store.getBatch(BATCH))?.complete_shards).toEqual([1]);
  });

  it('reads the counts of the complete shards from the batch item and only the open shards with rows sent', async () => {
    // Prepare: shards 0, 1, 2 and 5; the queue window has sent rows up to 2500 (shards 0 to 2).
    await store.createBatch(
      batchRecord({
        state: 'running',
        shard_count: 4,
        rows_dispatched: 5,
        queue_window: { size: 30, enqueued_through: 2500, passed_through: 0 },
      }),
    );
    await store.putCompletionShards(
      BATCH,
      new Map([
        [0, 1],
        [1, 1],
        [2, 2],
        [5, 2],
      ]),
      new Map([[1001, 9]]),
    );
    await store.markRowDone(BATCH, 1, DONE);
    await store.markRowDone(BATCH, 1001, { status: 'failed', billed_cents: 0, at: AT });
    await store.markRowDone(BATCH, 2001, { status: 'error', billed_cents: 0, at: AT });
    // Not a row a running batch would finish (its message was never sent): it shows the shard is not read.
    await store.markRowDone(BATCH, 5001, DONE);

    // Act
    const batch = await store.getBatch(BATCH);
    const counted = await store.finishedRows(batch!);

    // Assess: shards 0 and 1 from the batch item (rolled up once), shard 2 read, shard 5 not.
    expect(batch?.complete_shards).toEqual([0, 1]);
    expect(batch?.finished).toEqual({
      rows: { resolved: 1, failed: 1 },
      followers: { failed: 9 },
      billed_cents: 200,
      value_cents: 0,
      last_at: AT,
    });
    expect(counted).toEqual({
      rows: { resolved: 1, failed: 1, error: 1 },
      followers: { failed: 9 },
      billed_cents: 200,
      value_cents: 0,
      last_at: AT,
    });
    expect((await rawItem('done#0002'))?.done_rows_error).toBe(1);
  });

  it('fails for a row whose shard was never created, and for an unknown batch', async () => {
    await prepare();
    await expect(store.markRowDone(BATCH, 2001, DONE)).rejects.toThrow(
      `no completion shard 2 for batch ${BATCH}`,
    );
    expect(await rawItem('done#0002')).toBeUndefined();
    await expect(store.registerWaiter('ghost', TOKEN)).rejects.toThrow('no batch ghost');
  });
});
