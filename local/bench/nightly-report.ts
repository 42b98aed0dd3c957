/**
 * The nightly export's numbers, without running anything: each night's phases from the batch
 * record's states as they were seen, what its outbox holds, its checks, and the Markdown tables
 * the benchmark prints (docs/benchmark.md, "The nightly export"). Pure.
 */
import type { RequestCount } from '../runtime/permissions/request-counts.js';
import type { DecisionsMeasured } from './nightly-decisions.js';
import { type NightlySize, sizeLabel } from './nightly-export.js';

/** The batch record's state as the bench saw it (`submitted` before Prepare wrote the record). */
export type StateSeen = { state: string; atMs: number };

/**
 * Seconds in each phase, from the drop: Prepare until the batch is `running`, classifying until
 * it is `finalizing`, Finalize until it is `completed`. A state passed between two looks starts
 * its phase when a later one is first seen, so a skipped phase lasts 0 s, never a negative time.
 */
export type Phases = { prepare: number; classifying: number; finalize: number; total: number };

const ORDER = ['submitted', 'preparing', 'running', 'finalizing', 'completed'];

export const phasesOf = (droppedAtMs: number, seen: readonly StateSeen[]): Phases => {
  const reached = (state: string): number => {
    const rank = ORDER.indexOf(state);
    const first = seen.find((look) => ORDER.indexOf(look.state) >= rank);
    if (!first)
      throw new Error(`the batch was never seen ${state} (last seen ${seen.at(-1)?.state ?? 'never'})`);
    return first.atMs;
  };
  const running = reached('running');
  const finalizing = reached('finalizing');
  const completed = reached('completed');
  return {
    prepare: (running - droppedAtMs) / 1000,
    classifying: (finalizing - running) / 1000,
    finalize: (completed - finalizing) / 1000,
    total: (completed - droppedAtMs) / 1000,
  };
};

/** What a night's outbox holds: results.csv's rows and classifications, and the PDFs beside it. */
export type NightOutput = {
  resultRows: number;
  byStatus: Record<string, number>;
  /** Distinct non-empty `classification_id` values of results.csv. */
  classifications: number;
  /** Objects under the outbox's `pdfs/`. */
  pdfs: number;
};

export const outputOf = (
  results: readonly { result: { status: string; classification_id: string } }[],
  pdfs: number,
): NightOutput => {
  const byStatus: Record<string, number> = {};
  const ids = new Set<string>();
  for (const { result } of results) {
    byStatus[result.status] = (byStatus[result.status] ?? 0) + 1;
    if (result.classification_id) ids.add(result.classification_id);
  }
  return { resultRows: results.length, byStatus, classifications: ids.size, pdfs };
};

export type NightMeasured = NightOutput & {
  night: number;
  batchId: string;
  phases: Phases;
  /** USD the sandbox billed during the night (its meter after, less before). */
  billedUsd: number;
  /** Each function's process's peak resident memory during the night, MiB; null: it did not run. */
  peakMemoryMb: Record<string, number | null>;
  /** The requests the functions made during the night, through the permission gates. */
  requests: RequestCount[];
  /**
   * Invocations of each function that ended during the night (the scheduled dispatcher's too);
   * absent in reports from before they were counted.
   */
  invocations?: Record<string, number>;
  /** Under check_below, night 2: the round that decided every verdict it left to check. */
  decided?: DecisionsMeasured;
};

export type SizeMeasured = NightlySize & { nights: NightMeasured[] };

/**
 * A check of one night. `failsRun`: the bench exits non-zero when it does not hold (wrong
 * results, or money spent on a night that changed nothing); the PDF check is reported only.
 */
export type NightCheck = { night: number; holds: boolean; failsRun: boolean; line: string };

const usd = (value: number) => `USD ${value.toFixed(2)}`;
const count = (value: number) => value.toLocaleString('en-US');

export const nightChecks = (size: NightlySize, night: NightMeasured): NightCheck[] => {
  const label = `${sizeLabel(size)} night ${night.night}`;
  const rowsHold = night.resultRows === size.rows;
  const checks: NightCheck[] = [
    {
      night: night.night,
      holds: rowsHold,
      failsRun: true,
      line: rowsHold
        ? `ok   ${label}: results.csv has the export's ${count(size.rows)} rows`
        : `FAIL ${label}: results.csv has ${count(night.resultRows)} rows, the export ${count(size.rows)}`,
    },
  ];
  if (night.night > 1) {
    const billedNothing = night.billedUsd === 0;
    checks.push({
      night: night.night,
      holds: billedNothing,
      failsRun: true,
      line: billedNothing
        ? `ok   ${label}: billed ${usd(0)} for an unchanged export`
        : `FAIL ${label}: billed ${usd(night.billedUsd)} for an unchanged export, which must cost nothing`,
    });
  }
  if (night.decided) checks.push(...decisionChecks(size, night.night, night.decided));
  const pdfsHold = night.pdfs <= night.classifications;
  checks.push({
    night: night.night,
    holds: pdfsHold,
    failsRun: false,
    line: pdfsHold
      ? `ok   ${label}: ${count(night.pdfs)} PDFs under pdfs/ for ${count(night.classifications)} classifications`
      : `FAIL ${label}: ${count(night.pdfs)} PDFs under pdfs/ for ${count(night.classifications)} classifications (at most one PDF per classification)`,
  });
  return checks;
};

