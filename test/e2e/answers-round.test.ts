/**
 * End to end: the review round-trip through the local runtime against the sandbox.
 * A batch leaves rows waiting for answers; review.csv, filled in as a person would, is dropped
 * into answers/<batch-id>/; exactly the fully answered rows resume and resolve, billed once even
 * when the same file is dropped again; results.csv moves forward with the earlier one kept; a
 * half-answered row is reported and left pending; after the service's 30 days the unanswered
 * rows show as abandoned, unbilled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import {
  adminClassifications,
  column,
  E2E_ASSEMBLY_DIR,
  E2E_TIME_SCALE,
  makeTempDir,
  readResults,
  writeCsv,
} from './helpers.js';

const temp = makeTempDir('answers');
let pipeline: LocalPipeline | undefined;

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

/** Rows 2–5 ask questions; A and B will be answered, C half, D not at all. */
const CATALOGUE = [
  ['R-001', 'Café torrado em grãos', 'import', 'BR'],
  ['Q-A', 'Peças diversas de reposição [sandbox:ask=1]', 'import', 'BR'],
  ['Q-B', 'Repuestos varios para maquinaria [sandbox:ask=2]', 'import', 'AR'],
  ['Q-C', 'Kit de ferramentas [sandbox:ask=2]', 'import', 'BR'],
  ['Q-D', 'Material elétrico [sandbox:ask=1]', 'export', 'UY'],
];

type Table = { header: string[]; rows: string[][] };

const readCsvTable = (path: string): Table => {
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  const [header = [], ...rows] = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
  return { header, rows };
};

const statusBySku = (path: string): Record<string, string> => {
  const table = readCsvTable(path);
  return Object.fromEntries(
    table.rows.map((row) => [row[column(table, 'sku')], row[column(table, 'status')]]),
  );
};

/** review.csv filled in: every question of A and B, only the first of C, nothing for D. */
const fillReview = (review: Table): Table => {
  const sku = column(review, 'sku');
  const rows = review.rows.map((row) => {
    const filled = [...row];
    const wanted = { 'Q-A': 2, 'Q-B': 2, 'Q-C': 1, 'Q-D': 0 }[row[sku] as string] ?? 0;
    for (let n = 1; n <= wanted; n++) {
      const idColumn = review.header.indexOf(`question_${n}_id`);
      if (idColumn >= 0 && row[idColumn])
        filled[column(review, `answer_${n}`)] =
          n === 1 ? 'Rolamento de esferas' : 'Uso em máquinas agrícolas; "peças" de reposição';
    }
    return filled;
  });
  return { header: review.header, rows };
};

/** The SKUs erp-update.csv lists, in its order, each with an eight-digit NCM. */
const erpSkus = (path: string): string[] => {
  const lines = Papa.parse<Record<string, string>>(readFileSync(path, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  }).data;
  for (const line of lines) expect(line.ncm, line.sku).toMatch(/^\d{8}$/);
  return lines.map((line) => line.sku ?? '');
};

