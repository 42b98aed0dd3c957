/**
 * results.xlsx's layout as XML (results-workbook-writer.ts writes it into the archive): the results
 * sheet's columns, header and rows, the summary sheet, and the cell styles both use. Pure text from
 * records, the XML pieces from spreadsheet/xlsx-parts.ts.
 *
 *   sheet 1  the input's cells as text, then the result columns under their words; header frozen
 *            and styled, autofilter, widths measured from the first rows; percentages, rates and
 *            money as numbers with formats; the status worded and coloured; the verdict PDF a link
 *   sheet 2  the summary (results-summary-sheet.ts)
 *   sheet 3  the rows whose declared NCM diverges (divergence-sheet.ts)
 */
import { columnLetter } from '../../spreadsheet/column-letters.js';
import { formatNcm } from '../../spreadsheet/write-csv.js';
import { fittingWidth, textWidth, xlsxText } from '../../spreadsheet/xlsx-layout.js';
import {
  type CellStyle,
  emptyCell,
  excelSerial,
  formulaTextCell,
  HEADER_CELL_STYLE,
  inlineStringCell,
  numberCell,
  rowXml,
  type SheetColumn,
  sheetHead,
  sheetTail,
} from '../../spreadsheet/xlsx-parts.js';
import { wordDetail } from '../../wording/index.js';
import { RESULT_COLUMNS, type ResultColumn } from '../core/result-columns.js';
import type { RowStatus } from '../core/row-statuses.js';
import type { ShownRow } from './results-files.js';
import { WORKSHEET_COLUMNS, type WorkbookWords } from './workbook-labels.js';

/** What a cell holds: text (already through `xlsxText`), a number, a date, a link formula, or nothing. */
export type SheetCell = null | number | string | Date | { formula: string; result: string };

/** How a result column's text becomes a cell. */
type CellKind = 'text' | 'integer' | 'percent' | 'rate' | 'usd' | 'code' | 'status' | 'coded' | 'link';

const KIND: Readonly<Record<ResultColumn, CellKind>> = {
  row: 'integer',
  status: 'status',
  reason: 'text',
  detail: 'text',
  classification_id: 'text',
  verdict_from: 'text',
  // Text, not a link: the verdict PDF beside the workbook is the one thing people open from here.
  app_url: 'text',
  title: 'text',
  check: 'coded',
  approved_ncm: 'code',
  ncm: 'code',
  ncm_description: 'text',
  approved_sim: 'code',
  sim_code: 'code',
  confidence: 'percent',
  confidence_band: 'coded',
  alternatives: 'text',
  import_duty_applicable: 'rate',
  duty_kind: 'coded',
  statistical_rate: 'rate',
  aec: 'rate',
  export_duty: 'rate',
  export_refund: 'rate',
  tariff_source: 'text',
  verdict_pdf: 'link',
  questions: 'text',
  decided_by: 'text',
  // Text as written (ISO, UTC): a decision's moment is read, not computed with.
  decided_at: 'text',
  decision_note: 'text',
  current_ncm_matches: 'coded',
  current_ncm_in_force: 'coded',
  ncm_in_force: 'coded',
  cost_usd: 'usd',
};

/** Percent units as the service gives them (14 means 14 %), shown as Excel percentages. */
const NUMBER_FORMATS = { percent: '0%', rate: '0.00%', usd: '"US$" #,##0.00' } as const;

/** A row still on its way (a partial file): light grey. */
const WORKING = { fill: 'FFF2F2F2', font: 'FF404040' };

/** Status cells coloured as people expect: green done, amber waiting on them, red failed, grey not run. */
const STATUS_COLOURS: Readonly<Record<RowStatus, { fill: string; font: string }>> = {
  resolved: { fill: 'FFC6EFCE', font: 'FF006100' },
  reused: { fill: 'FFDDEBF7', font: 'FF1F4E78' },
  pending_data: { fill: 'FFFFEB9C', font: 'FF9C5700' },
  failed: { fill: 'FFFFC7CE', font: 'FF9C0006' },
  error: { fill: 'FFFFC7CE', font: 'FF9C0006' },
  rejected: { fill: 'FFFCE4D6', font: 'FF843C0C' },
  abandoned: { fill: 'FFE7E6E6', font: 'FF3A3838' },
  not_submitted: { fill: 'FFEDEDED', font: 'FF3A3838' },
  queued: WORKING,
  submitting: WORKING,
  in_progress: WORKING,
  following: WORKING,
};

// ---------------------------------------------------------------------------
// Styles: every cell's `s` is an index into this list, the same in every results.xlsx
// ---------------------------------------------------------------------------

const STATUS_STYLES_FROM = 10;
/** Each distinct colouring of STATUS_COLOURS once, in its order. */
const STATUS_COLOURINGS = [...new Set(Object.values(STATUS_COLOURS))];

