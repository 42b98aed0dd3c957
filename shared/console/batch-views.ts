/**
 * Batches as the console shows them, read from the records the pipeline keeps: a running batch
 * from its counters (core/row-counts.ts: the batch record, its open completion shards, the leases
 * its rows hold), never its rows, so a refresh costs the same at 100 rows and at 400,000; a
 * finished batch from its summary.json, which Finalize (and an answers round's FinalizeAnswers)
 * writes. Pure but for the ports.
 *
 *   listBatchViews ──▶ BatchList (newest first, a page at a time)
 *   batchView      ──▶ BatchView (progress: rows by status, slots in use, billed, time left)
 */
import { tableInForce } from '../ncm-table/reference-table.js';
import type { NcmTable } from '../ncm-table/siscomex-table.js';
import { batchStage } from '../pipeline/core/batch-stage.js';
import { isRoundReportFile, outboxKey } from '../pipeline/core/bucket-layout.js';
import type { BatchRecord } from '../pipeline/core/records.js';
import { countedRows, coverageShares } from '../pipeline/core/row-counts.js';
import type { Lease } from '../pipeline/core/slot-leases.js';
import { holdsForBatch } from '../pipeline/dispatch/execution-names.js';
import { BatchSummary, cents, PARTIAL_FILES } from '../pipeline/outbox/results-files.js';
import { LIMITS, PRICE_PER_RESOLVED_USD } from '../tcs/schemas.js';
import { message } from '../wording/index.js';
import {
  BATCH_FILES,
  type BatchesQuery,
  type BatchFileName,
  type BatchList,
  type BatchListItem,
  type BatchView,
  type NcmTableSaid,
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
  /** The share of `savedUsd` from rows that shared a classification with a row of the same product. */
  savedIdenticalUsd: number;
  /** When the last row became final, for the pace. */
  lastFinishedAt: string | null;
  /**
   * The rows and the value (null: the file gives none) with a verdict, and the classifications
   * over, in whole percents; null from a summary.
   */
  covered: { rows: number; value: number | null; classifications: number } | null;
};

/** The leases held now by the rows of this batch (or answers round): its rows in flight. */
const inFlightOf = (batch: BatchRecord, leases: readonly Lease[], nowMs: number): number => {
  const rowsOf = batch.round_of ?? batch.batch_id;
  const round = batch.round_of === undefined ? undefined : batch.batch_id;
  return leases.filter((lease) => lease.expiresAt > nowMs && holdsForBatch(lease.holder, rowsOf, round))
    .length;
};

/** A batch's rows from its counters: the batch record, its open shards' counts, the leases held. */
const countedTally = async (
  ports: Pick<ConsolePorts, 'batches' | 'clock'>,
  batch: BatchRecord,
  leases: readonly Lease[],
): Promise<RowTally> => {
  const finished = await ports.batches.finishedRows(batch);
  const counted = countedRows(batch, finished, inFlightOf(batch, leases, ports.clock.now().getTime()));
  return {
    byStatus: counted.byStatus,
    rows: counted.rows,
    done: counted.done,
    billedUsd: cents(counted.billedCents / 100),
    savedUsd: cents(counted.savedRows * PRICE_PER_RESOLVED_USD),
    // The rest of the saved rows are the reused ones (row-counts.ts, `savedRows`).
    savedIdenticalUsd: cents(
      Math.max(0, counted.savedRows - (counted.byStatus.reused ?? 0)) * PRICE_PER_RESOLVED_USD,
    ),
    lastFinishedAt: counted.lastFinishedAt,
    covered: coverageShares(counted),
  };
};

const listItem = (batch: BatchRecord, tally: RowTally): BatchListItem => ({
  batch_id: batch.batch_id,
  name: batch.name,
  file_name: batch.source.file_name,
  state: batch.state,
  stage: batchStage(batch, tally.byStatus),
  plan_only: batch.options?.plan_only ?? false,
  rows_total: Math.max(batch.rows_total, tally.rows),
  by_status: tally.byStatus,
  billed_usd: tally.billedUsd,
  started_at: batch.started_at,
  finished_at: batch.finished_at ?? null,
  stop: batch.stop ? { type: batch.stop.type, title: batch.stop.title, detail: batch.stop.detail } : null,
});

const isFinished = (batch: BatchRecord): boolean => batch.state === 'completed' || batch.state === 'failed';

/** The NCM table in force as a page names it: its day and the act it follows. */
export const ncmTableSaid = (table: Pick<NcmTable, 'asOf' | 'act'>): NcmTableSaid => ({
  as_of: table.asOf,
  act: table.act,
});

/** A finished batch's summary.json, when its outbox has one that reads. */
const readSummary = async (
  ports: Pick<ConsolePorts, 'objects'>,
  batchId: string,
): Promise<BatchSummary | null> => {
  const bytes = await ports.objects.getBytes(outboxKey(batchId, 'summary.json'));
  if (!bytes) return null;
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(bytes));
    const parsed = BatchSummary.safeParse(json);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
};

const finishedSummary = (ports: Pick<ConsolePorts, 'objects'>, batch: BatchRecord) =>
  isFinished(batch) ? readSummary(ports, batch.batch_id) : Promise.resolve(null);

