import { describe, expect, it } from 'vitest';
import { finishedBatchNotices, questionReminder } from '../../../../shared/pipeline/notices/batch-notices.js';
import { remindWaitingQuestions } from '../../../../shared/pipeline/notices/remind-questions.js';
import { logEntry, tell } from '../../../../shared/pipeline/notices/tell.js';
import {
  fixedClock,
  memoryBatchStore,
  memoryNotifier,
  memoryObjectStore,
  memoryReviewStore,
} from '../../../helpers/memory-ports.js';
import { AT, BATCH, batchOptions, batchRecord, reviewItem } from '../../../helpers/records.js';

const DAY = 24 * 60 * 60 * 1000;
/** Asked on AT; the service abandons them 30 days on. */
const asked = (row: number) => reviewItem(row, { created_at: AT, abandons_at: '2026-12-21T12:00:00.000Z' });
const daysAfter = (days: number) => new Date(Date.parse(AT) + days * DAY);
const NONE = {
  resolved: 0,
  pending_data: 0,
  failed: 0,
  abandoned: 0,
  rejected: 0,
  reused: 0,
  not_submitted: 0,
  error: 0,
};
const summary = {
  rows_total: 10,
  by_status: { ...NONE, resolved: 5, reused: 1, pending_data: 2, failed: 1, rejected: 1 },
  billed_usd: 10,
  checks: { to_check: 3, approved: 0 },
};

describe('finishedBatchNotices', () => {
  it("tells that the batch finished, that questions wait with the days left, and that verdicts wait, in the batch's language", () => {
    const batch = batchRecord({ options: batchOptions({ language: 'pt' }) });
    const notices = finishedBatchNotices(batch, summary, [asked(4), asked(7)], daysAfter(2));

    expect(notices.map((notice) => notice.kind)).toEqual([
      'batch_finished',
      'questions_waiting',
      'verdicts_to_check',
    ]);
    expect(notices[0]?.text).toBe(
      'O lote nightly terminou: 10 linhas, 6 com NCM, 2 com perguntas, 3 a conferir, 2 sem parecer. ' +
        `Cobrado: USD 10.00. Resultados: s3://${batch.source.bucket}/outbox/${BATCH}/`,
    );
    expect(notices[1]?.text).toMatch(/^No lote nightly, o classificador fez perguntas sobre linhas 4 e 7\. /);
    expect(notices[1]?.text).toContain('abandona em 28 dias (2026-12-21)');
    expect(notices[2]?.subject).toBe('Lote nightly: 3 pareceres a conferir');
    // Email subjects are ASCII: accents go, words stay.
    expect(notices[1]?.subject).toBe('Lote nightly: 2 perguntas esperam resposta');
    for (const notice of notices) expect(notice.subject).toMatch(/^[\x20-\x7e]{1,99}$/);
  });

  it('says only that it finished when nothing waits; in Spanish and English as the batch asks', () => {
    const quiet = { ...summary, by_status: { ...NONE, resolved: 10 }, checks: { to_check: 0, approved: 0 } };
    const es = finishedBatchNotices(
      batchRecord({ options: batchOptions({ language: 'es' }) }),
      quiet,
      [],
      daysAfter(0),
    );
    expect(es.map((notice) => [notice.kind, notice.subject])).toEqual([
      ['batch_finished', 'Lote nightly finalizado'],
    ]);
    expect(es[0]?.text).toMatch(/^El lote nightly terminó: 10 filas, 10 con NCM, /);
    const en = finishedBatchNotices(
      batchRecord({ options: batchOptions({ language: 'en' }) }),
      quiet,
      [],
      daysAfter(0),
    );
    expect(en[0]?.text).toMatch(
      /^Batch nightly finished: 10 rows, 10 with an NCM, 0 with questions, 0 to check, /,
    );
  });
});

describe('questionReminder', () => {
  const batch = batchRecord({ options: batchOptions({ language: 'en' }) });

  it('is due on the reminder day, naming the rows and the days left; not before, not twice, not once abandoned', () => {
    const items = [asked(3), asked(5), asked(9)];
    expect(questionReminder(batch, items, daysAfter(20.9))).toBeNull();

    const due = questionReminder(batch, items, daysAfter(21));
    expect(due?.notice).toMatchObject({
      kind: 'questions_reminder',
      subject: 'Reminder: batch nightly, questions abandoned in 9 days',
    });
    expect(due?.notice.text).toBe(
      'Still unanswered in batch nightly: rows 3, 5 and 9. 9 days left (2026-12-21) before the service ' +
        `abandons the questions; after that those rows get no NCM. Answer at: s3://${batch.source.bucket}/outbox/${BATCH}/`,
    );
    expect(due?.items.map((item) => item.row)).toEqual([3, 5, 9]);

    const reminded = items.map((item) => ({ ...item, reminded_at: daysAfter(21).toISOString() }));
    expect(questionReminder(batch, reminded, daysAfter(22))).toBeNull();
    expect(questionReminder(batch, items, daysAfter(30))).toBeNull();
    // A reminder day set earlier in the stack's configuration.
    expect(questionReminder(batch, items, daysAfter(14), 14)?.notice.subject).toContain('16 days');
  });
});

describe('tell', () => {
  it("adds each notice to its batch's notifications.log, then publishes it, in order", async () => {
    const ports = { objects: memoryObjectStore(), notifier: memoryNotifier() };
    const [finished, waiting] = finishedBatchNotices(batchRecord(), summary, [asked(4)], daysAfter(1));

    await tell(ports, [finished!]);
    await tell(ports, [waiting!]);

    expect(ports.objects.text(`outbox/${BATCH}/notifications.log`)).toBe(
      logEntry(finished!) + logEntry(waiting!),
    );
    expect(logEntry(finished!)).toBe(
      `${finished!.at} batch_finished\n${finished!.subject}\n${finished!.text}\n\n`,
    );
    expect(ports.notifier.published).toEqual([finished, waiting]);
  });
});

describe('remindWaitingQuestions', () => {
  it('tells each batch whose questions reached the reminder day once, and marks them reminded', async () => {
    const clock = fixedClock(daysAfter(21).toISOString());
    const ports = {
      clock,
      reviews: memoryReviewStore(),
      batches: memoryBatchStore(),
      objects: memoryObjectStore(),
      notifier: memoryNotifier(),
    };
    await ports.batches.createBatch(batchRecord());
    for (const item of [asked(2), asked(6), reviewItem(8, { created_at: daysAfter(10).toISOString() })])
      await ports.reviews.put(item);

    const first = await remindWaitingQuestions(ports, await ports.reviews.listPending());
    const again = await remindWaitingQuestions(ports, await ports.reviews.listPending());

    expect(first).toEqual({ batches: [BATCH], items: 2 });
    expect(again).toEqual({ batches: [], items: 0 });
    expect(ports.notifier.published.map((notice) => notice.kind)).toEqual(['questions_reminder']);
    expect(ports.objects.text(`outbox/${BATCH}/notifications.log`)).toContain('questions_reminder');
    expect((await ports.reviews.get(asked(2).classification_id))?.reminded_at).toBe(
      daysAfter(21).toISOString(),
    );
    expect((await ports.reviews.get(reviewItem(8).classification_id))?.reminded_at).toBeUndefined();
  });
});
