/**
 * FinalizeAnswers: after a round's rows finish (or its wait ends), the batch's outputs move
 * forward: the earlier results.csv and summary.json kept as revisions, results.csv rewritten,
 * review.csv down to what is still pending, rows left unanswered for 30 days `abandoned`. The
 * batch is real (the sandbox over HTTP, the batch's own Finalize); the round's row workflows are
 * played here by posting each row's answers with its answers key, as Submit does.
 */
import Papa from 'papaparse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../../local/sandbox/sandbox.js';
import { answersSourceFromEvent } from '../../../../shared/pipeline/answers/answers-source.js';
import { finalizeAnswers } from '../../../../shared/pipeline/answers/finalize-answers.js';
import { prepareAnswers } from '../../../../shared/pipeline/answers/prepare-answers.js';
import { ROUND_TIMED_OUT_DETAIL } from '../../../../shared/pipeline/answers/round-rows.js';
import { sweepAbandonedReviews } from '../../../../shared/pipeline/answers/sweep-reviews.js';
import { MIN_PART_BYTES } from '../../../../shared/pipeline/core/ports.js';
import { resolvedResult } from '../../../../shared/pipeline/core/row-results.js';
import { wordMessages } from '../../../../shared/wording/index.js';
import type { Message } from '../../../../shared/wording/message.js';
import {
  type AnswersWorld,
  BATCH,
  drop,
  fillReviewCsv,
  makeAnswersWorld,
  rowOf,
  seedFinishedBatch,
} from '../../../helpers/answers-batch.js';

/** Messages as the English sentences results.csv and the logs keep. */
const english = (said: readonly Message[]): string[] => wordMessages(said, 'en');

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    timeScale: 1,
    seed: 'finalize-answers',
    log: 'silent',
    creationDelayMs: 0,
  });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const makeWorld = () => makeAnswersWorld(sandbox);
type World = AnswersWorld;

const DAY_SECONDS = 86_400;
const outbox = (name: string) => `outbox/${BATCH}/${name}`;

