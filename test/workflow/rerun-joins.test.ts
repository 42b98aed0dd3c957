/**
 * A re-run does not ask again (docs/answers-round.md): the nightly export run a second time while
 * a product's classification from the first run still waits for answers. The second batch creates
 * no classification for that product: its row waits on the first batch's (same classification id,
 * the same questions, no charge). One answer, in either batch's review file, settles the rows of
 * both batches and moves both batches' results forward; the classification is billed once.
 */
import Papa from 'papaparse';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClassificationService } from '../../shared/pipeline/core/ports.js';
import { buildReviewCsv, type FilledAnswers } from '../../shared/pipeline/outbox/results-files.js';
import { JOINED_REASON } from '../../shared/pipeline/reuse/reuse.js';
import { type Harness, startHarness, synthesizedDefinitions } from './harness.js';

beforeAll(async () => {
  await synthesizedDefinitions();
}, 120_000);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const ASKS = 'Peças diversas de reposição [sandbox:ask=1]';
const NIGHT_1 = [
  'sku,description,operation,country',
  'R-1,"Café torrado em grãos, embalagem de 1 kg",import,BR',
  `Q-A,"${ASKS}",import,BR`,
].join('\n');
/** The same export the next night, with one product more. */
const NIGHT_2 = `${NIGHT_1}\nN-1,"Café torrado em grãos, embalagem de 500 g",import,BR`;

/** Records the description of every classification created and every answers POST. */
const recording =
  (created: string[], answered: string[]) =>
  (real: ClassificationService): ClassificationService => ({
    ...real,
    createClassification: (body, options) => {
      created.push(body.description ?? '');
      return real.createClassification(body, options);
    },
    answerQuestions: (id, body, options) => {
      answered.push(id);
      return real.answerQuestions(id, body, options);
    },
  });

const outboxCsv = (h: Harness, batchId: string, name: string): Record<string, string>[] => {
  const text = h.objects.text(`outbox/${batchId}/${name}`);
  if (text === undefined) throw new Error(`no outbox/${batchId}/${name}`);
  return Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
};

const runBatch = async (h: Harness, csv: string) => {
  const output = await h.runBatch(h.drop('nightly', 'products.csv', csv));
  return (output.prepare as { batch_id: string }).batch_id;
};

/** The batch's review items with every question answered by its first suggestion. */
const answeredReview = async (h: Harness, batchId: string): Promise<Buffer> => {
  const items = (await h.reviews.listByBatch(batchId)).filter((item) => item.state === 'pending');
  const filled = new Map(
    items.map((item) => [
      item.classification_id,
      {
        answers: new Map(item.questions.map((q) => [q.id, q.options[0] ?? 'Rolamento de esferas'] as const)),
      },
    ]),
  );
  return buildReviewCsv(items, ',', { filled: filled satisfies FilledAnswers });
};

/** Two nights of the same export, the product that asks still unanswered. */
const twoNights = async (h: Harness, created: string[]) => {
  const first = await runBatch(h, NIGHT_1);
  const asked = (await h.rowsOf(first)).find((row) => row.row === 2)!;
  expect(asked.status).toBe('pending_data');
  const second = await runBatch(h, NIGHT_2);
  expect(second).not.toBe(first);
  // The product that waits for answers was classified once, on the first night only.
  expect(created.filter((description) => description === ASKS)).toHaveLength(1);
  return { first, second, classificationId: asked.classification_id! };
};

