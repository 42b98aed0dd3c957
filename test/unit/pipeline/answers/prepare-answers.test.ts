/**
 * PrepareAnswers: a filled review.csv dropped into answers/<batch-id>/ → the fully answered rows
 * back to work as one round. The batch is real: classifications created at the sandbox over HTTP
 * and waited out to pending_data, the outbox written by the batch's own Finalize, review.csv
 * filled in from what the batch wrote.
 */
import Papa from 'papaparse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../../local/sandbox/sandbox.js';
import {
  answersSourceFromEvent,
  parseAnswersKey,
} from '../../../../shared/pipeline/answers/answers-source.js';
import { prepareAnswers } from '../../../../shared/pipeline/answers/prepare-answers.js';
import { isRoundReportFile } from '../../../../shared/pipeline/core/bucket-layout.js';
import { deriveAnswersKey, sha256Hex } from '../../../../shared/pipeline/core/keys.js';
import { personOfPrincipal } from '../../../../shared/pipeline/core/people.js';
import { wordMessages } from '../../../../shared/wording/index.js';
import type { Message } from '../../../../shared/wording/message.js';
import {
  ACCOUNT,
  type AnswersWorld,
  BATCH,
  BUCKET,
  byCli,
  drop,
  fillReviewCsv,
  makeAnswersWorld,
  objectCreated,
  rowOf,
  seedFinishedBatch,
} from '../../../helpers/answers-batch.js';
import { tinyPdf } from '../../../helpers/tcs-fixtures.js';

/** Messages as the English sentences results.csv and the logs keep. */
const english = (said: readonly Message[]): string[] => wordMessages(said, 'en');

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    timeScale: 1,
    seed: 'prepare-answers',
    log: 'silent',
    creationDelayMs: 0,
  });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const makeWorld = () => makeAnswersWorld(sandbox);
type World = AnswersWorld;

const reportOf = (w: World) => {
  const text = w.objects.text(`outbox/${BATCH}/answers-report.csv`)!.replace(/^\uFEFF/, '');
  return Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
};

describe('answersSourceFromEvent', () => {
  it('takes answers/<batch-id>/<file>.csv|.xlsx only, with a round id stable per object version', () => {
    const first = answersSourceFromEvent(objectCreated(`answers/${BATCH}/review.csv`, 'e1'));
    expect(first).toMatchObject({
      batchId: BATCH,
      source: {
        bucket: BUCKET,
        key: `answers/${BATCH}/review.csv`,
        version_or_etag: 'e1',
        folder: `answers/${BATCH}/`,
        file_name: 'review.csv',
      },
    });
    expect(first?.roundId).toMatch(new RegExp(`^${BATCH}~[A-Za-z0-9]{10}$`));
    expect(answersSourceFromEvent(objectCreated(`answers/${BATCH}/review.csv`, 'e1'))?.roundId).toBe(
      first?.roundId,
    );
    expect(answersSourceFromEvent(objectCreated(`answers/${BATCH}/review.csv`, 'e2'))?.roundId).not.toBe(
      first?.roundId,
    );
    expect(answersSourceFromEvent(objectCreated(`answers/${BATCH}/Respostas.XLSX`, 'e1'))?.batchId).toBe(
      BATCH,
    );
    for (const key of [
      `answers/${BATCH}/~$review.xlsx`,
      `answers/${BATCH}/.review.csv`,
      `answers/${BATCH}/fichas/review.csv`,
      `answers/${BATCH}/ficha.pdf`,
      `inbox/${BATCH}/review.csv`,
      'answers/review.csv',
    ]) {
      expect(answersSourceFromEvent(objectCreated(key, 'e1')), key).toBeNull();
    }
    expect(parseAnswersKey('answers/../review.csv')).toBeNull();
  });
});

