/**
 * The columns results.csv appends to the input's, and a row's outcome as those columns
 * (`RowResult`): every file, workbook and page that shows a row reads its columns from here.
 */
import * as z from 'zod';
import { StoredMessage } from '../../wording/message.js';
import { OriginLookups } from './origins.js';
import { OutputStatus, type RowStatus } from './row-statuses.js';

/**
 * The verdict's duties and where they come from, in results.csv's order: the columns a sheet
 * showing what a code costs (results.xlsx's divergence sheet) takes whole.
 */
export const DUTY_COLUMNS = [
  'import_duty_applicable',
  'duty_kind',
  'statistical_rate',
  'aec',
  'export_duty',
  'export_refund',
  'tariff_source',
] as const;

/**
 * The columns results.csv appends to the input's, in this order, by these names; each value is
 * text as written. `*_in_force`: whether the code is in the NCM table in force (`yes`, `no`).
 *
 * `verdict_from`: on a row that takes a verdict made for another origin (country or operation),
 * that classification and its origin, `cls_… (CN, import)`; the row's duties are its own origin's.
 *
 * A verdict to check: `check` is `to_check` while it waits for a person and `approved` once
 * decided; the approved NCM and SIM opening stand just before the service's, so the code to declare
 * is read first, and who decided, when and why follow the verdict's own columns.
 */
export const RESULT_COLUMNS = [
  'row',
  'status',
  'reason',
  'detail',
  'classification_id',
  'verdict_from',
  'app_url',
  'title',
  'check',
  'approved_ncm',
  'ncm',
  'ncm_description',
  'approved_sim',
  'sim_code',
  'confidence',
  'confidence_band',
  'alternatives',
  ...DUTY_COLUMNS,
  'verdict_pdf',
  'questions',
  'decided_by',
  'decided_at',
  'decision_note',
  'current_ncm_matches',
  'current_ncm_in_force',
  'ncm_in_force',
  'cost_usd',
] as const;
/** The name of one of the columns results.csv appends. */
export type ResultColumn = (typeof RESULT_COLUMNS)[number];

/** A row's outcome as the output columns; absent columns are written empty. */
export const RowResult = z
  .object({
    status: OutputStatus,
    /** `detail` as messages (shared/wording/) for the workbooks and the page; absent on older results. */
    detail_messages: z.array(StoredMessage).optional(),
    /**
     * On a verdict shared by rows of other origins: each one's tariffs and SIM openings, looked up
     * once and kept with the verdict (core/origins.ts); never a column.
     */
    origin_lookups: OriginLookups.optional(),
  })
  .and(z.partialRecord(z.enum(RESULT_COLUMNS), z.string()));
export type RowResult = z.infer<typeof RowResult>;

/** A row's output columns as a file or a page shows them; `status` may be a working one while it runs. */
export type ShownResult = { status: RowStatus } & Partial<Omit<RowResult, 'status'>>;
