/**
 * An answers round (docs/answers-round.md), first piece: a filled `review.csv` comes
 * back from a user's spreadsheet program, saved as CSV or XLSX however that program saves it;
 * read it as the user meant it. Pure: no service calls, no tables. Deciding what resumes is
 * plan-answers.ts.
 *
 *   bytes ──readAnswersFile──▶ AnswersFile ──planAnswers (plan-answers.ts)──▶ AnswersPlan
 */
import * as z from 'zod';
import { headerKey } from '../../spreadsheet/columns.js';
import { SpreadsheetError } from '../../spreadsheet/errors.js';
import { readCsvRecords } from '../../spreadsheet/read-csv.js';
import { detectFormat } from '../../spreadsheet/read-spreadsheet.js';
import { readXlsxRecords } from '../../spreadsheet/read-xlsx.js';
import { Delimiter, SpreadsheetFormat, SpreadsheetProblem, TextEncoding } from '../../spreadsheet/schemas.js';
import { splitHeaderAndRows } from '../../spreadsheet/table.js';
import type { REVIEW_LEADING_COLUMNS, REVIEW_TRAILING_COLUMNS } from '../outbox/results-files.js';
import { CHECK_SHEET_NAMES, OPTIONS_SHEET_NAMES, REVIEW_HEADER_KEYS } from '../outbox/workbook-language.js';
import {
  DecisionLine,
  isDecisionsHeader,
  readCheckSheetDecisions,
  readDecisionLines,
} from './decisions-file.js';
import { cellText, parseRowNumber } from './file-cells.js';
import { isResendHeader, ResendLine, readResendLines } from './resend-file.js';

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

/**
 * One data row of a returned review file: where it is, which row and classification it names, its
 * answers.
 */
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

/**
 * A returned review file as read: its format, its rows of answers, any decisions on verdicts to
 * check it carries, and what the reader noticed; nothing checked against the batch yet.
 */
export const AnswersFile = z.object({
  file_name: z.string(),
  format: SpreadsheetFormat,
  /** CSV only. */
  encoding: TextEncoding.optional(),
  /** CSV only; the delimiter to write `answers-report.csv` with, so it opens like the file sent. */
  delimiter: Delimiter.optional(),
  rows: z.array(AnswersFileRow),
  /**
   * Decisions on verdicts to check (decisions-file.ts): a file whose header has `decision_ncm`, or
   * review.xlsx's sheet of verdicts to check. Absent or empty: the file decides nothing.
   */
  decisions: z.array(DecisionLine).optional(),
  /** Rows to send again (resend-file.ts): a file whose header has `resend_row`. Absent: none. */
  resends: z.array(ResendLine).optional(),
  /** What the reader noticed without refusing the file (garbled accents, long rows). */
  problems: z.array(SpreadsheetProblem),
});
export type AnswersFile = z.infer<typeof AnswersFile>;

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

const ANSWERS_FILE_ERROR_CODES = [
  'not_a_review_file',
  'question_id_column_missing',
  'duplicate_column',
] as const;
/**
 * Why a file is not a review file: not one at all, an answer column without its question id, or a
 * column twice.
 */
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
 * `answer-1 (resposta)` all are `answer_1`; review.xlsx's headers in any of its languages
 * (`Resposta 1`, `Respuesta 1`) are the columns they stand for (outbox/workbook-language.ts).
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
    const key = REVIEW_HEADER_KEYS.get(headerKey(text)) ?? headerKey(text);
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
      `is not a review.csv: it has no ${missing.join(' and no ')}. Send back the review.csv or ` +
        `review.xlsx the batch wrote, with the answer columns filled in. ` +
        `Columns found: ${found.length > 0 ? quoted(found) : '(none)'}`,
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
 * A review.xlsx carries our hidden sheet of suggested answers after the questions, and the sheet
 * of verdicts to check (read on its own): not sheets the user added, so not worth a word. Any
 * other sheet is still reported as not read.
 */
const withoutOwnOptionsSheet = <T extends { problems: SpreadsheetProblem[]; otherSheets: string[] }>(
  read: T,
): T =>
  read.otherSheets.every((name) => OPTIONS_SHEET_NAMES.has(name) || CHECK_SHEET_NAMES.has(name))
    ? { ...read, problems: read.problems.filter((problem) => problem.code !== 'other_sheets_ignored') }
    : read;

/**
 * Reads a returned review.csv (or the XLSX a user saved it as). Built on the same readers as
 * every other entry point (decoding, delimiter detection, quoting, blank rows), but not on
 * `readSpreadsheet`: its column matching is for product files, and would refuse a review file
 * a user added a "Código" column to (a second SKU column) or took the description out of.
 * A header with no data rows is a review.csv with nothing pending: it reads as no rows. A file of
 * decisions only (to-check.csv) reads as decisions and no rows. Throws `AnswersFileError` when the
 * file is not a review file, `SpreadsheetError` when it cannot be read at all.
 */
export const readAnswersFile = async (bytes: Uint8Array, fileName: string): Promise<AnswersFile> => {
  if (bytes.length === 0) throw new SpreadsheetError('file_empty', fileName, 'is empty (0 bytes)');
  const format = detectFormat(bytes, fileName);
  const csv = format === 'csv' ? await readCsvRecords(bytes, fileName) : null;
  const source = csv ?? withoutOwnOptionsSheet(await readXlsxRecords(bytes, fileName));
  const table = splitHeaderAndRows(source.records, fileName);
  const read = {
    file_name: fileName,
    format,
    ...(csv ? { encoding: csv.encoding, delimiter: csv.delimiter } : {}),
    problems: [...source.problems, ...table.problems],
  };
  // A file of rows to send again (the console's "reenviar"): no questions to find.
  if (csv && isResendHeader(table.header)) return { ...read, rows: [], resends: readResendLines(table) };
  // A file of decisions only (to-check.csv, the console's): no questions to find.
  if (isDecisionsHeader(table.header))
    return { ...read, rows: [], decisions: readDecisionLines(table, fileName) };
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
  return { ...read, rows, decisions: csv ? [] : await readCheckSheetDecisions(bytes, fileName) };
};
