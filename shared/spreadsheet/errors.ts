import type { SpreadsheetErrorCode } from './schemas.js';

export interface SpreadsheetErrorLocation {
  /** 1-based physical line (CSV) or sheet row (XLSX). */
  line?: number;
  /** Header of the column as written in the file. */
  column?: string;
}

/** A list names what the reader found (`zip_no_invoices`: the files in the ZIP). */
export type SpreadsheetErrorDetails = Record<string, string | number | string[]>;

/**
 * A file that cannot be read at all. The message is meant for the person who uploaded
 * it: it starts with the file name, then the line and column where they apply.
 */
export class SpreadsheetError extends Error {
  override readonly name = 'SpreadsheetError';
  readonly code: SpreadsheetErrorCode;
  readonly fileName: string;
  readonly line: number | undefined;
  readonly column: string | undefined;
  /**
   * What the sentence names beyond the file, line and column, as values a translation can use:
   * the workbook's part (`xl/worksheets/sheet1.xml`), the cell (`C5`), the limit passed.
   */
  readonly details: Readonly<SpreadsheetErrorDetails>;

  constructor(
    code: SpreadsheetErrorCode,
    fileName: string,
    detail: string,
    location: SpreadsheetErrorLocation = {},
    options?: ErrorOptions & { details?: SpreadsheetErrorDetails },
  ) {
    super(`${describeLocation(fileName, location)}: ${detail}`, options);
    this.code = code;
    this.fileName = fileName;
    this.line = location.line;
    this.column = location.column;
    this.details = options?.details ?? {};
  }
}

const describeLocation = (fileName: string, { line, column }: SpreadsheetErrorLocation): string =>
  [fileName, line === undefined ? null : `line ${line}`, column === undefined ? null : `column "${column}"`]
    .filter((part) => part !== null)
    .join(', ');
