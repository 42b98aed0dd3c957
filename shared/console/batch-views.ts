/**
 * Batches as the console shows them, read from the records the pipeline keeps (no counters of
 * their own): a running batch's rows are counted as they stand, a finished batch's money saved
 * comes from its summary.json. Pure but for the ports.
 *
 *   listBatchViews ──▶ BatchList (newest first, a page at a time)
 *   batchView      ──▶ BatchView (progress: rows by status, slots in use, billed, time left)
 */
import { BatchSummary, cents, PARTIAL_FILES } from '../pipeline/batch/index.js';
import { type BatchRecord, outboxKey, type RowRecord, type RowStatus } from '../pipeline/core/index.js';
import { isFinalResult, leadersOf, resultNow } from '../pipeline/core/row-life.js';
import { LIMITS, PRICE_PER_RESOLVED_USD } from '../tcs/schemas.js';
import {
  BATCH_FILES,
  type BatchesQuery,
  type BatchFileName,
  type BatchList,
  type BatchListItem,
  type BatchStage,
  type BatchView,
  type RowCounts,
} from './api.js';
import type { ConsolePorts } from './ports.js';
import { batchNotFound } from './refusals.js';

/** A batch's rows counted as they stand now: followers of a final row count as its outcome. */
export type RowTally = {
  byStatus: RowCounts;
  rows: number;
  done: number;
  billedUsd: number;
  savedUsd: number;
  /** When the last row became final, for the pace. */
  lastFinishedAt: string | null;
};

export const tallyRows = (rows: readonly RowRecord[]): RowTally => {
  const leaderOf = leadersOf(rows);
  const byStatus: Partial<Record<RowStatus, number>> = {};
  let done = 0;
  let billed = 0;
  let savedRows = 0;
  let lastFinishedAt: string | null = null;
  for (const row of rows) {
    const shown = resultNow(row, leaderOf(row));
    const { status } = shown;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (!isFinalResult(shown)) continue;
    done += 1;
    const cost = Number(shown.cost_usd ?? 0);
    if (Number.isFinite(cost)) billed += cost;
    if (status === 'reused' || (row.follows !== undefined && status === 'resolved')) savedRows += 1;
    if (row.finished_at && (lastFinishedAt === null || row.finished_at > lastFinishedAt))
      lastFinishedAt = row.finished_at;
  }
  return {
    byStatus,
    rows: rows.length,
    done,
    billedUsd: cents(billed),
    savedUsd: cents(savedRows * PRICE_PER_RESOLVED_USD),
    lastFinishedAt,
  };
};

export const readRows = async (
  ports: Pick<ConsolePorts, 'batches'>,
  batchId: string,
): Promise<RowRecord[]> => {
  const rows: RowRecord[] = [];
  for await (const row of ports.batches.listRows(batchId)) rows.push(row);
  return rows;
};

