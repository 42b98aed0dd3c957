/**
 * What every step of the Row workflow shares: its configuration, the classification run it
 * follows, how it ends with a result, and who owns the row. The row belongs to the execution of
 * (attempt, dispatch) that the row record names; an execution that finds a later one named has
 * been superseded (a retry or a 429 sent the row on to a new execution) and changes nothing of
 * the row, since the newer execution now decides it.
 */
import type { PipelinePorts } from '../core/ports.js';
import type { RowRecord, RowState, RowStep } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';

/** What the Row workflow's steps are configured with by their handler. */
export type RowStepConfig = {
  /** Expiry of a slot lease; Poll pushes it forward by this much once a third of it has gone. */
  leaseTtlMs: number;
};

/** The classification run a row follows: its id, and when it began (submission, or answers posted). */
export type Run = { classification_id: string; submitted_at: string };

const carryOf = (run: Partial<Run> | undefined): Partial<Run> => ({
  ...(run?.classification_id ? { classification_id: run.classification_id } : {}),
  ...(run?.submitted_at ? { submitted_at: run.submitted_at } : {}),
});

/** Gives the step that ends the row with `result` (Complete next), carrying the run it followed, if any. */
export const finalStep = (result: RowResult, run?: Partial<Run>): RowStep => ({
  next: 'complete',
  ...carryOf(run),
  outcome: { kind: 'final', result },
});

/**
 * Gives the classification run the row's state names; throws when there is none, since Poll,
 * Store and Review run only after Submit set it.
 */
export const runOf = (state: RowState): Run => {
  const { classification_id, submitted_at } = state.step ?? {};
  if (!classification_id || !submitted_at) {
    throw new Error(`row ${state.row_key}: no classification_id/submitted_at in $.step`);
  }
  return { classification_id, submitted_at };
};

/** Reads a row record; throws when the batch table has no such row, which no step expects. */
export const loadRow = async (
  batches: PipelinePorts['batches'],
  batchId: string,
  row: number,
): Promise<RowRecord> => {
  const record = await batches.getRow(batchId, row);
  if (!record) throw new Error(`row ${batchId}:${row} not found in the batch table`);
  return record;
};

/** Gives the id a row is counted done under: its answers round when it runs in one, else its batch. */
export const completionIdOf = (message: { batch_id: string; round_id?: string | undefined }): string =>
  message.round_id ?? message.batch_id;

/**
 * Whether the row record names a later attempt or dispatch than this execution's: the row is no
 * longer ours.
 */
export const isSuperseded = (
  row: Pick<RowRecord, 'attempt' | 'dispatch'>,
  mine: { attempt: number; dispatch: number },
): boolean => row.attempt > mine.attempt || (row.attempt === mine.attempt && row.dispatch > mine.dispatch);
