/**
 * The plan of a batch before anything is spent (`plan_only` in batch.json, or
 * `npm run classify -- FILE --plan`): Prepare reads and validates the file exactly as for a run,
 * plans every row, and instead of queueing writes these two files to the outbox.
 * No creating endpoint is called; the service is asked only for its countries and `GET /balance`.
 *
 *   plan.json  how each column was understood, the rows by what would happen to them, the most
 *              the batch can cost, how long it will take at the organisation's cap, warnings
 *   plan.csv   one line per input row: what would happen to it and why, in the input's delimiter
 *
 * Pure: records and the balance in, the plan and plan.csv's lines out.
 */
import * as z from 'zod';
import { BATCH_WAIT } from '../../contract.js';
import { Language } from '../../spreadsheet/header-language.js';
import { ColumnUse, everyColumnUse } from '../../spreadsheet/input-report.js';
import type { MappedRow } from '../../spreadsheet/schemas.js';
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import { shownMessages } from '../../wording/index.js';
import { type Message, ShownMessage } from '../../wording/message.js';
import { BatchOptions } from '../core/batch-options-schema.js';
import { type BatchRecord, BatchSource, type ExposureSummary, type RowRecord } from '../core/records.js';
import { isReusedToCheck } from '../core/verdict-check.js';
import { cents, sourceShown } from '../outbox/results-files.js';
import { workbookLanguage } from '../outbox/workbook-language.js';
import { NO_EARLIER_VERDICT } from '../reuse/reuse.js';
import { SERVICE_ITEM } from './row-plans.js';

/** The names of a plan's two files in the batch's outbox. */
export const PLAN_FILES = { json: 'plan.json', csv: 'plan.csv' } as const;

/** "A run takes about one minute" (the service's contract): the pace a plan assumes. */
const TYPICAL_RUN_SECONDS = 60;

/** How long `classifications` take at `cap` at once: waves of the cap, each about a typical run. */
const estimatedSeconds = (classifications: number, cap: number): number =>
  Math.ceil(classifications / Math.max(1, cap)) * TYPICAL_RUN_SECONDS;

/**
 * The wait is the estimate times this: room for what the estimate leaves out (other clients and
 * batches sharing the cap, runs longer than a minute, retries, 429s, a slot refilled late).
 */
export const WAIT_MARGIN = 3;
/** The shortest wait: the fixed 72 h every batch had before its wait was sized. */
export const MIN_WAIT_SECONDS = BATCH_WAIT.shortestSeconds;
/** The longest: a Standard execution's year, less the 3 h the workflow keeps for Prepare and Finalize. */
export const MAX_WAIT_SECONDS = BATCH_WAIT.longestSeconds;

/**
 * Gives how long, in seconds, the Batch workflow's WaitForRows waits for the last row before
 * Finalize takes the batch as it stands: the estimate with its margin, between
 * {@link MIN_WAIT_SECONDS} and {@link MAX_WAIT_SECONDS}, and never past a deployment's own
 * ceiling (`batchTimeoutHours`).
 */
export const waitSecondsFor = (classifications: number, cap: number, ceilingSeconds: number | null): number =>
  Math.min(
    ceilingSeconds ?? MAX_WAIT_SECONDS,
    MAX_WAIT_SECONDS,
    Math.max(MIN_WAIT_SECONDS, estimatedSeconds(classifications, cap) * WAIT_MARGIN),
  );

/** Gives the cap a batch runs at: the organisation's, or a deployment's lower one (`capOverride`). */
export const capOf = (concurrencyLimit: number, capOverride: number | null): number =>
  Math.min(capOverride ?? concurrencyLimit, concurrencyLimit);

/** What a deployment sets that Prepare reads: a lower cap, and a ceiling on the wait. */
export type PrepareDeployment = { capOverride: number | null; maxWaitSeconds: number | null };
/** A deployment that sets neither: the organisation's cap, and the longest wait. */
export const DEFAULT_DEPLOYMENT: PrepareDeployment = { capOverride: null, maxWaitSeconds: null };

/** What would happen to a row, as plan.csv says it. */
const ROW_PLANS = [
  'classify',
  'same_product',
  'reuse',
  'rejected',
  'over_budget',
  'no_earlier_verdict',
  'service_item',
] as const;
/** What would happen to one row, as plan.csv's `plan` column says it. */
export type RowPlanKind = (typeof ROW_PLANS)[number];

const RejectedRow = z.object({
  row: z.number().int(),
  line: z.number().int(),
  reason: z.string(),
  /** Every issue of the row, each naming its column as written in the file. */
  detail: z.string(),
});

