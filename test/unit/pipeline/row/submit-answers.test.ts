/**
 * An answers round: Submit posting a review's answers for a pending_data row, and what follows
 * (a 409 conflict, a 429, a stop on the round, a failed run, an execution that died).
 */
import { describe, expect, it } from 'vitest';
import { deriveAnswersKey } from '../../../../shared/pipeline/core/keys.js';
import type { ClassificationService } from '../../../../shared/pipeline/core/ports.js';
import type { RowRecord, RowStep } from '../../../../shared/pipeline/core/records.js';
import { rowExecutionEnded } from '../../../../shared/pipeline/row/execution-ended.js';
import { submitRow } from '../../../../shared/pipeline/row/submit.js';
import { openRound } from '../../../helpers/memory-ports.js';
import { makeWorld, sandbox, serviceFor, type World } from '../../../helpers/sandbox-world.js';
import {
  BATCH,
  classificationOf,
  dispatch,
  fillCap,
  rowOf,
  runRowWorkflow,
  seedBatch,
  startRowSandbox,
} from './row-fixture.js';

startRowSandbox();

describe('answers round', () => {
  const ROUND = `${BATCH}~k3Jd9QwZ`;
  const ROUND_TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAround-task-token-secret';

  /** Counts the answers POSTs and their keys. */
  const recordingAnswers = (service: ClassificationService) => {
    const keys: string[] = [];
    const wrapped: ClassificationService = {
      ...service,
      answerQuestions: (id, body, options) => {
        keys.push(options.idempotencyKey);
        return service.answerQuestions(id, body, options);
      },
    };
    return { keys, service: wrapped };
  };

  /** A row left pending_data by the batch's run: its classification asks questions. */
  const pendingRow = async (w: World, description = 'Café torrado em grãos [sandbox:ask=2]') => {
    await seedBatch(w, [{ description, sku: 'CAF-Q' }]);
    const first = await runRowWorkflow(w, await dispatch(w, 1));
    expect(first.report.status).toBe('pending_data');
    const row = await rowOf(w);
    const item = await w.reviews.get(row.classification_id!);
    if (!item) throw new Error('no review item');
    return { row, item };
  };

  /** What PrepareAnswers does for one answered row: the round record, the row back to queued. */
  const takeIntoRound = async (
    w: World,
    row: RowRecord,
    answers: { question_id: string; answer: string }[],
  ) => {
    await openRound(w.batches, {
      batchId: BATCH,
      roundId: ROUND,
      rows: 1,
      taskToken: ROUND_TOKEN,
      fileName: 'review.csv',
      now: w.clock.now(),
    });
    w.batches.placeRow(BATCH, row.row, {
      status: 'queued',
      dispatch: 1,
      round: {
        round_id: ROUND,
        answers,
        answers_key: deriveAnswersKey(row.classification_id!, answers),
        answered_by: 'ana@example.com',
        answered_at: w.clock.now().toISOString(),
      },
    });
  };

  /** The dispatcher's part for a round's row: the round's own holder, the message's round_id. */
  const dispatchRound = (w: World, row: number, dispatchNo = 1) => dispatch(w, row, 1, dispatchNo, ROUND);

  const answersTo = (item: { questions: { id: string }[] }) =>
    item.questions.map((q, i) => ({ question_id: q.id, answer: `Grãos torrados, resposta ${i + 1}` }));

  it('posts the answers once under the answers key, resolves the row and counts it on the round', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    const answers = answersTo(item);
    await takeIntoRound(w, row, answers);
    const input = await dispatchRound(w, 1);

    const { report, steps } = await runRowWorkflow(w, input);

    expect(steps[0]).toBe('Submit');
    expect(steps.slice(-2)).toEqual(['Store', 'Complete']);
    expect(keys).toEqual([deriveAnswersKey(row.classification_id!, answers)]);
    expect(report).toMatchObject({ outcome: 'final', status: 'resolved', batchComplete: true, woke: true });
    // The batch was woken by its own run; the round by this one.
    expect(w.wakes).toEqual([BATCH, ROUND]);
    const after = await rowOf(w);
    expect(after).toMatchObject({ status: 'resolved', classification_id: row.classification_id });
    expect(after.round?.posted_at).toBeDefined();
    expect(after.result).toMatchObject({
      status: 'resolved',
      cost_usd: '2.00',
      verdict_pdf: expect.stringMatching(/^pdfs\//),
    });
    expect(w.leases.holders.size).toBe(0);
    expect(sandbox.stats().billed_usd).toBe(2);
    const c = await classificationOf(row.classification_id!);
    expect(c.answers.map((a) => a.answer)).toEqual(answers.map((a) => a.answer));

    // A late duplicate of the round's execution: the row's result stands, nothing is posted.
    const late = await submitRow(w.ports, input);
    expect(late.outcome).toMatchObject({ kind: 'final', result: { status: 'resolved' } });
    expect(keys).toHaveLength(1);
    expect(sandbox.stats().billed_usd).toBe(2);
  });

  it('a second dispatch after the answers went in looks at the classification instead of posting again', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    const first = await submitRow(w.ports, await dispatchRound(w, 1));
    expect(first).toMatchObject({ next: 'wait', classification_id: row.classification_id });

    w.clock.advance(2_000);
    const again = await submitRow(w.ports, await dispatchRound(w, 1, 2));
    expect(again).toMatchObject({ next: 'wait', submitted_at: first.submitted_at });
    expect(keys).toHaveLength(1);
  });

  it('follows a classification answered elsewhere (409 conflict) to its verdict, billed once', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    // Someone answers in the web app first.
    await serviceFor().answerQuestions(
      row.classification_id!,
      { answers: item.questions.map((q) => ({ question_id: q.id, answer: 'Café torrado em grãos' })) },
      { idempotencyKey: 'web-app-answer-0000001' },
    );

    const { report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect(keys).toHaveLength(1); // refused with 409 conflict, then followed
    expect(report).toMatchObject({ status: 'resolved', woke: true });
    expect(sandbox.stats().billed_usd).toBe(2);
    expect(w.leases.holders.size).toBe(0);
  });

  it('a 429 puts the row back in its round, with its round id, under the round’s lease holder', async () => {
    const w = makeWorld();
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    await fillCap();

    const { state, report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect((state.step as RowStep).outcome).toMatchObject({
      kind: 'requeue',
      reason: 'rate_limited',
      dispatch: 2,
    });
    expect(report).toMatchObject({ outcome: 'requeue', leaseReleased: true });
    expect(w.queue.sent.at(-1)?.message).toEqual({
      batch_id: BATCH,
      row: 1,
      attempt: 1,
      dispatch: 2,
      round_id: ROUND,
    });
    expect(await rowOf(w)).toMatchObject({ status: 'queued', dispatch: 2, round: { round_id: ROUND } });
    expect(w.leases.holders.size).toBe(0);
  });

  it('answers the round cannot send (a stop on the round) leave the row pending_data, saying why', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    await w.batches.recordStop(ROUND, {
      type: 'https://api.example.com/problems/plan-without-api',
      title: 'Plan without API',
      detail: 'The plan has no API access.',
      at: w.clock.now().toISOString(),
    });

    const { report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect(keys).toHaveLength(0);
    expect(report).toMatchObject({ outcome: 'final', status: 'pending_data', woke: true });
    const after = await rowOf(w);
    expect(after.result).toMatchObject({
      status: 'pending_data',
      classification_id: row.classification_id,
      questions: row.result?.questions,
    });
    expect(after.result?.detail).toMatch(
      /^answers not sent \(plan-without-api: The plan has no API access\.\)/,
    );
    // The batch's own record keeps no stop: its earlier verdicts stand.
    expect((await w.batches.getBatch(BATCH))?.stop).toBeUndefined();
  });

  it('a transient failure of the run after the answers is final: a new attempt would ask again', async () => {
    const real = serviceFor();
    let failing = false;
    const service: ClassificationService = {
      ...real,
      getClassification: async (id, options) => {
        const c = await real.getClassification(id, options);
        return failing ? { ...c, status: 'failed', failure_reason: 'timed_out' } : c;
      },
    };
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    failing = true;

    const { report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect(report).toMatchObject({ outcome: 'final', status: 'failed', woke: true });
    expect((await rowOf(w)).result).toMatchObject({
      status: 'failed',
      reason: 'timed_out',
      cost_usd: '0.00',
    });
    expect(w.queue.sent).toHaveLength(0);
  });

  it('a round execution that died ends the row as error and counts it on the round', async () => {
    const w = makeWorld();
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    const input = await dispatchRound(w, 1);

    const report = await rowExecutionEnded(w.ports, {
      detail: { status: 'TIMED_OUT', input: JSON.stringify(input) },
    });

    expect(report).toMatchObject({ outcome: 'final', status: 'error', woke: true, leaseReleased: true });
    expect(w.wakes.at(-1)).toBe(ROUND);
  });
});
