/**
 * A batch put in a store the way the pipeline leaves it, counters included: its rows written as
 * Prepare writes them (final at birth, queued, following), counted as Prepare counts them
 * (prepare/born-rows.ts), its completion shards with each queued row's followers, and then each
 * row that has since finished moved and counted as Complete does (row/complete.ts, `finishRow`).
 * For tests of what reads the counters instead of the rows (the console, the progress line).
 */

import type { BatchStore } from '../../shared/pipeline/core/ports.js';
import type { BatchRecord, RowRecord } from '../../shared/pipeline/core/records.js';
import { shardOfRow } from '../../shared/pipeline/core/records.js';
import { isOutputStatus } from '../../shared/pipeline/core/row-statuses.js';
import { bornRowsCounter } from '../../shared/pipeline/prepare/born-rows.js';
import { finishOf } from '../../shared/pipeline/row/complete.js';

/** Statuses a row has at Prepare without being sent: counted by Prepare, never by Complete. */
const FINAL_AT_BIRTH = new Set(['rejected', 'reused', 'not_submitted']);

/**
 * `rows` as they stand now: a row with an output status other than rejected, reused or
 * not_submitted was dispatched and has finished; `queued`, `submitting` and `in_progress` rows
 * were dispatched and are on their way; `following` rows follow a dispatched row.
 */
export const seedCountedBatch = async (
  batches: Pick<
    BatchStore,
    'createBatch' | 'putRows' | 'updateBatch' | 'putCompletionShards' | 'moveRow' | 'markRowDone'
  >,
  record: BatchRecord,
  rows: readonly RowRecord[],
): Promise<void> => {
  await batches.createBatch(record);
  const dispatched = (row: RowRecord) => !FINAL_AT_BIRTH.has(row.status) && row.status !== 'following';
  // As Prepare wrote them: a dispatched row was queued then.
  const born = rows.map((row): RowRecord => {
    if (!dispatched(row)) return row;
    const { result: _result, finished_at: _finished, ...queued } = row;
    return { ...queued, status: 'queued' };
  });
  const counter = bornRowsCounter();
  counter.add(born);
  const shards = new Map<number, number>();
  for (const row of rows.filter(dispatched))
    shards.set(shardOfRow(row.row), (shards.get(shardOfRow(row.row)) ?? 0) + 1);
  await batches.putRows(born);
  await batches.putCompletionShards(record.batch_id, shards, counter.followers());
  await batches.updateBatch(record.batch_id, {
    rows_total: rows.length,
    rows_dispatched: rows.filter(dispatched).length,
    shard_count: shards.size,
    born: counter.born(),
  });
  for (const row of rows.filter(dispatched)) await finishCounted(batches, row);
};

/** A dispatched row as it stands: written back, and counted done when it has finished. */
const finishCounted = async (
  batches: Pick<BatchStore, 'putRows' | 'markRowDone'>,
  row: RowRecord,
): Promise<void> => {
  await batches.putRows([row]);
  if (!isOutputStatus(row.status)) return;
  const result = row.result ?? { status: row.status };
  await batches.markRowDone(row.batch_id, row.row, finishOf(result, row.finished_at ?? row.updated_at));
};