/**
 * plan.json: how each column was understood, the rows counted by what would happen to them, the
 * first rejected rows, the most the batch can cost and how long it would take, with its warnings,
 * problems and options.
 */
export const BatchPlan = z.object({
  batch_id: z.string(),
  name: z.string(),
  source: BatchSource.pick({ bucket: true, key: true, version_or_etag: true }),
  planned_at: z.string(),
  columns: z.array(ColumnUse),
  rows: z.object({
    total: z.number().int().min(0),
    /** Classified: each is one classification, billed if it resolves. */
    classify: z.number().int().min(0),
    /** Rows of a product an earlier row classifies: they share its classification, at no cost. */
    same_product: z.number().int().min(0),
    /** Rows whose recent verdict would be reused, at no cost. */
    reuse: z.number().int().min(0),
    rejected: z.number().int().min(0),
    /** Left out by the budget (`max_usd`). */
    over_budget: z.number().int().min(0),
    /**
     * Left out by `reclassify: ended_codes`: no earlier verdict to re-check. Under that option
     * `classify` counts the rows re-classified (their verdict's code is no longer in force) and
     * `reuse` the rows whose verdict stands.
     */
    no_earlier_verdict: z.number().int().min(0).default(0),
    /** Services, not goods (SPED TIPO_ITEM 09, NF-e NCM 00): never sent, at no cost. */
    service_item: z.number().int().min(0).default(0),
    /**
     * Of the `reuse` rows, those whose verdict will wait for a person's check (`check_below`:
     * under it, or a SIM opening to choose; an approved verdict is not asked again). Verdicts still
     * to classify are checked as they come, so the plan cannot count them.
     */
    reuse_to_check: z.number().int().min(0).default(0),
  }),
  /** The first rejected rows (up to `REJECTED_LISTED`); plan.csv lists every one. */
  rejected: z.array(RejectedRow),
  estimate: z.object({
    classifications: z.number().int().min(0),
    /** Every classification resolving, each billed once: the most the batch can cost. */
    max_usd: z.number(),
    /**
     * Classifications not made because rows of another country or operation share their product's
     * verdict, each with its own tariffs (`verdict_per_country: true` would make each one), and
     * what they would have cost.
     */
    saved_across_origins: z.number().int().min(0).default(0),
    saved_across_origins_usd: z.number().default(0),
    /** The cap the batch runs at: the organisation's (`GET /balance` `concurrency_limit`), or a deployment's lower one. */
    cap: z.number().int().min(1),
    /** Classifications of the organisation in progress when the plan was made (other clients' included). */
    in_progress_now: z.number().int().min(0),
    typical_run_seconds: z.number().int(),
    /** Runs in waves of `cap`, each about a typical run long. */
    duration_seconds: z.number().int().min(0),
    duration: z.string(),
    /** How long the Batch workflow waits for the last row before it finalizes what there is (`waitSecondsFor`). */
    wait_seconds: z.number().int().min(1),
    wait: z.string(),
    assumption: z.string(),
  }),
  /**
   * In exposure order (`options.order`): by what the products are ranked, and the expected curve:
   * the share of the rows and of the value with a verdict after an hour, a day and a week at the
   * cap (as if every product were classified). Absent in the file's order.
   */
  order: z
    .object({
      /**
       * About when the first verdict comes after the drop, in seconds: the file read twice (the
       * survey, then the count; this plan's own read timed it), then one typical run.
       */
      first_verdict_seconds: z.number().int().min(0),
      first_verdict: z.string(),
      value_header: z.string().optional(),
      priority_header: z.string().optional(),
      unread_cells: z.number().int().min(0),
      coverage: z.array(
        z.object({
          after: z.enum(['an hour', 'a day', 'a week']),
          classifications: z.number().int().min(0),
          rows_share: z.number().min(0).max(1),
          value_share: z.number().min(0).max(1),
        }),
      ),
    })
    .optional(),
  /** As summary.json's: each message's code and params, and `text` in the batch's language. */
  warnings: z.array(ShownMessage),
  problems: z.array(ShownMessage),
  options: BatchOptions,
  /** The language results.xlsx and review.xlsx would be labelled in, and what decided it. */
  workbooks: z.object({ language: Language, from: z.enum(['batch.json', 'headers']) }),
  outputs: z.object({ plan_json: z.string(), plan_csv: z.string() }),
});
export type BatchPlan = z.infer<typeof BatchPlan>;

