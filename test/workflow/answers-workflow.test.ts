/**
 * The Answers workflow from the synthesized definition (aws-local-stepfunctions): a batch leaves
 * rows waiting for answers, the filled review file is dropped into answers/<batch-id>/, and the
 * round runs through the same dispatcher, Row workflow and completion as a batch
 * (shared/pipeline/README.md, "Answer rounds").
 */
import Papa from 'papaparse';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClassificationService } from '../../shared/pipeline/core/ports.js';
import { buildReviewCsv, type FilledAnswers } from '../../shared/pipeline/outbox/results-files.js';
import { type Harness, startHarness, synthesizedDefinitions } from './harness.js';

// Synthesizing the app takes most of the first test's time budget: done once, before any test.
beforeAll(async () => {
  await synthesizedDefinitions();
}, 120_000);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Row 1 resolves at once; rows 2 to 4 ask one, two and two questions. */
const CATALOGUE = [
  'sku,description,operation,country',
  'R-1,"Café torrado em grãos, embalagem de 1 kg",import,BR',
  'Q-A,"Peças diversas de reposição [sandbox:ask=1]",import,BR',
  'Q-B,"Repuestos varios para maquinaria [sandbox:ask=2]",import,AR',
  'Q-C,"Kit de ferramentas [sandbox:ask=2]",import,BR',
].join('\n');

/** Records every POST of answers the pipeline sends, by classification id. */
const recordingAnswers =
  (sent: string[]) =>
  (real: ClassificationService): ClassificationService => ({
    ...real,
    answerQuestions: (id, body, options) => {
      sent.push(id);
      return real.answerQuestions(id, body, options);
    },
  });

/** Runs a batch to its end and returns its id and its review items. */
const runBatchWithQuestions = async (h: Harness, name: string, csv: string) => {
  const output = await h.runBatch(h.drop(name, 'products.csv', csv));
  const batchId = (output.prepare as { batch_id: string }).batch_id;
  return { batchId, items: await h.reviews.listByBatch(batchId) };
};

/**
 * The review file as a person would send it back: the first `answered[row]` questions of each
 * row answered (the first with one of its suggested products, as TRIGGERS.md says resolves).
 */
const filledReview = (
  items: Awaited<ReturnType<Harness['reviews']['listByBatch']>>,
  answered: Record<number, number>,
): Buffer => {
  const filled = new Map<string, { answers: Map<string, string> }>();
  for (const item of items) {
    const answers = new Map(
      item.questions
        .slice(0, answered[item.row] ?? 0)
        .map((question) => [question.id, question.options[0] ?? 'Rolamento de esferas'] as const),
    );
    filled.set(item.classification_id, { answers });
  }
  return buildReviewCsv(items, ',', { filled: filled satisfies FilledAnswers });
};

/** A CSV of the outbox as records by header (BOM and CRLF as writeCsv writes them). */
const outboxCsv = (h: Harness, batchId: string, name: string): Record<string, string>[] => {
  const text = h.objects.text(`outbox/${batchId}/${name}`);
  if (text === undefined) throw new Error(`no outbox/${batchId}/${name}`);
  return Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
};

const bytesOf = (h: Harness, key: string) => h.objects.objects.get(key)?.bytes;