const stageOf = (batch: BatchRecord, byStatus: RowCounts): BatchStage => {
  switch (batch.state) {
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

const listItem = (batch: BatchRecord, tally: RowTally): BatchListItem => ({
  batch_id: batch.batch_id,
  name: batch.name,
  file_name: batch.source.file_name,
  state: batch.state,
  stage: stageOf(batch, tally.byStatus),
  plan_only: batch.options?.plan_only ?? false,
  rows_total: Math.max(batch.rows_total, tally.rows),
  by_status: tally.byStatus,
  billed_usd: tally.billedUsd,
  started_at: batch.started_at,
  finished_at: batch.finished_at ?? null,
  stop: batch.stop ? { title: batch.stop.title, detail: batch.stop.detail } : null,
});

const isFinished = (batch: BatchRecord): boolean => batch.state === 'completed' || batch.state === 'failed';

/** A finished batch's summary.json, when its outbox has one that reads. */
const readSummary = async (
  ports: Pick<ConsolePorts, 'objects'>,
  batchId: string,
): Promise<BatchSummary | null> => {
  const bytes = await ports.objects.getBytes(outboxKey(batchId, 'summary.json'));
  if (!bytes) return null;
  try {
    const parsed = BatchSummary.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
};

const tallyOfSummary = (summary: BatchSummary): RowTally => {
  const byStatus = Object.fromEntries(Object.entries(summary.by_status).filter(([, count]) => count > 0));
  const done = Object.values(summary.by_status).reduce((sum, count) => sum + count, 0);
  return {
    byStatus,
    rows: summary.rows_total,
    done,
    billedUsd: summary.billed_usd,
    savedUsd: summary.saved_usd,
    lastFinishedAt: summary.finished_at,
  };
};

/**
 * The list reads a finished batch's counts from its summary.json (one small object) and counts
 * only running batches' rows: a page of twenty batches must not read every row of each.
 */
const listTally = async (ports: Pick<ConsolePorts, 'batches' | 'objects'>, batch: BatchRecord) => {
  const summary = isFinished(batch) ? await readSummary(ports, batch.batch_id) : null;
  return summary ? tallyOfSummary(summary) : tallyRows(await readRows(ports, batch.batch_id));
};

export const listBatchViews = async (
  ports: Pick<ConsolePorts, 'batches' | 'objects'>,
  page: BatchesQuery,
): Promise<BatchList> => {
  const { batches, next } = await ports.batches.listBatches({ limit: page.limit, after: page.after ?? null });
  const items = await Promise.all(
    batches.map(async (batch) => listItem(batch, await listTally(ports, batch))),
  );
  return { batches: items, next };
};

/**
 * Seconds until the last row is final, at the pace rows have become final so far; null before
 * a few rows are final (no pace yet) and once nothing is left.
 */
export const secondsLeft = (tally: RowTally, total: number, startedAt: string): number | null => {
  const left = total - tally.done;
  if (left <= 0 || tally.done < 3 || tally.lastFinishedAt === null) return null;
  const elapsed = (Date.parse(tally.lastFinishedAt) - Date.parse(startedAt)) / 1000;
  if (!(elapsed > 0)) return null;
  return Math.round((left * elapsed) / tally.done);
};

const outboxFiles = async (ports: Pick<ConsolePorts, 'objects'>, batchId: string) => {
  const present = await Promise.all(
    BATCH_FILES.map(async (file) => ((await ports.objects.head(outboxKey(batchId, file))) ? file : null)),
  );
  return present.filter((file): file is BatchFileName => file !== null);
};

export const batchView = async (ports: ConsolePorts, batchId: string): Promise<BatchView> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  const [rows, leases, files] = await Promise.all([
    readRows(ports, batchId),
    ports.leases.list(),
    outboxFiles(ports, batchId),
  ]);
  const tally = tallyRows(rows);
  const item = listItem(batch, tally);
  const finished = isFinished(batch);
  const summary = finished && files.includes('summary.json') ? await readSummary(ports, batchId) : null;
  const now = ports.clock.now().getTime();
  return {
    ...item,
    rows_dispatched: batch.rows_dispatched,
    // A finished batch's saving is its summary's; counted from the rows, a reused verdict whose
    // batch is gone would count the same, but the summary is what the files say.
    saved_usd: summary?.saved_usd ?? tally.savedUsd,
    slots: {
      in_use: leases.filter((lease) => lease.expiresAt > now).length,
      // The service's documented limit; the dispatcher reads the live one from GET /balance.
      cap: ports.capOverride ?? LIMITS.concurrencyLimitDefault,
    },
    rows_done: tally.done,
    eta_seconds: finished ? null : secondsLeft(tally, item.rows_total, batch.started_at),
    pending_questions: tally.byStatus.pending_data ?? 0,
    problems: batch.problems,
    warnings: batch.warnings ?? [],
    options: batch.options ?? null,
    files: files.filter((file) => !(finished && Object.values(PARTIAL_FILES).includes(file as never))),
  };
};
