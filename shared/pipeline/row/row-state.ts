/**
 * What every step of the Row workflow shares: its configuration, the classification run it
 * follows, how it ends with a result, and who owns the row. The row belongs to the execution of
 * (attempt, dispatch) that the row record names; an execution that finds a later one named has
 * been superseded and changes nothing of the row (see complete.ts).
 */
import type { PipelinePorts } from '../core/ports.js';
import type { RowRecord, RowState, RowStep } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';

export type RowStepConfig = {
  /** Expiry of a slot lease; Poll pushes it forward by this much once a third of it has gone. */
  leaseTtlMs: number;
};

export type Run = { classification_id: string; submitted_at: string };

const carryOf = (run: Partial<Run> | undefined): Partial<Run> => ({
  ...(run?.classification_id ? { classification_id: run.classification_id } : {}),
  ...(run?.submitted_at ? { submitted_at: run.submitted_at } : {}),
});

export const finalStep = (result: RowResult, run?: Partial<Run>): RowStep => ({
  next: 'complete',
  ...carryOf(run),
  outcome: { kind: 'final', result },
});

/** The classification being polled; Poll, Store and Review run only after Submit set it. */
export const runOf = (state: RowState): Run => {
  const { classification_id, submitted_at } = state.step ?? {};
  if (!classification_id || !submitted_at) {
    throw new Error(`row ${state.row_key}: no classification_id/submitted_at in $.step`);
  }
  return { classification_id, submitted_at };
};

export const loadRow = async (
  batches: PipelinePorts['batches'],
  batchId: string,
  row: number,
): Promise<RowRecord> => {
  const record = await batches.getRow(batchId, row);
  if (!record) throw new Error(`row ${batchId}:${row} not found in the batch table`);
  return record;
};

/** Where a row is counted done: its answers round when it runs in one, else its batch. */
export const completionIdOf = (message: { batch_id: string; round_id?: string | undefined }): string =>
  message.round_id ?? message.batch_id;

/** The row record names a later attempt or dispatch than this execution's: it is no longer ours. */
export const isSuperseded = (
  row: Pick<RowRecord, 'attempt' | 'dispatch'>,
  mine: { attempt: number; dispatch: number },
): boolean => row.attempt > mine.attempt || (row.attempt === mine.attempt && row.dispatch > mine.dispatch);
