/**
 * summary.json's counts, added up a row at a time from what each row shows (a follower: its
 * leader's outcome). The running counts are a small record, so a pass that stops when its leg's
 * time is spent saves them in `work/` and the next leg goes on counting from them.
 */
import * as z from 'zod';
import type { TableInForce } from '../../ncm-table/reference-table.js';
import { everyColumnUse } from '../../spreadsheet/input-report.js';
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import { shownMessages } from '../../wording/index.js';
import type { BatchRecord, RowRecord } from '../core/records.js';
import type { ShownResult } from '../core/result-columns.js';
import { isFinalResult, resultNow } from '../core/row-life.js';
import { OutputStatus } from '../core/row-statuses.js';
import { ERP_UPDATE_FILE, erpUpdateOf } from '../outbox/erp-update.js';
import {
  type BatchSummary,
  cents,
  countByStatus,
  ncmTableShown,
  OUTPUT_FILES,
  sourceShown,
} from '../outbox/results-files.js';
import { workbookLanguage } from '../outbox/workbook-language.js';

/** A row counted for summary.json: only whether it would be in erp-update.csv, not its cells. */
const NO_ERP_COLUMNS = { exTipi: null, cest: null };

/** `no` is what the row side and reuse write; `false` is accepted so a variant spelling still counts. */
const isMismatch = (value: string | undefined): boolean => value === 'no' || value === 'false';

type SummaryOf = Pick<
  BatchRecord,
  'batch_id' | 'name' | 'source' | 'state' | 'rows_dispatched' | 'stop' | 'problems'
> &
  Partial<Pick<BatchRecord, 'started_at' | 'finished_at' | 'options' | 'columns' | 'warnings' | 'header'>>;

/** The running counts behind summary.json: small, so a leg can save them and the next go on from them. */
export const SummaryCounts = z.object({
  counts: z.record(OutputStatus, z.number().int().min(0)),
  rows: z.number().int().min(0),
  /** USD, as the rows' `cost_usd` add up. */
  billed: z.number(),
  reused: z.number().int().min(0),
  mismatches: z.number().int().min(0),
  /** Rows whose declared NCM, and rows whose verdict, is no code in force (zero in a tally kept before). */
  declared_not_in_force: z.number().int().min(0).default(0),
  verdicts_not_in_force: z.number().int().min(0).default(0),
  followers: z.number().int().min(0),
  followers_resolved: z.number().int().min(0),
  /** Rows whose verdict waits for a person, and rows a person approved (`check`; zero in a tally kept before). */
  to_check: z.number().int().min(0).default(0),
  approved: z.number().int().min(0).default(0),
  /** Rows erp-update.csv leaves out: their code is not settled, or they have no SKU (zero in a tally kept before). */
  erp_waiting: z.number().int().min(0).default(0),
  erp_without_sku: z.number().int().min(0).default(0),
});
export type SummaryCounts = z.infer<typeof SummaryCounts>;

const NOTHING_COUNTED = (): SummaryCounts => ({
  counts: countByStatus([]),
  rows: 0,
  billed: 0,
  reused: 0,
  mismatches: 0,
  declared_not_in_force: 0,
  verdicts_not_in_force: 0,
  followers: 0,
  followers_resolved: 0,
  to_check: 0,
  approved: 0,
  erp_waiting: 0,
  erp_without_sku: 0,
});

/**
 * A tally of summary.json's counts, from nothing or from the counts an earlier leg reached:
 * `add` counts one row by its shown result, `counts` gives the counts to save, and `summary`
 * builds summary.json from them and the batch record.
 */
export const summaryTally = (from: SummaryCounts = NOTHING_COUNTED()) => {
  const at: SummaryCounts = { ...from, counts: { ...from.counts } };
  return {
    add(row: Pick<RowRecord, 'follows' | 'product' | 'cells'>, shown: ShownResult): void {
      at.rows += 1;
      if (isFinalResult(shown)) at.counts[shown.status] += 1;
      const cost = Number(shown.cost_usd ?? 0);
      if (Number.isFinite(cost)) at.billed += cost;
      if (shown.status === 'reused') at.reused += 1;
      if (isMismatch(shown.current_ncm_matches)) at.mismatches += 1;
      if (shown.current_ncm_in_force === 'no') at.declared_not_in_force += 1;
      if (shown.ncm_in_force === 'no') at.verdicts_not_in_force += 1;
      // A follower shows its leader's outcome, its check included: it counts as its leader does.
      if (shown.check === 'to_check') at.to_check += 1;
      if (shown.check === 'approved') at.approved += 1;
      if (isFinalResult(shown)) {
        const update = erpUpdateOf({ row, result: shown }, NO_ERP_COLUMNS);
        if (update === 'waiting') at.erp_waiting += 1;
        if (update === 'no_sku') at.erp_without_sku += 1;
      }
      if (row.follows !== undefined) {
        at.followers += 1;
        if (shown.status === 'resolved') at.followers_resolved += 1;
      }
    },
    /** The counts so far, to go on from in another invocation. */
    counts: (): SummaryCounts => ({ ...at, counts: { ...at.counts } }),
    /**
     * Built from named fields only: the batch record also holds the Batch workflow's task token,
     * a secret that must never reach a file or an event.
     */
    summary(batch: SummaryOf, now: Date, ncm?: TableInForce): BatchSummary {
      const language = workbookLanguage({ header: batch.header ?? [], options: batch.options });
      const duplicates = {
        rows: at.followers,
        saved_usd: cents(at.followers_resolved * PRICE_PER_RESOLVED_USD),
      };
      return {
        batch_id: batch.batch_id,
        name: batch.name,
        source: sourceShown(batch.source),
        state: batch.state,
        rows_total: at.rows,
        rows_dispatched: batch.rows_dispatched,
        by_status: { ...at.counts },
        billed_usd: cents(at.billed),
        saved_usd: cents(at.reused * PRICE_PER_RESOLVED_USD + duplicates.saved_usd),
        duplicates,
        current_ncm_mismatches: at.mismatches,
        checks: { to_check: at.to_check, approved: at.approved },
        erp_update: { waiting_rows: at.erp_waiting, rows_without_sku: at.erp_without_sku },
        ...(ncm
          ? {
              ncm_table: ncmTableShown(ncm),
              declared_ncm_not_in_force: at.declared_not_in_force,
              ncm_not_in_force: at.verdicts_not_in_force,
            }
          : {}),
        started_at: batch.started_at ?? null,
        finished_at: batch.finished_at ?? now.toISOString(),
        // Each message with its sentence in the batch's language (workbook-language.ts).
        problems: shownMessages(batch.problems, language),
        warnings: shownMessages(batch.warnings ?? [], language),
        columns: batch.columns ? everyColumnUse(batch.header ?? [], batch.columns) : [],
        stop: batch.stop ?? null,
        options: batch.options ?? null,
        outputs: { ...OUTPUT_FILES, erp_update: ERP_UPDATE_FILE },
      };
    },
  };
};

/**
 * summary.json for rows held in memory, each counted by the result it holds itself (no leader is
 * looked up for a follower): for tests and the workbook benchmark, whose rows fit in memory.
 */
export const buildSummary = (batch: SummaryOf, rows: readonly RowRecord[], now: Date): BatchSummary => {
  const tally = summaryTally();
  for (const row of rows) tally.add(row, resultNow(row));
  return tally.summary(batch, now);
};
