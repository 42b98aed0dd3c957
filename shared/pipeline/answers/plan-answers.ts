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
import type { Delimiter } from '../../spreadsheet/schemas.js';
import { writeCsv } from '../../spreadsheet/write-csv.js';
import { CLASSIFICATION_ID_PATTERN, characterCount, isFinalStatus, LIMITS } from '../../tcs/schemas.js';
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
  /** A sentence for the person who filled the file: the row, the question ids, what to do. */
  detail: z.string(),
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

const list = (ids: readonly string[]): string => {
  const shown = ids.map((id) => `"${id}"`);
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
};

const plural = (count: number, one: string, many: string): string => (count === 1 ? one : many);

/** `Row 4` when the row is known, else the file's line, so the user can always find the record. */
const where = (row: number | null, line: number): string => (row === null ? `Line ${line}` : `Row ${row}`);

const notPendingDetail = (at: string, item: ReviewItem, status: string): string => {
  if (status === 'abandoned') {
    return (
      `${at}: the service abandoned this classification because its questions went unanswered for ` +
      `${LIMITS.pendingDataLifetimeDays} days (deadline ${item.abandons_at}); it can no longer be ` +
      'answered and was not billed. Submit the product again in a new batch to classify it.'
    );
  }
  if (status === 'in_progress') {
    return (
      `${at}: the classification is already running again at the service (status "in_progress"), ` +
      'so it was probably answered elsewhere (the web app); nothing was sent.'
    );
  }
  return `${at}: the classification is "${status}" at the service, no longer waiting for answers; nothing was sent.`;
};

const unansweredDetail = (at: string, fileRow: AnswersFileRow, item: ReviewItem | undefined): string => {
  const deadline = item ? ` before ${item.abandons_at}, when the service abandons it` : '';
  // The service takes a sheet only together with the answers (spec, answers endpoint).
  const sheet = fileRow.sheet ? ` The sheet "${fileRow.sheet}" is sent only together with answers.` : '';
  return `${at}: no answers; the row stays pending and can be answered later${deadline}.${sheet}`;
};

/** A row whose classification is not one of the batch's review items: why, by what the cell holds. */
const notAReviewItemDetail = (at: string, id: string): string =>
  id === ''
    ? `${at}: the classification_id cell is empty, so the answers cannot be matched to a classification.`
    : CLASSIFICATION_ID_PATTERN.test(id)
      ? `${at}: ${id} is not a classification waiting for review in this batch; was the row copied from another batch's review.csv?`
      : `${at}: "${id}" is not a classification id (they look like cls_7KQ2M9XW4RTB); was the cell edited?`;

const resumedDetail = (at: string, answers: readonly AnswerToSend[], sheet: string | null): string =>
  `${at}: ${plural(answers.length, 'question', 'all questions')} ${list(answers.map((a) => a.question_id))} ` +
  `answered${sheet ? `, with the sheet "${sheet}"` : ''}; the classification resumes with these answers.`;

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

type Refusal = { outcome: AnswersOutcome; detail: string };

/**
 * The row's answer cells matched to the item's questions: each question's answer (the first
 * non-empty one when a question appears twice), and a sentence for every cell that matches none
 * or contradicts an earlier one.
 */
const matchAnswerCells = (
  known: readonly string[],
  cells: readonly AnswerCell[],
): { byQuestion: Map<string, AnswerCell>; unknown: string[] } => {
  const unknown: string[] = [];
  const byQuestion = new Map<string, AnswerCell>();
  for (const cell of cells) {
    const question = known.find((id) => sameQuestionId(id, cell.question_id));
    if (question === undefined) {
      unknown.push(
        cell.question_id === ''
          ? `answer_${cell.n} is filled but question_${cell.n}_id is empty`
          : `question "${cell.question_id}" (question_${cell.n}_id) is not one of its questions`,
      );
      continue;
    }
    const earlier = byQuestion.get(question);
    if (earlier && earlier.answer !== '' && cell.answer !== '' && earlier.answer !== cell.answer) {
      unknown.push(
        `question "${question}" appears twice (answer_${earlier.n} and answer_${cell.n}) with different answers`,
      );
      continue;
    }
    if (!earlier || earlier.answer === '') byQuestion.set(question, cell);
  }
  return { byQuestion, unknown };
};

