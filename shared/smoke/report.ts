/** What the smoke says as it goes and at the end: plain lines, built here and printed by `say`. */

import type { BatchRecord, RowRecord } from '../pipeline/core/records.js';
import { isOutputStatus } from '../pipeline/core/row-statuses.js';
import { BatchSummary } from '../pipeline/outbox/results-files.js';
import { PRICE_PER_RESOLVED_USD } from '../tcs/schemas.js';
import { maxCostUsd, type SmokeCatalogue } from './catalogue.js';
import { countByStatus } from './checks.js';
import type { Observation, SmokeCheck } from './observation.js';
import type { Deployment } from './ports.js';

const usd = (amount: number): string => `USD ${amount.toFixed(2)}`;

export const formatDuration = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes} min ${seconds % 60} s`
    : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
};

const countsLine = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${status} ${count}`)
    .join(' · ');

export const deploymentLines = (deployment: Deployment): string[] => [
  `Stack ${deployment.stackName}: bucket ${deployment.bucket}, batch table ${deployment.batchTable}, review table ${deployment.reviewTable}`,
];

const sheetsShown = (sheets: readonly { path: string }[]): string =>
  sheets.length === 0
    ? 'no technical sheet'
    : `${sheets.length === 1 ? 'one technical sheet' : `${sheets.length} technical sheets`} (${sheets.map((file) => file.path).join(', ')})`;

/** Said before anything is dropped: it is a paid service. */
export const costLines = (catalogue: SmokeCatalogue): string[] => {
  const sheets = catalogue.attachments.filter((file) => file.contentType === 'application/pdf');
  const budget = catalogue.options.max_usd;
  const capped = budget === undefined ? '' : `; its batch.json caps it at max_usd ${budget}`;
  return [
    `Catalogue ${catalogue.spreadsheet.path}: ${catalogue.rows.length} rows, ${sheetsShown(sheets)}`,
    `Cost: at most ${usd(maxCostUsd(catalogue))} (${usd(PRICE_PER_RESOLVED_USD)} per resolved classification${capped})`,
  ];
};

/** One line of a running batch: its state, rows ended of all, and the rows by status. */
export const progressLine = (batch: BatchRecord | null, rows: readonly RowRecord[]): string => {
  if (!batch) return 'batch record not readable';
  // Prepare counts the rows as it writes them: until then there is nothing to count.
  if (batch.state === 'preparing') return 'preparing';
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  const ended = rows.filter((row) => isOutputStatus(row.status)).length;
  const byStatus = countsLine(counts);
  return `${batch.state} · ${ended} of ${batch.rows_total} rows ended${byStatus ? ` · ${byStatus}` : ''}`;
};

const billedLine = (observed: Observation, catalogue: Pick<SmokeCatalogue, 'rows' | 'options'>): string => {
  let billed: number | null = null;
  try {
    billed = BatchSummary.parse(JSON.parse(observed.summaryText ?? 'null')).billed_usd;
  } catch {
    // Reported by the summary check; the line says it is not known.
  }
  const most = usd(maxCostUsd(catalogue));
  return billed === null
    ? `Billed: not known (no readable summary.json)`
    : `Billed: ${usd(billed)} (at most ${most})`;
};

/** What was found in the outbox and the tables, then each check, then the verdict. */
export const findingsLines = (observed: Observation, checks: readonly SmokeCheck[]): string[] => {
  const results = observed.results && !('problem' in observed.results) ? observed.results : null;
  const failed = checks.filter((check) => check.problems.length > 0);
  return [
    `Rows: ${results ? countsLine(countByStatus(results.rows)) || 'none' : 'not known (no readable results.csv)'}`,
    billedLine(observed, observed.catalogue),
    `Files in outbox/${observed.batchId}/: ${observed.files.join(', ') || 'none'}`,
    'Checks:',
    ...checks.flatMap((check) =>
      check.problems.length === 0
        ? [`  ok    ${check.name}: ${check.held}`]
        : [`  FAIL  ${check.name}:`, ...check.problems.map((problem) => `          - ${problem}`)],
    ),
    failed.length === 0
      ? 'Smoke test passed: the deployment classified the catalogue end to end.'
      : `Smoke test FAILED: ${failed.length} of ${checks.length} checks found problems (${failed.map((check) => check.name).join(', ')}).`,
  ];
};