describe('prepareAnswers', () => {
  it('queues exactly the fully answered rows with the round, marks their items answered, reports every row', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const event = drop(w, fillReviewCsv(w, { 2: 'all', 3: 'first', 4: 'all' }), 'e1');
    const roundId = answersSourceFromEvent(event)!.roundId;

    const result = await prepareAnswers(w.ports, { event, execution_id: 'answers-exec-1' });

    expect(result).toMatchObject({ batch_id: BATCH, round_id: roundId, next: 'wait' });
    expect(w.queue.sent.map((s) => s.message)).toEqual(
      [2, 4].map((row) => ({ batch_id: BATCH, row, attempt: 1, dispatch: 1, round_id: roundId })),
    );
    expect(w.kick.reasons).toEqual(['rows_queued']);
    // Only rows with an answer are looked up; the unanswered row 5 costs no request.
    expect(new Set(w.looked)).toEqual(new Set([found[1]!.id, found[2]!.id, found[3]!.id]));
    for (const row of [2, 4]) {
      const c = found[row - 1]!;
      const answers = c.questions.map((q) => ({ question_id: q.id, answer: expect.any(String) }));
      const record = rowOf(w, row);
      expect(record).toMatchObject({
        status: 'queued',
        dispatch: 1,
        round: {
          round_id: roundId,
          answers,
          answered_by: `account ${ACCOUNT}`,
          answered_at: w.clock.now().toISOString(),
        },
      });
      expect(record.round?.answers_key).toBe(deriveAnswersKey(c.id, record.round!.answers));
      // The pending result stays until the round's verdict replaces it.
      expect(record.result?.status).toBe('pending_data');
      expect(await w.reviews.get(c.id)).toMatchObject({
        state: 'answered',
        answers: record.round?.answers,
        answered_by: `account ${ACCOUNT}`,
      });
    }
    for (const row of [3, 5]) {
      expect(rowOf(w, row).status).toBe('pending_data');
      expect(rowOf(w, row).round).toBeUndefined();
      expect((await w.reviews.get(found[row - 1]!.id))?.state).toBe('pending');
    }
    expect(w.batches.batches.get(roundId)).toMatchObject({
      batch_id: roundId,
      round_of: BATCH,
      name: 'lote',
      execution_id: 'answers-exec-1',
      state: 'running',
      rows_total: 2,
      rows_dispatched: 2,
      shard_count: 1,
      source: { key: `answers/${BATCH}/review.csv`, folder: `answers/${BATCH}/` },
    });
    expect(w.batches.shards.get(`${roundId}#0`)).toEqual({ expected: 2, done: new Set() });
    expect(reportOf(w).map((r) => [r.row, r.classification_id, r.outcome])).toEqual([
      ['2', found[1]!.id, 'resumed'],
      ['3', found[2]!.id, 'incomplete'],
      ['4', found[3]!.id, 'resumed'],
      ['5', found[4]!.id, 'skipped_unanswered'],
    ]);
    // Nothing reaches the service at Prepare: the row workflows post the answers.
    expect(sandbox.stats().requests_by_route['POST /v1/classifications/{id}/answers'] ?? 0).toBe(0);
  });

  it('the same file dropped again is a new round in which every row is already answered', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const csv = fillReviewCsv(w, { 2: 'all', 4: 'all' });
    const first = await prepareAnswers(w.ports, { event: drop(w, csv, 'e1'), execution_id: 'x-1' });
    const sent = w.queue.sent.length;
    const reportOutcomesOfFirst = reportOf(w)
      .map((line) => line.outcome)
      .join(',');

    const second = await prepareAnswers(w.ports, { event: drop(w, csv, 'e2'), execution_id: 'x-2' });

    expect(second.round_id).not.toBe(first.round_id);
    expect(second).toMatchObject({ batch_id: BATCH, next: 'finalize' });
    expect(w.queue.sent).toHaveLength(sent);
    expect(reportOf(w).map((r) => [r.row, r.outcome])).toEqual([
      ['2', 'already_answered'],
      ['3', 'skipped_unanswered'],
      ['4', 'already_answered'],
      ['5', 'skipped_unanswered'],
    ]);
    expect(w.batches.batches.get(second.round_id!)).toMatchObject({
      state: 'running',
      rows_dispatched: 0,
      shard_count: 0,
    });
    expect(rowOf(w, 2).round?.round_id).toBe(first.round_id);
    // Each round keeps its own report: the first round's says what it resumed, after the second's.
    const kept = [...w.objects.objects.keys()].filter((key) =>
      key.startsWith(`outbox/${BATCH}/answers-report-`),
    );
    expect(kept).toHaveLength(2);
    expect(kept.every((key) => isRoundReportFile(key.slice(key.lastIndexOf('/') + 1)))).toBe(true);
    const outcomes = kept.map((key) =>
      Papa.parse<Record<string, string>>(w.objects.text(key)!.replace(/^\uFEFF/, ''), {
        header: true,
        skipEmptyLines: true,
      })
        .data.map((line) => line.outcome)
        .join(','),
    );
    expect(outcomes.sort()).toEqual(
      [
        'already_answered,skipped_unanswered,already_answered,skipped_unanswered',
        reportOutcomesOfFirst,
      ].sort(),
    );
  });

  it('a duplicate delivery is skipped; a retried step of the same execution sends the same messages again', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const event = drop(w, fillReviewCsv(w, { 2: 'all' }), 'e1');
    const first = await prepareAnswers(w.ports, { event, execution_id: 'x-1' });
    const row2 = rowOf(w, 2);

    const duplicate = await prepareAnswers(w.ports, { event, execution_id: 'x-other' });
    expect(duplicate).toMatchObject({ batch_id: BATCH, round_id: first.round_id, next: 'skip' });
    expect(duplicate.detail).toMatch(/duplicate delivery/);
    expect(w.queue.sent).toHaveLength(1);

    const retried = await prepareAnswers(w.ports, { event, execution_id: 'x-1' });
    expect(retried).toMatchObject({ round_id: first.round_id, next: 'wait' });
    expect(w.queue.sent.map((s) => s.message)).toEqual([w.queue.sent[0]!.message, w.queue.sent[0]!.message]);
    expect(rowOf(w, 2)).toEqual(row2);
  });

  it('a retry after a crash part-way resumes the same rows, once each', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const event = drop(w, fillReviewCsv(w, { 2: 'all', 4: 'all' }), 'e1');
    const moveRow = w.batches.moveRow;
    let calls = 0;
    // Row 2 and its item are written, then the step dies before row 4.
    w.ports.batches.moveRow = async (...args) => {
      calls += 1;
      if (calls === 2) throw new Error('ProvisionedThroughputExceededException');
      return moveRow(...args);
    };
    await expect(prepareAnswers(w.ports, { event, execution_id: 'x-1' })).rejects.toThrow(/Throughput/);
    expect((await w.reviews.get(found[1]!.id))?.state).toBe('answered');
    expect(w.queue.sent).toHaveLength(0);

    const retried = await prepareAnswers(w.ports, { event, execution_id: 'x-1' });

    expect(retried.next).toBe('wait');
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([2, 4]);
    expect(
      reportOf(w)
        .filter((r) => r.outcome === 'resumed')
        .map((r) => r.row),
    ).toEqual(['2', '4']);
    expect(rowOf(w, 4)).toMatchObject({ status: 'queued', round: { round_id: retried.round_id } });
    expect((await w.reviews.get(found[3]!.id))?.state).toBe('answered');
  });

  it('checks a sheet sent with answers: a PDF in the answers folder joins the answers key, others keep the row pending', async () => {
    const w = makeWorld();
    const found = await seedFinishedBatch(w);
    const pdf = tinyPdf();
    w.objects.set(`answers/${BATCH}/fichas/Ficha-2.pdf`, pdf);
    w.objects.set(`answers/${BATCH}/notas.pdf`, 'not a pdf at all');
    const event = drop(
      w,
      fillReviewCsv(
        w,
        { 2: 'all', 3: 'all', 4: 'all' },
        { 2: 'Fichas\\ficha-2.PDF', 3: 'faltando.pdf', 4: 'notas.pdf' },
      ),
      'e1',
    );

    const result = await prepareAnswers(w.ports, {
      event: byCli(event, 'ana@example.com'),
      execution_id: 'x-1',
    });

    expect(w.queue.sent.map((s) => s.message.row)).toEqual([2]);
    const round = rowOf(w, 2).round!;
    expect(round).toMatchObject({
      round_id: result.round_id,
      answered_by: 'ana@example.com',
      sheet: {
        key: `answers/${BATCH}/fichas/Ficha-2.pdf`,
        sha256: sha256Hex(pdf),
        size: pdf.byteLength,
        file_name: 'Ficha-2.pdf',
      },
    });
    expect(round.answers_key).toBe(deriveAnswersKey(found[1]!.id, round.answers, sha256Hex(pdf)));
    expect(round.answers_key).not.toBe(deriveAnswersKey(found[1]!.id, round.answers));
    const report = reportOf(w);
    expect(report.map((r) => [r.row, r.outcome])).toEqual([
      ['2', 'resumed'],
      ['3', 'incomplete'],
      ['4', 'incomplete'],
      ['5', 'skipped_unanswered'],
    ]);
    expect(report[1]!.detail).toMatch(/"faltando\.pdf" was not found in answers\/.+ \(sheet_not_found\)/);
    expect(report[2]!.detail).toMatch(/is not a PDF file .*\(sheet_not_pdf\)/);
    for (const row of [3, 4]) {
      expect(rowOf(w, row).status).toBe('pending_data');
      expect((await w.reviews.get(found[row - 1]!.id))?.state).toBe('pending');
    }
  });

  it('an unreadable file fails the round with a one-line report; an unknown batch is skipped without output', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const event = drop(w, 'sku,descrição\r\nA-1,Café\r\n', 'e1', 'produtos.csv');

    const result = await prepareAnswers(w.ports, { event, execution_id: 'x-1' });

    expect(result).toMatchObject({ batch_id: BATCH, next: 'finalize' });
    expect(reportOf(w)).toEqual([
      {
        row: '',
        classification_id: '',
        outcome: 'file_unreadable',
        detail: expect.stringMatching(/^produtos\.csv: is not a review\.csv/),
      },
    ]);
    expect(w.batches.batches.get(result.round_id!)).toMatchObject({ state: 'failed', rows_dispatched: 0 });
    expect(english(w.batches.batches.get(result.round_id!)?.problems ?? [])[0]).toMatch(
      /could not be read: produtos\.csv/,
    );
    expect(w.queue.sent).toHaveLength(0);

    const unknown = objectCreated('answers/no-such-batch/review.csv', 'e1');
    w.objects.set('answers/no-such-batch/review.csv', 'x');
    expect(await prepareAnswers(w.ports, { event: unknown, execution_id: 'x-2' })).toMatchObject({
      batch_id: 'no-such-batch',
      next: 'skip',
      detail: expect.stringMatching(/no batch "no-such-batch"/),
    });
    expect(await w.objects.list('outbox/no-such-batch/')).toEqual([]);
    expect(
      await prepareAnswers(w.ports, { event: objectCreated('inbox/lote/p.csv', 'e1'), execution_id: 'x-3' }),
    ).toEqual({
      batch_id: null,
      round_id: null,
      next: 'skip',
      detail: expect.any(String),
    });
  });
});