/**
 * Each shared cell style's index in results.xlsx's styles.xml, as a cell's `s` names it; status
 * colourings follow.
 */
export const STYLE = {
  percent: 1,
  rate: 2,
  usd: 3,
  header: 4,
  link: 5,
  summaryLabel: 6,
  summaryValue: 7,
  summaryUsd: 8,
  summaryDate: 9,
} as const;

/** The cell styles of results.xlsx (its styles.xml), indexed as STYLE and the status styles say. */
export const resultsStyles = (words: WorkbookWords): CellStyle[] => {
  const summaryValue: CellStyle = { alignment: { horizontal: 'left', vertical: 'top', wrapText: true } };
  return [
    {},
    { numFmt: NUMBER_FORMATS.percent },
    { numFmt: NUMBER_FORMATS.rate },
    { numFmt: NUMBER_FORMATS.usd },
    HEADER_CELL_STYLE,
    { font: { underline: true, color: 'FF0563C1' } },
    { font: { bold: true } },
    summaryValue,
    { ...summaryValue, numFmt: NUMBER_FORMATS.usd },
    { ...summaryValue, numFmt: words.dateFormat },
    ...STATUS_COLOURINGS.map(({ fill, font }): CellStyle => ({ fill, font: { color: font } })),
  ];
};

/** A status cell's style: its colouring (results and divergence sheets alike). */
export const statusStyle = (status: string): number => {
  const colours = STATUS_COLOURS[status as RowStatus];
  return colours ? STATUS_STYLES_FROM + STATUS_COLOURINGS.indexOf(colours) : 0;
};

const KIND_STYLE: Partial<Record<CellKind, number>> = {
  percent: STYLE.percent,
  rate: STYLE.rate,
  usd: STYLE.usd,
};

// ---------------------------------------------------------------------------
// Cells
// ---------------------------------------------------------------------------

/** The longest text Excel takes in a formula's string. */
const HYPERLINK_TEXT_MAX = 255;

/**
 * A link only to a verdict PDF beside the workbook (`pdfs/…`, or `pdfs/<batch>/…` for one reused
 * from the batch that made it), never to anything a cell could name, never out of `pdfs/`; at
 * most what a formula's string may hold.
 */
