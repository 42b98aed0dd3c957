/**
 * What must hold once the smoke's batch has ended, as pure checks over what was read back: the
 * outbox's files, results.csv against the catalogue, the verdict PDFs it names, summary.json, and
 * the batch and review tables' items against results.csv (docs/architecture.md, property 7: every
 * row ends in exactly one output status). Each check says what held, or every problem it found.
 */

import type { RowRecord } from '../pipeline/core/records.js';
import { resultNcmDigits } from '../pipeline/core/row-results.js';
import { OUTPUT_STATUSES, type OutputStatus } from '../pipeline/core/row-statuses.js';
import { cents } from '../pipeline/outbox/results-files.js';
import { type CatalogueRow, maxCostUsd } from './catalogue.js';
import type { Observation, SmokeCheck } from './observation.js';
import type { ResultsRow, ResultsTable } from './results-table.js';
import { checkSummary } from './summary-check.js';

/** What a working deployment gives a catalogue known to be good: a verdict, or questions to answer. */
const HEALTHY_STATUSES: ReadonlySet<string> = new Set(['resolved', 'reused', 'pending_data']);
const VERDICT_STATUSES: ReadonlySet<string> = new Set(['resolved', 'reused']);
const REQUIRED_FILES = ['results.csv', 'results.xlsx', 'review.csv', 'review.xlsx', 'summary.json'] as const;
const PDF_MAGIC = '%PDF-';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export const countByStatus = (rows: readonly ResultsRow[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const { result } of rows) counts[result.status] = (counts[result.status] ?? 0) + 1;
  return counts;
};

/** The catalogue's rows that results.csv holds exactly once, by row number. */
const rowsByNumber = (rows: readonly ResultsRow[]): Map<string, ResultsRow[]> => {
  const found = new Map<string, ResultsRow[]>();
  for (const row of rows) found.set(row.result.row, [...(found.get(row.result.row) ?? []), row]);
  return found;
};

const checkOutbox = (observed: Observation): SmokeCheck => ({
  name: 'outbox',
  held: `outbox/${observed.batchId}/ holds ${REQUIRED_FILES.join(', ')}`,
  problems: REQUIRED_FILES.filter((file) => !observed.files.includes(file)).map(
    (file) => `outbox/${observed.batchId}/${file} is missing`,
  ),
});

const rowProblems = (row: ResultsRow, input: CatalogueRow | undefined): string[] => {
  const { result } = row;
  const problems: string[] = [];
  if (!(OUTPUT_STATUSES as readonly string[]).includes(result.status))
    problems.push(`row ${result.row}: status "${result.status}" is not an output status`);
  if (input && row.inputCells.join('\u0000') !== input.cells.join('\u0000'))
    problems.push(`row ${result.row}: its input cells are not the catalogue's row ${input.row}`);
  if (VERDICT_STATUSES.has(result.status) && resultNcmDigits(result) === null)
    problems.push(`row ${result.row} is ${result.status} with NCM "${result.ncm}", not one of 8 digits`);
  return problems;
};

const checkResultsRows = (table: ResultsTable, catalogueRows: readonly CatalogueRow[]): SmokeCheck => {
  const byNumber = rowsByNumber(table.rows);
  const expected = new Set(catalogueRows.map((row) => String(row.row)));
  const problems: string[] = [];
  for (const input of catalogueRows) {
    const found = byNumber.get(String(input.row)) ?? [];
    if (found.length !== 1)
      problems.push(`input row ${input.row} has ${found.length} rows in results.csv, not exactly one`);
    for (const row of found) problems.push(...rowProblems(row, input));
  }
  for (const row of table.rows.filter((found) => !expected.has(found.result.row)))
    problems.push(`results.csv line ${row.line} has row "${row.result.row}", which is no input row`);
  const verdicts = table.rows.filter((row) => VERDICT_STATUSES.has(row.result.status)).length;
  return {
    name: 'results.csv',
    held: `${plural(table.rows.length, 'row')}, one per input row, each with an output status; ${plural(verdicts, 'verdict')} with an NCM of 8 digits`,
    problems,
  };
};

const describeRow = (row: ResultsRow): string => {
  const { result } = row;
  const why = [result.reason, result.detail].filter(Boolean).join(': ');
  return `row ${result.row} ended ${result.status}${why ? ` (${why})` : ''}`;
};

const checkOutcomes = (table: ResultsTable): SmokeCheck => {
  const problems = table.rows.filter((row) => !HEALTHY_STATUSES.has(row.result.status)).map(describeRow);
  if (!table.rows.some((row) => VERDICT_STATUSES.has(row.result.status)))
    problems.push('no row was resolved: the path that stores a verdict and its PDF was not exercised');
  return {
    name: 'row outcomes',
    held: 'every row resolved or waits for answers (pending_data), at least one resolved',
    problems,
  };
};

