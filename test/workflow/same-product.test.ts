/**
 * Rows of the same product share one classification (docs/architecture.md, property 11), through
 * the synthesized Batch and Answers workflows against the sandbox over HTTP: billed once, a
 * failure shared, one answer resuming every row of the product.
 */
import Papa from 'papaparse';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClassificationService } from '../../shared/pipeline/core/ports.js';
import { countedRows, coverageShares } from '../../shared/pipeline/core/row-counts.js';
import { buildReviewCsv, type FilledAnswers } from '../../shared/pipeline/outbox/results-files.js';
import { type Harness, startHarness, synthesizedDefinitions } from './harness.js';

beforeAll(async () => {
  await synthesizedDefinitions();
}, 120_000);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const COFFEE = '"Café torrado em grãos, embalagem de 1 kg"';
const ASKS = '"Peças diversas de reposição [sandbox:ask=1]"';
const FAILS = '"Módulo de controle eletrônico para colheitadeira [sandbox:fail=no_valid_candidates]"';

/** Three products, each on several rows under different SKUs; the coffee also exported. */
const CATALOGUE = [
  'sku,description,operation,country,current_ncm',
  `C-1,${COFFEE},import,BR,09012100`,
  `Q-1,${ASKS},import,BR,`,
  `F-1,${FAILS},import,BR,`,
  `C-2,${COFFEE},import,BR,09011100`,
  `Q-2,${ASKS},import,BR,`,
  `C-3,${COFFEE},import,BR,`,
  `F-2,${FAILS},import,BR,`,
  `C-4,${COFFEE},export,BR,`,
].join('\n');

const outboxCsv = (h: Harness, batchId: string, name: string): Record<string, string>[] => {
  const text = h.objects.text(`outbox/${batchId}/${name}`);
  if (text === undefined) throw new Error(`no outbox/${batchId}/${name}`);
  return Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
};

const recordingAnswers =
  (sent: string[]) =>
  (real: ClassificationService): ClassificationService => ({
    ...real,
    answerQuestions: (id, body, options) => {
      sent.push(id);
      return real.answerQuestions(id, body, options);
    },
  });

