/**
 * The nightly benchmark's numbers from what it saw: the phases from the batch record's states,
 * the outbox's rows, classifications and PDFs, the checks of each night (which fail the run and
 * which are only reported), requests per row, and the tables it prints.
 */
import { describe, expect, it } from 'vitest';
import {
  type NightMeasured,
  nightChecks,
  nightlyReport,
  outputOf,
  phasesOf,
  requestsPerRow,
} from '../../../local/bench/nightly-report.js';

const DROP = 1_000_000;

describe('the phases of a night', () => {
  it('runs from the drop to running, to finalizing, to completed, as first seen', () => {
    const seen = [
      { state: 'submitted', atMs: DROP + 250 },
      { state: 'preparing', atMs: DROP + 500 },
      { state: 'running', atMs: DROP + 3_000 },
      { state: 'running', atMs: DROP + 3_250 },
      { state: 'finalizing', atMs: DROP + 40_000 },
      { state: 'completed', atMs: DROP + 45_500 },
    ];

    expect(phasesOf(DROP, seen)).toEqual({ prepare: 3, classifying: 37, finalize: 5.5, total: 45.5 });
  });

  it('gives a phase passed between two looks no time, never a negative one', () => {
    const seen = [
      { state: 'preparing', atMs: DROP + 250 },
      { state: 'completed', atMs: DROP + 2_000 },
    ];

    expect(phasesOf(DROP, seen)).toEqual({ prepare: 2, classifying: 0, finalize: 0, total: 2 });
  });

  it('refuses a night whose batch was never seen completed', () => {
    expect(() => phasesOf(DROP, [{ state: 'running', atMs: DROP + 1 }])).toThrow(
      'the batch was never seen finalizing (last seen running)',
    );
  });
});

describe("a night's outbox", () => {
  it('counts rows by status and the distinct classifications, leaving rows without one out', () => {
    const rows = [
      { result: { status: 'resolved', classification_id: 'cls_1' } },
      { result: { status: 'resolved', classification_id: 'cls_1' } },
      { result: { status: 'pending_data', classification_id: 'cls_2' } },
      { result: { status: 'rejected', classification_id: '' } },
    ];

    expect(outputOf(rows, 1)).toEqual({
      resultRows: 4,
      byStatus: { resolved: 2, pending_data: 1, rejected: 1 },
      classifications: 2,
      pdfs: 1,
    });
  });
});

const night = (fields: Partial<NightMeasured> & Pick<NightMeasured, 'night'>): NightMeasured => ({
  batchId: `erp-export-night-${fields.night}`,
  phases: { prepare: 3.04, classifying: 40.26, finalize: 5, total: 48.3 },
  billedUsd: 0,
  peakMemoryMb: { 'prepare-batch': 150, 'finalize-batch': 180, 'sweep-reviews': null },
  requests: [],
  resultRows: 2_000,
  byStatus: { resolved: 1_700, pending_data: 200, failed: 100 },
  classifications: 50,
  pdfs: 43,
  ...fields,
});
const SIZE = { rows: 2_000, products: 50 };

describe('the checks of a night', () => {
  it('hold for a night that wrote every row, at most one PDF per classification, and billed nothing again', () => {
    const checks = [
      ...nightChecks(SIZE, night({ night: 1, billedUsd: 129 })),
      ...nightChecks(SIZE, night({ night: 2 })),
    ];

    expect(checks.every((check) => check.holds)).toBe(true);
    expect(checks.map((check) => check.line)).toEqual([
      "ok   2,000:50 night 1: results.csv has the export's 2,000 rows",
      'ok   2,000:50 night 1: 43 PDFs under pdfs/ for 50 classifications',
      "ok   2,000:50 night 2: results.csv has the export's 2,000 rows",
      'ok   2,000:50 night 2: billed USD 0.00 for an unchanged export',
      'ok   2,000:50 night 2: 43 PDFs under pdfs/ for 50 classifications',
    ]);
  });

  it('fail the run when night 2 bills or a row is missing, and report a PDF per reused row without failing it', () => {
    const checks = nightChecks(SIZE, night({ night: 2, billedUsd: 3, resultRows: 1_999, pdfs: 1_700 }));

    expect(checks.map(({ holds, failsRun, line }) => ({ holds, failsRun, line }))).toEqual([
      {
        holds: false,
        failsRun: true,
        line: 'FAIL 2,000:50 night 2: results.csv has 1,999 rows, the export 2,000',
      },
      {
        holds: false,
        failsRun: true,
        line: 'FAIL 2,000:50 night 2: billed USD 3.00 for an unchanged export, which must cost nothing',
      },
      {
        holds: false,
        failsRun: false,
        line: 'FAIL 2,000:50 night 2: 1,700 PDFs under pdfs/ for 50 classifications (at most one PDF per classification)',
      },
    ]);
  });

  it('under check_below, hold when night 2 lists one verdict per product and its decisions approve every row; fail otherwise', () => {
    const decided = {
      items: 35,
      rowsToCheckBefore: 1_400,
      rowsToCheckAfter: 0,
      rowsApproved: 1_400,
      seconds: 4.25,
      requests: [
        { function: 'finalize-answers', service: 'DynamoDB', operation: 'UpdateItem', count: 1_400 },
      ],
    };
    const lines = (d: typeof decided) =>
      nightChecks(SIZE, night({ night: 2, decided: d }))
        .filter((check) => check.line.includes('check') || check.line.includes('decisions'))
        .map(({ holds, failsRun, line }) => ({ holds, failsRun, line }));

    expect(lines(decided)).toEqual([
      {
        holds: true,
        failsRun: true,
        line: 'ok   2,000:50 night 2: to-check.csv lists 35 verdicts for 1,400 rows to check, at most one per product',
      },
      {
        holds: true,
        failsRun: true,
        line: 'ok   2,000:50 night 2: 35 decisions approved all 1,400 rows in 4.3 s',
      },
    ]);
    expect(lines({ ...decided, items: 1_400, rowsToCheckAfter: 1_365, rowsApproved: 35 })).toEqual([
      {
        holds: false,
        failsRun: true,
        line: "FAIL 2,000:50 night 2: to-check.csv lists 1,400 verdicts, more than the export's 50 products",
      },
      {
        holds: false,
        failsRun: true,
        line: 'FAIL 2,000:50 night 2: after 1,400 decisions, 1,365 rows still to check, 35 approved of 1,400',
      },
    ]);
    expect(nightlyReport([{ ...SIZE, nights: [night({ night: 2, decided })] }])).toContain(
      '| 2,000:50 night 2 | 35 | 1,400 | 4.3 s | 1.00 |',
    );
  });
});