const checkVerdictPdfs = (observed: Observation, table: ResultsTable): SmokeCheck => {
  const named = table.rows.filter((row) => row.result.verdict_pdf !== '');
  const problems = named.flatMap(({ result }) => {
    const bytes = observed.pdfs.get(result.verdict_pdf) ?? null;
    const where = `row ${result.row}'s verdict PDF outbox/${observed.batchId}/${result.verdict_pdf}`;
    if (bytes === null) return [`${where} is missing`];
    const start = new TextDecoder().decode(bytes.slice(0, PDF_MAGIC.length));
    return start === PDF_MAGIC ? [] : [`${where} does not start with ${PDF_MAGIC}`];
  });
  return {
    name: 'verdict PDFs',
    held: `${plural(named.length, 'PDF')} named in results.csv, each in the bucket and starting with ${PDF_MAGIC}`,
    problems,
  };
};

/** A row's NCM as digits, or '' when it has none (for comparing two sources). */
const ncmDigits = (ncm: string | undefined) => resultNcmDigits({ ncm: ncm ?? '' }) ?? ncm ?? '';

const rowItemProblems = (row: ResultsRow, item: RowRecord | undefined): string[] => {
  const { result } = row;
  if (!item) return [`row ${result.row} has no item in the batch table`];
  const stored = item.result;
  const problems: string[] = [];
  if (item.status !== result.status || (stored && stored.status !== result.status))
    problems.push(`row ${result.row}: the batch table has it ${item.status}, results.csv ${result.status}`);
  if ((item.classification_id ?? '') !== result.classification_id)
    problems.push(
      `row ${result.row}: the batch table has classification ${item.classification_id ?? 'none'}, results.csv ${result.classification_id || 'none'}`,
    );
  if (ncmDigits(stored?.ncm) !== ncmDigits(result.ncm))
    problems.push(
      `row ${result.row}: the batch table has NCM "${stored?.ncm ?? ''}", results.csv "${result.ncm}"`,
    );
  return problems;
};

const checkBatchTable = (observed: Observation, table: ResultsTable): SmokeCheck => {
  const { batch, batchId } = observed;
  const expected = observed.catalogue.rows.length;
  const problems: string[] = [];
  if (!batch) problems.push(`the batch table has no record of batch ${batchId}`);
  else {
    if (batch.state !== 'completed') problems.push(`the batch table has batch ${batchId} ${batch.state}`);
    if (batch.rows_total !== expected)
      problems.push(`the batch record counts ${batch.rows_total} rows, the catalogue has ${expected}`);
  }
  if (observed.rows.length !== expected)
    problems.push(
      `the batch table holds ${plural(observed.rows.length, 'row item')} for ${expected} input rows`,
    );
  const items = new Map(observed.rows.map((item) => [String(item.row), item]));
  for (const row of table.rows) problems.push(...rowItemProblems(row, items.get(row.result.row)));
  return {
    name: 'batch table',
    held: `batch ${batchId} completed; ${plural(observed.rows.length, 'row item')} agreeing with results.csv`,
    problems,
  };
};

const checkReviewTable = (observed: Observation, table: ResultsTable): SmokeCheck => {
  const pending = observed.reviews.filter((item) => item.state === 'pending');
  const statusOf = new Map(table.rows.map((row) => [row.result.row, row.result.status]));
  const problems: string[] = [];
  for (const row of table.rows.filter((found) => found.result.status === 'pending_data')) {
    const items = pending.filter((item) => String(item.row) === row.result.row);
    if (items.length !== 1)
      problems.push(
        `row ${row.result.row} waits for answers, the review table has ${items.length} pending items for it`,
      );
    for (const item of items.filter((found) => found.classification_id !== row.result.classification_id))
      problems.push(
        `row ${row.result.row}: the review item is classification ${item.classification_id}, results.csv ${row.result.classification_id}`,
      );
  }
  for (const item of pending.filter((found) => statusOf.get(String(found.row)) !== 'pending_data'))
    problems.push(
      `the review table has a pending item for row ${item.row}, which results.csv has ${statusOf.get(String(item.row)) ?? 'not at all'}`,
    );
  return {
    name: 'review table',
    held: `${plural(pending.length, 'pending item')}, one for each row waiting for answers`,
    problems,
  };
};

/** Every check, in the order they are reported. Those that compare with results.csv need it read. */
export const checkBatch = (observed: Observation): SmokeCheck[] => {
  const { results } = observed;
  const checks = [checkOutbox(observed)];
  if (results === null || 'problem' in results) {
    const problem = results === null ? `outbox/${observed.batchId}/results.csv is missing` : results.problem;
    return [...checks, { name: 'results.csv', held: '', problems: [problem] }];
  }
  const counts = countByStatus(results.rows) as Partial<Record<OutputStatus, number>>;
  const billed = cents(results.rows.reduce((sum, row) => sum + (Number(row.result.cost_usd) || 0), 0));
  return [
    ...checks,
    checkResultsRows(results, observed.catalogue.rows),
    checkOutcomes(results),
    checkVerdictPdfs(observed, results),
    checkSummary(observed, { counts, billed, maxUsd: maxCostUsd(observed.catalogue) }),
    checkBatchTable(observed, results),
    checkReviewTable(observed, results),
  ];
};