describe('Answers workflow, from the synthesized definition', () => {
  it('resumes the fully answered rows, waits for them, and moves the batch’s results forward', async () => {
    // Arrange: a batch with three rows waiting for answers; two answered fully, one half.
    const sent: string[] = [];
    harness = await startHarness({ service: recordingAnswers(sent) });
    const { batchId, items } = await runBatchWithQuestions(harness, 'questions', CATALOGUE);
    expect(items.map((item) => [item.row, item.questions.length])).toEqual([
      [2, 1],
      [3, 2],
      [4, 2],
    ]);
    const resultsBefore = bytesOf(harness, `outbox/${batchId}/results.csv`);
    const summaryBefore = bytesOf(harness, `outbox/${batchId}/summary.json`);
    const startedBefore = harness.workflows.started.length;
    const event = harness.dropAnswers(batchId, 'review.csv', filledReview(items, { 2: 1, 3: 2, 4: 1 }));

    // Act
    const output = await harness.runAnswers(event);

    // Assert: rows 2 and 3 resolved in the round; row 4 was not sent and still waits.
    const roundId = (output.prepare as { round_id: string }).round_id;
    expect(output.prepare).toMatchObject({ batch_id: batchId, next: 'wait' });
    expect(roundId).toMatch(new RegExp(`^${batchId}~`));
    // WaitForAnswers' result is the wake the round's last row sent.
    expect(output.rows).toEqual({ batch_id: roundId });
    expect(output.finalized).toMatchObject({
      batch_id: batchId,
      round_id: roundId,
      resumed: 2,
      still_pending: 1,
      revision: 1,
    });
    const rows = await harness.rowsOf(batchId);
    expect(rows.map((row) => [row.row, row.status])).toEqual([
      [1, 'resolved'],
      [2, 'resolved'],
      [3, 'resolved'],
      [4, 'pending_data'],
    ]);
    expect(
      outboxCsv(harness, batchId, 'answers-report.csv').map((entry) => [entry.row, entry.outcome]),
    ).toEqual([
      ['2', 'resumed'],
      ['3', 'resumed'],
      ['4', 'incomplete'],
    ]);
    expect(outboxCsv(harness, batchId, 'results.csv').map((entry) => entry.status)).toEqual([
      'resolved',
      'resolved',
      'resolved',
      'pending_data',
    ]);
    // The batch's first results and summary kept as revision 1, byte for byte.
    expect(bytesOf(harness, `outbox/${batchId}/results.rev1.csv`)).toEqual(resultsBefore);
    expect(bytesOf(harness, `outbox/${batchId}/summary.rev1.json`)).toEqual(summaryBefore);
    // Only the row still waiting is offered for review again.
    expect(outboxCsv(harness, batchId, 'review.csv').map((entry) => entry.row)).toEqual(['4']);

    expect(harness.batches.batches.get(roundId)).toMatchObject({ round_of: batchId, state: 'completed' });
    expect(harness.waiters.woken).toEqual([batchId, roundId]);
    // One Row execution per resumed row, named apart from the batch's.
    const roundExecutions = harness.workflows.started.slice(startedBefore);
    expect(roundExecutions).toHaveLength(2);
    for (const name of roundExecutions) expect(name).toMatch(/-q[A-Za-z0-9]{10}-d1$/);
    // Answers posted once per resumed row; each resolved row billed exactly once.
    const classificationOf = (n: number) => rows.find((row) => row.row === n)?.classification_id;
    expect(sent.sort()).toEqual([classificationOf(2), classificationOf(3)].sort());
    const billed = harness.sandbox.stats().billed_per_classification;
    expect(billed).toEqual(Object.fromEntries([1, 2, 3].map((n) => [classificationOf(n), 1] as const)));
    expect(harness.sandbox.stats().billed_usd).toBe(6);
    expect(harness.events.published.map((event) => event.round_id)).toEqual([undefined, roundId]);
    expect([...harness.leases.holders.keys()]).toEqual([]);
    expect(harness.failures).toEqual([]);
  });

  it('the same answers event delivered twice is one round: the second execution skips and sends nothing', async () => {
    // Arrange: one row answered and its round run once.
    const sent: string[] = [];
    harness = await startHarness({ service: recordingAnswers(sent) });
    const { batchId, items } = await runBatchWithQuestions(
      harness,
      'twice',
      'sku,description,operation,country\nQ-A,"Peças diversas [sandbox:ask=1]",import,BR\n',
    );
    const event = harness.dropAnswers(batchId, 'review.csv', filledReview(items, { 1: 1 }));
    const first = await harness.runAnswers(event);
    const roundId = (first.prepare as { round_id: string }).round_id;
    const reportAfterFirst = bytesOf(harness, `outbox/${batchId}/answers-report.csv`);
    const resultsAfterFirst = bytesOf(harness, `outbox/${batchId}/results.csv`);
    const startedAfterFirst = harness.workflows.started.length;
    const roundAfterFirst = harness.batches.batches.get(roundId);

    // Act: EventBridge delivers the same object version again (a new event id).
    const second = await harness.runAnswers({ ...event, id: 'redelivered' });

    // Assert: the second execution went from PrepareAnswers to AnswersSkipped.
    expect(first.finalized).toMatchObject({ round_id: roundId, resumed: 1 });
    expect(second.prepare).toMatchObject({ batch_id: batchId, round_id: roundId, next: 'skip' });
    expect((second.prepare as { detail: string }).detail).toContain('duplicate delivery');
    expect(second).not.toHaveProperty('rows');
    expect(second).not.toHaveProperty('finalized');
    // Nothing sent, started, billed, written or published by it.
    expect(sent).toHaveLength(1);
    expect(harness.workflows.started).toHaveLength(startedAfterFirst);
    expect(harness.sandbox.stats().billed_usd).toBe(2);
    expect(bytesOf(harness, `outbox/${batchId}/answers-report.csv`)).toEqual(reportAfterFirst);
    expect(bytesOf(harness, `outbox/${batchId}/results.csv`)).toEqual(resultsAfterFirst);
    expect(harness.batches.batches.get(roundId)).toEqual(roundAfterFirst);
    expect(harness.events.published).toHaveLength(2);
    expect(harness.waiters.woken).toEqual([batchId, roundId]);
    expect([...harness.leases.holders.keys()]).toEqual([]);
  });

  it('a file that resumes nothing goes straight to FinalizeAnswers without waiting', async () => {
    // Arrange: the review file sent back as the batch wrote it, no answer filled in.
    const sent: string[] = [];
    harness = await startHarness({ service: recordingAnswers(sent) });
    const { batchId, items } = await runBatchWithQuestions(
      harness,
      'unanswered',
      [
        'sku,description,operation,country',
        'R-1,"Café torrado em grãos, embalagem de 1 kg",import,BR',
        'Q-A,"Peças diversas [sandbox:ask=1]",import,BR',
      ].join('\n'),
    );
    const resultsBefore = bytesOf(harness, `outbox/${batchId}/results.csv`);
    const startedBefore = harness.workflows.started.length;
    const event = harness.dropAnswers(batchId, 'review.csv', buildReviewCsv(items, ','));

    // Act
    const output = await harness.runAnswers(event);

    // Assert: no WaitForAnswers (no `rows`, no token kept on the round), the round finalized.
    const roundId = (output.prepare as { round_id: string }).round_id;
    expect(output.prepare).toMatchObject({ batch_id: batchId, next: 'finalize' });
    expect(output).not.toHaveProperty('rows');
    expect(output.finalized).toMatchObject({ round_id: roundId, resumed: 0, still_pending: 1, revision: 0 });
    const round = harness.batches.batches.get(roundId);
    expect(round).toMatchObject({ round_of: batchId, state: 'completed', rows_total: 0 });
    expect(round?.task_token).toBeUndefined();
    expect(harness.waiters.woken).toEqual([batchId]);
    expect(
      outboxCsv(harness, batchId, 'answers-report.csv').map((entry) => [entry.row, entry.outcome]),
    ).toEqual([['2', 'skipped_unanswered']]);
    expect((await harness.rowsOf(batchId)).map((row) => row.status)).toEqual(['resolved', 'pending_data']);
    // Nothing changed: no answers sent, no Row execution, results.csv as it was and no revision.
    expect(sent).toEqual([]);
    expect(harness.workflows.started).toHaveLength(startedBefore);
    expect(bytesOf(harness, `outbox/${batchId}/results.csv`)).toEqual(resultsBefore);
    expect(harness.objects.objects.has(`outbox/${batchId}/results.rev1.csv`)).toBe(false);
    expect(harness.sandbox.stats().billed_usd).toBe(2);
  });
});
