/**
 * An answers round (docs/answers-round.md), second piece: with a filled review file
 * read (answers-file.ts), decide row by row what may resume. Pure: no service calls, no tables.
 * The caller looks up each classification's status, resumes `plan.resume` (POST answers with
 * `answers_key`, a slot lease, polling) and writes `answers-report.csv`.
 *
 *   AnswersFile ──planAnswers(+ review items, service statuses)──▶
 *     AnswersPlan { resume: rows to answer, report: one outcome per file row }
 *
 * A row resumes only when nothing about it is in doubt: the service takes one round of answers
 * per classification, and a wrong or partial round cannot be taken back.
 */
import * as z from 'zod';
import type { Language } from '../../spreadsheet/header-language.js';
import type { Delimiter } from '../../spreadsheet/schemas.js';
import { writeCsv } from '../../spreadsheet/write-csv.js';
import { CLASSIFICATION_ID_PATTERN, characterCount, isFinalStatus, LIMITS } from '../../tcs/schemas.js';
import { type CellProblem, cellProblemParams } from '../../wording/answers-report.js';
import { message, wordMessages } from '../../wording/index.js';
import { type Message, StoredMessage } from '../../wording/message.js';
import { deriveAnswersKey } from '../core/keys.js';
import type { ReviewItem } from '../core/records.js';
import type { AnswerCell, AnswersFile, AnswersFileRow } from './answers-file.js';
import type { DecisionOutcome } from './plan-decisions.js';
import type { ResendOutcome } from './resend-file.js';

// ---------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------

const ANSWERS_OUTCOMES = [
  'resumed',
  'skipped_unanswered',
  'incomplete',
  'answer_too_long',
  'unknown_question',
  'not_pending',
  'unknown_classification',
  'duplicate',
  'already_answered',
] as const;
/** What became of one row of a returned review file: `resumed`, or why its answers were not sent. */
export const AnswersOutcome = z.enum(ANSWERS_OUTCOMES);
export type AnswersOutcome = z.infer<typeof AnswersOutcome>;

/** An answer as `POST /classifications/{id}/answers` takes it. */
const AnswerToSend = z.object({ question_id: z.string(), answer: z.string() });
type AnswerToSend = z.infer<typeof AnswerToSend>;

/**
 * A row whose answers are sent: its classification, its batch row, one answer per question in the
 * service's order, the new sheet if any, and the key that makes a repeated post harmless.
 */
export const ResumeRow = z.object({
  classification_id: z.string(),
  /** The batch's row number, from the review item (the file's `row` cell is only the user's copy). */
  row: z.number().int().min(1),
  batch_id: z.string(),
  /** One per question of the review item, in its order, with the service's own question ids. */
  answers: z.array(AnswerToSend),
  sheet: z.string().nullable(),
  /** `deriveAnswersKey` without a sheet hash; the caller derives it again with the hash when `sheet` is set. */
  answers_key: z.string(),
});
export type ResumeRow = z.infer<typeof ResumeRow>;

/**
 * One line of answers-report.csv: the row, its classification, the outcome, and a sentence for the
 * person.
 */
export const AnswersReportEntry = z.object({
  /** The review item's row, else the file's `row` cell, else null (neither is known). */
  row: z.number().int().min(1).nullable(),
  classification_id: z.string(),
  outcome: AnswersOutcome,
  /** A sentence for the person who filled the file: the row, the question ids, what to do (English). */
  detail: z.string(),
  /** The same as messages, which answers-report.csv words in the batch's language. */
  said: z.array(StoredMessage).optional(),
});
export type AnswersReportEntry = z.infer<typeof AnswersReportEntry>;

/** What a returned review file comes to: the rows to resume, and one report entry per data row. */
export const AnswersPlan = z.object({
  resume: z.array(ResumeRow),
  /** One entry per data row of the file, in file order, resumed rows included. */
  report: z.array(AnswersReportEntry),
});
export type AnswersPlan = z.infer<typeof AnswersPlan>;

// ---------------------------------------------------------------------------
// Sentences
// ---------------------------------------------------------------------------

/** Where a line of the file is, for every sentence: its batch row when known, else its line. */
type At = { row: number | null; line: number };

/** A report's detail: in English for logs and results, and as messages for the batch's language. */
export const reported = (...said: Message[]): { detail: string; said: Message[] } => ({
  detail: wordMessages(said, 'en').join(' '),
  said,
});

const notPendingDetail = (at: At, item: ReviewItem, status: string) => {
  if (status === 'abandoned')
    return reported(
      message('answers_abandoned', {
        ...at,
        days: LIMITS.pendingDataLifetimeDays,
        deadline: item.abandons_at,
      }),
    );
  if (status === 'in_progress') return reported(message('answers_running_again', at));
  return reported(message('answers_no_longer_pending', { ...at, status }));
};

const unansweredDetail = (at: At, fileRow: AnswersFileRow, item: ReviewItem | undefined) =>
  // The service takes a sheet only together with the answers (spec, answers endpoint).
  reported(
    message('answers_none', { ...at, abandons_at: item?.abandons_at ?? '', sheet: fileRow.sheet ?? '' }),
  );

