/**
 * The pure checks (shared/smoke/checks.ts, summary-check.ts) and results.csv read back
 * (results-table.ts): an observation of a batch that ended well, then one thing wrong at a time,
 * each named in plain words.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RESULT_COLUMNS } from '../../../shared/pipeline/core/result-columns.js';
import { buildResultsCsv } from '../../../shared/pipeline/outbox/results-files.js';
import { loadSmokeCatalogue, type SmokeCatalogue } from '../../../shared/smoke/catalogue.js';
import { checkBatch } from '../../../shared/smoke/checks.js';
import type { Observation } from '../../../shared/smoke/observation.js';
import { type ResultsTable, readResultsTable } from '../../../shared/smoke/results-table.js';
import { observeBatch, runSmoke } from '../../../shared/smoke/run-smoke.js';
import { rowRecord } from '../../helpers/records.js';
import { fakeDeployment, STACK } from './fake-deployment.js';

let catalogue: SmokeCatalogue;
let good: Observation;

beforeAll(async () => {
  catalogue = await loadSmokeCatalogue();
  const fake = fakeDeployment(catalogue);
  const options = {
    stackName: STACK,
    catalogue,
    batchName: 'smoke-x',
    timeoutMs: 60_000,
    pollEveryMs: 1_000,
  };
  await runSmoke(fake.ports, options);
  good = await observeBatch(fake.data, fake.world.batchId as string, catalogue);
});

/** A copy of the good observation with `change` applied to it. */
const observed = (change: (copy: Observation & { results: ResultsTable }) => void): Observation => {
  const copy = structuredClone(good) as Observation & { results: ResultsTable };
  change(copy);
  return copy;
};

const problemsOf = (observation: Observation) =>
  Object.fromEntries(
    checkBatch(observation)
      .filter((check) => check.problems.length > 0)
      .map((check) => [check.name, check.problems]),
  );

const resultRow = (copy: { results: ResultsTable }, row: number) => {
  const found = copy.results.rows.find((candidate) => candidate.result.row === String(row));
  if (!found) throw new Error(`no row ${row}`);
  return found;
};

