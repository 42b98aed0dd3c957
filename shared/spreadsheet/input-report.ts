/**
 * How a file was understood, told to the person who sent it: each column's use (a pipeline
 * field, or passed through untouched), beside the warnings worth acting on before paying for a
 * classification (input-warnings.ts). Prepare keeps both on the batch and summary.json shows them,
 * so nothing a user gives is silently ignored. The records of every function name a batch's column
 * uses: this module holds no wording.
 */
import * as z from 'zod';
import { columnLetter } from './column-letters.js';
import { type ColumnMapping, PipelineColumn } from './schemas.js';

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

/**
 * The uses a batch record keeps: the columns read as a pipeline field. Every column's would put a
 * megabyte on one DynamoDB item for a file of 20,000 columns (an item holds 400 KB); the columns
 * passed through follow from the header (`everyColumnUse`).
 */
export const fieldColumnUses = (uses: readonly ColumnUse[]): ColumnUse[] =>
  uses.filter((use) => use.understood_as !== null);

/** Every column of the header with its use, from the uses kept: a column not among them is passed through. */
export const everyColumnUse = (header: readonly string[], kept: readonly ColumnUse[]): ColumnUse[] => {
  const byColumn = new Map(kept.map((use) => [use.column, use]));
  return header.map(
    (text, index) =>
      byColumn.get(columnLetter(index)) ?? { column: columnLetter(index), header: text, understood_as: null },
  );
};
