/**
 * How a file was understood, told to the person who sent it: each column's use (a pipeline
 * field, or passed through untouched) and the warnings worth acting on before paying for a
 * classification. Prepare keeps both on the batch and summary.json shows them, so nothing a user
 * gives is silently ignored.
 */
import { z } from 'zod';
import { columnLetter } from './columns.js';
import { parseCurrentNcm } from './normalise-row.js';
import { type ColumnMapping, type ColumnRef, PipelineColumn, type SpreadsheetRead } from './schemas.js';

/** One column of the file and what the pipeline does with it. */
export const ColumnUse = z.object({
  /** The column's letter, as a spreadsheet program shows it. */
  column: z.string(),
  header: z.string(),
  /** The pipeline field the column was read as; null when it is passed through untouched. */
  understood_as: PipelineColumn.nullable(),
});
export type ColumnUse = z.infer<typeof ColumnUse>;

/** Every column of the header, in file order, with the field it was read as. */
export const columnUses = (header: readonly string[], columns: ColumnMapping): ColumnUse[] => {
  const fieldAt = new Map(
    Object.entries(columns.fields).map(([field, ref]) => [ref.index, PipelineColumn.parse(field)]),
  );
  return header.map((text, index) => ({
    column: columnLetter(index),
    header: text,
    understood_as: fieldAt.get(index) ?? null,
  }));
};

const describe = (ref: ColumnRef): string => `"${ref.header}" (column ${columnLetter(ref.index)})`;

/** A share of a column's filled cells above which its values "look like" something. */
const MOSTLY = 0.5;
const SHEET_FILE_NAME = /\.pdf\s*$/i;
const EXAMPLES = 2;

/**
 * A column the pipeline does not read whose cells are mostly PDF file names: the user meant
 * them as technical sheets under a header no alias knows, and the rows would go without them.
 */
const sheetLikeColumns = (read: Pick<SpreadsheetRead, 'columns' | 'rows'>): string[] =>
  read.columns.passthrough.flatMap((ref, position) => {
    const filled = read.rows.map((row) => row.passthrough[position]?.trim() ?? '').filter(Boolean);
    const names = filled.filter((value) => SHEET_FILE_NAME.test(value));
    if (names.length === 0 || names.length < filled.length * MOSTLY) return [];
    const sheetColumn = read.columns.fields.sheet;
    return [
      `Column ${describe(ref)} is not read, but its cells look like technical sheet file names ` +
        `(${names.slice(0, EXAMPLES).join(', ')}): ` +
        (sheetColumn
          ? `only column ${describe(sheetColumn)} is read as the sheet.`
          : 'name that column "sheet" (or "ficha técnica") to send the sheets with the rows.'),
    ];
  });

/** Current NCMs of seven digits: a spreadsheet program read `02071400` as a number. */
const leadingZerosLost = (read: Pick<SpreadsheetRead, 'columns' | 'rows'>): string[] => {
  const ref = read.columns.fields.current_ncm;
  if (!ref) return [];
  const lost = read.rows.filter((row) =>
    parseCurrentNcm(row.fields.current_ncm ?? '').flags.includes('leading_zero_probably_lost'),
  );
  const first = lost[0];
  if (!first) return [];
  const example = `${first.fields.current_ncm?.trim()}`;
  const who =
    lost.length === 1
      ? `Row ${first.row} declares a 7-digit NCM (${example}) in column ${describe(ref)}`
      : `${lost.length} rows declare a 7-digit NCM in column ${describe(ref)}, the first on row ${first.row} (${example})`;
  return [
    `${who}: a spreadsheet program probably dropped the leading zero, so it was read with one put ` +
      'back. Format that column as text to keep the zeros.',
  ];
};

/** What a person should look at in the file before paying: an empty list when nothing. */
export const inputWarnings = (read: Pick<SpreadsheetRead, 'columns' | 'rows'>): string[] => [
  ...sheetLikeColumns(read),
  ...leadingZerosLost(read),
];
