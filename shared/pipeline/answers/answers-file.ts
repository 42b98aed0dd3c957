/**
 * The answers round (issue 6), first piece: a filled `review.csv` comes back from a user's
 * spreadsheet program; read it, then decide row by row what may resume. Pure: no service calls,
 * no tables. The caller looks up each classification's status, resumes `plan.resume` (POST
 * answers with `answers_key`, a slot lease, polling) and writes `answers-report.csv`.
 *
 *   bytes ──readAnswersFile──▶ AnswersFile ──planAnswers(+ review items, service statuses)──▶
 *     AnswersPlan { resume: rows to answer, report: one outcome per file row }
 *
 * A row resumes only when nothing about it is in doubt: the service takes one round of answers
 * per classification, and a wrong or partial round cannot be taken back.
 */
import { z } from 'zod';
import {
  Delimiter,
  detectFormat,
  headerKey,
  restoreNeutralisedField,
  SpreadsheetError,
  SpreadsheetFormat,
  SpreadsheetProblem,
  TextEncoding,
  writeCsv,
} from '../../spreadsheet/index.js';
import { readCsvRecords } from '../../spreadsheet/read-csv.js';
import { readXlsxRecords } from '../../spreadsheet/read-xlsx.js';
import { splitHeaderAndRows } from '../../spreadsheet/table.js';
import { CLASSIFICATION_ID_PATTERN, characterCount, isFinalStatus, LIMITS } from '../../tcs/schemas.js';
import type { REVIEW_LEADING_COLUMNS, REVIEW_TRAILING_COLUMNS } from '../batch/results-files.js';
import { deriveAnswersKey } from '../core/keys.js';
import type { ReviewItem } from '../core/records.js';

// ---------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------

/** One question group of a row: `question_N_id` and `answer_N` as read back. */
export const AnswerCell = z.object({
  /** The N of `question_N_id` / `answer_N`. */
  n: z.number().int().min(1),
  /** Trimmed, our formula neutralisation undone, NFC. */
  question_id: z.string(),
  /** Trimmed, our formula neutralisation undone, NFC; "" when the user left it empty. */
  answer: z.string(),
});
export type AnswerCell = z.infer<typeof AnswerCell>;

export const AnswersFileRow = z.object({
  /** Physical line (CSV) or sheet row (XLSX) where the record starts: for messages when `row` is lost. */
  line: z.number().int().min(1),
  /** The `row` cell: the batch's row number; null when the cell is empty or not a number. */
  row: z.number().int().min(1).nullable(),
  /** Trimmed; "" when the cell is empty. Checked against the review items by `planAnswers`. */
  classification_id: z.string(),
  /** Groups whose question id or answer is not empty, in N order; wholly empty groups are dropped. */
  answers: z.array(AnswerCell),
  /** The `sheet` cell (a new technical sheet's path in the batch folder), or null when empty. */
  sheet: z.string().nullable(),
});
export type AnswersFileRow = z.infer<typeof AnswersFileRow>;

export const AnswersFile = z.object({
  file_name: z.string(),
  format: SpreadsheetFormat,
  /** CSV only. */
  encoding: TextEncoding.optional(),
  /** CSV only; the delimiter to write `answers-report.csv` with, so it opens like the file sent. */
  delimiter: Delimiter.optional(),
  rows: z.array(AnswersFileRow),
  /** What the reader noticed without refusing the file (garbled accents, long rows). */
  problems: z.array(SpreadsheetProblem),
});
export type AnswersFile = z.infer<typeof AnswersFile>;

