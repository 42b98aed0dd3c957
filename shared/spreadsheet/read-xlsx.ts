/**
 * XLSX bytes → records of text cells, first sheet only. Every cell is turned into the text
 * the user sees in Excel, so the rest of the pipeline handles CSV and XLSX alike.
 */
import readXlsxFile, { InvalidInputError } from 'read-excel-file/node';
import { SpreadsheetError } from './errors.js';
import type { SpreadsheetProblem } from './schemas.js';
import type { SourceRecord } from './table.js';

export interface XlsxRecords {
  records: SourceRecord[];
  problems: SpreadsheetProblem[];
}

/**
 * Excel shows and stores 15 significant digits, while the file may hold the binary
 * double's 17 (`0.30000000000000004`). Rounding to 15 gives back what the user typed;
 * integers such as a 7-digit NCM (`2071400`) come out unchanged.
 */
export const formatXlsxNumber = (value: number): string => {
  if (!Number.isFinite(value)) return String(value);
  const shown = Number(value.toPrecision(15));
  return Object.is(shown, -0) ? '0' : String(shown);
};

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/**
 * ISO `YYYY-MM-DD`; `YYYY-MM-DDTHH:MM:SS` when the cell also holds a time of day.
 * read-excel-file builds dates in UTC from the serial number, so UTC fields are the cell's fields.
 */
export const formatXlsxDate = (date: Date): string => {
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const hasTime = date.getUTCHours() + date.getUTCMinutes() + date.getUTCSeconds() > 0;
  return hasTime
    ? `${day}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
    : day;
};

/** Booleans as Excel displays them; empty cells as "". */
export const formatXlsxCell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatXlsxNumber(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatXlsxDate(value);
  return String(value);
};

const toBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

const readSheets = async (bytes: Uint8Array, fileName: string) => {
  try {
    // trim: false, so header cells come back exactly as written; normalisation trims later.
    return await readXlsxFile(toBuffer(bytes), { trim: false });
  } catch (error) {
    if (error instanceof InvalidInputError && error.code === 'XLS_FILE_NOT_SUPPORTED') {
      throw new SpreadsheetError(
        'xls_not_supported',
        fileName,
        'is an old Excel 97-2003 (.xls) workbook; save it as .xlsx or CSV and upload it again',
        {},
        { cause: error },
      );
    }
    throw new SpreadsheetError(
      'xlsx_invalid',
      fileName,
      'is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx); ' +
        'open it in Excel and save it again as .xlsx, or upload a CSV',
      {},
      { cause: error },
    );
  }
};

export const readXlsxRecords = async (bytes: Uint8Array, fileName: string): Promise<XlsxRecords> => {
  const [first, ...others] = await readSheets(bytes, fileName);
  const problems: SpreadsheetProblem[] = [];
  if (others.length > 0) {
    problems.push({
      code: 'other_sheets_ignored',
      message:
        `${fileName}: only the first sheet "${first?.sheet ?? ''}" was read; ` +
        `ignored: ${others.map((sheet) => `"${sheet.sheet}"`).join(', ')}`,
    });
  }
  // read-excel-file always starts the data at A1, so index + 1 is the sheet row number.
  const records = (first?.data ?? []).map(
    (cells, index): SourceRecord => ({ line: index + 1, cells: cells.map(formatXlsxCell) }),
  );
  return { records, problems };
};