describe('rows of the same product, through the workflows', () => {
  it('classifies each product once, bills it once, and gives its copies its outcome at no cost', async () => {
    const sent: string[] = [];
    harness = await startHarness({ service: recordingAnswers(sent) });
    const output = await harness.runBatch(harness.drop('same', 'products.csv', CATALOGUE));
    const batchId = (output.prepare as { batch_id: string }).batch_id;

    // Three products (coffee, imported or exported; questions; failure): three classifications.
    const stats = harness.sandbox.stats();
    expect(stats.created).toBe(3);
    expect(stats.billed_usd).toBe(2);
    const results = outboxCsv(harness, batchId, 'results.csv');
    expect(results.map((r) => [r.row, r.status, r.cost_usd])).toEqual([
      ['1', 'resolved', '2.00'],
      ['2', 'pending_data', '0.00'],
      ['3', 'failed', '0.00'],
      ['4', 'resolved', '0.00'],
      ['5', 'pending_data', '0.00'],
      ['6', 'resolved', '0.00'],
      ['7', 'failed', '0.00'],
      ['8', 'resolved', '0.00'],
    ]);
    // The exported coffee takes the imported one's verdict, with export duties of its own.
    expect(results[7]).toMatchObject({
      classification_id: results[0]!.classification_id,
      verdict_from: `${results[0]!.classification_id} (BR, import)`,
      ncm: results[0]!.ncm,
      import_duty_applicable: '',
    });
    expect(results[0]!.import_duty_applicable).not.toBe('');
    expect(results[7]!.export_duty).not.toBe('');
    expect(results[7]!.detail).toMatch(/^Same product as row 1 .*tariffs looked up for export \(BR\)/);
    // A copy carries the classification, its own comparison with its declared NCM, and says whose.
    expect(results[3]).toMatchObject({
      classification_id: results[0]!.classification_id,
      ncm: results[0]!.ncm,
      verdict_pdf: results[0]!.verdict_pdf,
      current_ncm_matches: 'no',
    });
    expect(results[3]!.detail).toMatch(/^Same product as row 1 /);
    expect(results[6]!.reason).toBe(results[2]!.reason);
    expect(results[6]!.detail).toMatch(/^Same product as row 3 /);

    // The review file lists the product with questions once, with the rows it covers.
    const review = outboxCsv(harness, batchId, 'review.csv');
    expect(review.map((r) => [r.row, r.same_product_rows])).toEqual([['2', '5']]);
    const summary = JSON.parse(harness.objects.text(`outbox/${batchId}/summary.json`) ?? '{}');
    expect(summary).toMatchObject({
      rows_total: 8,
      rows_dispatched: 3,
      billed_usd: 2,
      duplicates: { rows: 5, saved_usd: 6 },
      saved_usd: 6,
    });

    // One answer to the product's questions resumes both of its rows.
    const items = await harness.reviews.listByBatch(batchId);
    const filled: FilledAnswers = new Map(
      items.map((item) => [
        item.classification_id,
        { answers: new Map(item.questions.map((q) => [q.id, q.options[0] ?? 'Rolamento de esferas'])) },
      ]),
    );
    const answers = harness.dropAnswers(batchId, 'review.csv', buildReviewCsv(items, ',', { filled }));
    await harness.runAnswers(answers);

    expect(sent).toEqual([items[0]!.classification_id]);
    const revised = outboxCsv(harness, batchId, 'results.csv');
    expect(revised.map((r) => [r.row, r.status, r.cost_usd])).toEqual([
      ['1', 'resolved', '2.00'],
      ['2', 'resolved', '2.00'],
      ['3', 'failed', '0.00'],
      ['4', 'resolved', '0.00'],
      ['5', 'resolved', '0.00'],
      ['6', 'resolved', '0.00'],
      ['7', 'failed', '0.00'],
      ['8', 'resolved', '0.00'],
    ]);
    expect(revised[4]!.ncm).toBe(revised[1]!.ncm);
    expect(harness.sandbox.stats().billed_usd).toBe(4);
    expect(outboxCsv(harness, batchId, 'review.csv')).toEqual([]);
  });

  it('counts the value each verdict covers as its product resolves: the share of the value said live', async () => {
    // Prepare: the catalogue with a value column; the coffee's four rows carry 1,000.00 of 1,075.00.
    const values = ['100,00', '25,00', '12,50', '200,00', '25,00', '300,00', '12,50', '400,00'];
    const lines = CATALOGUE.split('\n');
    const withValues = [
      `${lines[0]},valor`,
      ...lines.slice(1).map((line, i) => `${line},"${values[i]}"`),
    ].join('\n');
    harness = await startHarness();

    // Act
    const output = await harness.runBatch(harness.drop('valued', 'products.csv', withValues));
    const batchId = (output.prepare as { batch_id: string }).batch_id;

    // Assess: what the progress line and the console count from, without reading a row.
    const batch = await harness.batches.getBatch(batchId);
    const counted = countedRows(batch!, await harness.batches.finishedRows(batch!), 0);
    expect(counted.covered).toMatchObject({ rows: 4, valueCents: 100_000, valueTotalCents: 107_500 });
    expect(coverageShares(counted)).toMatchObject({ rows: 50, value: 93 });
  });

  it('classifies every row when batch.json says duplicates: classify_each', async () => {
    harness = await startHarness();
    harness.drop('each', 'batch.json', JSON.stringify({ duplicates: 'classify_each' }));
    const output = await harness.runBatch(
      harness.drop(
        'each',
        'products.csv',
        [
          CATALOGUE.split('\n')[0],
          ...CATALOGUE.split('\n')
            .slice(1)
            .filter((l) => l.startsWith('C-')),
        ].join('\n'),
      ),
    );
    const batchId = (output.prepare as { batch_id: string }).batch_id;

    expect(harness.sandbox.stats().created).toBe(4);
    expect(outboxCsv(harness, batchId, 'results.csv').map((r) => r.cost_usd)).toEqual([
      '2.00',
      '2.00',
      '2.00',
      '2.00',
    ]);
  });
});
