/** Row statuses and batch stages in the order the page shows them, and which are still moving. */
import type { BatchListItem, BatchStage, RowCounts, RowView } from '../../shared/console/web-contract.js';

export type RowStatus = RowView['status'];

/** Good outcomes first, then working ones, then the ones needing a person, then the bad ones. */
export const STATUS_ORDER: readonly RowStatus[] = [
  'resolved',
  'reused',
  'in_progress',
  'submitting',
  'queued',
  'following',
  'pending_data',
  'not_submitted',
  'rejected',
  'abandoned',
  'failed',
  'error',
];

export const FINAL_STAGES: readonly BatchStage[] = ['completed', 'failed', 'planned'];

/** A batch still moving: its page and the list keep refreshing. */
/** Rows on their way: a running batch's, or the rows an answers round resumed in a completed one. */
const ON_THEIR_WAY: readonly RowStatus[] = ['queued', 'submitting', 'in_progress'];

export const isLive = (batch: Pick<BatchListItem, 'state' | 'stage' | 'by_status'>): boolean =>
  (batch.state !== 'completed' && batch.state !== 'failed' && !FINAL_STAGES.includes(batch.stage)) ||
  ON_THEIR_WAY.some((status) => (batch.by_status[status] ?? 0) > 0);

export const countsInOrder = (counts: RowCounts): { status: RowStatus; count: number }[] =>
  STATUS_ORDER.flatMap((status) => {
    const count = counts[status] ?? 0;
    return count > 0 ? [{ status, count }] : [];
  });

export const WORKING: readonly RowStatus[] = ['queued', 'submitting', 'in_progress', 'following'];
