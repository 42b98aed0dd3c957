/**
 * summary.json against results.csv: parsed with the schema Finalize writes it by, then its
 * state, its counts and the money it reports compared with the rows themselves.
 */

import { OUTPUT_STATUSES, type OutputStatus } from '../pipeline/core/row-statuses.js';
import { BatchSummary } from '../pipeline/outbox/results-files.js';
import type { Observation, SmokeCheck } from './observation.js';

const usd = (amount: number) => `USD ${amount.toFixed(2)}`;

/** summary.json parsed, or the one reason it cannot be. */
const parseSummary = (observed: Observation): BatchSummary | string => {
  if (observed.summaryText === null) return `outbox/${observed.batchId}/summary.json is missing`;
  let json: unknown;
  try {
    json = JSON.parse(observed.summaryText);
  } catch {
    return 'summary.json is not JSON';
  }
  const parsed = BatchSummary.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return `summary.json does not have the summary's shape (${issue?.path.join('.') || 'top level'}: ${issue?.message})`;
};

/** What the batch said about itself: its stop and its problems are failures of a smoke. */
const reportedProblems = (summary: BatchSummary): string[] => [
  ...(summary.state === 'completed' ? [] : [`summary.json has the batch ${summary.state}`]),
  ...(summary.stop ? [`the batch was stopped: ${summary.stop.title}: ${summary.stop.detail}`] : []),
  ...summary.problems.map((problem) => `summary.json reports: ${problem.text}`),
];

export const checkSummary = (
  observed: Observation,
  fromResults: { counts: Partial<Record<OutputStatus, number>>; billed: number; maxUsd: number },
): SmokeCheck => {
  const summary = parseSummary(observed);
  if (typeof summary === 'string') return { name: 'summary.json', held: '', problems: [summary] };
  const rows = observed.catalogue.rows.length;
  const problems = reportedProblems(summary);
  if (summary.batch_id !== observed.batchId)
    problems.push(`summary.json is about batch ${summary.batch_id}, not ${observed.batchId}`);
  if (summary.rows_total !== rows)
    problems.push(`summary.json counts ${summary.rows_total} rows, not ${rows}`);
  for (const status of OUTPUT_STATUSES) {
    const inResults = fromResults.counts[status] ?? 0;
    if (summary.by_status[status] !== inResults)
      problems.push(
        `summary.json counts ${summary.by_status[status]} ${status}, results.csv has ${inResults}`,
      );
  }
  if (summary.billed_usd !== fromResults.billed)
    problems.push(
      `summary.json bills ${usd(summary.billed_usd)}, results.csv's rows ${usd(fromResults.billed)}`,
    );
  if (summary.billed_usd > fromResults.maxUsd)
    problems.push(
      `${usd(summary.billed_usd)} billed, more than the ${usd(fromResults.maxUsd)} the smoke can cost`,
    );
  return {
    name: 'summary.json',
    held: `completed, ${rows} rows counted by status as in results.csv, ${usd(summary.billed_usd)} billed`,
    problems,
  };
};