/** A row whose classification is not one of the batch's review items: why, by what the cell holds. */
const notAReviewItemDetail = (at: At, id: string) =>
  reported(
    id === ''
      ? message('answers_id_empty', at)
      : CLASSIFICATION_ID_PATTERN.test(id)
        ? message('answers_not_of_batch', { ...at, id })
        : message('answers_not_an_id', { ...at, id }),
  );

const resumedDetail = (at: At, answers: readonly AnswerToSend[], sheet: string | null) =>
  reported(
    message('answers_resumed_row', { ...at, ids: answers.map((a) => a.question_id), sheet: sheet ?? '' }),
  );

// ---------------------------------------------------------------------------
// Checking the answers
// ---------------------------------------------------------------------------

const sameQuestionId = (a: string, b: string): boolean => a.normalize('NFC') === b.normalize('NFC');

/** The key an answered item's stored answers would have had, compared as the file's are read. */
const storedAnswersKey = (item: ReviewItem): string | null =>
  item.answers
    ? deriveAnswersKey(
        item.classification_id,
        item.answers.map((a) => ({ question_id: a.question_id, answer: a.answer.trim().normalize('NFC') })),
      )
    : null;

type Refusal = { outcome: AnswersOutcome; detail: string; said: Message[] };

/**
 * The row's answer cells matched to the item's questions: each question's answer (the first
 * non-empty one when a question appears twice), and a sentence for every cell that matches none
 * or contradicts an earlier one.
 */
const matchAnswerCells = (
  known: readonly string[],
  cells: readonly AnswerCell[],
): { byQuestion: Map<string, AnswerCell>; unknown: CellProblem[] } => {
  const unknown: CellProblem[] = [];
  const byQuestion = new Map<string, AnswerCell>();
  for (const cell of cells) {
    const question = known.find((id) => sameQuestionId(id, cell.question_id));
    if (question === undefined) {
      unknown.push(
        cell.question_id === ''
          ? { kind: 'empty_id', n: cell.n }
          : { kind: 'not_asked', n: cell.n, id: cell.question_id },
      );
      continue;
    }
    const earlier = byQuestion.get(question);
    if (earlier && earlier.answer !== '' && cell.answer !== '' && earlier.answer !== cell.answer) {
      unknown.push({ kind: 'twice', id: question, first: earlier.n, second: cell.n });
      continue;
    }
    if (!earlier || earlier.answer === '') byQuestion.set(question, cell);
  }
  return { byQuestion, unknown };
};

/** Why the answers of a row cannot be sent as they are, worst first; all of them, so one fix round is enough. */
const answerProblems = (at: At, item: ReviewItem, cells: readonly AnswerCell[]): Refusal | AnswerToSend[] => {
  const known = item.questions.map((question) => question.id);
  const { byQuestion, unknown } = matchAnswerCells(known, cells);
  const missing = known.filter((id) => (byQuestion.get(id)?.answer ?? '') === '');
  const tooLong = known.flatMap((id) => {
    const length = characterCount(byQuestion.get(id)?.answer ?? '');
    return length > LIMITS.answerMax ? [{ id, length }] : [];
  });
  const outcome: AnswersOutcome | null =
    unknown.length > 0
      ? 'unknown_question'
      : missing.length > 0
        ? 'incomplete'
        : tooLong.length > 0
          ? 'answer_too_long'
          : null;
  if (outcome !== null) {
    const said = message('answers_problems', {
      ...at,
      ...cellProblemParams(unknown),
      known,
      missing,
      long_ids: tooLong.map((long) => long.id),
      long_lengths: tooLong.map((long) => long.length),
      max: LIMITS.answerMax,
    });
    return { outcome, ...reported(said) };
  }
  return known.map((id) => ({ question_id: id, answer: byQuestion.get(id)!.answer }));
};

/**
 * Why an item someone already answered is not answered again, or null when it may be: the same
 * answers were sent before, or different ones whose round is still running.
 */
const alreadyAnsweredDetail = (
  at: At,
  id: string,
  item: ReviewItem,
  status: string,
  checked: Refusal | AnswerToSend[],
): { detail: string; said: Message[] } | null => {
  if (item.state === 'pending') return null;
  // Compared before anything is judged: the same file dropped twice is not an error.
  const answersKey = Array.isArray(checked) ? deriveAnswersKey(id, checked) : null;
  const when = item.answered_at ?? '';
  if (answersKey !== null && answersKey === storedAnswersKey(item))
    return reported(message('answers_sent_before', { ...at, when }));
  if (item.state === 'answered' && !isFinalStatus(status))
    return reported(message('answers_other_running', { ...at, when, status }));
  return null;
};

// ---------------------------------------------------------------------------
// Deciding
// ---------------------------------------------------------------------------

/** What one row of the file comes to: its report outcome, and the row to resume when it resumes. */
type RowDecision = Refusal & { resume?: ResumeRow };