describe('requests per row', () => {
  it('adds every function’s requests by operation, for DynamoDB and S3 only', () => {
    const perRow = requestsPerRow(
      [
        { function: 'prepare-batch', service: 'DynamoDB', operation: 'BatchWriteItem', count: 80 },
        { function: 'finalize-batch', service: 'DynamoDB', operation: 'Query', count: 20 },
        { function: 'row-store', service: 'DynamoDB', operation: 'Query', count: 30 },
        { function: 'finalize-batch', service: 'S3', operation: 'CopyObject', count: 2_000 },
        { function: 'row-submit', service: 'SQS', operation: 'DeleteMessage', count: 50 },
      ],
      2_000,
    );

    expect(Object.fromEntries(perRow)).toEqual({
      'DynamoDB BatchWriteItem': 0.04,
      'DynamoDB Query': 0.025,
      'S3 CopyObject': 1,
    });
  });
});

describe('the tables', () => {
  it('print each night’s phases and outputs, each function’s peak, and requests per row by operation', () => {
    const report = nightlyReport([
      {
        ...SIZE,
        nights: [
          night({
            night: 1,
            billedUsd: 129,
            requests: [
              { function: 'prepare-batch', service: 'DynamoDB', operation: 'BatchWriteItem', count: 80 },
              { function: 'row-store', service: 'S3', operation: 'PutObject', count: 43 },
            ],
          }),
          night({
            night: 2,
            phases: { prepare: 2.5, classifying: 10, finalize: 20.04, total: 32.54 },
            peakMemoryMb: { 'prepare-batch': 160, 'finalize-batch': 250, 'sweep-reviews': null },
            requests: [
              { function: 'prepare-batch', service: 'DynamoDB', operation: 'BatchWriteItem', count: 80 },
              { function: 'finalize-batch', service: 'S3', operation: 'CopyObject', count: 1_700 },
            ],
            pdfs: 1_700,
            byStatus: { reused: 1_700, pending_data: 200, failed: 100 },
            invocations: { 'prepare-batch': 1, 'finalize-batch': 3, 'sweep-reviews': 0 },
          }),
        ],
      },
    ]);

    expect(report).toBe(
      [
        '| export (rows:products) | night | Prepare | classifying | Finalize | total | billed | results.csv rows | PDFs / classifications | statuses |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        '| 2,000:50 | 1 | 3.0 s | 40.3 s | 5.0 s | 48.3 s | USD 129.00 | 2,000 | 43 / 50 | failed 100, pending_data 200, resolved 1,700 |',
        '| 2,000:50 | 2 | 2.5 s | 10.0 s | 20.0 s | 32.5 s | USD 0.00 | 2,000 | 1,700 / 50 | failed 100, pending_data 200, reused 1,700 |',
        '',
        '| peak memory (MiB) | 2,000:50 night 1 | 2,000:50 night 2 |',
        '| --- | --- | --- |',
        '| prepare-batch | 150 | 160 |',
        '| finalize-batch | 180 | 250 |',
        '',
        '| requests per row | 2,000:50 night 1 | 2,000:50 night 2 |',
        '| --- | --- | --- |',
        '| DynamoDB BatchWriteItem | 0.0400 | 0.0400 |',
        '| S3 CopyObject | 0 | 0.850 |',
        '| S3 PutObject | 0.0215 | 0 |',
        '| DynamoDB, all | 0.0400 | 0.0400 |',
        '| S3, all | 0.0215 | 0.850 |',
        '',
        // Night 1 predates the count: its column says none; a function never invoked has no line.
        '| Lambda invocations | 2,000:50 night 1 | 2,000:50 night 2 |',
        '| --- | --- | --- |',
        '| prepare-batch | 0 | 1 |',
        '| finalize-batch | 0 | 3 |',
      ].join('\n'),
    );
  });

  it('print nothing when no size ran', () => {
    expect(nightlyReport([])).toBe('');
  });
});
