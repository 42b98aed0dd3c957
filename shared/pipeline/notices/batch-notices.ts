/**
 * What people are told about a batch, and when (tell.ts sends it): when Finalize ends, that the
 * batch finished, that questions wait for answers (how many, the days before the service abandons
 * them) and that verdicts wait to be checked; each day after, on the reminder day, that questions
 * still wait. Every notice in the batch's language, naming where to act: the batch's outbox.
 */
import type { Language } from '../../spreadsheet/header-language.js';
import { type MessageCode, type ParamsOf, wordMessage } from '../../wording/index.js';
import { outboxFolder } from '../core/bucket-layout.js';
import type { Notice, NoticeKind } from '../core/notices.js';
import { type BatchRecord, daysLeft, type ReviewItem } from '../core/records.js';
import type { BatchSummary } from '../outbox/results-files.js';
import { workbookLanguage } from '../outbox/workbook-language.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How many rows a notice names before it says "and N more". */
const ROWS_NAMED = 10;

/** Where the batch's files are: its outbox in the bucket. */
const linkOf = (batch: Pick<BatchRecord, 'batch_id' | 'source'>): string =>
  `s3://${batch.source.bucket}/${outboxFolder(batch.batch_id)}`;

/** An email subject is ASCII only (SNS): accents dropped, never the words. */
const asciiSubject = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, 99);

const noticeOf = <S extends MessageCode, T extends MessageCode>(
  batch: Pick<BatchRecord, 'batch_id'>,
  kind: NoticeKind,
  at: string,
  language: Language,
  words: { subject: [S, ParamsOf<S>]; text: [T, ParamsOf<T>] },
): Notice => ({
  batch_id: batch.batch_id,
  kind,
  at,
  subject: asciiSubject(wordMessage({ code: words.subject[0], params: words.subject[1] as never }, language)),
  text: wordMessage({ code: words.text[0], params: words.text[1] as never }, language),
});

/**
 * The questions a batch's items still wait on: how many rows, the first few named, and the days
 * before the first of them is abandoned (the earliest `abandons_at`); null when none wait.
 */
const waitingOf = (items: readonly ReviewItem[], now: Date) => {
  const pending = items.filter((item) => item.state === 'pending').sort((a, b) => a.row - b.row);
  if (pending.length === 0) return null;
  const first = pending.map((item) => item.abandons_at).sort()[0] as string;
  return {
    count: pending.length,
    rows: pending.slice(0, ROWS_NAMED).map((item) => item.row),
    days_left: daysLeft(first, now),
    until: first.slice(0, 10),
  };
};

/**
 * Takes a batch as Finalize ends it (its record, summary.json's counts and its review items) and
 * gives what to tell: that it finished, then, when any, that questions wait and that verdicts wait
 * to be checked.
 */
export const finishedBatchNotices = (
  batch: BatchRecord,
  summary: Pick<BatchSummary, 'rows_total' | 'by_status' | 'billed_usd' | 'checks'>,
  items: readonly ReviewItem[],
  now: Date,
): Notice[] => {
  const language = workbookLanguage(batch);
  const at = now.toISOString();
  const where = { name: batch.name, link: linkOf(batch) };
  const count = (status: keyof BatchSummary['by_status']) => summary.by_status[status] ?? 0;
  const toCheck = summary.checks?.to_check ?? 0;
  const notices = [
    noticeOf(batch, 'batch_finished', at, language, {
      subject: ['notice_batch_finished_subject', where],
      text: [
        'notice_batch_finished',
        {
          ...where,
          rows_total: summary.rows_total,
          resolved: count('resolved') + count('reused'),
          pending: count('pending_data'),
          to_check: toCheck,
          without: summary.rows_total - count('resolved') - count('reused') - count('pending_data'),
          billed: summary.billed_usd.toFixed(2),
        },
      ],
    }),
  ];
  const waiting = waitingOf(items, now);
  if (waiting)
    notices.push(
      noticeOf(batch, 'questions_waiting', at, language, {
        subject: ['notice_questions_waiting_subject', { ...where, ...waiting }],
        text: ['notice_questions_waiting', { ...where, ...waiting }],
      }),
    );
  if (toCheck > 0)
    notices.push(
      noticeOf(batch, 'verdicts_to_check', at, language, {
        subject: ['notice_verdicts_to_check_subject', { ...where, count: toCheck }],
        text: ['notice_verdicts_to_check', { ...where, count: toCheck }],
      }),
    );
  return notices;
};

/** The day, counted from when a row's questions were asked, a reminder goes out if they still wait. */
export const DEFAULT_REMINDER_DAY = 21;

/**
 * Takes a batch and its review items still waiting and gives the reminder for those asked at
 * least `reminderDay` days before `now` and not reminded yet (naming their rows and the days left),
 * with the items it covers; null when none is due.
 */
export const questionReminder = (
  batch: BatchRecord,
  items: readonly ReviewItem[],
  now: Date,
  reminderDay: number = DEFAULT_REMINDER_DAY,
): { notice: Notice; items: ReviewItem[] } | null => {
  const due = items.filter(
    (item) =>
      item.state === 'pending' &&
      item.reminded_at === undefined &&
      now.getTime() - Date.parse(item.created_at) >= reminderDay * DAY_MS &&
      Date.parse(item.abandons_at) > now.getTime(),
  );
  const waiting = waitingOf(due, now);
  if (!waiting) return null;
  const where = { name: batch.name, link: linkOf(batch) };
  const notice = noticeOf(batch, 'questions_reminder', now.toISOString(), workbookLanguage(batch), {
    subject: ['notice_questions_reminder_subject', { ...where, ...waiting }],
    text: ['notice_questions_reminder', { ...where, ...waiting }],
  });
  return { notice, items: due };
};
