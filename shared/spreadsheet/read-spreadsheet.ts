/**
 * The one reader of product files: an uploaded CSV, XLSX, SPED EFD or NF-e → header, column mapping and text
 * rows, streamed in passes (`openSpreadsheet`) or read whole for small files. (A review file has
 * its own columns: answers-file.ts reads the same records whole, `readCsvRecords` and
 * `readXlsxRecords`, itself.)
 * Row values are not judged here (`normaliseRow` does that); only what makes the whole file
 * unusable throws a `SpreadsheetError`.
 */

import type { Message } from '../wording/message.js';
import { type ByteSource, bytesSource, readBytes } from './byte-source.js';
import { fitRow, MAX_HEADER_BYTES, MAX_HEADER_CHARACTERS, withoutControlCharacters } from './cell-limits.js';
import { columnLetter } from './column-letters.js';
import { mapRow, matchColumns } from './columns.js';
import { foreignTextCollector } from './encoding-report.js';
import { SpreadsheetError } from './errors.js';
import { openCsv } from './read-csv.js';
import { isInvoiceArchive, looksLikeXml, openNfe } from './read-nfe.js';
import { looksLikeSped, openSped } from './read-sped.js';
import { openXlsx } from './read-xlsx.js';
import type {
  ColumnMapping,
  Delimiter,
  MappedRow,
  SpreadsheetFormat,
  SpreadsheetProblem,
  SpreadsheetRead,
  TextEncoding,
} from './schemas.js';
import { headerOf, isBlank, type RecordSource, toDataRecord } from './table.js';

/** Every XLSX is a ZIP archive: local file header `PK\x03\x04`. */
const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04] as const;
/** Excel 97-2003 `.xls` is an OLE2 compound file. */
const OLE2_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1] as const;
const EXCEL_EXTENSIONS = /\.(xlsx|xlsm|xltx|xls)$/i;

const startsWith = (bytes: Uint8Array, signature: readonly number[]): boolean =>
  bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte);

/**
 * Content first, name second: people rename files (`catalogo.csv` that is really an XLSX),
 * so the bytes decide whenever they can.
 */
export const detectFormat = (bytes: Uint8Array, fileName: string): SpreadsheetFormat => {
  if (startsWith(bytes, ZIP_SIGNATURE)) return 'xlsx';
  if (startsWith(bytes, OLE2_SIGNATURE)) {
    throw new SpreadsheetError(
      'xls_not_supported',
      fileName,
      'is an old Excel 97-2003 (.xls) workbook; save it as .xlsx or CSV and upload it again',
    );
  }
  if (EXCEL_EXTENSIONS.test(fileName)) {
    throw new SpreadsheetError(
      'xlsx_invalid',
      fileName,
      'is named like an Excel workbook but is not a valid XLSX file; open it in Excel and save it ' +
        'again as .xlsx, or upload a CSV',
    );
  }
  return 'csv';
};

/**
 * The most data rows one file may hold: the largest bulk upload any peer accepts, and what
 * Prepare reads, plans and writes inside one Lambda run (docs/options.md, "Limits").
 */
export const MAX_DATA_ROWS = 400_000;

/** A file opened for reading: its header and columns known, its rows read in passes. */
export interface SpreadsheetFile {
  format: SpreadsheetFormat;
  /** CSV only. */
  delimiter?: Delimiter;
  header: string[];
  columns: ColumnMapping;
  /** One read of the data rows, in order; each call reads the file afresh. */
  readRows(): RowsPass;
}

interface RowsPass {
  rows: AsyncIterable<MappedRow>;
  /**
   * What the pass found, complete once its rows are all read: `warnings`, what the person who sent
   * the file should check before paying (text read from bytes that were not UTF-8), in English and
   * as `messages` each reader words in its language.
   */
  finished(): {
    encoding?: TextEncoding;
    problems: SpreadsheetProblem[];
    warnings: string[];
    messages: Message[];
    rowCount: number;
  };
}

const openRecords = async (
  source: ByteSource,
  format: SpreadsheetFormat,
  fileName: string,
): Promise<RecordSource> => {
  if (format === 'csv') return openCsv(source, fileName);
  if (format === 'sped') return openSped(source, fileName);
  if (format === 'nfe') return openNfe(source, fileName);
  const workbook = await openXlsx(source, fileName);
  return { read: () => ({ records: workbook.records(), problems: [...workbook.problems] }) };
};

