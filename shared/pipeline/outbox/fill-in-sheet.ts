/**
 * A sheet a person fills in and sends back: review.xlsx's questions (review-workbook.ts) and its
 * verdicts to check (check-sheet.ts). One row per item, each column as wide as its texts need
 * (within a maximum), rows as tall as their longest wrapped text (up to a few lines); the cells a
 * person fills in are the only unlocked ones, shaded when they take an answer, each with its own
 * rule; the sheet filtered and protected without a password, so nothing else changes by mistake
 * and anyone who needs to can lift it. Its XML is made a row at a time as the workbook is read
 * (spreadsheet/write-xlsx.ts); the rules, which follow the rows in the sheet's XML, are made from
 * the items again after them rather than kept while the rows are written.
 */
import { columnLetter } from '../../spreadsheet/column-letters.js';
import type { StreamedSheet, StyleIndex } from '../../spreadsheet/write-xlsx.js';
import {
  fittingWidth,
  LINE_HEIGHT,
  textWidth,
  wrappedLines,
  xlsxText,
} from '../../spreadsheet/xlsx-layout.js';
import {
  type CellStyle,
  type CellValue,
  HEADER_CELL_STYLE,
  rowXml,
  sheetDataEnd,
  sheetEnd,
  sheetHead,
  valueCell,
} from '../../spreadsheet/xlsx-parts.js';
import {
  type CellRule,
  columnRules,
  dataValidationsXml,
  type RangeRule,
  sheetProtectionXml,
} from '../../spreadsheet/xlsx-rules.js';

/** A row grows to show this many lines of its longest wrapped text; the rest is read in the cell. */
const MAX_LINES_SHOWN = 8;

/** A cell that takes an answer: light yellow, a darker line under it. */
const ANSWER_SHADE = { fill: 'FFFFF2CC', border: { bottom: 'FFBF9000' } } as const;

/** A text cell, or an empty one. */
export const orNull = (text: string | null | undefined): CellValue => (text ? xlsxText(text) : null);

/** A cell a person fills in: unlocked; `shaded` when it takes an answer, with its rule when it has one. */
type FillInCell = { shaded: boolean; rule: CellRule | null };

/** Texts a column's width must fit: one, several, or none. */
type Texts = string | null | undefined | readonly string[];

/**
 * One column: its header, how wide, its cell for an item (the item's sheet row is `line`, its
 * position in the items `index`).
 */
export type FillInColumn<Item> = {
  header: string;
  /** A text its width must fit whatever the items (`0000.00.00`), besides the header. */
  sample?: string;
  /** An item's texts its width must fit (its value's, or what a person picks from). */
  fits?: (item: Item) => Texts;
  max: number;
  value: (item: Item, line: number) => CellValue;
  numFmt?: string;
  wrap?: boolean;
  hidden?: boolean;
  /** The cell a person fills in for an item, or null when this item's is not one. */
  fillIn?: (item: Item, index: number) => FillInCell | null;
  /** A hint shown on the column's cells that have no rule of their own. */
  hint?: string;
};

/** The sheet's first line of items (line 1 is the header). */
const FIRST_LINE = 2;

/** How wide a column is: its longest text (within its maximum), the items read one at a time. */
const columnWidth = <Item>(spec: FillInColumn<Item>, items: readonly Item[]): number => {
  let longest = Math.max(spec.header.length, textWidth(spec.sample ?? ''));
  const longer = (text: string | null | undefined) => {
    if (text) longest = Math.max(longest, textWidth(text));
  };
  if (spec.fits) {
    for (const item of items) {
      const texts = spec.fits(item);
      if (typeof texts === 'string' || !texts) longer(texts);
      else for (const text of texts) longer(text);
    }
  }
  return fittingWidth([longest], { min: 8, max: spec.max });
};

/**
 * A column's cell style for each of its cells: as it is, or as a fill-in cell, shaded or not;
 * each asked of the workbook the first time a cell takes it, so styles.xml lists only those used.
 */