describe('A re-run does not ask again', () => {
  it('the second night joins the open classification: no new one, same id, nothing billed twice', async () => {
    // Arrange
    const created: string[] = [];
    harness = await startHarness({ service: recording(created, []) });

    // Act
    const { first, second, classificationId } = await twoNights(harness, created);

    // Assert: the second batch's row waits on the first batch's classification, at no cost.
    const joined = (await harness.rowsOf(second)).find((row) => row.row === 2)!;
    expect(joined).toMatchObject({ status: 'pending_data', classification_id: classificationId });
    expect(joined.result).toMatchObject({ reason: JOINED_REASON, cost_usd: '0.00' });
    expect(joined.result?.detail).toContain(first);
    const results = outboxCsv(harness, second, 'results.csv');
    expect(results.map((row) => [row.row, row.status])).toEqual([
      ['1', 'reused'],
      ['2', 'pending_data'],
      ['3', 'resolved'],
    ]);
    // Its review file asks the same questions, on its own row.
    const review = outboxCsv(harness, second, 'review.csv');
    expect(review.map((row) => [row.row, row.classification_id])).toEqual([['2', classificationId]]);
    expect(outboxCsv(harness, first, 'review.csv').map((row) => row.question_1_id)).toEqual(
      review.map((row) => row.question_1_id),
    );
    // Billed: R-1 on the first night, N-1 on the second; nothing for the product that asks.
    expect(harness.sandbox.stats().billed_usd).toBe(4);
    expect(created).toHaveLength(3);
    expect(harness.failures).toEqual([]);
  });

  it.each([
    ['the first batch', 'first'],
    ['the second batch', 'second'],
  ] as const)('one answer, given in %s, resolves the rows of both batches, billed once', async (_, where) => {
    // Arrange
    const created: string[] = [];
    const answered: string[] = [];
    harness = await startHarness({ service: recording(created, answered) });
    const batches = await twoNights(harness, created);
    const answeringBatch = batches[where];
    const otherBatch = where === 'first' ? batches.second : batches.first;
    const billedBefore = harness.sandbox.stats().billed_usd;

    // Act
    await harness.runAnswers(
      harness.dropAnswers(answeringBatch, 'review.csv', await answeredReview(harness, answeringBatch)),
    );

    // Assert: the answers were posted once, to the one classification.
    expect(answered).toEqual([batches.classificationId]);
    for (const batchId of [batches.first, batches.second]) {
      const row = (await harness.rowsOf(batchId)).find((r) => r.row === 2)!;
      expect(row).toMatchObject({ status: 'resolved', classification_id: batches.classificationId });
      // Both batches' results moved forward: a revision kept, the verdict in results.csv.
      expect(outboxCsv(harness, batchId, 'results.csv')[1]).toMatchObject({ status: 'resolved' });
      expect(harness.objects.text(`outbox/${batchId}/results.rev1.csv`)).toBeDefined();
      expect(outboxCsv(harness, batchId, 'review.csv')).toEqual([]);
    }
    // Billed once, where the answers were sent; no charge on the row that waited on them.
    const costOf = async (batchId: string) =>
      (await harness!.rowsOf(batchId)).find((r) => r.row === 2)!.result?.cost_usd;
    expect(await costOf(answeringBatch)).toBe('2.00');
    expect(await costOf(otherBatch)).toBe('0.00');
    expect(harness.sandbox.stats().billed_usd).toBe(billedBefore + 2);
    expect(harness.sandbox.stats().billed_per_classification[batches.classificationId]).toBe(1);
    expect((await harness.reviews.get(batches.classificationId))?.state).toBe('closed');
    expect(created.filter((description) => description === ASKS)).toHaveLength(1);
    expect(harness.failures).toEqual([]);
  });

  it("marks a row that joined by its own batch's check_below: to check there, with its item, not where it was answered", async () => {
    // Arrange: the second night asks for a check of every verdict under 100 %; the first does not
    const created: string[] = [];
    harness = await startHarness({ service: recording(created, []) });
    const h = harness;
    const first = await runBatch(h, NIGHT_1);
    const options = { 'batch.json': JSON.stringify({ check_below: 100 }) };
    const second = (
      (await h.runBatch(h.drop('nightly', 'products.csv', NIGHT_2, options))).prepare as {
        batch_id: string;
      }
    ).batch_id;
    const classificationId = (await h.rowsOf(first)).find((row) => row.row === 2)!.classification_id!;

    // Act: the answer is given in the first batch
    await h.runAnswers(h.dropAnswers(first, 'review.csv', await answeredReview(h, first)));

    // Assert
    const rowOf = async (batchId: string) => (await h.rowsOf(batchId)).find((row) => row.row === 2)!;
    expect((await rowOf(first)).result).toMatchObject({ status: 'resolved', cost_usd: '2.00' });
    expect((await rowOf(first)).result?.check).toBeUndefined();
    expect(await h.checks.get(first, 2)).toBeNull();
    expect((await rowOf(second)).result).toMatchObject({
      status: 'resolved',
      check: 'to_check',
      cost_usd: '0.00',
    });
    expect(await h.checks.get(second, 2)).toMatchObject({
      classification_id: classificationId,
      reasons: expect.arrayContaining(['low_confidence']),
      check_below: 100,
      state: 'to_check',
    });
    expect(outboxCsv(h, second, 'to-check.csv').map((row) => row.row)).toContain('2');
    expect(h.failures).toEqual([]);
  });
});
