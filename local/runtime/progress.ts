/**
 * Where a batch stands, read the way an operator would read it on AWS: the batch record and
 * its rows in the batch table, the slot leases in the lease table, the money from the rows'
 * `cost_usd`. Nothing here is kept in memory by the runtime, so a batch from an earlier run
 * reads the same as one running now. An answers round reads the same way: its record, and the
 * rows of its batch that it took.
 */
import { standingRows } from '../../shared/pipeline/batch/standing-rows.js';
import type { BatchStore, SlotLeases } from '../../shared/pipeline/core/index.js';

export type BatchStage =
  | 'preparing'
  | 'dispatching'
  | 'waiting on service'
  | 'finalizing'
  | 'completed'
  | 'failed';

export type BatchProgress = {
  batchId: string;
  /** The batch record's state (`preparing`, `running`, `finalizing`, `completed`, `failed`), or `submitted` before Prepare wrote it. */
  state: string;
  rowsTotal: number;
  /** Rows by status, working ones (`queued`, `submitting`, `in_progress`, `following`) included. */
  byStatus: Record<string, number>;
  /** `preparing`, `dispatching` (rows wait for slots), `waiting on service`, `finalizing`, `completed` or `failed`. */
  stage: BatchStage | string;
  /** Slot leases held now, by every batch sharing the cap. */
  leasesHeld: number;
  /** The cap in force: the organisation's concurrency limit, or the lower override; null when unknown. */
  cap: number | null;
  billedUsd: number;
  startedAt: string | null;
  /** For an answers round: the batch whose rows it resumes (its outbox is the batch's). */
  roundOf: string | null;
};

const stageOf = (state: string, byStatus: Record<string, number>): BatchStage => {
  switch (state) {
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'finalizing':
      return 'finalizing';
    case 'running':
      if ((byStatus.queued ?? 0) > 0) return 'dispatching';
      if ((byStatus.submitting ?? 0) + (byStatus.in_progress ?? 0) > 0) return 'waiting on service';
      return 'finalizing';
    default:
      return 'preparing';
  }
};

export const readBatchProgress = async (
  ports: { batches: BatchStore; leases: SlotLeases; cap: () => Promise<number | null> },
  batchId: string,
): Promise<BatchProgress> => {
  const [batch, leases, cap] = await Promise.all([
    ports.batches.getBatch(batchId),
    ports.leases.list(),
    ports.cap(),
  ]);
  const byStatus: Record<string, number> = {};
  let billedUsd = 0;
  let rows = 0;
  const roundOf = batch?.round_of ?? null;
  if (batch) {
    // As the rows stand: a follower shows its leader's outcome (it is never written itself).
    for await (const { row, result } of standingRows(ports.batches, roundOf ?? batchId)) {
      if (roundOf !== null && row.round?.round_id !== batchId) continue;
      rows += 1;
      byStatus[result.status] = (byStatus[result.status] ?? 0) + 1;
      const cost = Number(result.cost_usd ?? 0);
      if (Number.isFinite(cost)) billedUsd += cost;
    }
  }
  const state = batch?.state ?? 'submitted';
  return {
    batchId,
    state,
    rowsTotal: Math.max(batch?.rows_total ?? 0, rows),
    byStatus,
    stage: stageOf(state, byStatus),
    leasesHeld: leases.length,
    cap,
    billedUsd: Math.round(billedUsd * 100) / 100,
    startedAt: batch?.started_at ?? null,
    roundOf,
  };
};