const columnStyle = (spec: Pick<FillInColumn<unknown>, 'numFmt' | 'wrap'>, style: StyleIndex) => {
  const body: CellStyle = {
    ...(spec.numFmt ? { numFmt: spec.numFmt } : {}),
    font: {},
    alignment: { vertical: 'top', ...(spec.wrap ? { wrapText: true } : {}) },
  };
  const variants: Record<'body' | 'unlocked' | 'shaded', CellStyle> = {
    body,
    unlocked: { ...body, unlocked: true },
    shaded: { ...body, ...ANSWER_SHADE, unlocked: true },
  };
  const known: Partial<Record<keyof typeof variants, number>> = {};
  return (fillIn: FillInCell | null | undefined): number => {
    const kind = fillIn ? (fillIn.shaded ? 'shaded' : 'unlocked') : 'body';
    known[kind] ??= style(variants[kind]);
    return known[kind];
  };
};

/** Each column's rule per item, as ranges: a fill-in cell's own rule, else the column's hint. */
function* sheetRules<Item>(
  items: readonly Item[],
  columns: readonly FillInColumn<Item>[],
): Generator<RangeRule> {
  for (const [i, spec] of columns.entries()) {
    const { fillIn, hint } = spec;
    if (!fillIn && hint === undefined) continue;
    const hintRule: CellRule | null = hint === undefined ? null : { type: 'none', prompt: { text: hint } };
    yield* columnRules(columnLetter(i), FIRST_LINE, cellRules(items, fillIn, hintRule));
  }
}

/** A column's rule for each item in turn, made as it is read. */
function* cellRules<Item>(
  items: readonly Item[],
  fillIn: FillInColumn<Item>['fillIn'],
  otherwise: CellRule | null,
): Generator<CellRule | null> {
  for (const [index, item] of items.entries()) yield fillIn?.(item, index)?.rule ?? otherwise;
}

function* fillInSheetXml<Item>(
  items: readonly Item[],
  columns: readonly FillInColumn<Item>[],
  frozenColumns: number,
  filter: string,
  style: StyleIndex,
): Generator<string> {
  const widths = columns.map((spec) => columnWidth(spec, items));
  const letters = columns.map((_, i) => columnLetter(i));
  const header = style(HEADER_CELL_STYLE);
  const styles = columns.map((spec) => columnStyle(spec, style));
  yield sheetHead({
    frozenRows: 1,
    frozenColumns,
    columns: columns.map((spec, i) => ({ width: widths[i]!, hidden: spec.hidden ?? false })),
  });
  yield rowXml(
    1,
    columns.map((spec, i) => valueCell(`${letters[i]}1`, xlsxText(spec.header), header)).join(''),
  );

  for (const [index, item] of items.entries()) {
    const line = FIRST_LINE + index;
    let cells = '';
    let lines = 1;
    for (const [i, spec] of columns.entries()) {
      const raw = spec.value(item, line);
      const value = typeof raw === 'string' ? xlsxText(raw) : raw;
      if (spec.wrap && typeof value === 'string') lines = Math.max(lines, wrappedLines(value, widths[i]!));
      cells += valueCell(`${letters[i]}${line}`, value, styles[i]!(spec.fillIn?.(item, index)));
    }
    yield rowXml(line, cells, LINE_HEIGHT * Math.min(MAX_LINES_SHOWN, lines));
  }

  yield sheetDataEnd({
    protection: sheetProtectionXml(['formatColumns', 'formatRows', 'autoFilter']),
    autoFilter: filter,
  });
  yield* dataValidationsXml(() => sheetRules(items, columns));
  yield sheetEnd('landscape');
}

/**
 * A sheet named `sheetName` for a workbook being streamed: one row per item under `columns`, the
 * header and the first `frozenColumns` columns frozen, printed across the page with the header on
 * every page; only the fill-in cells are unlocked, and the sheet is filtered and protected
 * without a password.
 */
export const fillInSheet = <Item>(
  sheetName: string,
  items: readonly Item[],
  columns: readonly FillInColumn<Item>[],
  frozenColumns = 0,
): StreamedSheet => {
  const filter = `A1:${columnLetter(columns.length - 1)}${Math.max(1, items.length + 1)}`;
  return {
    name: sheetName,
    autoFilter: filter,
    printTitleRow: true,
    xml: (style) => fillInSheetXml(items, columns, frozenColumns, filter, style),
  };
};
