import * as z from 'zod';
import type { PipelinePorts } from '../core/ports.js';
import { RowState } from '../core/records.js';
import { type CompleteReport, completeRow } from './complete.js';

/** EventBridge "Step Functions Execution Status Change" (only the fields used). */
const ExecutionStatusChange = z.object({
  detail: z.object({
    status: z.string(),
    input: z.string().nullish(),
    error: z.string().nullish(),
    cause: z.string().nullish(),
  }),
});

const ENDED_WITHOUT_COMPLETE = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

/**
 * Takes the event of a Row workflow execution that ended without reaching Complete (failed
 * outside a Catch, timed out, aborted) and completes the row as Complete does a caught error: a
 * row whose classification this attempt created goes back to follow it in a new dispatch (the
 * service bills it once it resolves, whatever became of the execution), any other becomes
 * `error`, unless it already has a result or a later dispatch owns it; its lease is released so
 * the slot is not held until the lease expires. An execution someone stopped (ABORTED) ends its
 * row as `error` whatever it created. Gives Complete's report; null for any other status.
 */
export const rowExecutionEnded = async (
  ports: Pick<
    PipelinePorts,
    'clock' | 'queue' | 'batches' | 'cache' | 'leases' | 'waiters' | 'kick' | 'partials' | 'audit'
  >,
  event: unknown,
): Promise<CompleteReport | null> => {
  const { detail } = ExecutionStatusChange.parse(event);
  if (!ENDED_WITHOUT_COMPLETE.has(detail.status)) return null;
  if (!detail.input) throw new Error(`Row execution ${detail.status} without its input in the event`);
  const input = RowState.parse(JSON.parse(detail.input));
  return completeRow(
    ports,
    {
      batch_id: input.batch_id,
      row: input.row,
      attempt: input.attempt,
      dispatch: input.dispatch,
      row_key: input.row_key,
      holder: input.holder,
      ...(input.round_id !== undefined ? { round_id: input.round_id } : {}),
      error: { Error: `Row workflow ${detail.status}`, ...(detail.error ? { Cause: detail.error } : {}) },
    },
    { followClassification: detail.status !== 'ABORTED' },
  );
};
