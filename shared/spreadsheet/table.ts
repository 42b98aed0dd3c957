/**
 * Records → header + data rows, the same for CSV and XLSX. Blank rows are dropped (Excel
 * leaves `;;;;` lines and empty sheet rows), short rows are padded, long rows keep their
 * extra cells and are reported.
 */
import { SpreadsheetError } from './errors.js';
import type { Delimiter, SpreadsheetProblem, TextEncoding } from './schemas.js';

/**
 * Bytes that are not UTF-8, and how they were read (decode-text.ts): `windows-1252`, a byte read as
 * Windows-1252; `cesu-8`, a UTF-16 surrogate encoded as if it were a character (CESU-8, Java's
 * "modified UTF-8"), read as the character its pair stands for, or as U+FFFD when it has no pair.
 */
export type ForeignBytes = 'windows-1252' | 'cesu-8';

/** Where the first bytes of a kind were found: the physical line, the byte offset, the bytes. */
export type ForeignBytesAt = { line: number; offset: number; bytes: number[] };

/** One record of the file as parsed, before blank rows are dropped or columns matched. */
export interface SourceRecord {
  /**
   * 1-based physical line (CSV, SPED) or sheet row (XLSX) where the record starts; for an NF-e item,
   * the line of its `<det>` in its XML (in a ZIP, in its entry's XML).
   */
  line: number;
  cells: string[];
  /** CSV: how bytes of the record that were not UTF-8 were read (decode-text.ts), when it had any. */
  foreign?: ForeignBytes[];
}

/** A data record (header and blank rows dropped) with its 1-based data row number. */
export interface DataRecord extends SourceRecord {
  row: number;
}

/**
 * A file of any format as records, read afresh on each call: its header record first (a SPED or
 * NF-e reader makes one, naming the fields as their layouts do), then its data records. A pass's
 * `problems`, `encoding` and `foreign` are complete once its records are all read.
 */
export type RecordSource = {
  delimiter?: Delimiter;
  read(): {
    records: AsyncIterable<SourceRecord>;
    encoding?: () => TextEncoding;
    foreign?: () => Partial<Record<ForeignBytes, ForeignBytesAt>>;
    problems: SpreadsheetProblem[];
  };
};

export interface Table {
  header: string[];
  rows: DataRecord[];
  problems: SpreadsheetProblem[];
}

export const isBlank = (cells: readonly string[]): boolean => cells.every((cell) => cell.trim() === '');

/** Length of `cells` without its trailing empty cells. */
const usedWidth = (cells: readonly string[]): number => {
  let width = cells.length;
  while (width > 0 && cells[width - 1]!.trim() === '') width--;
  return width;
};

/** The header cells: the first filled record, without the unnamed empty columns a trailing delimiter makes. */
export const headerOf = (record: SourceRecord): string[] => record.cells.slice(0, usedWidth(record.cells));

/** The extra cells a problem quotes: the first few, each cut short, so a sentence stays a sentence. */
const QUOTED_EXTRAS = 5;
const QUOTED_CHARACTERS = 40;
const quotedExtras = (extra: readonly string[]): string => {
  const shown = extra
    .slice(0, QUOTED_EXTRAS)
    .map((cell) => `"${cell.length > QUOTED_CHARACTERS ? `${cell.slice(0, QUOTED_CHARACTERS)}…` : cell}"`);
  return extra.length > QUOTED_EXTRAS
    ? `${shown.join(', ')} and ${extra.length - QUOTED_EXTRAS} more`
    : shown.join(', ');
};

/**
 * A data record against the header's width: short rows padded, long rows kept whole with the
 * problem that says which cells are extra.
 */
export const toDataRecord = (
  record: SourceRecord,
  row: number,
  width: number,
  fileName: string,
): { record: DataRecord; problem: SpreadsheetProblem | null } => {
  const used = usedWidth(record.cells);
  if (used > width) {
    const extra = record.cells.slice(width, used);
    return {
      record: { row, line: record.line, cells: record.cells.slice(0, used) },
      problem: {
        code: 'row_longer_than_header',
        row,
        line: record.line,
        message:
          `${fileName}, line ${record.line} (row ${row}): ${used} cells for ${width} columns; ` +
          `the extra cells (${quotedExtras(extra)}) are kept after the last column`,
        said: {
          code: 'row_longer_than_header',
          params: {
            file: fileName,
            line: record.line,
            row,
            cells: used,
            columns: width,
            extra: extra
              .slice(0, QUOTED_EXTRAS)
              .map((cell) =>
                cell.length > QUOTED_CHARACTERS ? `${cell.slice(0, QUOTED_CHARACTERS)}…` : cell,
              ),
            more: Math.max(0, extra.length - QUOTED_EXTRAS),
          },
        },
      },
    };
  }
  const cells = record.cells.slice(0, width);
  while (cells.length < width) cells.push('');
  return { record: { row, line: record.line, cells }, problem: null };
};

export const splitHeaderAndRows = (records: readonly SourceRecord[], fileName: string): Table => {
  const filled = records.filter((record) => !isBlank(record.cells));
  const [headerRecord, ...dataRecords] = filled;
  if (!headerRecord) {
    throw new SpreadsheetError('file_empty', fileName, 'is empty: there is no header row and no data');
  }
  const header = headerOf(headerRecord);
  const problems: SpreadsheetProblem[] = [];
  const rows = dataRecords.map((record, index): DataRecord => {
    const made = toDataRecord(record, index + 1, header.length, fileName);
    if (made.problem) problems.push(made.problem);
    return made.record;
  });
  return { header, rows, problems };
};
