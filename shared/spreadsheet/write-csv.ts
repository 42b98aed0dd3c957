/**
 * Excel-safe CSV output (spreadsheets.md, Writing output): UTF-8 with a BOM so a
 * double-click shows accents, the input's delimiter, CRLF, RFC 4180 quoting, and formula
 * injection neutralised (OWASP "CSV Injection", CWE-1236): descriptions and answers come
 * from suppliers and reviewers and are untrusted.
 */
import { NCM_PATTERN, SIM_CODE_PATTERN } from '../tcs/schemas.js';
import type { Delimiter, SpreadsheetRead } from './schemas.js';

export interface CsvWriteOptions {
  delimiter: Delimiter;
  /** Default true: without it Excel reads UTF-8 as Windows-1252 and shows `DescriÃ§Ã£o`. */
  bom?: boolean;
}

const BOM = '\uFEFF';
const CRLF = '\r\n';

/** Characters that make Excel (or LibreOffice, Sheets) start a formula or a DDE call. */
const FORMULA_TRIGGERS = /^[=+\-@\t\r]/;

/** `=HYPERLINK(…)` → `'=HYPERLINK(…)`: shown as text, never evaluated. */
export const neutraliseFormula = (field: string): string =>
  FORMULA_TRIGGERS.test(field) ? `'${field}` : field;

/**
 * Undoes `neutraliseFormula` on a value read back from one of our own files (the answers
 * round): Excel keeps the `'` as text in a CSV. Not applied by the reader on its own,
 * because in a user's first upload a leading `'` is the user's.
 */
export const restoreNeutralisedField = (field: string): string =>
  field.startsWith("'") && FORMULA_TRIGGERS.test(field.slice(1)) ? field.slice(1) : field;

/** RFC 4180: quote a field holding the delimiter, a quote or a line break; double its quotes. */
const quoteField = (field: string, delimiter: Delimiter): string =>
  field.includes(delimiter) || /["\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;

/** One record, neutralised and quoted, ending in CRLF. */
export const formatCsvRecord = (cells: readonly string[], delimiter: Delimiter): string =>
  cells.map((cell) => quoteField(neutraliseFormula(cell), delimiter)).join(delimiter) + CRLF;

export const writeCsv = (
  header: readonly string[],
  rows: Iterable<readonly string[]>,
  options: CsvWriteOptions,
): Buffer => {
  const parts = [options.bom === false ? '' : BOM, formatCsvRecord(header, options.delimiter)];
  for (const row of rows) parts.push(formatCsvRecord(row, options.delimiter));
  return Buffer.from(parts.join(''), 'utf8');
};

/** About how many characters of records go into one chunk of `streamCsv`. */
const CHUNK_CHARACTERS = 32 * 1024;

/**
 * The same bytes as `writeCsv`, chunk by chunk, for outputs too large to hold at once:
 * `Readable.from(streamCsv(header, rows, options))` is an S3 upload body. Records go out a
 * hundred or so at a time, in chunks of about 32 K characters: a Buffer per record would be, for
 * a file of 100,000 rows, 100,000 small objects for the upload to gather into its parts.
 */
export async function* streamCsv(
  header: readonly string[],
  rows: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
  options: CsvWriteOptions,
): AsyncGenerator<Buffer> {
  let chunk = (options.bom === false ? '' : BOM) + formatCsvRecord(header, options.delimiter);
  for await (const row of rows) {
    chunk += formatCsvRecord(row, options.delimiter);
    if (chunk.length < CHUNK_CHARACTERS) continue;
    yield Buffer.from(chunk, 'utf8');
    chunk = '';
  }
  if (chunk !== '') yield Buffer.from(chunk, 'utf8');
}

/**
 * An NCM in the dotted form people read, `0901.21.00`, which Excel keeps as text (a bare
 * `09012100` loses its zero on a double-click). A 10-digit SIM code gets its two extra
 * digits as a fourth group, `0901.21.00.10`, so it reads as the NCM it opens. Anything
 * else (a flagged 7-digit NCM, text) is returned unchanged: it is the user's own value.
 */
export const formatNcm = (code: string): string => {
  if (NCM_PATTERN.test(code)) return `${code.slice(0, 4)}.${code.slice(4, 6)}.${code.slice(6)}`;
  if (SIM_CODE_PATTERN.test(code)) {
    return `${code.slice(0, 4)}.${code.slice(4, 6)}.${code.slice(6, 8)}.${code.slice(8)}`;
  }
  return code;
};

/**
 * Same delimiter as the input; for XLSX input, `;`: the list separator of Excel in pt-BR
 * and es-AR, where the users are, so a double-click splits the columns.
 */
export const outputDelimiterFor = (read: Pick<SpreadsheetRead, 'delimiter'>): Delimiter =>
  read.delimiter ?? ';';