/** One check item per product, and every row it covers approved by its one decision. */
const decisionChecks = (size: NightlySize, night: number, decided: DecisionsMeasured): NightCheck[] => {
  const label = `${sizeLabel(size)} night ${night}`;
  const perProduct = decided.items <= size.products;
  const allApproved = decided.rowsToCheckAfter === 0 && decided.rowsApproved >= decided.rowsToCheckBefore;
  return [
    {
      night,
      holds: perProduct,
      failsRun: true,
      line: perProduct
        ? `ok   ${label}: to-check.csv lists ${count(decided.items)} verdicts for ${count(decided.rowsToCheckBefore)} rows to check, at most one per product`
        : `FAIL ${label}: to-check.csv lists ${count(decided.items)} verdicts, more than the export's ${count(size.products)} products`,
    },
    {
      night,
      holds: allApproved,
      failsRun: true,
      line: allApproved
        ? `ok   ${label}: ${count(decided.items)} decisions approved all ${count(decided.rowsApproved)} rows in ${seconds(decided.seconds)}`
        : `FAIL ${label}: after ${count(decided.items)} decisions, ${count(decided.rowsToCheckAfter)} rows still to check, ${count(decided.rowsApproved)} approved of ${count(decided.rowsToCheckBefore)}`,
    },
  ];
};

/** Requests per input row by `Service Operation`, for the services asked. */
export const requestsPerRow = (
  requests: readonly RequestCount[],
  rows: number,
  services: readonly string[] = ['DynamoDB', 'S3'],
): Map<string, number> => {
  const totals = new Map<string, number>();
  for (const request of requests) {
    if (!services.includes(request.service)) continue;
    const key = `${request.service} ${request.operation}`;
    totals.set(key, (totals.get(key) ?? 0) + request.count);
  }
  return new Map([...totals].map(([key, total]) => [key, total / rows]));
};

const seconds = (value: number) => `${value.toFixed(1)} s`;

/** 0.0123 → "0.012", 12.345 → "12.3": three significant figures, enough to compare nights. */
const perRow = (value: number | undefined) =>
  value === undefined || value === 0 ? '0' : value >= 100 ? value.toFixed(0) : value.toPrecision(3);

const statusesOf = (byStatus: Record<string, number>) =>
  Object.entries(byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, rows]) => `${status} ${count(rows)}`)
    .join(', ');

const table = (header: readonly string[], rows: readonly (readonly string[])[]) =>
  [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');

/** Every night of every size, as columns: `2,000:50 night 1`. */
const nightColumns = (sizes: readonly SizeMeasured[]) =>
  sizes.flatMap((size) =>
    size.nights.map((night) => ({ size, night, label: `${sizeLabel(size)} night ${night.night}` })),
  );

/** The tables: phases and outputs, peak memory per function, requests per row, invocations per function. */
export const nightlyReport = (sizes: readonly SizeMeasured[]): string => {
  const columns = nightColumns(sizes);
  if (columns.length === 0) return '';
  const phases = table(
    [
      'export (rows:products)',
      'night',
      'Prepare',
      'classifying',
      'Finalize',
      'total',
      'billed',
      'results.csv rows',
      'PDFs / classifications',
      'statuses',
    ],
    columns.map(({ size, night }) => [
      sizeLabel(size),
      String(night.night),
      seconds(night.phases.prepare),
      seconds(night.phases.classifying),
      seconds(night.phases.finalize),
      seconds(night.phases.total),
      usd(night.billedUsd),
      count(night.resultRows),
      `${count(night.pdfs)} / ${count(night.classifications)}`,
      statusesOf(night.byStatus),
    ]),
  );
  const functions = [...new Set(columns.flatMap(({ night }) => Object.keys(night.peakMemoryMb)))].filter(
    (name) => columns.some(({ night }) => night.peakMemoryMb[name] != null),
  );
  const memory = table(
    ['peak memory (MiB)', ...columns.map(({ label }) => label)],
    functions.map((name) => [
      name,
      ...columns.map(({ night }) => {
        const peak = night.peakMemoryMb[name];
        return peak == null ? '–' : String(peak);
      }),
    ]),
  );
  const perNight = columns.map(({ size, night }) => requestsPerRow(night.requests, size.rows));
  const operations = [...new Set(perNight.flatMap((perOperation) => [...perOperation.keys()]))].sort();
  const serviceTotal = (service: string) =>
    perNight.map((perOperation) =>
      perRow(
        [...perOperation].filter(([key]) => key.startsWith(`${service} `)).reduce((sum, [, v]) => sum + v, 0),
      ),
    );
  const requests = table(
    ['requests per row', ...columns.map(({ label }) => label)],
    [
      ...operations.map((operation) => [
        operation,
        ...perNight.map((perOperation) => perRow(perOperation.get(operation))),
      ]),
      ['DynamoDB, all', ...serviceTotal('DynamoDB')],
      ['S3, all', ...serviceTotal('S3')],
    ],
  );
  const invoked = functions.filter((name) =>
    columns.some(({ night }) => (night.invocations?.[name] ?? 0) > 0),
  );
  const invocations = table(
    ['Lambda invocations', ...columns.map(({ label }) => label)],
    invoked.map((name) => [name, ...columns.map(({ night }) => count(night.invocations?.[name] ?? 0))]),
  );
  const decidedNights = columns.filter(({ night }) => night.decided !== undefined);
  const decisions = table(
    ['decisions round', 'decisions', 'rows approved', 'time', 'DynamoDB requests per row approved'],
    decidedNights.map(({ label, night }) => {
      const decided = night.decided!;
      const dynamo = decided.requests
        .filter((request) => request.service === 'DynamoDB')
        .reduce((sum, request) => sum + request.count, 0);
      return [
        label,
        count(decided.items),
        count(decided.rowsApproved),
        seconds(decided.seconds),
        perRow(dynamo / Math.max(1, decided.rowsApproved)),
      ];
    }),
  );
  return [
    phases,
    memory,
    requests,
    ...(invoked.length > 0 ? [invocations] : []),
    ...(decidedNights.length > 0 ? [decisions] : []),
  ].join('\n\n');
};
