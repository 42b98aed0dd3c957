/** Row statuses and batch stages in the order the page shows them, and which are still moving. */
import {
  type BatchListItem,
  type BatchStage,
  type RowCounts,
  type RowView,
  STATUS_ORDER,
  WORKING_STATUSES,
} from '../../shared/console/web-contract.js';

/** The one order statuses are shown in (the workbooks' and the CLI's too), and the working ones. */
export { STATUS_ORDER } from '../../shared/console/web-contract.js';

export type RowStatus = RowView['status'];

const FINAL_STAGES: readonly BatchStage[] = ['completed', 'failed', 'planned'];

/** Rows on their way: a running batch's, or the rows an answers round resumed in a completed one. */
const ON_THEIR_WAY: readonly RowStatus[] = ['queued', 'submitting', 'in_progress'];

/** A batch still moving: its page and the list keep refreshing. */
export const isLive = (batch: Pick<BatchListItem, 'state' | 'stage' | 'by_status'>): boolean =>
  (batch.state !== 'completed' && batch.state !== 'failed' && !FINAL_STAGES.includes(batch.stage)) ||
  ON_THEIR_WAY.some((status) => (batch.by_status[status] ?? 0) > 0);

export const countsInOrder = (counts: RowCounts): { status: RowStatus; count: number }[] =>
  STATUS_ORDER.flatMap((status) => {
    const count = counts[status] ?? 0;
    return count > 0 ? [{ status, count }] : [];
  });

export const WORKING: readonly RowStatus[] = WORKING_STATUSES;
