/**
 * Which rows and columns of a text file hold characters read from bytes that were not UTF-8
 * (decode-text.ts): the warning that names the encoding used, where the first such byte is, and
 * the rows and columns to check. Holds the first rows of each kind and counts, never the rows.
 */

import { message, wordMessages } from '../wording/index.js';
import type { Message } from '../wording/message.js';
import { columnLetter } from './column-letters.js';
import type { ForeignBytes, ForeignBytesAt, SourceRecord } from './table.js';

/** How many rows a warning names before it only counts them (as row-warnings.ts does). */
const ROWS_NAMED = 10;
const COLUMNS_NAMED = 10;
const NOT_ASCII = /[\u0080-\u{10FFFF}]/u;

type Tally = { header: boolean; rows: number[]; count: number; columns: Set<number> };

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
    /** One warning for each way bytes were read that was not UTF-8 (shared/wording/warnings.ts). */
    messages(fileName: string, first: Partial<Record<ForeignBytes, ForeignBytesAt>>): Message[] {
      return (['windows-1252', 'cesu-8'] as const).flatMap((kind) => {
        const at = first[kind];
        if (!at) return [];
        const tally = tallies.get(kind) ?? { header: false, rows: [], count: 0, columns: new Set<number>() };
        const columns = [...tally.columns].sort((a, b) => a - b);
        const named = columns.slice(0, COLUMNS_NAMED);
        return [
          message('text_not_utf8', {
            file: fileName,
            read_as: kind,
            line: at.line,
            offset: at.offset,
            bytes: hexBytes(at.bytes),
            header_row: tally.header,
            rows: tally.rows,
            total: tally.count,
            headers: named.map((index) => header[index]?.trim() ?? ''),
            letters: named.map(columnLetter),
            more_columns: columns.length - named.length,
          }),
        ];
      });
    },
    /** The same in English. */
    warnings(fileName: string, first: Partial<Record<ForeignBytes, ForeignBytesAt>>): string[] {
      return wordMessages(this.messages(fileName, first), 'en');
    },
  };
};