describe('who answered', () => {
  const consolePerson = { name: 'José Álvares', id: 'sub-1f2e', known_by: 'console' as const };
  const someoneElse = encodeURIComponent('Someone Else');

  it('is the principal S3 recorded for the write; the name in the metadata is only stated_by', async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const key = `answers/${BATCH}/drop-1.csv`;
    const put = await w.objects.put(key, fillReviewCsv(w, { 2: 'all' }), 'text/csv', {
      'answered-by': someoneElse,
    });
    const principal = 'arn:aws:sts::111122223333:assumed-role/Operations/jose@acme';
    await w.writers.record({
      key,
      version_id: null,
      etag: put.etag,
      person: personOfPrincipal(principal),
      at: 'x',
    });

    await prepareAnswers(w.ports, { event: objectCreated(key, `"${put.etag}"`), execution_id: 'x-1' });

    expect(rowOf(w, 2).round).toMatchObject({
      answered_by: 'jose@acme (Operations)',
      answered_by_id: principal,
      known_by: 'iam',
      stated_by: 'Someone Else',
    });
    expect(w.audit.all(BATCH).find((event) => event.event === 'answered')).toMatchObject({
      who: 'jose@acme (Operations)',
      who_id: principal,
      known_by: 'iam',
      stated_by: 'Someone Else',
    });
  });

  it("is the console's signed-in person when the console recorded the write, before the console function's role", async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const key = `answers/${BATCH}/console-1.csv`;
    const put = await w.objects.put(key, fillReviewCsv(w, { 2: 'all' }), 'text/csv');
    const record = { key, version_id: null, etag: put.etag, at: 'x' };
    await w.writers.record({
      ...record,
      person: personOfPrincipal('arn:aws:sts::1:assumed-role/ConsoleAnswers/fn'),
    });
    await w.writers.record({ ...record, person: consolePerson });

    await prepareAnswers(w.ports, { event: objectCreated(key, put.etag), execution_id: 'x-1' });

    expect(rowOf(w, 2).round).toMatchObject({
      answered_by: 'José Álvares',
      answered_by_id: 'sub-1f2e',
      known_by: 'console',
    });
    expect(rowOf(w, 2).round?.stated_by).toBeUndefined();
  });

  it("never takes a console record of other bytes: a file rewritten after the console wrote it is its new writer's", async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const key = `answers/${BATCH}/console-1.csv`;
    const first = await w.objects.put(key, 'row\r\n', 'text/csv');
    await w.writers.record({ key, version_id: null, etag: first.etag, person: consolePerson, at: 'x' });
    const rewritten = await w.objects.put(key, fillReviewCsv(w, { 2: 'all' }), 'text/csv', {
      'answered-by': encodeURIComponent('José Álvares'),
    });

    await prepareAnswers(w.ports, { event: objectCreated(key, rewritten.etag), execution_id: 'x-1' });

    expect(rowOf(w, 2).round).toMatchObject({
      answered_by: `account ${ACCOUNT}`,
      known_by: 'iam',
      answered_by_id: '',
    });
    expect(rowOf(w, 2).round?.stated_by).toBe('José Álvares');
  });

  it("hands on while S3's record may still come, and takes it when it does", async () => {
    const w = makeWorld();
    await seedFinishedBatch(w);
    const event = { ...drop(w, fillReviewCsv(w, { 2: 'all' }), 'e1'), time: w.clock.now().toISOString() };
    // Production waits, a thousand times shorter: a minute of looking is 60 ms here.
    const ports = { ...w.ports, clock: { ...w.clock, span: (ms: number) => ms / 1000 } };

    const first = await prepareAnswers(ports, { event, execution_id: 'x-1' });
    expect(first.next).toBe('again');
    expect(w.queue.sent).toEqual([]);

    const key = event.detail.object.key;
    const person = personOfPrincipal('arn:aws:iam::111122223333:user/ana');
    await w.writers.record({ key, version_id: null, etag: 'e1', person, at: 'x' });
    const second = await prepareAnswers(ports, { event, execution_id: 'x-1' });
    expect(second.next).toBe('wait');
    expect(rowOf(w, 2).round).toMatchObject({ answered_by: 'ana', known_by: 'iam' });
  });
});
