/**
 * Which rows and columns of a text file hold characters read from bytes that were not UTF-8
 * (decode-text.ts): the warning that names the encoding used, where the first such byte is, and
 * the rows and columns to check. Holds the first rows of each kind and counts, never the rows.
 */
import { columnLetter } from './columns.js';
import type { ForeignBytes, ForeignBytesAt } from './decode-text.js';
import type { SourceRecord } from './table.js';

/** How many rows a warning names before it only counts them (as row-warnings.ts does). */
const ROWS_NAMED = 10;
const COLUMNS_NAMED = 10;
const NOT_ASCII = /[\u0080-\u{10FFFF}]/u;

type Tally = { header: boolean; rows: number[]; count: number; columns: Set<number> };

/** `rows 3, 7 and 12` (the first ten, then how many more). */
const rowList = ({ rows, count }: Tally): string => {
  const more = count - rows.length;
  if (more > 0) return `rows ${rows.join(', ')} and ${more} more`;
  if (rows.length === 1) return `row ${rows[0]}`;
  return `rows ${rows.slice(0, -1).join(', ')} and ${rows.at(-1)}`;
};

const hexBytes = (bytes: readonly number[]): string =>
  bytes.map((byte) => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');

export const foreignTextCollector = (header: readonly string[]) => {
  const tallies = new Map<ForeignBytes, Tally>();
  const tallyOf = (kind: ForeignBytes): Tally => {
    const found = tallies.get(kind);
    if (found) return found;
    const fresh: Tally = { header: false, rows: [], count: 0, columns: new Set() };
    tallies.set(kind, fresh);
    return fresh;
  };

  const columnList = (columns: ReadonlySet<number>): string => {
    const sorted = [...columns].sort((a, b) => a - b);
    // A column without a header is named by its letter alone: `columns "Descrição" (column B) and K`.
    const named = sorted.slice(0, COLUMNS_NAMED).map((index) => {
      const text = header[index]?.trim();
      return text ? `"${text}" (column ${columnLetter(index)})` : columnLetter(index);
    });
    const more = sorted.length - named.length;
    const listed = more > 0 ? `${named.join(', ')} and ${more} more` : joined(named);
    return `${sorted.length === 1 ? 'column' : 'columns'} ${listed}`;
  };

  return {
    /** A record of the file, `row` its data row number, or null for the header. */
    add(record: SourceRecord, row: number | null): void {
      for (const kind of record.foreign ?? []) {
        const tally = tallyOf(kind);
        if (row === null) {
          // The header's own accents name no column to check: its words are in the columns' names.
          tally.header = true;
          continue;
        }
        tally.count += 1;
        if (tally.rows.length < ROWS_NAMED) tally.rows.push(row);
        record.cells.forEach((cell, index) => {
          if (NOT_ASCII.test(cell)) tally.columns.add(index);
        });
      }
    },
    /** One warning for each way bytes were read that was not UTF-8. */
    warnings(fileName: string, first: Partial<Record<ForeignBytes, ForeignBytesAt>>): string[] {
      const sentences: string[] = [];
      for (const kind of ['windows-1252', 'cesu-8'] as const) {
        const at = first[kind];
        const tally = tallies.get(kind);
        if (!at) continue;
        const where = tally ? whereToLook(tally, columnList) : 'the file';
        sentences.push(kind === 'cesu-8' ? cesu8(fileName, at, where) : windows1252(fileName, at, where));
      }
      return sentences;
    },
  };
};

const joined = (items: readonly string[]): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** `rows 2 and 5 in column "Descrição" (column B)`, or the header row. */
const whereToLook = (tally: Tally, columnList: (columns: ReadonlySet<number>) => string): string => {
  const rows = tally.count > 0 ? rowList(tally) : '';
  const parts = [tally.header ? 'the header row' : '', rows].filter((part) => part !== '');
  const columns = tally.columns.size > 0 ? ` in ${columnList(tally.columns)}` : '';
  return `${joined(parts)}${columns}`;
};

const windows1252 = (fileName: string, at: ForeignBytesAt, where: string): string =>
  `${fileName} is not UTF-8 text: line ${at.line} holds the byte ${hexBytes(at.bytes)} (byte ${at.offset} of the ` +
  `file), which UTF-8 does not allow, so such bytes were read as Windows-1252, what Excel's plain "CSV" ` +
  `writes. Check the accented letters of ${where}; if any look wrong, save the file as "CSV UTF-8" and ` +
  'upload it again.';

const cesu8 = (fileName: string, at: ForeignBytesAt, where: string): string =>
  `${fileName} is not valid UTF-8: line ${at.line} holds the bytes ${hexBytes(at.bytes)} (byte ${at.offset} of ` +
  'the file), a UTF-16 surrogate written as if it were a character (CESU-8, what some Java programs and ' +
  'databases write), which UTF-8 does not allow. A pair of them was read as the character it stands for, ' +
  `a surrogate without its pair as "\uFFFD". Check ${where}, and save the file as UTF-8.`;