/** Why the answers of a row cannot be sent as they are, worst first; all of them, so one fix round is enough. */
const answerProblems = (
  at: string,
  item: ReviewItem,
  cells: readonly AnswerCell[],
): Refusal | AnswerToSend[] => {
  const known = item.questions.map((question) => question.id);
  const { byQuestion, unknown } = matchAnswerCells(known, cells);
  const missing = known.filter((id) => (byQuestion.get(id)?.answer ?? '') === '');
  const tooLong = known.flatMap((id) => {
    const answer = byQuestion.get(id)?.answer ?? '';
    const length = characterCount(answer);
    return length > LIMITS.answerMax ? [`the answer to "${id}" has ${length} characters`] : [];
  });

  const sentences: string[] = [];
  if (unknown.length > 0) {
    sentences.push(
      `${unknown.join('; ')} (this classification asks ${list(known)}); check that the row was not ` +
        'pasted from another file or moved between columns.',
    );
  }
  if (missing.length > 0) {
    sentences.push(
      `${plural(missing.length, 'question', 'questions')} ${list(missing)} ${plural(missing.length, 'has', 'have')} no answer; ` +
        'the classifier takes one round of answers, so every question needs one.',
    );
  }
  if (tooLong.length > 0) {
    sentences.push(`${tooLong.join('; ')}; the service accepts at most ${LIMITS.answerMax} per answer.`);
  }
  const outcome: AnswersOutcome | null =
    unknown.length > 0
      ? 'unknown_question'
      : missing.length > 0
        ? 'incomplete'
        : tooLong.length > 0
          ? 'answer_too_long'
          : null;
  if (outcome !== null) {
    return {
      outcome,
      detail: `${at}: ${sentences.join(' ')} Nothing was sent; fix it and send the file again.`,
    };
  }
  return known.map((id) => ({ question_id: id, answer: byQuestion.get(id)!.answer }));
};

/**
 * Why an item someone already answered is not answered again, or null when it may be: the same
 * answers were sent before, or different ones whose round is still running.
 */
const alreadyAnsweredDetail = (
  at: string,
  id: string,
  item: ReviewItem,
  status: string,
  checked: Refusal | AnswerToSend[],
): string | null => {
  if (item.state === 'pending') return null;
  // Compared before anything is judged: the same file dropped twice is not an error.
  const answersKey = Array.isArray(checked) ? deriveAnswersKey(id, checked) : null;
  const when = item.answered_at ? ` on ${item.answered_at}` : '';
  if (answersKey !== null && answersKey === storedAnswersKey(item)) {
    return `${at}: these answers were already sent${when}; they are not sent twice.`;
  }
  if (item.state === 'answered' && !isFinalStatus(status)) {
    return (
      `${at}: different answers were already sent${when} and that round is still running (status ` +
      `"${status}"); the service takes one round of answers, so these were not sent.`
    );
  }
  return null;
};

// ---------------------------------------------------------------------------
// Deciding
// ---------------------------------------------------------------------------

/** What one row of the file comes to: its report outcome, and the row to resume when it resumes. */
type RowDecision = Refusal & { resume?: ResumeRow };

/** Every check of `planAnswers` after the duplicate one, in its order, for one row. */
const decideRow = (
  at: string,
  fileRow: AnswersFileRow,
  item: ReviewItem | undefined,
  statusOf: (classificationId: string) => string | null,
): RowDecision => {
  const id = fileRow.classification_id;
  if (fileRow.answers.every((cell) => cell.answer === '')) {
    return { outcome: 'skipped_unanswered', detail: unansweredDetail(at, fileRow, item) };
  }
  if (item === undefined) return { outcome: 'unknown_classification', detail: notAReviewItemDetail(at, id) };
  const status = statusOf(id);
  if (status === null) {
    return {
      outcome: 'unknown_classification',
      detail: `${at}: the service does not know classification ${id}; nothing was sent.`,
    };
  }

  const checked = answerProblems(at, item, fileRow.answers);
  const answeredBefore = alreadyAnsweredDetail(at, id, item, status, checked);
  if (answeredBefore !== null) return { outcome: 'already_answered', detail: answeredBefore };
  if (status !== 'pending_data')
    return { outcome: 'not_pending', detail: notPendingDetail(at, item, status) };
  if (!Array.isArray(checked)) return { outcome: checked.outcome, detail: checked.detail };

  return {
    outcome: 'resumed',
    detail: resumedDetail(at, checked, fileRow.sheet),
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
    const at = where(row, fileRow.line);

    const seenAt = id === '' ? undefined : firstLine.get(id);
    if (id !== '' && seenAt === undefined) firstLine.set(id, fileRow.line);
    const decision: RowDecision =
      seenAt === undefined
        ? decideRow(at, fileRow, item, statusOf)
        : {
            outcome: 'duplicate',
            detail: `${at}: ${id} appears again in this file (first on line ${seenAt}); only that first row is used.`,
          };
    if (decision.resume) resume.push(decision.resume);
    report.push({ row, classification_id: id, outcome: decision.outcome, detail: decision.detail });
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
 * included). Through `writeCsv`: BOM, CRLF, and the
 * details neutralised, since they quote answers and ids the user typed.
 */
export const buildAnswersReportCsv = (report: readonly ReportLine[], delimiter: Delimiter = ';'): Buffer =>
  writeCsv(
    ANSWERS_REPORT_COLUMNS,
    report.map((entry) => [
      entry.row === null ? '' : String(entry.row),
      entry.classification_id,
      entry.outcome,
      entry.detail,
    ]),
    { delimiter },
  );