/** Every check of `planAnswers` after the duplicate one, in its order, for one row. */
const decideRow = (
  at: At,
  fileRow: AnswersFileRow,
  item: ReviewItem | undefined,
  statusOf: (classificationId: string) => string | null,
): RowDecision => {
  const id = fileRow.classification_id;
  if (fileRow.answers.every((cell) => cell.answer === '')) {
    return { outcome: 'skipped_unanswered', ...unansweredDetail(at, fileRow, item) };
  }
  if (item === undefined) return { outcome: 'unknown_classification', ...notAReviewItemDetail(at, id) };
  const status = statusOf(id);
  if (status === null) {
    return {
      outcome: 'unknown_classification',
      ...reported(message('answers_unknown_to_service', { ...at, id })),
    };
  }

  const checked = answerProblems(at, item, fileRow.answers);
  const answeredBefore = alreadyAnsweredDetail(at, id, item, status, checked);
  if (answeredBefore !== null) return { outcome: 'already_answered', ...answeredBefore };
  if (status !== 'pending_data') return { outcome: 'not_pending', ...notPendingDetail(at, item, status) };
  if (!Array.isArray(checked)) return checked;

  return {
    outcome: 'resumed',
    ...resumedDetail(at, checked, fileRow.sheet),
    resume: {
      classification_id: id,
      row: item.row,
      batch_id: item.batch_id,
      answers: checked,
      sheet: fileRow.sheet,
      answers_key: deriveAnswersKey(id, checked),
    },
  };
};

/**
 * Decides, row by row, which rows of a returned review file have their answers sent: returns the
 * rows to resume and one report entry per data row, in file order.
 *
 * Primary course, per row in file order: a classification seen earlier in the file is a
 * `duplicate`; a row with no answer is left for later; the classification must be one of the
 * review items and known to the service; an item already answered is not answered again; the
 * service must still say `pending_data`; then every question needs a known id and a non-empty
 * answer within the limit. Only then does the row resume.
 *
 * Why `already_answered` is checked before the service's status: between a first drop and its
 * POST, the service still says `pending_data`. A second drop of the same file meanwhile must not
 * start a second round of polling and storing for the same classification.
 *
 * `statusOf` is asked only for rows with at least one answer whose classification is a review
 * item (see `classificationsToLookUp`).
 */
export const planAnswers = (input: {
  file: AnswersFile;
  items: ReadonlyMap<string, ReviewItem>;
  statusOf: (classificationId: string) => string | null;
}): AnswersPlan => {
  const { file, items, statusOf } = input;
  const resume: ResumeRow[] = [];
  const report: AnswersReportEntry[] = [];
  const firstLine = new Map<string, number>();

  for (const fileRow of file.rows) {
    const id = fileRow.classification_id;
    const item = items.get(id);
    const row = item?.row ?? fileRow.row;
    const at: At = { row, line: fileRow.line };

    const seenAt = id === '' ? undefined : firstLine.get(id);
    if (id !== '' && seenAt === undefined) firstLine.set(id, fileRow.line);
    const decision: RowDecision =
      seenAt === undefined
        ? decideRow(at, fileRow, item, statusOf)
        : {
            outcome: 'duplicate',
            ...reported(message('answers_duplicate', { ...at, id, first_line: seenAt })),
          };
    if (decision.resume) resume.push(decision.resume);
    report.push({
      row,
      classification_id: id,
      outcome: decision.outcome,
      detail: decision.detail,
      said: decision.said,
    });
  }
  return { resume, report };
};

/**
 * The classifications whose service status `planAnswers` will ask for: rows with an answer whose
 * classification is a review item. The caller reads only these (`GET /classifications/{id}`)
 * before planning, instead of one request per row of the file.
 */
export const classificationsToLookUp = (
  file: AnswersFile,
  items: ReadonlyMap<string, ReviewItem>,
): string[] => [
  ...new Set(
    file.rows
      .filter((row) => items.has(row.classification_id) && row.answers.some((cell) => cell.answer !== ''))
      .map((row) => row.classification_id),
  ),
];

// ---------------------------------------------------------------------------
// answers-report.csv
// ---------------------------------------------------------------------------

/** answers-report.csv's header. */
export const ANSWERS_REPORT_COLUMNS = ['row', 'classification_id', 'outcome', 'detail'] as const;

/** A line of answers-report.csv: an answered row's, a decision line's (plan-decisions.ts) or a resend line's. */
export type ReportLine = Omit<AnswersReportEntry, 'outcome'> & {
  outcome: AnswersOutcome | DecisionOutcome | ResendOutcome;
};

/**
 * answers-report.csv's bytes: one record per row of the answers file, in its order (decision lines
 * included), each detail in `language` (the batch's chosen one; English by default) where its
 * line says it as messages. Through `writeCsv`: BOM, CRLF, and the
 * details neutralised, since they quote answers and ids the user typed.
 */
export const buildAnswersReportCsv = (
  report: readonly ReportLine[],
  delimiter: Delimiter = ';',
  language: Language = 'en',
): Buffer =>
  writeCsv(
    ANSWERS_REPORT_COLUMNS,
    report.map((entry) => [
      entry.row === null ? '' : String(entry.row),
      entry.classification_id,
      entry.outcome,
      entry.said && entry.said.length > 0 ? wordMessages(entry.said, language).join(' ') : entry.detail,
    ]),
    { delimiter },
  );
