/**
 * SPED EFD ICMS/IPI → records: its item registers (0200) as a catalogue. (Being written.)
 */
import type { ByteSource } from './byte-source.js';
import { SpreadsheetError } from './errors.js';
import type { RecordSource } from './table.js';

/** Whether a text file's first bytes open with SPED's `|0000|` register (after a UTF-8 BOM). */
export const looksLikeSped = (head: Uint8Array): boolean => {
  const start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  return Buffer.from(head.subarray(start, start + 6)).toString('latin1') === '|0000|';
};

export const openSped = async (_source: ByteSource, fileName: string): Promise<RecordSource> => {
  throw new SpreadsheetError('sped_no_items', fileName, 'SPED EFD files are not read yet');
};
