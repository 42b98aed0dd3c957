/**
 * The warnings worth acting on before paying for a classification, from a file's rows: a column
 * the pipeline does not read whose cells are mostly PDF file names, and current NCMs whose leading
 * zero a spreadsheet program dropped. Prepare keeps them on the batch beside the columns' uses
 * (input-report.ts), worded in the reader's language where they are shown.
 */
import { message, wordMessages } from '../wording/index.js';
import type { Message } from '../wording/message.js';
import { columnLetter } from './column-letters.js';
import { parseCurrentNcm } from './normalise-row.js';
import type { ColumnMapping, MappedRow, SpreadsheetRead } from './schemas.js';

/** A share of a column's filled cells above which its values "look like" something. */
const MOSTLY = 0.5;
const SHEET_FILE_NAME = /\.pdf\s*$/i;
const EXAMPLES = 2;

/** What the warnings need of each passthrough column: how many cells are filled, how many name PDFs. */
type ColumnTally = { filled: number; names: number; examples: string[] };

/**
 * The file's warnings, from its rows one at a time (a file of any size is read in chunks): a
 * column the pipeline does not read whose cells are mostly PDF file names (the user meant them
 * as technical sheets under a header no alias knows, and the rows would go without them), and
 * current NCMs of seven digits (a spreadsheet program read `02071400` as a number).
 */
export const inputWarningCollector = (columns: ColumnMapping) => {
  const passthrough: ColumnTally[] = columns.passthrough.map(() => ({ filled: 0, names: 0, examples: [] }));
  let lostZeros = 0;
  let firstLost: MappedRow | null = null;
  return {
    add(row: MappedRow): void {
      passthrough.forEach((tally, position) => {
        const value = row.passthrough[position]?.trim() ?? '';
        if (!value) return;
        tally.filled += 1;
        if (!SHEET_FILE_NAME.test(value)) return;
        tally.names += 1;
        if (tally.examples.length < EXAMPLES) tally.examples.push(value);
      });
      if (
        columns.fields.current_ncm &&
        parseCurrentNcm(row.fields.current_ncm ?? '').flags.includes('leading_zero_probably_lost')
      ) {
        lostZeros += 1;
        firstLost ??= row;
      }
    },
    /** The warnings as messages, each worded in the reader's language (shared/wording/warnings.ts). */
    messages(): Message[] {
      return [...sheetLikeColumns(columns, passthrough), ...leadingZerosLost(columns, lostZeros, firstLost)];
    },
    /** The warnings in English. */
    warnings(): string[] {
      return wordMessages(this.messages(), 'en');
    },
  };
};

const sheetLikeColumns = (columns: ColumnMapping, tallies: readonly ColumnTally[]): Message[] =>
  columns.passthrough.flatMap((ref, position) => {
    const tally = tallies[position]!;
    if (tally.names === 0 || tally.names < tally.filled * MOSTLY) return [];
    const sheetColumn = columns.fields.sheet;
    return [
      message('sheet_like_column', {
        header: ref.header,
        letter: columnLetter(ref.index),
        examples: tally.examples,
        sheet_header: sheetColumn?.header,
        sheet_letter: sheetColumn ? columnLetter(sheetColumn.index) : undefined,
      }),
    ];
  });

const leadingZerosLost = (columns: ColumnMapping, lost: number, first: MappedRow | null): Message[] => {
  const ref = columns.fields.current_ncm;
  if (!ref || !first) return [];
  return [
    message('leading_zero_lost', {
      header: ref.header,
      letter: columnLetter(ref.index),
      count: lost,
      first_row: first.row,
      example: `${first.fields.current_ncm?.trim()}`,
    }),
  ];
};

/** What a person should look at in a file read whole before paying: an empty list when nothing. */
export const inputWarnings = (read: Pick<SpreadsheetRead, 'columns' | 'rows'>): string[] => {
  return wordMessages(inputWarningMessages(read), 'en');
};

/** The same as messages. */
const inputWarningMessages = (read: Pick<SpreadsheetRead, 'columns' | 'rows'>): Message[] => {
  const collector = inputWarningCollector(read.columns);
  for (const row of read.rows) collector.add(row);
  return collector.messages();
};
