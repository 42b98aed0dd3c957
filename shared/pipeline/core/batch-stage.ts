/**
 * A batch's stage: the one word the console's pages and the CLI's progress line both show for
 * where a batch stands, worked out here once from its record and its rows by status.
 */
import * as z from 'zod';
import type { BatchRecord } from './records.js';
import type { RowStatus } from './row-statuses.js';

/**
 * The stages a batch shows: `dispatching` while rows wait for a slot, `waiting_on_service` while
 * the service works on the last ones, `planned` for a finished plan-only batch (nothing was sent).
 */
export const BatchStage = z.enum([
  'preparing',
  'dispatching',
  'waiting_on_service',
  'finalizing',
  'completed',
  'failed',
  'planned',
]);
export type BatchStage = z.infer<typeof BatchStage>;

/**
 * Takes a batch's record (null before Prepare wrote it) and its rows counted by status, and gives
 * its stage. A running batch with no row queued or in flight is already on its way to Finalize.
 */
export const batchStage = (
  batch: Pick<BatchRecord, 'state' | 'options'> | null,
  byStatus: Readonly<Partial<Record<RowStatus, number>>>,
): BatchStage => {
  switch (batch?.state) {
    case 'completed':
      return batch.options?.plan_only ? 'planned' : 'completed';
    case 'failed':
      return 'failed';
    case 'finalizing':
      return 'finalizing';
    case 'running':
      if ((byStatus.queued ?? 0) > 0) return 'dispatching';
      if ((byStatus.submitting ?? 0) + (byStatus.in_progress ?? 0) > 0) return 'waiting_on_service';
      return 'finalizing';
    default:
      return 'preparing';
  }
};
