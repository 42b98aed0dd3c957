/**
 * Prepare when a batch cannot start (batch.json refused, the input file unreadable, the service
 * refusing the key): the stop recorded, every row the file holds stored with the one result that
 * says why, and the batch `failed`, before anything is queued or billed.
 */
import type { SpreadsheetFile } from '../../spreadsheet/read-spreadsheet.js';
import type { Message } from '../../wording/message.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, BatchStop, RowRecord } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { bornRow } from '../core/row-life.js';
import { type FileShape, inChunks, type PrepareSettings, readsToItsEnd } from './prepare-passes.js';

/**
 * Fails a batch before anything is queued or billed: the stop recorded once, every row the file
 * has stored as `rowResult` (so results.csv still lists them), the batch `failed`; gives the
 * Prepare result that sends the workflow to Finalize. The file is read through once before any
 * row is written: one found unreadable gets no rows.
 */
export const failBatch = async (
  ports: Pick<PipelinePorts, 'batches'>,
  batch: BatchRecord,
  failure: {
    stop: BatchStop;
    problems: Message[];
    file: SpreadsheetFile | null;
    rowResult: RowResult | null;
    shape: FileShape;
    settings: PrepareSettings;
  },
): Promise<{ batch_id: string; next: 'finalize' }> => {
  const at = failure.stop.at;
  await ports.batches.recordStop(batch.batch_id, failure.stop);
  const { rowResult, file } = failure;
  const problems = [...failure.problems];
  let total = 0;
  const readable = file ? await readsToItsEnd(file) : null;
  if (readable && 'problem' in readable) problems.push(readable.said);
  else if (readable) problems.push(...readable.problems);
  if (file && rowResult && readable && !('problem' in readable)) {
    for await (const chunk of inChunks(file.readRows().rows, failure.settings.rowsPerChunk)) {
      total += chunk.length;
      await ports.batches.putRows(
        chunk.map(
          (mapped): RowRecord =>
            bornRow(
              {
                batch_id: batch.batch_id,
                row: mapped.row,
                line: mapped.line,
                cells: mapped.cells,
                attempt: 1,
                dispatch: 1,
                updated_at: at,
              },
              { as: 'final', result: rowResult },
            ),
        ),
      );
    }
  }
  const { format, ...shape } = failure.shape;
  await ports.batches.updateBatch(batch.batch_id, {
    state: 'failed',
    ...shape,
    ...(format ? { format } : {}),
    rows_total: total,
    rows_dispatched: 0,
    shard_count: 0,
    problems,
  });
  return { batch_id: batch.batch_id, next: 'finalize' };
};
