/**
 * Decisions on verdicts to check (docs/answers-round.md, "Decisions"), as they come back in an
 * answers file: a to-check.csv filled in (or the console's file of decisions: any CSV whose header
 * has `decision_ncm`), or review.xlsx's sheet of verdicts to check, its headers in any of the
 * workbook's languages (outbox/workbook-language.ts). Pure reading: whether a decision stands is
 * plan-decisions.ts's.
 *
 *   header with decision_ncm ──readDecisionLines──▶ DecisionLine[] (one per data line, in file order)
 */
import * as z from 'zod';
import { headerKey } from '../../spreadsheet/columns.js';
import { readXlsxSheetRecords } from '../../spreadsheet/read-xlsx.js';
import { splitHeaderAndRows, type Table } from '../../spreadsheet/table.js';
import { message, wordMessage } from '../../wording/index.js';
import { CHECK_HEADER_KEYS, CHECK_SHEET_NAMES } from '../outbox/workbook-language.js';
import { cellText, parseRowNumber } from './file-cells.js';

/** One decision as read back from a file: which row and classification, the NCM and SIM decided, the note. */
export const DecisionLine = z.object({
  /** Physical line (CSV) or sheet row (XLSX): for messages when `row` is lost. */
  line: z.number().int().min(1),
  /** The `row` cell: the batch's row number; null when the cell is empty or not a number. */
  row: z.number().int().min(1).nullable(),
  classification_id: z.string(),
  /** As typed or chosen (`8471.30.12` or `84713012`); "" decides nothing. */
  ncm: z.string(),
  /** As typed or chosen; "" when none. */
  sim: z.string(),
  note: z.string(),
});
export type DecisionLine = z.infer<typeof DecisionLine>;

/** The columns read; the others (the product, the candidates) are there for the person. */
const NEEDED = ['row', 'classification_id', 'decision_ncm'] as const;

const columnsOf = (header: readonly string[]): Map<string, number> => {
  const columns = new Map<string, number>();
  header.forEach((text, index) => {
    const name = CHECK_HEADER_KEYS.get(headerKey(text));
    // The first column of a name is read: the sheet's own, before any copy the person added.
    if (name !== undefined && !columns.has(name)) columns.set(name, index);
  });
  return columns;
};

/** Whether a file's header is a decisions file's: it has the decided NCM's column. */
export const isDecisionsHeader = (header: readonly string[]): boolean =>
  columnsOf(header).has('decision_ncm');

/** A decisions file that lacks a column it needs: the file is refused, naming the columns. */
export class DecisionsFileError extends Error {
  override readonly name = 'DecisionsFileError';
  readonly fileName: string;
  readonly missing: string[];

  constructor(fileName: string, missing: string[]) {
    super(wordMessage(message('decisions_columns_missing', { file: fileName, missing }), 'en'));
    this.fileName = fileName;
    this.missing = missing;
  }
}

/** One decision line per data line of a decisions table, in file order; blank lines are not data. */
export const readDecisionLines = (
  table: Pick<Table, 'header' | 'rows'>,
  fileName: string,
): DecisionLine[] => {
  const columns = columnsOf(table.header);
  const missing = NEEDED.filter((name) => !columns.has(name));
  if (missing.length > 0) throw new DecisionsFileError(fileName, [...missing]);
  return table.rows.map((record) => {
    const cell = (name: string): string => {
      const index = columns.get(name);
      return index === undefined ? '' : cellText(record.cells[index]);
    };
    return {
      line: record.line,
      row: parseRowNumber(cell('row')),
      classification_id: cell('classification_id'),
      ncm: cell('decision_ncm'),
      sim: cell('decision_sim'),
      note: cell('decision_note'),
    };
  });
};

/** review.xlsx's sheet of verdicts to check, read as decisions; [] when the workbook has none. */
export const readCheckSheetDecisions = async (
  bytes: Uint8Array,
  fileName: string,
): Promise<DecisionLine[]> => {
  const records = await readXlsxSheetRecords(bytes, fileName, (name) => CHECK_SHEET_NAMES.has(name));
  if (records === null || records.length === 0) return [];
  return readDecisionLines(splitHeaderAndRows(records, fileName), fileName);
};