describe('answers round through the local runtime', () => {
  it('resumes exactly the answered rows, once, and moves the batch’s results forward', async () => {
    // Started here, not in a hook: a changed handler means a fresh synthesis (20 s or more).
    pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-answers' },
    });
    // Prepare: a batch that leaves four rows waiting for answers.
    const file = writeCsv(
      join(temp.dir, 'products.csv'),
      ['sku', 'description', 'operation', 'country'],
      CATALOGUE,
    );
    const { batchId } = await pipeline.submit({ file });
    const first = await pipeline.waitForBatch(batchId);
    expect(first.summary.by_status).toMatchObject({ resolved: 1, pending_data: 4 });
    const out = join(temp.dir, 'out');
    await pipeline.copyOutbox(batchId, out);
    const resultsBefore = readFileSync(join(out, 'results.csv'));
    // The ERP's file: the one product settled (it declared no NCM); the four waiting are left out.
    expect(erpSkus(join(out, 'erp-update.csv'))).toEqual(['R-001']);
    expect(first.summary.erp_update).toEqual({ waiting_rows: 4, rows_without_sku: 0 });
    const auditBefore = readFileSync(join(out, 'audit.csv'));
    const review = readCsvTable(join(out, 'review.csv'));
    expect(review.rows).toHaveLength(4);
    const filledPath = join(temp.dir, 'review-filled.csv');
    const filled = fillReview(review);
    writeCsv(filledPath, filled.header, filled.rows);
    const billedBefore = pipeline.sandbox?.stats().billed_usd;
    expect(billedBefore).toBe(2);

    // Act: the filled file dropped into answers/<batch-id>/.
    const { roundId } = await pipeline.submitAnswers({
      file: filledPath,
      batchId,
      answeredBy: 'ana.revisora',
    });
    const round = await pipeline.waitForBatch(roundId);

    // Assess: A and B resolved, C and D still pending; the earlier results kept as revision 1.
    expect(round.state).toBe('completed');
    expect(round.outboxKeys).toEqual(
      expect.arrayContaining([
        `outbox/${batchId}/results.csv`,
        `outbox/${batchId}/results.rev1.csv`,
        `outbox/${batchId}/summary.rev1.json`,
        `outbox/${batchId}/answers-report.csv`,
      ]),
    );
    await pipeline.copyOutbox(batchId, out);
    expect(statusBySku(join(out, 'results.csv'))).toEqual({
      'R-001': 'resolved',
      'Q-A': 'resolved',
      'Q-B': 'resolved',
      'Q-C': 'pending_data',
      'Q-D': 'pending_data',
    });
    expect(readFileSync(join(out, 'results.rev1.csv')).equals(resultsBefore)).toBe(true);
    // audit.csv only grew: the old bytes, then who answered which row, the answers posted, the verdicts.
    const auditRound = readFileSync(join(out, 'audit.csv'));
    expect(auditRound.subarray(0, auditBefore.length).equals(auditBefore)).toBe(true);
    const roundLines = auditRound.subarray(auditBefore.length).toString('utf8').trim().split('\r\n');
    expect(
      roundLines.filter((line) => line.includes(',answered,ana.revisora,')).map((line) => line.split(',')[2]),
    ).toEqual(expect.arrayContaining(['Q-A', 'Q-B']));
    expect(roundLines.filter((line) => line.includes(',resolved,')).length).toBe(2);
    expect((await readResults(join(out, 'results.csv'))).rows).toHaveLength(CATALOGUE.length);
    const results = readCsvTable(join(out, 'results.csv'));
    const resolvedA = results.rows.find((row) => row[column(results, 'sku')] === 'Q-A') ?? [];
    expect(resolvedA[column(results, 'ncm')]).toMatch(/^\d{4}\.\d{2}\.\d{2}$/);
    expect(resolvedA[column(results, 'verdict_pdf')]).toMatch(/^pdfs\/.+\.pdf$/);
    expect(
      readFileSync(join(out, resolvedA[column(results, 'verdict_pdf')] as string))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    const report = readCsvTable(join(out, 'answers-report.csv'));
    const outcomes = Object.fromEntries(
      report.rows.map((row) => [row[column(report, 'row')], row[column(report, 'outcome')]]),
    );
    expect(outcomes).toEqual({
      '2': 'resumed',
      '3': 'resumed',
      '4': 'incomplete',
      '5': 'skipped_unanswered',
    });
    expect(readCsvTable(join(out, 'review.csv')).rows.map((row) => row[column(review, 'sku')])).toEqual([
      'Q-C',
      'Q-D',
    ]);
    expect(round.summary).toMatchObject({
      revision: 1,
      billed_usd: 6,
      by_status: { resolved: 3, pending_data: 2 },
    });
    expect(pipeline.sandbox?.stats().billed_usd).toBe(6);
    // erp-update.csv written again with the products the answers settled.
    expect(erpSkus(join(out, 'erp-update.csv'))).toEqual(['R-001', 'Q-A', 'Q-B']);
    expect(round.summary.erp_update).toEqual({ waiting_rows: 2, rows_without_sku: 0 });

    // Who answered what and when, on the review items.
    const items = await pipeline.tables.reviews.listByBatch(batchId);
    const itemA = items.find((item) => item.row === 2);
    expect(itemA).toMatchObject({
      state: 'closed',
      answered_by: 'ana.revisora',
      answers: [{ answer: 'Rolamento de esferas' }],
    });
    expect(itemA?.answered_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(items.find((item) => item.row === 4)?.state).toBe('pending');

    // Act again: the same file dropped a second time answers nothing twice.
    const again = await pipeline.waitForBatch(
      (await pipeline.submitAnswers({ file: filledPath, batchId, answeredBy: 'ana.revisora' })).roundId,
    );
    expect(again.state).toBe('completed');
    await pipeline.copyOutbox(batchId, out);
    const secondReport = readCsvTable(join(out, 'answers-report.csv'));
    expect(secondReport.rows.map((row) => row[column(secondReport, 'outcome')])).toEqual([
      'already_answered',
      'already_answered',
      'incomplete',
      'skipped_unanswered',
    ]);
    expect(pipeline.sandbox?.stats().billed_usd).toBe(6);
    const classifications = await adminClassifications(`${pipeline.sandbox?.origin}/__admin`);
    expect(classifications.every((c) => c._sandbox.billed_times <= 1)).toBe(true);
    // Nothing changed, so no new revision.
    expect(again.summary.revision).toBe(1);

    // 30 days later on the service's clock, the daily sweep runs (invoked now, as an operator
    // would): the unanswered rows are abandoned, unbilled, with no answers file needed.
    pipeline.sandbox?.advanceClock(31 * 24 * 60 * 60);
    const swept = await pipeline.invoke('sweep-reviews', { source: 'schedule' });
    expect(swept).toMatchObject({ pending: 2, abandoned: 2 });
    await pipeline.copyOutbox(batchId, out);
    expect(statusBySku(join(out, 'results.csv'))).toMatchObject({ 'Q-C': 'abandoned', 'Q-D': 'abandoned' });
    // The sweep's run without a round added the two abandoned rows to audit.csv, after the round's lines.
    const auditSwept = readFileSync(join(out, 'audit.csv'));
    expect(auditSwept.subarray(0, auditRound.length).equals(auditRound)).toBe(true);
    const sweptLines = auditSwept.subarray(auditRound.length).toString('utf8').trim().split('\r\n');
    expect(sweptLines.map((line) => [line.split(',')[2], line.split(',')[3]]).sort()).toEqual([
      ['Q-C', 'abandoned'],
      ['Q-D', 'abandoned'],
    ]);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toMatchObject({
      revision: 2,
      billed_usd: 6,
      by_status: { resolved: 3, abandoned: 2 },
    });
    expect(readCsvTable(join(out, 'review.csv')).rows).toHaveLength(0);
    expect(pipeline.sandbox?.stats().billed_usd).toBe(6);
    // The next day's sweep finds nothing left to do.
    expect(await pipeline.invoke('sweep-reviews', { source: 'schedule' })).toMatchObject({ pending: 0 });
  }, 180_000);
});
