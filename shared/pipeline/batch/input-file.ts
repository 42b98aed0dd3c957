/**
 * The batch's input file: which spelling of the event's key is in the bucket, and the file read
 * as a spreadsheet, or the sentence saying why it cannot be.
 */
import { readSpreadsheet, SpreadsheetError, type SpreadsheetRead } from '../../spreadsheet/index.js';
import type { ObjectStore } from '../core/ports.js';
import type { BatchSource } from '../core/records.js';
import { inputKeyCandidates, sourceForKey } from './batch-source.js';

/**
 * The spelling of the event's key that exists in the bucket: as given, then form-decoded
 * (see batch-source.ts). Null when neither exists (deleted since the event).
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

export type InputFileRead = { read: SpreadsheetRead } | { problem: string; code: string };

export const readInputFile = async (
  objects: Pick<ObjectStore, 'getBytes'>,
  source: BatchSource,
): Promise<InputFileRead> => {
  const bytes = await objects.getBytes(source.key);
  if (bytes === null) {
    return {
      code: 'file_not_found',
      problem: `${source.file_name}: the file ${source.key} is no longer in the bucket; upload it again.`,
    };
  }
  try {
    return { read: await readSpreadsheet(bytes, source.file_name) };
  } catch (error) {
    // Its message names the file, then the line and column, for the person who uploaded it.
    if (error instanceof SpreadsheetError) return { code: error.code, problem: error.message };
    throw error;
  }
};