describe('checkBatch', () => {
  it('finds nothing wrong with a batch that ended well', () => {
    expect(problemsOf(good)).toEqual({});
  });

  it('names the outbox files that are missing', () => {
    expect(
      problemsOf(
        observed((copy) => {
          copy.files = ['results.csv'];
        }),
      ),
    ).toEqual({
      outbox: [
        `outbox/${good.batchId}/results.xlsx is missing`,
        `outbox/${good.batchId}/review.csv is missing`,
        `outbox/${good.batchId}/review.xlsx is missing`,
        `outbox/${good.batchId}/summary.json is missing`,
      ],
    });
  });

  it('refuses rows that repeat, are no input row, have no output status, other cells or a short NCM', () => {
    const problems = problemsOf(
      observed((copy) => {
        const first = resultRow(copy, 1);
        copy.results.rows.push(structuredClone(first), {
          ...structuredClone(first),
          line: 9,
          result: { ...first.result, row: '7' },
        });
        resultRow(copy, 2).result.ncm = '8482.10.1';
        resultRow(copy, 3).result.status = 'in_progress';
        resultRow(copy, 3).inputCells[0] = 'SMOKE-OTHER';
      }),
    );
    expect(problems['results.csv']).toEqual([
      'input row 1 has 2 rows in results.csv, not exactly one',
      'row 2 is resolved with NCM "8482.10.1", not one of 8 digits',
      'row 3: status "in_progress" is not an output status',
      "row 3: its input cells are not the catalogue's row 3",
      'results.csv line 9 has row "7", which is no input row',
    ]);
  });

  it('says how a row ended when it is not a verdict or questions, and when no row resolved', () => {
    const problems = problemsOf(
      observed((copy) => {
        for (const row of [1, 2]) {
          Object.assign(resultRow(copy, row).result, {
            status: 'not_submitted',
            reason: 'service_stopped',
            detail: 'the API key was refused (401)',
            verdict_pdf: '',
            ncm: '',
          });
        }
      }),
    );
    expect(problems['row outcomes']).toEqual([
      'row 1 ended not_submitted (service_stopped: the API key was refused (401))',
      'row 2 ended not_submitted (service_stopped: the API key was refused (401))',
      'no row was resolved: the path that stores a verdict and its PDF was not exercised',
    ]);
  });

  it('refuses a verdict PDF that is not a PDF', () => {
    const problems = problemsOf(
      observed((copy) => {
        (copy.pdfs as Map<string, Uint8Array | null>).set(
          'pdfs/00001-SMOKE-BOM-0207.pdf',
          new TextEncoder().encode('<html>'),
        );
      }),
    );
    expect(problems['verdict PDFs']).toEqual([
      `row 1's verdict PDF outbox/${good.batchId}/pdfs/00001-SMOKE-BOM-0207.pdf does not start with %PDF-`,
    ]);
  });

  it.each([
    ['missing', null, `outbox/BATCH/summary.json is missing`],
    ['not JSON', '{"batch_id": ', 'summary.json is not JSON'],
    ['of another shape', '{"batch_id": 7}', "summary.json does not have the summary's shape (batch_id: "],
  ])('refuses a summary.json that is %s', (_case, text, problem) => {
    const problems = problemsOf(
      observed((copy) => {
        copy.summaryText = text;
      }),
    );
    expect(problems['summary.json']?.[0]).toContain(problem.replace('BATCH', good.batchId));
  });

  it("reports the summary's stop and problems, and counts and money that differ from results.csv", () => {
    const problems = problemsOf(
      observed((copy) => {
        const summary = JSON.parse(copy.summaryText as string);
        summary.state = 'failed';
        summary.stop = {
          type: 'unauthorized',
          title: 'API key refused',
          detail: 'the service answered 401',
          at: 'now',
        };
        summary.problems = ['The batch timed out'];
        summary.by_status.resolved = 3;
        summary.billed_usd = 8;
        copy.summaryText = JSON.stringify(summary);
      }),
    );
    expect(problems['summary.json']).toEqual([
      'summary.json has the batch failed',
      'the batch was stopped: API key refused: the service answered 401',
      'summary.json reports: The batch timed out',
      'summary.json counts 3 resolved, results.csv has 2',
      "summary.json bills USD 8.00, results.csv's rows USD 4.00",
      'USD 8.00 billed, more than the USD 6.00 the smoke can cost',
    ]);
  });

  it('compares the batch record and each row item with results.csv', () => {
    const problems = problemsOf(
      observed((copy) => {
        Object.assign(copy.batch as object, { state: 'finalizing', rows_total: 4 });
        const rows = copy.rows as Observation['rows'][number][];
        Object.assign(rows[0] as object, { classification_id: 'cls_222222222222' });
        Object.assign((rows[1] as { result: object }).result, { ncm: '8482.10.90' });
        rows.pop();
      }),
    );
    expect(problems['batch table']).toEqual([
      `the batch table has batch ${good.batchId} finalizing`,
      'the batch record counts 4 rows, the catalogue has 3',
      'the batch table holds 2 row items for 3 input rows',
      `row 1: the batch table has classification cls_222222222222, results.csv ${resultRow(good as never, 1).result.classification_id}`,
      'row 2: the batch table has NCM "8482.10.90", results.csv "8482.10.10"',
      'row 3 has no item in the batch table',
    ]);
    expect(
      problemsOf(
        observed((copy) => {
          copy.batch = null;
        }),
      )['batch table']?.[0],
    ).toBe(`the batch table has no record of batch ${good.batchId}`);
  });

  it('wants one pending review item for each row waiting for answers, and none for the others', () => {
    const problems = problemsOf(
      observed((copy) => {
        const [item] = copy.reviews as Observation['reviews'][number][];
        Object.assign(item as object, { row: 1 });
      }),
    );
    expect(problems['review table']).toEqual([
      'row 3 waits for answers, the review table has 0 pending items for it',
      'the review table has a pending item for row 1, which results.csv has resolved',
    ]);
  });

  it.each([
    ['there is none', null, `outbox/BATCH/results.csv is missing`],
    ['it cannot be read', { problem: 'results.csv cannot be read: …' }, 'results.csv cannot be read: …'],
  ])('stops at results.csv when %s', (_case, results, problem) => {
    const checks = checkBatch({ ...good, results });
    expect(checks.map((check) => check.name)).toEqual(['outbox', 'results.csv']);
    expect(checks[1]?.problems).toEqual([problem.replace('BATCH', good.batchId)]);
  });
});

describe('readResultsTable', () => {
  it("reads results.csv as Finalize writes it: the input's delimiter, a neutralised formula restored", async () => {
    const batch = { header: ['sku', 'description'], delimiter: ';' as const };
    const row = rowRecord(1, {
      cells: ['=SKU-1', 'Parafuso; sextavado'],
      status: 'resolved',
      result: { status: 'resolved', ncm: '73181500', cost_usd: '2.00' },
    });

    const table = await readResultsTable(buildResultsCsv(batch, [row]));

    expect(table).toMatchObject({
      header: ['sku', 'description', ...RESULT_COLUMNS],
      rows: [
        {
          line: 2,
          inputCells: ['=SKU-1', 'Parafuso; sextavado'],
          result: { row: '1', status: 'resolved', ncm: '7318.15.00' },
        },
      ],
    });
  });

  it('says when the last columns are not the result columns', async () => {
    expect(await readResultsTable(new TextEncoder().encode('sku,status\r\nA,resolved\r\n'))).toEqual({
      problem: `results.csv does not end with the result columns (${RESULT_COLUMNS.join(', ')})`,
    });
  });
});