const csvRecords = (w: World, name: string) =>
  Papa.parse<Record<string, string>>(w.objects.text(outbox(name))!.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;

const summaryOf = (w: World, name = 'summary.json') => JSON.parse(w.objects.text(outbox(name))!);

/**
 * The round's Row workflows, as Submit, Poll, Store and Complete do them: answers posted under
 * the row's answers key, the run waited out, the verdict stored, the row counted on the round.
 */
const runRoundRows = async (w: World, roundId: string) => {
  const rows = [
    ...new Set(w.queue.sent.filter((s) => s.message.round_id === roundId).map((s) => s.message.row)),
  ];
  for (const row of rows) {
    const { classification_id, round } = rowOf(w, row);
    await w.real.answerQuestions(
      classification_id!,
      { answers: round!.answers },
      { idempotencyKey: round!.answers_key },
    );
  }
  sandbox.advanceClock(180);
  for (const row of rows) {
    const c = await w.real.getClassification(rowOf(w, row).classification_id!);
    expect(c.status).toBe('resolved');
    const result = resolvedResult(c, { currentNcm: null, verdictPdf: null });
    w.batches.placeRow(BATCH, row, { status: 'resolved', result });
    await w.batches.markRowDone(roundId, row, {
      status: 'resolved',
      billed_cents: 200,
      at: '2026-11-21T12:00:00.000Z',
    });
  }
};

/** Drop, PrepareAnswers, the round's rows, FinalizeAnswers: one whole Answers workflow. */
const answersRound = async (w: World, csv: string, etag: string) => {
  const event = drop(w, csv, etag);
  const prepare = await prepareAnswers(w.ports, { event, execution_id: `exec-${etag}` });
  if (prepare.next === 'wait') await runRoundRows(w, prepare.round_id!);
  return { prepare, finalized: await finalizeAnswers(w.ports, { ...event, prepare }) };
};

const answersPosted = () => sandbox.stats().requests_by_route['POST /v1/classifications/{id}/answers'] ?? 0;

describe('finalizeAnswers', () => {
  it('moves results forward with the earlier version kept, review.csv down to what is pending, each verdict billed once', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const firstResults = w.objects.text(outbox('results.csv'))!;
    const firstSummary = w.objects.text(outbox('summary.json'))!;
    const csv = fillReviewCsv(w, { 2: 'all', 3: 'first', 4: 'all' });

    const { prepare, finalized } = await answersRound(w, csv, 'e1');

    expect(finalized).toEqual({
      batch_id: BATCH,
      round_id: prepare.round_id,
      resumed: 2,
      still_pending: 2,
      abandoned: 0,
      revision: 1,
    });
    expect(w.objects.text(outbox('results.rev1.csv'))).toBe(firstResults);
    expect(w.objects.text(outbox('summary.rev1.json'))).toBe(firstSummary);
    const results = csvRecords(w, 'results.csv');
    expect(results.map((r) => [r.row, r.status, r.cost_usd])).toEqual([
      ['1', 'resolved', '2.00'],
      ['2', 'resolved', '2.00'],
      ['3', 'pending_data', '0.00'],
      ['4', 'resolved', '2.00'],
      ['5', 'pending_data', '0.00'],
    ]);
    expect(results[1]!.ncm).toMatch(/^\d{4}\.\d{2}\.\d{2}$/);
    expect(csvRecords(w, 'review.csv').map((r) => r.row)).toEqual(['3', '5']);
    const summary = summaryOf(w);
    expect(summary).toMatchObject({
      batch_id: BATCH,
      state: 'completed',
      round_id: prepare.round_id,
      revision: 1,
      rounds: 1,
      answered: 2,
      by_status: { resolved: 3, pending_data: 2 },
      billed_usd: 6,
    });
    // The service billed the batch's row and the two answered rows, once each.
    expect(sandbox.stats().billed_usd).toBe(summary.billed_usd);
    expect(Object.values(sandbox.stats().billed_per_classification)).toEqual([1, 1, 1]);
    for (const row of [2, 4]) expect((await w.reviews.get(found[row - 1]!.id))?.state).toBe('closed');
    expect((await w.reviews.get(found[2]!.id))?.state).toBe('pending');
    expect(w.batches.batches.get(prepare.round_id!)).toMatchObject({
      state: 'completed',
      finished_at: w.clock.now().toISOString(),
    });
    expect(w.events.published).toHaveLength(1);
    expect(w.events.published[0]).toMatchObject({ batch_id: BATCH, round_id: prepare.round_id, revision: 1 });

    // FinalizeAnswers run again: the same files, no second revision, no second event.
    const files = new Map(
      [...w.objects.objects].map(([key, o]) => [key, Buffer.from(o.bytes).toString('base64')]),
    );
    w.clock.advance(60_000);
    expect(await finalizeAnswers(w.ports, { ...drop(w, csv, 'e1'), prepare })).toEqual(finalized);
    for (const [key, bytes] of files) {
      expect(Buffer.from(w.objects.objects.get(key)!.bytes).toString('base64'), key).toBe(bytes);
    }
    expect(await w.objects.list(outbox('results.rev'))).toEqual([
      outbox('results.rev1.csv'),
      outbox('results.rev1.xlsx'),
    ]);
    expect(w.events.published).toHaveLength(1);

    // The same file dropped again: nothing answered twice, nothing billed twice, no new revision.
    const again = await answersRound(w, csv, 'e2');
    expect(again.prepare.next).toBe('finalize');
    expect(again.finalized).toMatchObject({ resumed: 0, still_pending: 2, revision: 1 });
    expect(answersPosted()).toBe(2);
    expect(sandbox.stats().billed_usd).toBe(6);
    expect(await w.objects.list(outbox('results.rev'))).toEqual([
      outbox('results.rev1.csv'),
      outbox('results.rev1.xlsx'),
    ]);
    expect(summaryOf(w)).toMatchObject({ round_id: again.prepare.round_id, revision: 1, billed_usd: 6 });
  });

  it('reads the batch a page at a time, never whole, holding only the rows in play', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const event = drop(w, fillReviewCsv(w, { 2: 'all' }), 'e1');
    const prepare = await prepareAnswers(w.ports, { event, execution_id: 'exec-e1' });
    await runRoundRows(w, prepare.round_id!);
    const pages: number[] = [];
    const { rowsPage } = w.batches;
    w.batches.listRows = () => {
      throw new Error('FinalizeAnswers read the whole batch');
    };
    w.batches.rowsPage = async (batchId, page) => {
      pages.push(page.limit);
      return rowsPage(batchId, page);
    };

    const finalized = await finalizeAnswers(w.ports, { ...event, prepare });

    expect(finalized).toMatchObject({ resumed: 1, revision: 1 });
    expect(pages.length).toBeGreaterThan(0);
    expect(Math.max(...pages)).toBeLessThanOrEqual(500);
    expect(csvRecords(w, 'results.csv').map((r) => [r.row, r.status])).toEqual([
      ['1', 'resolved'],
      ['2', 'resolved'],
      ['3', 'pending_data'],
      ['4', 'pending_data'],
      ['5', 'pending_data'],
    ]);
  });

  it('revises in legs when its passes outlast an invocation, to the files a run at once writes', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const event = drop(w, fillReviewCsv(w, { 2: 'all' }), 'e1');
    const prepare = await prepareAnswers(w.ports, { event, execution_id: 'exec-e1' });
    await runRoundRows(w, prepare.round_id!);
    // Every leg's time is spent at once, and a page is two rows: each pass hands on after a page.
    const settings = { legMs: 0, pageSize: 2, partBytes: MIN_PART_BYTES };

    const legs = [await finalizeAnswers(w.ports, { ...event, prepare }, settings)];
    while ('next' in legs.at(-1)!) {
      // Nothing moves forward before the last leg: results.csv is written aside until then.
      expect(await w.objects.list(outbox('results.rev'))).toEqual([]);
      const finalized = JSON.parse(JSON.stringify(legs.at(-1)));
      legs.push(await finalizeAnswers(w.ports, { ...event, prepare, finalized }, settings));
    }
    const written = ['results.csv', 'results.xlsx', 'review.csv', 'summary.json', 'results.rev1.csv'].map(
      (name) => [name, Buffer.from(w.objects.objects.get(outbox(name))!.bytes)] as const,
    );
    const again = await finalizeAnswers(w.ports, { ...event, prepare });

    // audit.csv's additions first, then the csv pass over five rows took three legs; the last
    // leg wrote the workbook and the rest.
    const passes = legs.map((leg) => ('next' in leg ? leg.run.revision.pass : 'done'));
    expect(passes.slice(passes.indexOf('csv'))).toEqual(['csv', 'csv', 'done']);
    expect(new Set(passes.slice(0, passes.indexOf('csv')))).toEqual(new Set(['audit']));
    expect(legs.at(-1)).toEqual(again);
    expect(again).toMatchObject({ resumed: 1, revision: 1 });
    for (const [name, bytes] of written)
      expect(bytes.equals(Buffer.from(w.objects.objects.get(outbox(name))!.bytes)), name).toBe(true);
    expect(csvRecords(w, 'results.csv').map((r) => r.status)).toEqual([
      'resolved',
      'resolved',
      'pending_data',
      'pending_data',
      'pending_data',
    ]);
  });

  it('a run that stopped after keeping the revision reuses it when run again', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const firstResults = w.objects.text(outbox('results.csv'));
    const firstSummary = w.objects.text(outbox('summary.json'));
    const event = drop(w, fillReviewCsv(w, { 2: 'all' }), 'e1');
    const prepare = await prepareAnswers(w.ports, { event, execution_id: 'x-1' });
    await runRoundRows(w, prepare.round_id!);
    // The new results.csv, written aside, fails to take the outbox's place.
    const copy = w.objects.copy;
    w.ports.objects.copy = async (from, to) => {
      if (to === outbox('results.csv')) throw new Error('SlowDown');
      return copy(from, to);
    };
    await expect(finalizeAnswers(w.ports, { ...event, prepare })).rejects.toThrow('SlowDown');
    expect(await w.objects.list(outbox('results.rev'))).toEqual([
      outbox('results.rev1.csv'),
      outbox('results.rev1.xlsx'),
    ]);
    w.ports.objects.copy = copy;

    expect(await finalizeAnswers(w.ports, { ...event, prepare })).toMatchObject({ revision: 1 });

    expect(await w.objects.list(outbox('results.rev'))).toEqual([
      outbox('results.rev1.csv'),
      outbox('results.rev1.xlsx'),
    ]);
    expect(w.objects.text(outbox('results.rev1.csv'))).toBe(firstResults);
    expect(w.objects.text(outbox('summary.rev1.json'))).toBe(firstSummary);
    expect(csvRecords(w, 'results.csv')[1]!.status).toBe('resolved');
    expect(w.events.published).toHaveLength(1);
  });

  it('30 days on, the rows nobody answered are abandoned, unbilled, and leave review.csv', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    await answersRound(w, fillReviewCsv(w, { 2: 'all' }), 'e1');
    const secondResults = w.objects.text(outbox('results.csv'));
    const pendingCsv = fillReviewCsv(w, {});

    sandbox.advanceClock(31 * DAY_SECONDS);
    const { prepare, finalized } = await answersRound(w, pendingCsv, 'e2');

    expect(prepare.next).toBe('finalize');
    expect(finalized).toMatchObject({ resumed: 0, still_pending: 0, abandoned: 3, revision: 2 });
    expect(w.objects.text(outbox('results.rev2.csv'))).toBe(secondResults);
    const results = csvRecords(w, 'results.csv');
    expect(results.map((r) => [r.row, r.status, r.cost_usd])).toEqual([
      ['1', 'resolved', '2.00'],
      ['2', 'resolved', '2.00'],
      ['3', 'abandoned', '0.00'],
      ['4', 'abandoned', '0.00'],
      ['5', 'abandoned', '0.00'],
    ]);
    expect(results[2]!.detail).toMatch(/not answered within 30 days; not billed/);
    expect(results[2]!.classification_id).toBe(found[2]!.id);
    expect(csvRecords(w, 'review.csv')).toEqual([]);
    for (const row of [3, 4, 5]) expect((await w.reviews.get(found[row - 1]!.id))?.state).toBe('closed');
    expect(summaryOf(w)).toMatchObject({
      by_status: { resolved: 2, abandoned: 3 },
      billed_usd: 4,
      revision: 2,
    });
    expect(english(summaryOf(w).problems).join(' ')).toMatch(/3 row\(s\) went unanswered for 30 days/);
    expect(sandbox.stats().billed_usd).toBe(4);
  });

  it('a round whose wait timed out ends its unfinished rows as error, keeping their classification', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const event = drop(w, fillReviewCsv(w, { 2: 'all', 4: 'all' }), 'e1');
    const prepare = await prepareAnswers(w.ports, { event, execution_id: 'x-1' });

    const finalized = await finalizeAnswers(w.ports, {
      ...event,
      prepare,
      wait_error: { Error: 'States.Timeout', Cause: '' },
    });

    expect(finalized).toMatchObject({ resumed: 2, still_pending: 2, revision: 1 });
    for (const row of [2, 4]) {
      expect(rowOf(w, row)).toMatchObject({
        status: 'error',
        result: { status: 'error', detail: ROUND_TIMED_OUT_DETAIL, classification_id: found[row - 1]!.id },
      });
    }
    expect(csvRecords(w, 'review.csv').map((r) => r.row)).toEqual(['3', '5']);
    expect(english(w.batches.batches.get(prepare.round_id!)?.problems ?? [])).toContain(
      '2 answered row(s) had not finished and are marked error.',
    );
  });

  it('a PrepareAnswers that failed part-way gives its unsent rows back to review', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const event = drop(w, fillReviewCsv(w, { 2: 'all', 4: 'all' }), 'e1');
    const moveRow = w.batches.moveRow;
    let calls = 0;
    w.ports.batches.moveRow = async (...args) => {
      calls += 1;
      if (calls === 2) throw new Error('InternalServerError');
      return moveRow(...args);
    };
    await expect(prepareAnswers(w.ports, { event, execution_id: 'x-1' })).rejects.toThrow();
    w.ports.batches.moveRow = moveRow;
    const roundId = answersSourceFromEvent(event)!.roundId;
    expect(rowOf(w, 2)).toMatchObject({ status: 'queued', round: { round_id: roundId } });

    const finalized = await finalizeAnswers(w.ports, {
      ...event,
      error: { Error: 'Error', Cause: JSON.stringify({ errorMessage: 'InternalServerError' }) },
    });

    expect(finalized).toMatchObject({ round_id: roundId, resumed: 0, still_pending: 4, revision: 0 });
    expect(rowOf(w, 2).status).toBe('pending_data');
    expect((await w.reviews.get(found[1]!.id))?.state).toBe('pending');
    expect(csvRecords(w, 'review.csv').map((r) => r.row)).toEqual(['2', '3', '4', '5']);
    expect(w.batches.batches.get(roundId)).toMatchObject({ state: 'failed' });
    expect(english(w.batches.batches.get(roundId)?.problems ?? []).join(' ')).toMatch(
      /InternalServerError.*1 answered row\(s\) were not sent and wait for answers again/,
    );
    // Sent again, the same file resumes both rows.
    const again = await prepareAnswers(w.ports, {
      event: drop(w, fillReviewCsv(w, { 2: 'all', 4: 'all' }), 'e2'),
      execution_id: 'x-2',
    });
    expect(again.next).toBe('wait');
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([2, 4]);
  });

  it('a row answered in the web app takes the verdict the service gave it; a duplicate delivery changes nothing', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const c = found[2]!;
    await w.real.answerQuestions(
      c.id,
      { answers: c.questions.map((q) => ({ question_id: q.id, answer: q.options[0] ?? 'Uso industrial' })) },
      { idempotencyKey: 'web-app-answers-0001' },
    );
    sandbox.advanceClock(180);

    const skipped = await finalizeAnswers(w.ports, {
      ...drop(w, fillReviewCsv(w, {}), 'e1'),
      prepare: { batch_id: BATCH, round_id: `${BATCH}~x`, next: 'skip' },
    });
    expect(skipped).toMatchObject({ resumed: 0, revision: 0 });
    expect(rowOf(w, 3).status).toBe('pending_data');

    const { finalized } = await answersRound(w, fillReviewCsv(w, {}), 'e2');

    expect(finalized).toMatchObject({ still_pending: 3, revision: 1 });
    expect(rowOf(w, 3).result).toMatchObject({
      status: 'resolved',
      classification_id: c.id,
      cost_usd: '2.00',
      detail: expect.stringMatching(/^answered outside this batch/),
    });
    expect((await w.reviews.get(c.id))?.state).toBe('closed');
    expect(summaryOf(w).billed_usd).toBe(sandbox.stats().billed_usd);
    expect(csvRecords(w, 'review.csv').map((r) => r.row)).toEqual(['2', '4', '5']);
  });

  it('a row answered in the web app under check_below is marked to check, with its item, as Store marks one', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const batch = await w.batches.getBatch(BATCH);
    // Every verdict is under 100 %: the one the web app's answers give waits for a person.
    await w.batches.updateBatch(BATCH, { options: { ...batch!.options!, check_below: 100 } });
    const c = found[2]!;
    await w.real.answerQuestions(
      c.id,
      { answers: c.questions.map((q) => ({ question_id: q.id, answer: q.options[0] ?? 'Uso industrial' })) },
      { idempotencyKey: 'web-app-answers-0002' },
    );
    sandbox.advanceClock(180);

    await answersRound(w, fillReviewCsv(w, {}), 'e3');

    expect(rowOf(w, 3).result).toMatchObject({ status: 'resolved', check: 'to_check', cost_usd: '2.00' });
    expect(await w.checks.get(BATCH, 3)).toMatchObject({
      classification_id: c.id,
      reasons: ['low_confidence'],
      check_below: 100,
      verdict_pdf: null,
      state: 'to_check',
    });
    expect(csvRecords(w, 'to-check.csv').map((r) => r.row)).toEqual(['3']);
  });
});

