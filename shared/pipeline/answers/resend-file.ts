/**
 * Rows sent again (docs/answers-round.md, "Sending rows again"), as they come in an answers file:
 * a CSV whose header has `resend_row`, one line per rejected or failed row to send again, with the
 * cells that change. The console writes it (`POST /resends`); a person may write it too. Pure
 * reading: whether a row may go again, and as what, is resend-rows.ts's.
 *
 *   resend_row,description,operation,country,sheet
 *   20,,,,valvula-esfera.pdf          ← row 20 again, with a new sheet in answers/<batch-id>/
 *   30,,import,,                      ← row 30 again, its operation corrected
 */
import * as z from 'zod';
import { headerKey } from '../../spreadsheet/columns.js';
import type { Table } from '../../spreadsheet/table.js';
import { writeCsv } from '../../spreadsheet/write-csv.js';
import { cellText, parseRowNumber } from './file-cells.js';

/** The header of a file of rows to send again, in its order: the row, then the cells that may change. */
const RESEND_COLUMNS = ['resend_row', 'description', 'operation', 'country', 'sheet'] as const;

/**
 * One row to send again, as read: where the line is, which row, and each corrected cell ("" keeps the
 * row's own cell). `sheet` is a new technical sheet's path inside `answers/<batch-id>/`.
 */
export const ResendLine = z.object({
  /** Physical line of the CSV: for messages when `row` is lost. */
  line: z.number().int().min(1),
  /** The batch's row number; null when the cell is empty or not a number. */
  row: z.number().int().min(1).nullable(),
  description: z.string(),
  operation: z.string(),
  country: z.string(),
  sheet: z.string(),
});
export type ResendLine = z.infer<typeof ResendLine>;

/** Whether a file's header is a file of rows to send again: it has the `resend_row` column. */
export const isResendHeader = (header: readonly string[]): boolean =>
  header.some((text) => headerKey(text) === headerKey('resend_row'));

/** One resend line per data line of a table whose header has `resend_row`, in file order. */
export const readResendLines = (table: Pick<Table, 'header' | 'rows'>): ResendLine[] => {
  // Headers compared by `headerKey`, as every file's: `Resend row` and `RESEND_ROW` are `resend_row`.
  const columns = new Map<string, number>();
  table.header.forEach((text, index) => {
    const name = RESEND_COLUMNS.find((column) => headerKey(column) === headerKey(text));
    if (name !== undefined && !columns.has(name)) columns.set(name, index);
  });
  return table.rows.map((record) => {
    const cell = (name: (typeof RESEND_COLUMNS)[number]): string => {
      const index = columns.get(name);
      return index === undefined ? '' : cellText(record.cells[index]);
    };
    return {
      line: record.line,
      row: parseRowNumber(cell('resend_row')),
      description: cell('description'),
      operation: cell('operation'),
      country: cell('country'),
      sheet: cell('sheet'),
    };
  });
};

/**
 * What became of one line of a file of rows to send again: `resent`, or why not (not a row of the
 * batch, a row that is not rejected or failed, cells still wrong, the row named twice).
 */
export const ResendOutcome = z.enum([
  'resent',
  'unknown_row',
  'not_resendable',
  'still_rejected',
  'duplicate',
]);
export type ResendOutcome = z.infer<typeof ResendOutcome>;

/**
 * Takes rows to send again and gives the resend file's bytes (a CSV with the `resend_row` header,
 * through `writeCsv`: BOM, CRLF, each cell neutralised as every file we write), which
 * `readResendLines` reads back as given.
 */
export const buildResendCsv = (
  rows: readonly (Pick<ResendLine, 'description' | 'operation' | 'country' | 'sheet'> & { row: number })[],
): Buffer =>
  writeCsv(
    RESEND_COLUMNS,
    rows.map((row) => [String(row.row), row.description, row.operation, row.country, row.sheet]),
    { delimiter: ',' },
  );
