/**
 * A sheet a person fills in and sends back: review.xlsx's questions (review-workbook.ts) and its
 * verdicts to check (check-sheet.ts). One row per item, each column as wide as its texts need
 * (within a maximum), rows as tall as their longest wrapped text (up to a few lines); the cells a
 * person fills in are the only unlocked ones, shaded when they take an answer, each with its own
 * rule; the sheet filtered and protected without a password, so nothing else changes by mistake
 * and anyone who needs to can lift it.
 */
import type ExcelJS from 'exceljs';
import { columnLetter } from '../../spreadsheet/columns.js';
import {
  addRows,
  addValidation,
  type CellValue,
  PRINT_SETUP,
  styleHeader,
  type WorkbookWriter,
} from '../../spreadsheet/write-xlsx.js';
import {
  BODY_FONT,
  fittingWidth,
  LINE_HEIGHT,
  textWidth,
  wrappedLines,
  xlsxText,
} from '../../spreadsheet/xlsx-layout.js';

/** A row grows to show this many lines of its longest wrapped text; the rest is read in the cell. */
const MAX_LINES_SHOWN = 8;

const ANSWER_FILL = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFF2CC' } } as const;
const ANSWER_BORDER = { bottom: { style: 'thin', color: { argb: 'FFBF9000' } } } as const;

/** A text cell, or an empty one. */
export const orNull = (text: string | null | undefined): CellValue => (text ? xlsxText(text) : null);

/** A cell a person fills in: unlocked; `shaded` when it takes an answer, with its rule when it has one. */
type FillInCell = { shaded: boolean; rule: ExcelJS.DataValidation | null };

/** One column: its header, how wide, its cell for an item (the item's sheet row is `line`). */
export type FillInColumn<Item> = {
  header: string;
  /** The texts its width must fit, besides the header. */
  fits: (string | null | undefined)[];
  max: number;
  value: (item: Item, line: number) => CellValue;
  numFmt?: string;
  wrap?: boolean;
  hidden?: boolean;
  /** The cell a person fills in for an item, or null when this item's is not one. */
  fillIn?: (item: Item) => FillInCell | null;
  /** A hint shown on every cell of the column (a rule of type `any` over the column). */
  hint?: string;
};

/**
 * Adds a sheet named `sheetName` to a workbook being written, one row per item under `columns`,
 * with the header and the first `frozenColumns` columns frozen; only the fill-in cells are
 * unlocked, and the sheet is filtered and protected without a password.
 */
export const writeFillInSheet = async <Item>(
  workbook: WorkbookWriter,
  sheetName: string,
  items: readonly Item[],
  columns: readonly FillInColumn<Item>[],
  frozenColumns = 0,
): Promise<void> => {
  const widths = columns.map((spec) =>
    fittingWidth([spec.header.length, ...spec.fits.map((text) => textWidth(text ?? ''))], {
      min: 8,
      max: spec.max,
    }),
  );
  const sheet = workbook.addWorksheet(sheetName, {
    views: [{ state: 'frozen', ySplit: 1, ...(frozenColumns > 0 ? { xSplit: frozenColumns } : {}) }],
    pageSetup: PRINT_SETUP,
  });
  sheet.columns = columns.map((spec, i) => ({
    header: xlsxText(spec.header),
    width: widths[i],
    hidden: spec.hidden ?? false,
  }));
  styleHeader(sheet.getRow(1));
  sheet.getRow(1).commit();

  const written = await addRows(sheet, items, (item, line) => {
    const values = columns.map((spec) => spec.value(item, line));
    const row = sheet.addRow(values);
    const lines = columns.map((spec, i) =>
      spec.wrap && typeof values[i] === 'string' ? wrappedLines(values[i], widths[i] ?? 8) : 1,
    );
    row.height = LINE_HEIGHT * Math.min(MAX_LINES_SHOWN, Math.max(...lines));
    columns.forEach((spec, i) => {
      const cell = row.getCell(i + 1);
      cell.font = BODY_FONT;
      cell.alignment = { vertical: 'top', wrapText: spec.wrap ?? false };
      if (spec.numFmt) cell.numFmt = spec.numFmt;
      const fillIn = spec.fillIn?.(item);
      if (!fillIn) return;
      cell.protection = { locked: false };
      if (fillIn.shaded) {
        cell.fill = ANSWER_FILL;
        cell.border = ANSWER_BORDER;
      }
      // Each rule under a one-cell range (`J10:J10`), not as `cell.dataValidation`: ExcelJS merges
      // alike rules of neighbouring cells after sorting their addresses as text, so from row 10 on
      // (`J10` sorts before `J2`) it would write overlapping ranges for one rule.
      if (fillIn.rule) addValidation(sheet, `${cell.address}:${cell.address}`, fillIn.rule);
    });
    return row;
  });
  if (written > 0) {
    columns.forEach((spec, i) => {
      if (spec.hint === undefined) return;
      // `any`: no rule, only the hint when a cell of the column is chosen (ExcelJS writes it; its
      // types omit it). One range for the whole column.
      const letter = columnLetter(i);
      addValidation(sheet, `${letter}2:${letter}${written + 1}`, {
        type: 'any',
        allowBlank: true,
        showInputMessage: true,
        prompt: spec.hint,
      } as never);
    });
  }
  sheet.autoFilter = {
    from: { row: 1, column: 1 },
    to: { row: Math.max(1, items.length + 1), column: columns.length },
  };
  await sheet.protect('', {
    selectLockedCells: true,
    selectUnlockedCells: true,
    formatColumns: true,
    formatRows: true,
    autoFilter: true,
  });
  sheet.commit();
};
