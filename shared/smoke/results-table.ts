/**
 * `results.csv` read back: the input's columns first, then RESULT_COLUMNS, one record per row
 * (shared/pipeline/outbox/results-files.ts writes it). Read with the pipeline's own CSV reader
 * (BOM, the input's delimiter, RFC 4180 quoting), and each cell with the `'` that neutralised a
 * formula taken off again, as the answers round reads our own files.
 */
import { RESULT_COLUMNS, type ResultColumn } from '../pipeline/core/result-columns.js';
import { readCsvRecords } from '../spreadsheet/read-csv.js';
import { restoreNeutralisedField } from '../spreadsheet/write-csv.js';

export type ResultsRow = {
  /** The CSV line the record starts on, for messages. */
  line: number;
  inputCells: string[];
  result: Record<ResultColumn, string>;
};

export type ResultsTable = { header: string[]; rows: ResultsRow[] };

const isBlank = (cells: readonly string[]) => cells.every((cell) => cell.trim() === '');

/** The table, or the one reason it cannot be read as results.csv. */
export const readResultsTable = async (bytes: Uint8Array): Promise<ResultsTable | { problem: string }> => {
  let records: { line: number; cells: string[] }[];
  try {
    records = (await readCsvRecords(bytes, 'results.csv')).records.filter((record) => !isBlank(record.cells));
  } catch (error) {
    return { problem: `results.csv cannot be read: ${(error as Error).message}` };
  }
  const [headerRecord, ...data] = records;
  const header = headerRecord?.cells ?? [];
  const inputWidth = header.length - RESULT_COLUMNS.length;
  const tail = header.slice(Math.max(0, inputWidth));
  if (inputWidth < 0 || tail.some((name, i) => name !== RESULT_COLUMNS[i])) {
    return { problem: `results.csv does not end with the result columns (${RESULT_COLUMNS.join(', ')})` };
  }
  const rows = data.map((record) => {
    const cells = record.cells.map(restoreNeutralisedField);
    const result = Object.fromEntries(
      RESULT_COLUMNS.map((column, i) => [column, cells[inputWidth + i] ?? '']),
    ) as Record<ResultColumn, string>;
    return { line: record.line, inputCells: cells.slice(0, inputWidth), result };
  });
  return { header, rows };
};
