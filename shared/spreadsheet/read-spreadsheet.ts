/**
 * The one reader every entry point uses: bytes of an uploaded CSV or XLSX → header,
 * column mapping and text rows. Row values are not judged here (`normaliseRow` does that);
 * only what makes the whole file unusable throws a `SpreadsheetError`.
 */
import { mapRow, matchColumns } from './columns.js';
import { SpreadsheetError } from './errors.js';
import type { CsvRecords } from './read-csv.js';
import { readCsvRecords } from './read-csv.js';
import { readXlsxRecords } from './read-xlsx.js';
import type { SpreadsheetFormat, SpreadsheetRead } from './schemas.js';
import { splitHeaderAndRows } from './table.js';

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

export const readSpreadsheet = async (bytes: Uint8Array, fileName: string): Promise<SpreadsheetRead> => {
  if (bytes.length === 0) {
    throw new SpreadsheetError('file_empty', fileName, 'is empty (0 bytes)');
  }
  const format = detectFormat(bytes, fileName);
  const source: SourceRead =
    format === 'xlsx' ? await readXlsxRecords(bytes, fileName) : readCsvRecords(bytes, fileName);
  return buildSpreadsheetRead(format, source, fileName);
};

/** What either reader hands over; encoding and delimiter exist for CSV only. */
type SourceRead = Pick<CsvRecords, 'records' | 'problems'> &
  Partial<Pick<CsvRecords, 'encoding' | 'delimiter'>>;

const buildSpreadsheetRead = (
  format: SpreadsheetFormat,
  source: SourceRead,
  fileName: string,
): SpreadsheetRead => {
  const table = splitHeaderAndRows(source.records, fileName);
  // Columns before rows: a wrong header is the thing to fix first, even in a header-only file.
  const columns = matchColumns(table.header, fileName);
  if (table.rows.length === 0) {
    throw new SpreadsheetError(
      'no_data_rows',
      fileName,
      'has a header row but no data rows: add one product per row below the header',
    );
  }
  return {
    format,
    ...(source.encoding ? { encoding: source.encoding } : {}),
    ...(source.delimiter ? { delimiter: source.delimiter } : {}),
    header: table.header,
    columns,
    rows: table.rows.map((record) => mapRow(record, columns)),
    problems: [...source.problems, ...table.problems],
  };
};