/** `about 17 h 5 min`, `about 4 min`, `nothing to wait for`. */
const durationText = (seconds: number): string => {
  if (seconds <= 0) return 'nothing to wait for';
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return `about ${minutes} min`;
  const days = Math.floor(minutes / (24 * 60));
  const hours = Math.floor((minutes % (24 * 60)) / 60);
  const rest = minutes % 60;
  return days > 0 ? `about ${days} d ${hours} h` : `about ${hours} h ${rest} min`;
};

const rowPlanOf = (record: Pick<RowRecord, 'status' | 'follows' | 'result'>): RowPlanKind => {
  if (record.status === 'not_submitted' && record.result?.reason === NO_EARLIER_VERDICT)
    return 'no_earlier_verdict';
  if (record.status === 'not_submitted' && record.result?.reason === SERVICE_ITEM) return 'service_item';
  // A copy of a product the budget leaves out is left out with it: nothing is shared.
  if (record.status === 'not_submitted') return 'over_budget';
  if (record.follows !== undefined) return 'same_product';
  switch (record.status) {
    case 'reused':
      return 'reuse';
    case 'rejected':
      return 'rejected';
    default:
      return 'classify';
  }
};

/** Rejected rows plan.json lists; plan.csv has them all. */
const REJECTED_LISTED = 1000;

/**
 * Gives a tally Prepare feeds the row records chunk by chunk: it counts them by what would happen
 * to them and keeps the first 1,000 rejected rows, never the rows themselves.
 */
export const planTally = () => {
  const counts = Object.fromEntries(ROW_PLANS.map((kind) => [kind, 0])) as Record<RowPlanKind, number>;
  const rejected: z.infer<typeof RejectedRow>[] = [];
  let total = 0;
  let reuseToCheck = 0;
  let savedAcrossOrigins = 0;
  return {
    add(records: readonly RowRecord[]): void {
      for (const record of records) {
        total += 1;
        // A leader names the other origins its followers come in: one classification saved each.
        savedAcrossOrigins += record.other_origins?.length ?? 0;
        counts[rowPlanOf(record)] += 1;
        if (isReusedToCheck(record)) reuseToCheck += 1;
        if (record.status === 'rejected' && rejected.length < REJECTED_LISTED) {
          rejected.push({
            row: record.row,
            line: record.line,
            reason: record.result?.reason ?? record.rejection?.reason ?? '',
            detail: record.result?.detail ?? '',
          });
        }
      }
    },
    counts: () => ({ total, ...counts, reuse_to_check: reuseToCheck }),
    savedAcrossOrigins: () => savedAcrossOrigins,
    rejected: () => [...rejected],
  };
};
type PlanTally = ReturnType<typeof planTally>;

/**
 * What plan.json is built from: the batch, the tally of its rows, its options and problems, the
 * balance and the deployment.
 */
export type PlanInput = {
  batch: Pick<BatchRecord, 'batch_id' | 'name' | 'source' | 'columns' | 'warnings' | 'header'>;
  tally: PlanTally;
  options: BatchOptions;
  problems: readonly Message[];
  balance: { concurrency_limit: number; in_progress_count: number };
  deployment?: PrepareDeployment;
  now: Date;
  /** In exposure order: what the ranking found, and the coverage after a number of classifications. */
  exposure?: {
    summary: ExposureSummary;
    coverageAfter: (classifications: readonly number[]) => { rows: number; value: number }[];
    /** How long this plan's read of the file took, in seconds. */
    readSeconds: number;
  };
};

/** The horizons the plan's curve is read at, in seconds. */
const COVERAGE_HORIZONS = [
  ['an hour', 3_600],
  ['a day', 86_400],
  ['a week', 604_800],
] as const;

/** The plan's expected curve: what `cap` classifications at once cover after each horizon. */
const orderOf = (exposure: NonNullable<PlanInput['exposure']>, cap: number): BatchPlan['order'] => {
  const counts = COVERAGE_HORIZONS.map(([, seconds]) => Math.floor((seconds / TYPICAL_RUN_SECONDS) * cap));
  const shares = exposure.coverageAfter(counts);
  const { value_header, priority_header, unread_cells } = exposure.summary;
  const firstVerdictSeconds = Math.ceil(2 * exposure.readSeconds + TYPICAL_RUN_SECONDS);
  return {
    first_verdict_seconds: firstVerdictSeconds,
    first_verdict: durationText(firstVerdictSeconds),
    ...(value_header ? { value_header } : {}),
    ...(priority_header ? { priority_header } : {}),
    unread_cells,
    coverage: COVERAGE_HORIZONS.map(([after], index) => ({
      after,
      classifications: counts[index]!,
      rows_share: Math.round((shares[index]?.rows ?? 0) * 1000) / 1000,
      value_share: Math.round((shares[index]?.value ?? 0) * 1000) / 1000,
    })),
  };
};