const tallyOfSummary = (summary: BatchSummary): RowTally => {
  const byStatus = Object.fromEntries(Object.entries(summary.by_status).filter(([, count]) => count > 0));
  const done = Object.values(summary.by_status).reduce((sum, count) => sum + count, 0);
  return {
    byStatus,
    rows: summary.rows_total,
    done,
    billedUsd: summary.billed_usd,
    savedUsd: summary.saved_usd,
    savedIdenticalUsd: Math.min(summary.saved_usd, summary.duplicates.saved_usd),
    lastFinishedAt: summary.finished_at,
    covered: null,
  };
};

/**
 * A batch's counts as a page shows them: a finished batch's from its summary.json (one small
 * object, rewritten when an answers round moves its results), a running one's from its counters.
 * Neither reads a row.
 */
export const batchTally = async (
  ports: Pick<ConsolePorts, 'batches' | 'objects' | 'clock'>,
  batch: BatchRecord,
  leases: readonly Lease[],
): Promise<RowTally> => {
  const read = await finishedSummary(ports, batch);
  return read ? tallyOfSummary(read) : countedTally(ports, batch, leases);
};

export const listBatchViews = async (
  ports: Pick<ConsolePorts, 'batches' | 'objects' | 'clock' | 'leases'>,
  page: BatchesQuery,
): Promise<BatchList> => {
  const [{ batches, next }, leases] = await Promise.all([
    ports.batches.listBatches({ limit: page.limit, after: page.after ?? null }),
    ports.leases.list(),
  ]);
  const items = await Promise.all(
    batches.map(async (batch) => listItem(batch, await batchTally(ports, batch, leases))),
  );
  return { batches: items, next };
};

/**
 * Seconds until the last row is final, at the pace rows have become final so far; null before
 * a few rows are final (no pace yet) and once nothing is left.
 */
const secondsLeft = (tally: RowTally, total: number, startedAt: string): number | null => {
  const left = total - tally.done;
  if (left <= 0 || tally.done < 3 || tally.lastFinishedAt === null) return null;
  const elapsed = (Date.parse(tally.lastFinishedAt) - Date.parse(startedAt)) / 1000;
  if (!(elapsed > 0)) return null;
  return Math.round((left * elapsed) / tally.done);
};

/** Each answers round's own report in the outbox, oldest first, with when its round started (from its name). */
const roundReports = async (ports: Pick<ConsolePorts, 'objects'>, batchId: string) =>
  (await ports.objects.list(outboxKey(batchId, 'answers-report-')))
    .map((key) => key.slice(key.lastIndexOf('/') + 1))
    .filter(isRoundReportFile)
    .sort()
    .map((file) => {
      const [, date = '', time = ''] = /^answers-report-(\d{8})T(\d{6})Z/.exec(file) ?? [];
      const at = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}T${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4)}Z`;
      return { file, at };
    });

const outboxFiles = async (ports: Pick<ConsolePorts, 'objects'>, batchId: string) => {
  const present = await Promise.all(
    BATCH_FILES.map(async (file) => ((await ports.objects.head(outboxKey(batchId, file))) ? file : null)),
  );
  return present.filter((file): file is BatchFileName => file !== null);
};

export const batchView = async (ports: ConsolePorts, batchId: string): Promise<BatchView> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  const [leases, files, read, reports] = await Promise.all([
    ports.leases.list(),
    outboxFiles(ports, batchId),
    finishedSummary(ports, batch),
    roundReports(ports, batchId),
  ]);
  const tally = read ? tallyOfSummary(read) : await countedTally(ports, batch, leases);
  // A finished batch's results were checked against the table its summary names; else the one in force.
  // The table a finished batch's summary names; summaries written before they named one: the table in force.
  const named = read?.ncm_table;
  const ncmTable = named
    ? { as_of: named.as_of, act: named.act }
    : ncmTableSaid((await tableInForce(ports.objects)).table);
  const item = listItem(batch, tally);
  const finished = isFinished(batch);
  const now = ports.clock.now().getTime();
  return {
    ...item,
    rows_dispatched: batch.rows_dispatched,
    saved_usd: tally.savedUsd,
    saving: message('saving_sources', {
      reused_usd: cents(tally.savedUsd - tally.savedIdenticalUsd),
      identical_usd: tally.savedIdenticalUsd,
    }),
    slots: {
      in_use: leases.filter((lease) => lease.expiresAt > now).length,
      // The service's documented limit; the dispatcher reads the live one from GET /balance.
      cap: ports.capOverride ?? LIMITS.concurrencyLimitDefault,
    },
    rows_done: tally.done,
    rows_read: batch.state === 'preparing' ? (batch.rows_read ?? 0) : null,
    // Said while classifications run: none ended yet says nothing, all ended is the whole batch.
    coverage:
      !finished && tally.covered && tally.covered.classifications > 0 && tally.covered.classifications < 100
        ? tally.covered
        : null,
    eta_seconds: finished ? null : secondsLeft(tally, item.rows_total, batch.started_at),
    pending_questions: tally.byStatus.pending_data ?? 0,
    problems: batch.problems,
    warnings: batch.warnings ?? [],
    options: batch.options ?? null,
    files: files.filter((file) => !(finished && Object.values(PARTIAL_FILES).includes(file as never))),
    ncm_table: ncmTable,
    divergent_rows: read ? read.current_ncm_mismatches : null,
    round_reports: reports,
  };
};
