/** Public surface of the spreadsheet core: read uploads, normalise rows, write Excel-safe CSV. */

export { type ByteSource, bytesSource } from './byte-source.js';
export { COLUMN_ALIASES, columnForHeader, columnLetter, headerKey, matchColumns } from './columns.js';
export { resolveCountryCode } from './countries.js';
export { type DecodedText, decodeText } from './decode-text.js';
export { SpreadsheetError, type SpreadsheetErrorLocation } from './errors.js';
export { FALLBACK_LANGUAGE, headerLanguage, LANGUAGES, Language } from './header-language.js';
export {
  ColumnUse,
  columnUses,
  everyColumnUse,
  fieldColumnUses,
  inputWarningCollector,
  inputWarnings,
} from './input-report.js';
export { normaliseRow, normaliseSheetPath, parseCurrentNcm, parseOperation } from './normalise-row.js';
export { detectDelimiter } from './read-csv.js';
export {
  detectFormat,
  MAX_DATA_ROWS,
  openSpreadsheet,
  type RowsPass,
  readSpreadsheet,
  type SpreadsheetFile,
} from './read-spreadsheet.js';
export { formatXlsxCell } from './read-xlsx.js';
export * from './schemas.js';
export {
  type CsvWriteOptions,
  formatCsvRecord,
  formatNcm,
  neutraliseFormula,
  outputDelimiterFor,
  restoreNeutralisedField,
  streamCsv,
  writeCsv,
} from './write-csv.js';
export {
  fittingWidth,
  streamWorkbook,
  textWidth,
  type WorkbookWriter,
  workbookBytes,
  XLSX_CONTENT_TYPE,
  xlsxText,
} from './write-xlsx.js';