/**
 * Builds plan.json from the batch and its tally: the counts, the estimate of cost and time, and the
 * wait. Pure.
 */
export const buildPlan = (input: PlanInput): BatchPlan => {
  const { batch, tally, balance } = input;
  const deployment = input.deployment ?? DEFAULT_DEPLOYMENT;
  const { total, ...counts } = tally.counts();
  const cap = capOf(balance.concurrency_limit, deployment.capOverride);
  const durationSeconds = estimatedSeconds(counts.classify, cap);
  const waitSeconds = waitSecondsFor(counts.classify, cap, deployment.maxWaitSeconds);
  const language = workbookLanguage({ header: batch.header, options: input.options });
  return {
    batch_id: batch.batch_id,
    name: batch.name,
    source: sourceShown(batch.source),
    planned_at: input.now.toISOString(),
    columns: batch.columns ? everyColumnUse(batch.header, batch.columns) : [],
    rows: { total, ...counts },
    rejected: tally.rejected(),
    estimate: {
      classifications: counts.classify,
      max_usd: cents(counts.classify * PRICE_PER_RESOLVED_USD),
      saved_across_origins: tally.savedAcrossOrigins(),
      saved_across_origins_usd: cents(tally.savedAcrossOrigins() * PRICE_PER_RESOLVED_USD),
      cap,
      in_progress_now: balance.in_progress_count,
      typical_run_seconds: TYPICAL_RUN_SECONDS,
      duration_seconds: durationSeconds,
      duration: durationText(durationSeconds),
      wait_seconds: waitSeconds,
      wait: durationText(waitSeconds),
      assumption:
        `${counts.classify} classification(s) at USD ${PRICE_PER_RESOLVED_USD.toFixed(2)} each if every one ` +
        `resolves (failed and abandoned ones are not billed; answering questions adds nothing), run ${cap} ` +
        `at a time at about ${TYPICAL_RUN_SECONDS} s each; other work of the organisation in progress ` +
        `(${balance.in_progress_count} now) shares the cap and makes it longer. The batch waits up to ` +
        `${durationText(waitSeconds).replace(/^about /, '')} for its last row, then its results are ` +
        `written as they stand.`,
    },
    ...(input.exposure ? { order: orderOf(input.exposure, cap) } : {}),
    warnings: shownMessages(batch.warnings ?? [], language),
    problems: shownMessages(input.problems, language),
    options: input.options,
    workbooks: {
      language,
      from: input.options.language ? 'batch.json' : 'headers',
    },
    outputs: { plan_json: PLAN_FILES.json, plan_csv: PLAN_FILES.csv },
  };
};

/** plan.csv's columns, in order. */
export const PLAN_CSV_COLUMNS = [
  'row',
  'line',
  'sku',
  'description',
  'plan',
  'reason',
  'detail',
  'max_cost_usd',
  /** `to_check`: a reused verdict that will wait for a person's check (`check_below`). */
  'check',
] as const;

const planDetail = (record: RowRecord, note: string | undefined): string => {
  if (record.follows !== undefined && record.status === 'following')
    return `Same product as row ${record.follows}: shares its classification, no cost of its own.`;
  return record.status === 'queued' ? (note ?? '') : (record.result?.detail ?? '');
};

/** What plan.csv knows of each row besides its record. */
export type PlanRowContext = {
  /** The SKU and description as written, for rows that were rejected (they have no product). */
  fieldsOf: (row: number) => MappedRow['fields'] | undefined;
  /** What to look at in a row to classify, as a sentence; undefined when nothing. */
  noteOf: (row: number) => string | undefined;
};

/** Gives plan.csv's line for each record, in the order given (Prepare gives them in row order). */
export const planCsvRows = (records: readonly RowRecord[], context: PlanRowContext): string[][] =>
  records.map((record) => {
    const fields = context.fieldsOf(record.row);
    const plan = rowPlanOf(record);
    return [
      String(record.row),
      String(record.line),
      record.product?.sku ?? fields?.sku ?? '',
      record.product?.description ?? fields?.description ?? '',
      plan,
      plan === 'classify' || plan === 'same_product' ? '' : (record.result?.reason ?? ''),
      planDetail(record, context.noteOf(record.row)),
      plan === 'classify' ? PRICE_PER_RESOLVED_USD.toFixed(2) : '0.00',
      isReusedToCheck(record) ? 'to_check' : '',
    ];
  });