/** First bytes enough to tell the formats apart: a SPED file's `|0000|` or an XML's start after a BOM. */
const SIGNATURE_BYTES = 512;

/**
 * The format by content: a ZIP is a workbook unless it holds no workbook (then NF-e XMLs), a text
 * file opening with SPED's `|0000|` register is SPED EFD, one opening with XML markup an NF-e.
 */
const formatOf = async (
  source: ByteSource,
  head: Uint8Array,
  fileName: string,
): Promise<SpreadsheetFormat> => {
  const byBytes = detectFormat(head, fileName);
  if (byBytes === 'xlsx') return (await isInvoiceArchive(source, fileName)) ? 'nfe' : 'xlsx';
  if (looksLikeSped(head)) return 'sped';
  if (looksLikeXml(head)) return 'nfe';
  return byBytes;
};

/**
 * Opens an uploaded file without reading it whole (docs/architecture.md, §5 "Files of any size"):
 * its format from its first bytes, its header and columns from its first filled record. What
 * makes the whole file unusable throws a `SpreadsheetError`, here or from a pass's rows.
 */
export const openSpreadsheet = async (
  source: ByteSource,
  fileName: string,
  limits: { maxRows: number } = { maxRows: MAX_DATA_ROWS },
): Promise<SpreadsheetFile> => {
  if (source.size === 0) throw new SpreadsheetError('file_empty', fileName, 'is empty (0 bytes)');
  const head = await readBytes(source, 0, Math.min(source.size, SIGNATURE_BYTES));
  const format = await formatOf(source, head, fileName);
  const records = await openRecords(source, format, fileName);
  const header = await readHeader(records, fileName);
  // Columns before rows: a wrong header is the thing to fix first, even in a header-only file.
  const columns = matchColumns(header, fileName);
  return {
    format,
    ...(records.delimiter ? { delimiter: records.delimiter } : {}),
    header,
    columns,
    readRows: () => readRows(records, { header, columns, fileName, maxRows: limits.maxRows }),
  };
};

const readHeader = async (records: RecordSource, fileName: string): Promise<string[]> => {
  for await (const record of records.read().records) {
    // Leaving the loop closes the read: only the file's start is fetched. A stray NUL in a column's
    // name is shown as its rows' cells show one, not written back into results.csv.
    if (!isBlank(record.cells)) {
      return checkHeader(headerOf(record).map(withoutControlCharacters), record.line, fileName);
    }
  }
  throw new SpreadsheetError('file_empty', fileName, 'is empty: there is no header row and no data');
};

/** A header cell names a column: one longer than a name can be is not a header. */
const checkHeader = (header: string[], line: number, fileName: string): string[] => {
  const index = header.findIndex((cell) => cell.length > MAX_HEADER_CHARACTERS);
  if (index === -1) return checkHeaderSize(header, line, fileName);
  throw new SpreadsheetError(
    'header_too_long',
    fileName,
    `the header's column ${columnLetter(index)} holds ${header[index]!.length.toLocaleString('en-US')} ` +
      `characters; a column name may hold at most ${MAX_HEADER_CHARACTERS.toLocaleString('en-US')}. ` +
      'Check that the first row is the header row',
    { line },
    { details: { letter: columnLetter(index), length: header[index]!.length, limit: MAX_HEADER_CHARACTERS } },
  );
};

/**
 * The header's names in all: a file of thousands of columns named at length would not fit the
 * batch's record, which keeps every name for results.csv.
 */
const checkHeaderSize = (header: string[], line: number, fileName: string): string[] => {
  const bytes = header.reduce((sum, cell) => sum + Buffer.byteLength(cell, 'utf8'), 0);
  if (bytes <= MAX_HEADER_BYTES) return header;
  const sizeKb = Math.ceil(bytes / 1024);
  const limitKb = MAX_HEADER_BYTES / 1024;
  throw new SpreadsheetError(
    'header_too_large',
    fileName,
    `the header's ${header.length.toLocaleString('en-US')} column names hold ${sizeKb.toLocaleString('en-US')} KB ` +
      `of text in all; a batch keeps at most ${limitKb} KB of them. Shorten the names or leave out ` +
      'columns the classification does not need',
    { line },
    { details: { column_count: header.length, size_kb: sizeKb, limit_kb: limitKb } },
  );
};

