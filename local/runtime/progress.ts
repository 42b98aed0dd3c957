/**
 * Where a batch stands, read the way an operator would read it on AWS: the batch record and its
 * counters in the batch table (core/row-counts.ts: what Prepare counted, the rows counted as they
 * finished, never the rows themselves, so a line costs the same at 100 rows and at 400,000), the
 * slot leases in the lease table. Nothing here is kept in memory by the runtime, so a batch from
 * an earlier run reads the same as one running now. An answers round reads the same way: its
 * record and its own counters (the rows it resumed).
 */

import { type BatchStage, batchStage } from '../../shared/pipeline/core/batch-stage.js';
import type { BatchStore } from '../../shared/pipeline/core/ports.js';
import { countedRows, coverageShares } from '../../shared/pipeline/core/row-counts.js';
import type { SlotLeases } from '../../shared/pipeline/core/slot-leases.js';
import { holdsForBatch } from '../../shared/pipeline/dispatch/execution-names.js';

/** A batch's (or an answers round's) progress at one moment: its state, its stage, rows by status, slots and money. */
export type BatchProgress = {
  batchId: string;
  /** The batch record's state (`preparing`, `running`, `finalizing`, `completed`, `failed`), or `submitted` before Prepare wrote it. */
  state: string;
  rowsTotal: number;
  /** While Prepare reads the file: the rows read so far (every 10,000); 0 before. */
  rowsRead: number;
  /** Rows by status, working ones (`queued`, `submitting`, `in_progress`, `following`) included. */
  byStatus: Record<string, number>;
  /** Where the batch stands, as the console's pages show it too. */
  stage: BatchStage;
  /** Slot leases held now, by every batch sharing the cap. */
  leasesHeld: number;
  /** The cap in force: the organisation's concurrency limit, or the lower override; null when unknown. */
  cap: number | null;
  billedUsd: number;
  /**
   * The rows and the value (null: the file gives none) with a verdict and the classifications
   * over, in whole percents (`coverageShares`).
   */
  covered: { rows: number; value: number | null; classifications: number };
  startedAt: string | null;
  /** For an answers round: the batch whose rows it resumes (its outbox is the batch's). */
  roundOf: string | null;
};

/** Takes the tables' ports and a batch id, and gives the batch's progress read from its counters, never its rows. */
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
  let covered: BatchProgress['covered'] = { rows: 0, value: null, classifications: 0 };
  if (batch) {
    const finished = await ports.batches.finishedRows(batch);
    const round = roundOf === null ? undefined : batchId;
    const inFlight = leases.filter((lease) => holdsForBatch(lease.holder, roundOf ?? batchId, round)).length;
    const counted = countedRows(batch, finished, inFlight);
    byStatus = counted.byStatus;
    billedUsd = counted.billedCents / 100;
    covered = coverageShares(counted);
  }
  const state = batch?.state ?? 'submitted';
  return {
    batchId,
    state,
    rowsTotal: batch?.rows_total ?? 0,
    rowsRead: batch?.rows_read ?? 0,
    byStatus,
    stage: batchStage(batch, byStatus),
    leasesHeld: leases.length,
    cap,
    billedUsd,
    covered,
    startedAt: batch?.started_at ?? null,
    roundOf,
  };
};
