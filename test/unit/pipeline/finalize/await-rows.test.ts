/** WaitForRows: the token is kept, and the batch is woken at once when its rows are already done. */
import { describe, expect, it } from 'vitest';
import { type BatchRecord, shardOfRow } from '../../../../shared/pipeline/core/records.js';
import { awaitRows } from '../../../../shared/pipeline/finalize/await-rows.js';
import { memoryBatchStore, memoryBatchWaiters } from '../../../helpers/memory-ports.js';

const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAeX1secret+task/token==';
/** How each row here finished, as markRowDone counts it. */
const RESOLVED = { status: 'resolved', billed_cents: 200, at: '2026-11-21T12:00:00.000Z' } as const;

const setup = async (dispatchedRows: number[]) => {
  const batches = memoryBatchStore();
  const waiters = memoryBatchWaiters();
  const shards = new Map<number, number>();
  for (const row of dispatchedRows) shards.set(shardOfRow(row), (shards.get(shardOfRow(row)) ?? 0) + 1);
  const record: BatchRecord = {
    batch_id: 'lote-abc',
    name: 'lote',
    source: {
      bucket: 'b',
      key: 'inbox/lote/p.csv',
      version_or_etag: 'e',
      folder: 'inbox/lote/',
      file_name: 'p.csv',
    },
    execution_id: 'exec-1',
    state: 'running',
    header: [],
    delimiter: ',',
    rows_total: dispatchedRows.length,
    rows_dispatched: dispatchedRows.length,
    shard_count: shards.size,
    complete_shards: [],
    problems: [],
    started_at: '2026-11-21T12:00:00.000Z',
  };
  await batches.createBatch(record);
  await batches.putCompletionShards('lote-abc', shards);
  return { batches, waiters };
};

describe('awaitRows', () => {
  it('wakes the workflow at once when every row already finished', async () => {
    const ports = await setup([1, 2]);
    await ports.batches.markRowDone('lote-abc', 1, RESOLVED);
    await ports.batches.markRowDone('lote-abc', 2, RESOLVED);

    const result = await awaitRows(ports, { batch_id: 'lote-abc', task_token: TOKEN });

    expect(result).toEqual({ batch_id: 'lote-abc', already_complete: true });
    expect(ports.waiters.woken).toEqual([{ taskToken: TOKEN, output: { batch_id: 'lote-abc' } }]);
  });

  it('keeps the token and waits when rows are still running; the last row gets the token', async () => {
    const ports = await setup([1, 2]);
    await ports.batches.markRowDone('lote-abc', 1, RESOLVED);

    const result = await awaitRows(ports, { batch_id: 'lote-abc', task_token: TOKEN });

    expect(result).toEqual({ batch_id: 'lote-abc', already_complete: false });
    expect(ports.waiters.woken).toHaveLength(0);
    expect(await ports.batches.markRowDone('lote-abc', 2, RESOLVED)).toEqual({
      batchComplete: true,
      taskToken: TOKEN,
    });
  });

  it('never returns the token', async () => {
    const ports = await setup([1]);
    const result = await awaitRows(ports, { batch_id: 'lote-abc', task_token: TOKEN });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('refuses invalid input without quoting the token', async () => {
    const ports = await setup([1]);
    const failure = awaitRows(ports, { batch_id: '', task_token: TOKEN });
    await expect(failure).rejects.toThrow('batch_id');
    await expect(failure).rejects.not.toThrow(TOKEN);
  });
});