/** Row problems listed per kind before the rest are only counted: a summary stays readable. */
const LISTED_PROBLEMS_PER_CODE = 50;

const readRows = (
  records: RecordSource,
  file: { header: string[]; columns: ColumnMapping; fileName: string; maxRows: number },
): RowsPass => {
  const pass = records.read();
  const tableProblems: SpreadsheetProblem[] = [];
  const foreignText = foreignTextCollector(file.header);
  let rowCount = 0;
  async function* rows(): AsyncGenerator<MappedRow> {
    let headerSeen = false;
    for await (const record of pass.records) {
      if (isBlank(record.cells)) continue;
      if (!headerSeen) {
        headerSeen = true;
        foreignText.add(record, null);
        continue;
      }
      rowCount += 1;
      foreignText.add(record, rowCount);
      if (rowCount > file.maxRows) throw tooManyRows(file.fileName, file.maxRows, record.line);
      const made = toDataRecord(record, rowCount, file.header.length, file.fileName);
      if (made.problem) tableProblems.push(made.problem);
      // Cut before the row goes on, so no copy of a huge cell outlives this step.
      const fitted = fitRow(made.record.cells);
      if (!fitted) {
        yield mapRow(made.record, file.columns);
        continue;
      }
      yield { ...mapRow({ ...made.record, cells: fitted.cells }, file.columns), flaws: fitted.flaws };
    }
    if (rowCount === 0) {
      throw new SpreadsheetError(
        'no_data_rows',
        file.fileName,
        'has a header row but no data rows: add one product per row below the header',
      );
    }
  }
  return {
    rows: rows(),
    finished: () => ({
      ...(pass.encoding ? { encoding: pass.encoding() } : {}),
      problems: boundedProblems([...pass.problems, ...tableProblems], file.fileName),
      warnings: pass.foreign ? foreignText.warnings(file.fileName, pass.foreign()) : [],
      messages: pass.foreign ? foreignText.messages(file.fileName, pass.foreign()) : [],
      rowCount,
    }),
  };
};

const tooManyRows = (fileName: string, maxRows: number, line: number) =>
  new SpreadsheetError(
    'too_many_rows',
    fileName,
    `has more than ${maxRows.toLocaleString('en-US')} data rows, the most one batch takes; ` +
      `split it into files of at most ${maxRows.toLocaleString('en-US')} rows and upload each`,
    { line },
    { details: { limit: maxRows } },
  );

/** The first problems of each kind, then one line saying how many more there are. */
const boundedProblems = (problems: readonly SpreadsheetProblem[], fileName: string): SpreadsheetProblem[] => {
  const seen = new Map<SpreadsheetProblem['code'], number>();
  const kept: SpreadsheetProblem[] = [];
  for (const problem of problems) {
    const count = (seen.get(problem.code) ?? 0) + 1;
    seen.set(problem.code, count);
    if (count <= LISTED_PROBLEMS_PER_CODE) kept.push(problem);
  }
  for (const [code, count] of seen) {
    if (count > LISTED_PROBLEMS_PER_CODE) {
      kept.push({
        code,
        message: `${fileName}: ${count - LISTED_PROBLEMS_PER_CODE} more rows like the ones above (${count} in all).`,
        said: {
          code: 'more_like_these',
          params: { file: fileName, more: count - LISTED_PROBLEMS_PER_CODE, total: count },
        },
      });
    }
  }
  return kept;
};

/** Every row of an opened file, in one read: for small files (the sample data's tools, tests). */
export const readWholeFile = async (file: SpreadsheetFile): Promise<SpreadsheetRead> => {
  const pass = file.readRows();
  const rows: MappedRow[] = [];
  for await (const row of pass.rows) rows.push(row);
  const { encoding, problems, warnings } = pass.finished();
  return {
    format: file.format,
    ...(encoding ? { encoding } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(file.delimiter ? { delimiter: file.delimiter } : {}),
    header: file.header,
    columns: file.columns,
    rows,
    problems,
  };
};

/** The whole file read into memory: for small files (the sample data's tools, tests). */
export const readSpreadsheet = async (bytes: Uint8Array, fileName: string): Promise<SpreadsheetRead> =>
  readWholeFile(await openSpreadsheet(bytesSource(bytes), fileName));
