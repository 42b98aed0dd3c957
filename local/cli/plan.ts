/**
 * `classify --plan`: the batch runs plan-only (`plan_only` in batch.json), so Prepare reads and
 * validates the file exactly as a run does, then writes plan.json and plan.csv instead of
 * classifying. This module makes the options file that asks for it and prints the plan.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKBOOK_INPUT_COLUMNS } from '../../shared/pipeline/outbox/results-sheet-xml.js';
import { BatchPlan } from '../../shared/pipeline/prepare/batch-plan.js';
import { message, wordMessage } from '../../shared/wording/index.js';
import { shown } from './shared.js';
import { readNoticesOf } from './summary-lines.js';

/**
 * The user's batch.json with what the command adds (`plan_only: true` for `--plan`; who sends the
 * batch, `requested_by`, unless the file names someone), in a temporary folder; `remove` deletes
 * it. A file that is not a JSON object is left as it is: Prepare refuses it with its own clear
 * sentence, and fails the batch before anything could be sent.
 */
export const commandOptionsFile = (
  optionsFile: string | undefined,
  added: { plan_only?: true; requested_by?: string },
): { path: string; remove: () => void } => {
  const folder = mkdtempSync(join(tmpdir(), 'ncm-plan-'));
  const path = join(folder, 'batch.json');
  const text = optionsFile ? readFileSync(optionsFile, 'utf8') : '{}';
  let options: unknown;
  try {
    options = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    options = undefined;
  }
  const isObject = typeof options === 'object' && options !== null && !Array.isArray(options);
  writeFileSync(
    path,
    isObject
      ? JSON.stringify({ ...added, ...(options as object), ...(added.plan_only ? { plan_only: true } : {}) })
      : text,
  );
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
};

/** The user's batch.json with `plan_only: true` (`commandOptionsFile`). */
export const planOptionsFile = (optionsFile: string | undefined): { path: string; remove: () => void } =>
  commandOptionsFile(optionsFile, { plan_only: true });

/** The plan the batch wrote, from the copied outbox; null when there is none (the batch failed). */
export const readPlan = (outDir: string): BatchPlan | null => {
  const file = join(outDir, 'plan.json');
  return existsSync(file) ? BatchPlan.parse(JSON.parse(readFileSync(file, 'utf8'))) : null;
};

const usd = (amount: number) => `USD ${amount.toFixed(2)}`;

/** The columns passed through that the plan names before it only counts the rest. */
const UNREAD_NAMED = 12;

const LANGUAGE_NAMES = { pt: 'Portuguese', es: 'Spanish', en: 'English' } as const;

/** The plan's curve in one sentence: most exposed first, and what share of the rows each horizon covers. */
const orderLine = (order: NonNullable<BatchPlan['order']>): string => {
  const by = order.value_header
    ? `, then the most value ("${order.value_header}")`
    : order.priority_header
      ? `, then the highest priority ("${order.priority_header}")`
      : '';
  // Read up to the first horizon that covers every row: the later ones say nothing more.
  const whole = order.coverage.findIndex((point) => point.rows_share >= 1);
  const points = whole < 0 ? order.coverage : order.coverage.slice(0, whole + 1);
  const curve = points
    .map((point) =>
      point.rows_share >= 1
        ? `every row within ${point.after}`
        : `${Math.round(point.rows_share * 100)} % of the rows after ${point.after}`,
    )
    .join(', ');
  const unread =
    order.unread_cells > 0
      ? ` ${order.unread_cells} value or priority cell(s) could not be read: counted as nothing.`
      : '';
  return (
    `Most exposed products first (those covering the most rows${by}): the first verdicts ${order.first_verdict} after the drop, ` +
    `then ${curve} ("order": "file" in batch.json keeps the file's order).${unread}`
  );
};

export const printPlan = (plan: BatchPlan, file: string, outDir: string): void => {
  const { rows, estimate } = plan;
  const unread = plan.columns.filter((column) => column.understood_as === null).map((c) => `"${c.header}"`);
  // A wide file's names would fill the terminal: the first few, and how many more.
  const unreadShown =
    unread.length > UNREAD_NAMED
      ? `${unread.slice(0, UNREAD_NAMED).join(', ')} and ${(unread.length - UNREAD_NAMED).toLocaleString('en-US')} more`
      : unread.join(', ');
  const leftOut = plan.columns.length - WORKBOOK_INPUT_COLUMNS;
  console.log(
    [
      `Plan for ${shown(file)}: ${rows.total} rows: classify ${rows.classify}, same product as an earlier ` +
        `row ${rows.same_product}, reuse ${rows.reuse}, rejected ${rows.rejected}, over budget ${rows.over_budget}` +
        (rows.service_item > 0 ? `, services not sent ${rows.service_item}.` : '.'),
      ...(plan.options.reclassify === 'ended_codes'
        ? [
            `reclassify ended_codes: ${rows.classify} row(s) classified again (their earlier verdict's NCM is no ` +
              `longer in force), ${rows.reuse} reuse a verdict still in force, ${rows.no_earlier_verdict} left ` +
              'unsent (no earlier verdict to re-check).',
          ]
        : []),
      `At most ${usd(estimate.max_usd)} (${estimate.classifications} classification(s), billed only when ` +
        `resolved); ${estimate.duration} at ${estimate.cap} at once (${estimate.in_progress_now} in progress now); ` +
        `its results are written after the last row, or as they stand after ${estimate.wait.replace(/^about /, '')}.`,
      ...(plan.order ? [orderLine(plan.order)] : []),
      ...(estimate.saved_across_origins > 0
        ? [
            `${estimate.saved_across_origins} classification(s) not made (${usd(estimate.saved_across_origins_usd)}): ` +
              'rows of the same product from another country or operation share its verdict, each with its own ' +
              'tariffs (batch.json "verdict_per_country": true classifies each on its own).',
          ]
        : []),
      ...(plan.options.check_below !== undefined
        ? [
            wordMessage(
              message('plan_checks', { check_below: plan.options.check_below, reused: rows.reuse_to_check }),
              'en',
            ),
          ]
        : []),
      ...(unread.length > 0 ? [`Passed through untouched: ${unreadShown}.`] : []),
      ...(leftOut > 0
        ? [
            `The file has ${plan.columns.length.toLocaleString('en-US')} columns: the workbooks hold its first ` +
              `${WORKBOOK_INPUT_COLUMNS.toLocaleString('en-US')} beside the results and say so; results.csv keeps them all.`,
          ]
        : []),
      `Workbooks (results.xlsx, review.xlsx) in ${LANGUAGE_NAMES[plan.workbooks.language]}` +
        (plan.workbooks.from === 'headers'
          ? ` (the language of the file's headers; "language" in batch.json chooses another).`
          : ' (batch.json).'),
      ...readNoticesOf(plan.problems).map((notice) => `Read: ${notice}`),
      `Nothing was sent for classification. Plan: ${shown(outDir)}/ (plan.json, plan.csv)`,
      // Each warning in the batch's language, as plan.json words it.
      ...plan.warnings.map((warning) => `Look at: ${warning.text}`),
    ].join('\n'),
  );
};
