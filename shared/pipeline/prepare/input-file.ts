/**
 * The batch's input file: which spelling of the event's key is in the bucket, and the file opened
 * as a spreadsheet, or the message saying why it cannot be.
 */

import { SpreadsheetError } from '../../spreadsheet/errors.js';
import { MAX_DATA_ROWS, openSpreadsheet, type SpreadsheetFile } from '../../spreadsheet/read-spreadsheet.js';
import type { SpreadsheetProblem } from '../../spreadsheet/schemas.js';
import { message } from '../../wording/index.js';
import { type Message, textMessage } from '../../wording/message.js';
import type { FileRefusalParams } from '../../wording/problems.js';
import type { ObjectStore } from '../core/ports.js';
import type { BatchSource } from '../core/records.js';
import { inputKeyCandidates, sourceForKey } from './batch-source.js';

/**
 * Gives the batch source under the spelling of the event's key that exists in the bucket: as
 * given, else form-decoded (S3 events may URL-encode the key). Null when neither exists (deleted
 * since the event).
 */
export const resolveInputSource = async (
  objects: Pick<ObjectStore, 'head'>,
  source: BatchSource,
): Promise<BatchSource | null> => {
  for (const key of inputKeyCandidates(source.key)) {
    const candidate = sourceForKey(key, source);
    if (candidate && (await objects.head(key))) return candidate;
  }
  return null;
};

/** Why a file cannot be read: the English sentence (the stop's detail), its code, and the message. */
export type FileProblem = { problem: string; code: string; said: Message };
/** What opening the input file gives: the file, ready to read its rows, or why it cannot be read. */
export type InputFileOpened = { file: SpreadsheetFile } | FileProblem;

/**
 * Turns a file's refusal into a message: the file, the line and column, and what the reader names
 * (a limit, a cell).
 */
export const refusalMessage = (error: SpreadsheetError): Message =>
  message('file_refused', {
    ...(error.details as Partial<FileRefusalParams>),
    reason: error.code,
    file: error.fileName,
    line: error.line,
    column: error.column,
    text: error.message,
  });

/**
 * Turns a file's error into the problem the batch records (its message names the file, then the
 * line and column); null for any other error.
 */
export const fileProblemOf = (error: unknown): FileProblem | null =>
  error instanceof SpreadsheetError
    ? { code: error.code, problem: error.message, said: refusalMessage(error) }
    : null;

/** Gives what the file's reader noted about it as a message (its sentence as written when it has none). */
export const readProblemMessage = (problem: SpreadsheetProblem): Message =>
  problem.said ?? textMessage(problem.message);

/**
 * Opens the input file for reading in passes, or gives why it cannot be: its format, header and
 * columns are known, and it has been read through once, its rows only counted,
 * so a file with more rows than a batch takes, or unreadable further on, is refused in the seconds
 * a read takes rather than after the minutes of planning its rows (a zip bomb of 468,541 rows took
 * five). A row pass may still find it unreadable if its object changes in between. A later leg of
 * Prepare (`readThrough` false) skips that read: its first leg has already made it.
 */
export const openInputFile = async (
  objects: Pick<ObjectStore, 'source'>,
  source: BatchSource,
  limits: { maxRows: number } = { maxRows: MAX_DATA_ROWS },
  { readThrough = true }: { readThrough?: boolean } = {},
): Promise<InputFileOpened> => {
  const bytes = await objects.source(source.key);
  if (bytes === null) {
    return {
      code: 'file_not_found',
      problem: `${source.file_name}: the file ${source.key} is no longer in the bucket; upload it again.`,
      said: message('input_missing', { file: source.file_name, key: source.key }),
    };
  }
  try {
    const file = await openSpreadsheet(bytes, source.file_name, limits);
    if (readThrough) for await (const _row of file.readRows().rows);
    return { file };
  } catch (error) {
    const problem = fileProblemOf(error);
    if (problem) return problem;
    throw error;
  }
};
