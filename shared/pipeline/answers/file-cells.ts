/**
 * A returned file's cells as the person meant them, for answers (answers-file.ts) and decisions
 * (decisions-file.ts) alike.
 */
import { restoreNeutralisedField } from '../../spreadsheet/write-csv.js';

/**
 * What the user meant, not how the spreadsheet stored it: spaces trimmed, our own `'` before a
 * formula character removed (writeCsv put it there; Excel keeps it as text in a CSV), and NFC,
 * so `ção` typed on a Mac (decomposed) and on Windows (composed) is the same answer and hashes
 * to the same answers key.
 */
export const cellText = (value: string | undefined): string =>
  restoreNeutralisedField((value ?? '').trim())
    .trim()
    .normalize('NFC');

/** `3`, and the shapes a spreadsheet turns it into (`3.0`, `3,00`, ` 3 `); anything else is unknown. */
export const parseRowNumber = (value: string): number | null => {
  const match = /^0*([1-9][0-9]{0,8})(?:[.,]0+)?$/.exec(value);
  return match ? Number(match[1]) : null;
};
