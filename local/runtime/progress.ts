/**
 * Where a batch stands, read the way an operator would read it on AWS: the batch record and its
 * counters in the batch table (core/row-counts.ts: what Prepare counted, the rows counted as they
 * finished, never the rows themselves, so a line costs the same at 100 rows and at 400,000), the
 * slot leases in the lease table. Nothing here is kept in memory by the runtime, so a batch from
 * an earlier run reads the same as one running now. An answers round reads the same way: its
 * record and its own counters (the rows it resumed).
 */

import type { BatchStore } from '../../shared/pipeline/core/ports.js';
import { countedRows } from '../../shared/pipeline/core/row-counts.js';
import type { SlotLeases } from '../../shared/pipeline/core/slot-leases.js';
import { holdsForBatch } from '../../shared/pipeline/dispatch/execution-names.js';

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
  const roundOf = batch?.round_of ?? null;
  let byStatus: Record<string, number> = {};
  let billedUsd = 0;
  if (batch) {
    const finished = await ports.batches.finishedRows(batch);
    const round = roundOf === null ? undefined : batchId;
    const inFlight = leases.filter((lease) => holdsForBatch(lease.holder, roundOf ?? batchId, round)).length;
    const counted = countedRows(batch, finished, inFlight);
    byStatus = counted.byStatus;
    billedUsd = counted.billedCents / 100;
  }
  const state = batch?.state ?? 'submitted';
  return {
    batchId,
    state,
    rowsTotal: batch?.rows_total ?? 0,
    byStatus,
    stage: stageOf(state, byStatus),
    leasesHeld: leases.length,
    cap,
    billedUsd,
    startedAt: batch?.started_at ?? null,
    roundOf,
  };
};