export const ANSWERS_OUTCOMES = [
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
export const AnswersOutcome = z.enum(ANSWERS_OUTCOMES);
export type AnswersOutcome = z.infer<typeof AnswersOutcome>;

/** An answer as `POST /classifications/{id}/answers` takes it. */
export const AnswerToSend = z.object({ question_id: z.string(), answer: z.string() });
export type AnswerToSend = z.infer<typeof AnswerToSend>;

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

export const AnswersReportEntry = z.object({
  /** The review item's row, else the file's `row` cell, else null (neither is known). */
  row: z.number().int().min(1).nullable(),
  classification_id: z.string(),
  outcome: AnswersOutcome,
  /** A sentence for the person who filled the file: the row, the question ids, what to do. */
  detail: z.string(),
});
export type AnswersReportEntry = z.infer<typeof AnswersReportEntry>;

export const AnswersPlan = z.object({
  resume: z.array(ResumeRow),
  /** One entry per data row of the file, in file order, resumed rows included. */
  report: z.array(AnswersReportEntry),
});
export type AnswersPlan = z.infer<typeof AnswersPlan>;

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export const ANSWERS_FILE_ERROR_CODES = [
  'not_a_review_file',
  'question_id_column_missing',
  'duplicate_column',
] as const;
export type AnswersFileErrorCode = (typeof ANSWERS_FILE_ERROR_CODES)[number];

/**
 * A file that cannot be read as a review.csv. Shaped like `SpreadsheetError` (code, file name,
 * a message that starts with the file name) so callers report both the same way; its own class
 * because `SpreadsheetError`'s codes are those of a product file. The reader's own failures
 * (empty file, unclosed quote, damaged XLSX) still arrive as `SpreadsheetError`.
 */
export class AnswersFileError extends Error {
  override readonly name = 'AnswersFileError';
  readonly code: AnswersFileErrorCode;
  readonly fileName: string;
  readonly column: string | undefined;

  constructor(code: AnswersFileErrorCode, fileName: string, detail: string, column?: string) {
    super(`${fileName}: ${detail}`);
    this.code = code;
    this.fileName = fileName;
    this.column = column;
  }
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/**
 * The columns of `buildReviewCsv` this module reads (`satisfies`: renaming one there breaks the
 * build here). Headers are compared by `headerKey`, so `Answer 1`, `ANSWER_1` and
 * `answer-1 (resposta)` all are `answer_1`.
 */
const ROW_COLUMN = 'row' satisfies (typeof REVIEW_LEADING_COLUMNS)[number];
const CLASSIFICATION_ID_COLUMN = 'classification_id' satisfies (typeof REVIEW_LEADING_COLUMNS)[number];
const SHEET_COLUMN = 'sheet' satisfies (typeof REVIEW_TRAILING_COLUMNS)[number];
/** `answer_N` of `reviewQuestionColumns(N)`, as a header key. */
const ANSWER_KEY = /^answer([1-9][0-9]?)$/;

interface ReviewColumns {
  row: number | undefined;
  classificationId: number;
  sheet: number | undefined;
  /** N → column indexes of `question_N_id` and `answer_N`, in N order. */
  groups: { n: number; questionId: number; answer: number }[];
}

const quoted = (values: readonly string[]): string => values.map((value) => `"${value}"`).join(', ');

/**
 * Finds our columns wherever the user moved them. Every other column (ours we do not read, the
 * user's own notes) is ignored. Two columns meaning the same one of ours are refused: which of
 * them holds the answer is a guess, and a wrong guess would be sent to the service.
 */
const locateColumns = (header: readonly string[], fileName: string, hasRows: boolean): ReviewColumns => {
  const positions = new Map<string, number[]>();
  header.forEach((text, index) => {
    const key = headerKey(text);
    positions.set(key, [...(positions.get(key) ?? []), index]);
  });
  const single = (key: string, name: string): number | undefined => {
    const [first, second] = positions.get(key) ?? [];
    if (second !== undefined) {
      throw new AnswersFileError(
        'duplicate_column',
        fileName,
        `columns "${header[first!]}" and "${header[second]}" both mean "${name}"; ` +
          'keep one and rename or delete the other, then send the file again',
        header[second],
      );
    }
    return first;
  };

  const classificationId = single(headerKey(CLASSIFICATION_ID_COLUMN), CLASSIFICATION_ID_COLUMN);
  const answerNumbers = [...positions.keys()]
    .map((key) => ANSWER_KEY.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  // A review.csv with nothing pending has no question groups at all; with rows, it always has one.
  const answersMissing = answerNumbers.length === 0 && hasRows;
  if (classificationId === undefined || answersMissing) {
    const missing = [
      classificationId === undefined ? '"classification_id" column' : null,
      answersMissing ? '"answer_N" columns (answer_1, answer_2, …)' : null,
    ].filter((part) => part !== null);
    const found = header.filter((text) => text.trim() !== '');
    throw new AnswersFileError(
      'not_a_review_file',
      fileName,
      `is not a review.csv: it has no ${missing.join(' and no ')}. Send back the review.csv the batch ` +
        `wrote, with the answer columns filled in. Columns found: ${found.length > 0 ? quoted(found) : '(none)'}`,
    );
  }

  const groups = answerNumbers.map((n) => {
    const questionId = single(`question${n}id`, `question_${n}_id`);
    if (questionId === undefined) {
      // Without the id, the answer would have to be matched to a question by position: a guess.
      throw new AnswersFileError(
        'question_id_column_missing',
        fileName,
        `has a column "answer_${n}" but no "question_${n}_id" beside it, so its answers cannot be ` +
          `matched to questions; put the "question_${n}_id" column back as the batch wrote it`,
        `answer_${n}`,
      );
    }
    return { n, questionId, answer: single(`answer${n}`, `answer_${n}`)! };
  });
  return {
    row: single(headerKey(ROW_COLUMN), ROW_COLUMN),
    classificationId,
    sheet: single(headerKey(SHEET_COLUMN), SHEET_COLUMN),
    groups,
  };
};

/**
 * What the user meant, not how the spreadsheet stored it: spaces trimmed, our own `'` before a
 * formula character removed (writeCsv put it there; Excel keeps it as text in a CSV), and NFC,
 * so `ção` typed on a Mac (decomposed) and on Windows (composed) is the same answer and hashes
 * to the same answers key.
 */
const cellText = (value: string | undefined): string =>
  restoreNeutralisedField((value ?? '').trim())
    .trim()
    .normalize('NFC');

/** `3`, and the shapes a spreadsheet turns it into (`3.0`, `3,00`, ` 3 `); anything else is unknown. */
const parseRowNumber = (value: string): number | null => {
  const match = /^0*([1-9][0-9]{0,8})(?:[.,]0+)?$/.exec(value);
  return match ? Number(match[1]) : null;
};

/**
 * Reads a returned review.csv (or the XLSX a user saved it as). Built on the same readers as
 * every other entry point (decoding, delimiter detection, quoting, blank rows), but not on
 * `readSpreadsheet`: its column matching is for product files, and would refuse a review file
 * a user added a "Código" column to (a second SKU column) or took the description out of.
 * A header with no data rows is a review.csv with nothing pending: it reads as no rows.
 */
export const readAnswersFile = async (bytes: Uint8Array, fileName: string): Promise<AnswersFile> => {
  if (bytes.length === 0) throw new SpreadsheetError('file_empty', fileName, 'is empty (0 bytes)');
  const format = detectFormat(bytes, fileName);
  const csv = format === 'csv' ? readCsvRecords(bytes, fileName) : null;
  const source = csv ?? (await readXlsxRecords(bytes, fileName));
  const table = splitHeaderAndRows(source.records, fileName);
  const columns = locateColumns(table.header, fileName, table.rows.length > 0);
  const rows = table.rows.map((record): AnswersFileRow => {
    const cell = (index: number | undefined): string =>
      index === undefined ? '' : cellText(record.cells[index]);
    const answers = columns.groups
      .map((group) => ({ n: group.n, question_id: cell(group.questionId), answer: cell(group.answer) }))
      .filter((group) => group.question_id !== '' || group.answer !== '');
    const sheet = cell(columns.sheet);
    return {
      line: record.line,
      row: parseRowNumber(cell(columns.row)),
      classification_id: cell(columns.classificationId),
      answers,
      sheet: sheet === '' ? null : sheet,
    };
  });
  return {
    file_name: fileName,
    format,
    ...(csv ? { encoding: csv.encoding, delimiter: csv.delimiter } : {}),
    rows,
    problems: [...source.problems, ...table.problems],
  };
};

// ---------------------------------------------------------------------------
// Deciding
// ---------------------------------------------------------------------------

/** Statuses after which nothing more happens to a classification (spec, States). */

const list = (ids: readonly string[]): string => {
  const shown = ids.map((id) => `"${id}"`);
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
};

const plural = (count: number, one: string, many: string): string => (count === 1 ? one : many);

/** `Row 4` when the row is known, else the file's line, so the user can always find the record. */
const where = (row: number | null, line: number): string => (row === null ? `Line ${line}` : `Row ${row}`);

const sameQuestionId = (a: string, b: string): boolean => a.normalize('NFC') === b.normalize('NFC');

/** The key an answered item's stored answers would have had, compared as the file's are read. */
const storedAnswersKey = (item: ReviewItem): string | null =>
  item.answers
    ? deriveAnswersKey(
        item.classification_id,
        item.answers.map((a) => ({ question_id: a.question_id, answer: a.answer.trim().normalize('NFC') })),
      )
    : null;

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

/** Why the answers of a row cannot be sent as they are, worst first; all of them, so one fix round is enough. */
const answerProblems = (
  at: string,
  item: ReviewItem,
  cells: readonly AnswerCell[],
): { outcome: AnswersOutcome; detail: string } | AnswerToSend[] => {
  const known = item.questions.map((question) => question.id);
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
 * Primary course, per row in file order: a classification seen earlier in the file is a
 * `duplicate`; a row with no answer is left for later; the classification must be one of the
 * review items and known to the service; an item already answered is not answered again; the
 * service must still say `pending_data`; then every question needs a known id and a non-empty
 * answer within the limit. Only then does the row resume.
 *
 * Why `already_answered` is checked before the service's status: between a first drop and its
 * POST, the service still says `pending_data`. A second drop of the same file in that window must
 * not start a second round of polling and storing for the same classification.
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
    const add = (outcome: AnswersOutcome, detail: string) =>
      report.push({ row, classification_id: id, outcome, detail });

    const seenAt = id === '' ? undefined : firstLine.get(id);
    if (seenAt !== undefined) {
      add(
        'duplicate',
        `${at}: ${id} appears again in this file (first on line ${seenAt}); only that first row is used.`,
      );
      continue;
    }
    if (id !== '') firstLine.set(id, fileRow.line);

    if (fileRow.answers.every((cell) => cell.answer === '')) {
      const deadline = item ? ` before ${item.abandons_at}, when the service abandons it` : '';
      // The service takes a sheet only together with the answers (spec, answers endpoint).
      const sheet = fileRow.sheet ? ` The sheet "${fileRow.sheet}" is sent only together with answers.` : '';
      add(
        'skipped_unanswered',
        `${at}: no answers; the row stays pending and can be answered later${deadline}.${sheet}`,
      );
      continue;
    }

    if (item === undefined) {
      add(
        'unknown_classification',
        id === ''
          ? `${at}: the classification_id cell is empty, so the answers cannot be matched to a classification.`
          : CLASSIFICATION_ID_PATTERN.test(id)
            ? `${at}: ${id} is not a classification waiting for review in this batch; was the row copied from another batch's review.csv?`
            : `${at}: "${id}" is not a classification id (they look like cls_7KQ2M9XW4RTB); was the cell edited?`,
      );
      continue;
    }
    const status = statusOf(id);
    if (status === null) {
      add(
        'unknown_classification',
        `${at}: the service does not know classification ${id}; nothing was sent.`,
      );
      continue;
    }

    const checked = answerProblems(at, item, fileRow.answers);
    if (item.state !== 'pending') {
      // Compared before anything is judged: the same file dropped twice is not an error.
      const answersKey = Array.isArray(checked) ? deriveAnswersKey(id, checked) : null;
      const when = item.answered_at ? ` on ${item.answered_at}` : '';
      if (answersKey !== null && answersKey === storedAnswersKey(item)) {
        add('already_answered', `${at}: these answers were already sent${when}; they are not sent twice.`);
        continue;
      }
      if (item.state === 'answered' && !isFinalStatus(status)) {
        add(
          'already_answered',
          `${at}: different answers were already sent${when} and that round is still running (status ` +
            `"${status}"); the service takes one round of answers, so these were not sent.`,
        );
        continue;
      }
    }
    if (status !== 'pending_data') {
      add('not_pending', notPendingDetail(at, item, status));
      continue;
    }
    if (!Array.isArray(checked)) {
      add(checked.outcome, checked.detail);
      continue;
    }

    const answers_key = deriveAnswersKey(id, checked);
    resume.push({
      classification_id: id,
      row: item.row,
      batch_id: item.batch_id,
      answers: checked,
      sheet: fileRow.sheet,
      answers_key,
    });
    add(
      'resumed',
      `${at}: ${plural(checked.length, 'question', 'all questions')} ${list(checked.map((a) => a.question_id))} ` +
        `answered${fileRow.sheet ? `, with the sheet "${fileRow.sheet}"` : ''}; the classification resumes with these answers.`,
    );
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

export const ANSWERS_REPORT_COLUMNS = ['row', 'classification_id', 'outcome', 'detail'] as const;

/**
 * One record per row of the answers file, in its order. Through `writeCsv`: BOM, CRLF, and the
 * details neutralised, since they quote answers and ids the user typed.
 */
export const buildAnswersReportCsv = (
  report: readonly AnswersReportEntry[],
  delimiter: Delimiter = ';',
): Buffer =>
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