const isOpenableLink = (target: string): boolean =>
  /^pdfs\/([^/\\:"]+\/)?[^/\\:"]+\.pdf$/i.test(target) &&
  !target.split('/').some((part) => part === '..' || part === '.') &&
  target.length <= HYPERLINK_TEXT_MAX;

/**
 * A verdict PDF's link as a HYPERLINK formula, its path as the value every program shows. Not a
 * cell hyperlink: those need a relationship each, listed after the sheet's last row; a formula
 * needs nothing after its row. The path is one `isOpenableLink` let through, so the formula says
 * nothing but where the PDF is.
 */
const pdfLink = (target: string): SheetCell => ({
  formula: `HYPERLINK("${target}","${target}")`,
  result: target,
});

const numberOf = (text: string): number | null => {
  const value = Number(text);
  return text.trim() !== '' && Number.isFinite(value) ? value : null;
};

/** The cell of one result column; the text when it is not what the column expects. */
export const resultCell = (column: ResultColumn, text: string, words: WorkbookWords): SheetCell => {
  if (text === '') return null;
  const number = numberOf(text);
  switch (KIND[column]) {
    case 'integer':
    case 'usd':
      return number ?? xlsxText(text);
    case 'percent':
    case 'rate':
      return number === null ? xlsxText(text) : number / 100;
    case 'code':
      return xlsxText(formatNcm(text));
    case 'status':
      return words.status[text as RowStatus] ?? xlsxText(text);
    case 'coded':
      return words.values[text] ?? xlsxText(text);
    case 'link':
      return isOpenableLink(text) ? pdfLink(text) : xlsxText(text);
    default:
      return xlsxText(text);
  }
};

/** What a cell shows, for the width of its column. */
export const shownWidth = (value: SheetCell): number => {
  if (value === null) return 0;
  if (typeof value === 'number') return String(Math.round(value * 10_000) / 100).length + 2;
  if (typeof value === 'string') return textWidth(value);
  if (value instanceof Date) return 10;
  return textWidth(value.result);
};

/** One cell's XML; nothing for an empty cell without a style. */
export const cellXml = (ref: string, value: SheetCell, style: number): string => {
  if (value === null) return emptyCell(ref, style);
  if (typeof value === 'number') return numberCell(ref, value, style);
  if (typeof value === 'string')
    return value === '' ? emptyCell(ref, style) : inlineStringCell(ref, value, style);
  if (value instanceof Date) return numberCell(ref, excelSerial(value), style);
  return formulaTextCell(ref, value.formula, value.result, style);
};

// ---------------------------------------------------------------------------
// The results sheet
// ---------------------------------------------------------------------------

/**
 * The input columns a results sheet holds: a worksheet has at most 16,384 columns (`XFD`, in Excel
 * and LibreOffice alike) and the result columns take their share. The rest of a wider file's
 * columns are left out of the workbooks, and the summary sheet says so; results.csv keeps them all.
 */
export const WORKBOOK_INPUT_COLUMNS = WORKSHEET_COLUMNS - RESULT_COLUMNS.length;

/** The results sheet's columns: `width` input columns, then the result columns. */
export type ResultsLayout = {
  words: WorkbookWords;
  /** Input columns written: the file's, up to WORKBOOK_INPUT_COLUMNS. */
  width: number;
  /** Input columns past those, left out (results.csv has them). */
  leftOut: number;
  header: string[];
  /** Each column's letters (`A`, `AE`). */
  letters: string[];
};

/**
 * The results sheet's layout for a file of `inputWidth` input columns, however many: as many of
 * them as a sheet holds, then the result columns under their words.
 */
export const resultsLayout = (
  batchHeader: readonly string[],
  inputWidth: number,
  words: WorkbookWords,
): ResultsLayout => {
  const width = Math.min(inputWidth, WORKBOOK_INPUT_COLUMNS);
  const header = [
    ...Array.from({ length: width }, (_, i) => batchHeader[i] ?? ''),
    ...RESULT_COLUMNS.map((column) => words.results[column]),
  ];
  return {
    words,
    width,
    leftOut: inputWidth - width,
    header,
    letters: header.map((_, i) => columnLetter(i)),
  };
};

/** A row's cells: the input's (text), then the result columns'. */
const cellsOf = (layout: ResultsLayout, { row, result }: ShownRow): SheetCell[] => {
  const cells: SheetCell[] = [];
  for (let i = 0; i < layout.width; i += 1) {
    const cell = row.cells[i] ?? '';
    cells.push(cell === '' ? null : xlsxText(cell));
  }
  for (const column of RESULT_COLUMNS) {
    const text =
      column === 'row'
        ? String(row.row)
        : column === 'status'
          ? result.status
          : column === 'detail'
            ? wordDetail(result, layout.words.language)
            : (result[column] ?? '');
    cells.push(resultCell(column, text, layout.words));
  }
  return cells;
};

/**
 * Column widths that fit the header and the rows measured (the first rows a person sees:
 * measuring every row would mean reading a large batch twice, and a column sized to one long cell
 * on row 90,000 helps nobody).
 */
export const measuredWidths = (layout: ResultsLayout, measured: readonly ShownRow[]): number[] => {
  const widths = layout.header.map((text) => textWidth(text));
  for (const shown of measured) {
    cellsOf(layout, shown).forEach((value, i) => {
      widths[i] = Math.max(widths[i] ?? 0, shownWidth(value));
    });
  }
  return widths.map((width) => fittingWidth([width]));
};

const columnStyle = (layout: ResultsLayout, i: number): number =>
  i < layout.width ? 0 : (KIND_STYLE[KIND[RESULT_COLUMNS[i - layout.width]!]] ?? 0);

/** The results sheet's XML up to its first row of results: the view, the columns, the header row. */
export const resultsSheetHead = (layout: ResultsLayout, widths: readonly number[]): string => {
  const columns: SheetColumn[] = layout.header.map((_, i) => ({
    width: widths[i] ?? fittingWidth([]),
    style: columnStyle(layout, i),
  }));
  const header = layout.header
    .map((text, i) => cellXml(`${layout.letters[i]}1`, xlsxText(text), STYLE.header))
    .join('');
  return sheetHead({ frozenRows: 1, columns }) + rowXml(1, header);
};

/** One row's XML on the results sheet, at sheet line `line` (2 for the first). */
export const resultsRowXml = (layout: ResultsLayout, shown: ShownRow, line: number): string => {
  const cells = cellsOf(layout, shown);
  let xml = '';
  for (let i = 0; i < cells.length; i += 1) {
    const value = cells[i]!;
    if (value === null) continue;
    const style =
      i < layout.width
        ? 0
        : typeof value === 'object' && !(value instanceof Date)
          ? STYLE.link
          : RESULT_COLUMNS[i - layout.width] === 'status'
            ? statusStyle(shown.result.status)
            : columnStyle(layout, i);
    xml += cellXml(`${layout.letters[i]}${line}`, value, style);
  }
  return rowXml(line, xml);
};

/** The results sheet's filter: every column, the header and every row written. */
export const resultsFilterRange = (layout: ResultsLayout, rows: number): string =>
  `A1:${layout.letters[layout.letters.length - 1]}${Math.max(1, rows + 1)}`;

/** The results sheet's closing XML after `rows` rows: the filter over them, landscape printing. */
export const resultsSheetTail = (layout: ResultsLayout, rows: number): string =>
  sheetTail({ autoFilter: resultsFilterRange(layout, rows), orientation: 'landscape' });