describe('sweepAbandonedReviews (the daily sweep)', () => {
  it('before 30 days changes nothing; after, the abandoned rows get their result with no answers file', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const resultsBefore = w.objects.text(outbox('results.csv'));

    // A day later nothing is abandoned: no batch is touched, nothing is announced.
    sandbox.advanceClock(DAY_SECONDS);
    const early = await sweepAbandonedReviews(w.ports);
    expect(early).toEqual({ pending: 4, abandoned: 0, batches: [] });
    expect(w.objects.text(outbox('results.csv'))).toBe(resultsBefore);
    expect(w.events.published).toHaveLength(0);

    sandbox.advanceClock(30 * DAY_SECONDS);
    const swept = await sweepAbandonedReviews(w.ports);

    expect(swept).toMatchObject({ pending: 4, abandoned: 4 });
    expect(swept.batches).toEqual([expect.objectContaining({ batch_id: BATCH, abandoned: 4, revision: 1 })]);
    expect(w.objects.text(outbox('results.rev1.csv'))).toBe(resultsBefore);
    expect(csvRecords(w, 'results.csv').map((r) => r.status)).toEqual([
      'resolved',
      'abandoned',
      'abandoned',
      'abandoned',
      'abandoned',
    ]);
    expect(csvRecords(w, 'review.csv')).toEqual([]);
    expect(english(summaryOf(w).problems).join(' ')).toMatch(
      /Since the batch finished: 4 row\(s\) went unanswered/,
    );
    for (const c of found.slice(1)) expect((await w.reviews.get(c.id))?.state).toBe('closed');
    expect(w.events.published).toHaveLength(1);
    expect(sandbox.stats().billed_usd).toBe(2);

    // The next day: nothing pending, not even a call to the service.
    const calls = sandbox.stats().requests_by_route['GET /v1/classifications'] ?? 0;
    expect(await sweepAbandonedReviews(w.ports)).toEqual({ pending: 0, abandoned: 0, batches: [] });
    expect(sandbox.stats().requests_by_route['GET /v1/classifications'] ?? 0).toBe(calls);
  });

  it('leaves a batch still running to its own Finalize', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    await w.batches.updateBatch(BATCH, { state: 'running' });
    sandbox.advanceClock(31 * DAY_SECONDS);

    const swept = await sweepAbandonedReviews(w.ports);

    expect(swept).toMatchObject({ pending: 4, abandoned: 4, batches: [] });
    expect(w.objects.text(outbox('results.rev1.csv'))).toBeUndefined();
  });
});
