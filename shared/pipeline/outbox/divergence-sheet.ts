/**
 * results.xlsx's divergence sheet as XML: the rows whose declared NCM differs from the verdict or
 * is not in force, one line each, with what a tax team needs to fix its ERP from this sheet alone:
 * the SKU and description, both codes with their descriptions from the NCM table in force and
 * whether each is in force, the verdict's duties, the status, the row and the verdict PDF. Pure
 * text from a shown row and the table; results-workbook-writer.ts writes it into the archive a row
 * at a time, after the results sheet, on a second reading of the rows.
 *
 *   line 1   the note: which rows, which table, why the declared code has no duties
 *   line 2   the header (frozen with the note, filtered)
 *   line 3…  one divergent row each, in row order
 */
import { tableInForce } from '../../ncm-table/reference-table.js';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { columnLetter } from '../../spreadsheet/column-letters.js';
import { fittingWidth, textWidth, xlsxText } from '../../spreadsheet/xlsx-layout.js';
import { rowXml, type SheetColumn, sheetHead, sheetTail } from '../../spreadsheet/xlsx-parts.js';
import { declaredNcmDigits } from '../core/ncm-in-force.js';
import { DUTY_COLUMNS, type ResultColumn } from '../core/result-columns.js';
import { resultNcmDigits } from '../core/row-results.js';
import { DIVERGENCE_WORDS, type DivergenceOwnColumn, type DivergenceWords } from './divergence-labels.js';
import type { ShownRow } from './results-files.js';
import { cellXml, resultCell, type SheetCell, STYLE, statusStyle } from './results-sheet-xml.js';
import type { WorkbookWords } from './workbook-labels.js';

/** A row diverges when its declared NCM differs from the verdict's or is not in force (even when it is the verdict's). */
export const isDivergent = ({ result }: ShownRow): boolean =>
  result.current_ncm_matches === 'no' || result.current_ncm_in_force === 'no';

/** The result columns the sheet shows as the results sheet does: the verdict's duties, the status, the PDF. */
type SharedColumn = Extract<ResultColumn, 'row' | (typeof DUTY_COLUMNS)[number] | 'status' | 'verdict_pdf'>;
type DivergenceColumn = { own: DivergenceOwnColumn } | { shared: SharedColumn };

const COLUMNS: readonly DivergenceColumn[] = [
  { shared: 'row' },
  { own: 'sku' },
  { own: 'description' },
  { own: 'declared_ncm' },
  { own: 'declared_description' },
  { own: 'declared_in_force' },
  { own: 'declared_alternative' },
  { own: 'ncm' },
  { own: 'ncm_description' },
  { own: 'ncm_in_force' },
  { own: 'divergence' },
  ...DUTY_COLUMNS.map((shared) => ({ shared })),
  { shared: 'status' },
  { shared: 'verdict_pdf' },
];

/** Widths that fit what a column usually holds: the sheet is written before its rows are read. */
const WIDTHS: Readonly<Record<DivergenceOwnColumn, number>> = {
  sku: 18,
  description: 40,
  declared_ncm: 12,
  declared_description: 50,
  declared_in_force: 10,
  declared_alternative: 10,
  ncm: 12,
  ncm_description: 50,
  ncm_in_force: 10,
  divergence: 24,
};
const LETTERS = COLUMNS.map((_, i) => columnLetter(i));
/** The note's line, then the header's: the rows start on line 3. */
export const DIVERGENCE_FIRST_LINE = 3;

/** The sheet's words: its own, and the results sheet's for the columns the two share. */
export type DivergenceLayout = { words: WorkbookWords; own: DivergenceWords };

/**
 * The divergence sheet's words for a workbook: the workbook's own words, and the sheet's in the same
 * language.
 */
export const divergenceLayout = (words: WorkbookWords): DivergenceLayout => ({
  words,
  own: DIVERGENCE_WORDS[words.language],
});

const headerOf = (layout: DivergenceLayout, column: DivergenceColumn): string =>
  'own' in column ? layout.own.columns[column.own] : layout.words.results[column.shared];

/** `Outros`, `Outras`, `- Outros:`: a level that says nothing without the one above it. */
const GENERIC = /^(outros|outras|outro|outra|demais)$/i;

/** A level's text without its dashes and its closing colon or full stop. */
const bare = (description: string): string =>
  description
    .replace(/^[\s-–]+/, '')
    .replace(/[:.\s]+$/, '')
    .trim();

/**
 * A code's description from the table, whole: its own words say little alone ("-- Outros", "De
 * carga radial"), so from the code up, each level that is a subdivision takes the one above it, up
 * to the first that stands on its own, usually the heading (`Rolamentos de esferas, de roletes ou
 * de agulhas — Rolamentos de esferas — Outros`). A subdivision: Mercosur's item and subitem (the
 * 7th and 8th digits, read under their subheading), a level whose text opens with a dash, a bare
 * "Outros". Empty when the table does not hold the code.
 */
export const tableDescription = (table: NcmTable, digits: string): string => {
  const path = table.path(digits).filter((entry) => entry.code.length > 2);
  if (path.at(-1)?.code !== digits) return '';
  const levels: string[] = [];
  for (let i = path.length - 1; i >= 0; i -= 1) {
    const { code, description } = path[i]!;
    levels.unshift(bare(description));
    const subordinate = code.length >= 7 || /^\s*[-–]/.test(description) || GENERIC.test(bare(description));
    if (!subordinate) break;
  }
  return levels.filter((level) => level !== '').join(' — ');
};

/** Gives a function that describes a code (`tableDescription`) by the NCM table in force. */
export type NcmDescriber = () => Promise<(digits: string) => string>;

/**
 * An `NcmDescriber` over the bucket's NCM table in force: the table is read once, on the first
 * call, and only if a code needs describing.
 */
export const ncmDescriber = (objects: Parameters<typeof tableInForce>[0]): NcmDescriber => {
  let table: Promise<NcmTable> | undefined;
  return async () => {
    table ??= tableInForce(objects).then((inForce) => inForce.table);
    const ncm = await table;
    return (digits) => tableDescription(ncm, digits);
  };
};

/**
 * The confidence the service gave the declared code among the verdict's alternatives
 * (`8482.10.90 (35%); 8482.80.00 (12%)`), as a fraction; null when it is not one of them.
 */
const alternativeConfidence = (alternatives: string | undefined, digits: string): number | null => {
  for (const alternative of (alternatives ?? '').split(';')) {
    const match = /^\s*([\d.]+)\s*\((\d+(?:\.\d+)?)%\)\s*$/.exec(alternative);
    if (match && match[1]!.replace(/\D/g, '') === digits) return Number(match[2]) / 100;
  }
  return null;
};

const yesNo = (layout: DivergenceLayout, text: string | undefined): SheetCell =>
  text ? (layout.words.values[text] ?? xlsxText(text)) : null;

const divergenceOf = (layout: DivergenceLayout, { result }: ShownRow): string =>
  [
    ...(result.current_ncm_matches === 'no' ? [layout.own.differs] : []),
    ...(result.current_ncm_in_force === 'no' ? [layout.own.notInForce] : []),
  ].join('; ');

/** A divergent row's cells, in COLUMNS' order. */
const cellsOf = (layout: DivergenceLayout, shown: ShownRow, table: NcmTable | undefined): SheetCell[] => {
  const { row, result } = shown;
  const declared = declaredNcmDigits(row.product?.current_ncm);
  const verdict = resultNcmDigits(result);
  const text = (value: string | null | undefined): SheetCell => (value ? xlsxText(value) : null);
  const own: Record<DivergenceOwnColumn, () => SheetCell> = {
    sku: () => text(row.product?.sku),
    description: () => text(row.product?.description),
    declared_ncm: () => (declared ? resultCell('ncm', declared, layout.words) : null),
    declared_description: () => (declared && table ? text(tableDescription(table, declared)) : null),
    declared_in_force: () => yesNo(layout, result.current_ncm_in_force),
    declared_alternative: () => (declared ? alternativeConfidence(result.alternatives, declared) : null),
    ncm: () => (result.ncm ? resultCell('ncm', result.ncm, layout.words) : null),
    // The table's words where it holds the code; else the service's.
    ncm_description: () =>
      text((verdict && table ? tableDescription(table, verdict) : '') || result.ncm_description),
    ncm_in_force: () => yesNo(layout, result.ncm_in_force),
    divergence: () => text(divergenceOf(layout, shown)),
  };
  return COLUMNS.map((column) => {
    if ('own' in column) return own[column.own]();
    const value = column.shared === 'row' ? String(row.row) : (result[column.shared] ?? '');
    return resultCell(column.shared, value, layout.words);
  });
};

const styleOf = (column: DivergenceColumn, value: SheetCell, shown: ShownRow): number => {
  if (!('shared' in column)) return column.own === 'declared_alternative' ? STYLE.percent : 0;
  if (column.shared === 'status') return statusStyle(shown.result.status);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) return STYLE.link;
  return typeof value === 'number' && column.shared !== 'row' ? STYLE.rate : 0;
};

/** The divergence sheet's XML up to its first row: the note and the header, both frozen. */
export const divergenceSheetHead = (layout: DivergenceLayout, table: NcmTable | undefined): string => {
  const columns: SheetColumn[] = COLUMNS.map((column) => {
    const header = textWidth(headerOf(layout, column));
    const usual = 'own' in column ? WIDTHS[column.own] : column.shared === 'verdict_pdf' ? 40 : 0;
    return { width: fittingWidth([header, usual]) };
  });
  const note = layout.own.note(table ? { asOf: table.asOf, act: table.act } : null);
  const header = COLUMNS.map((column, i) =>
    cellXml(`${LETTERS[i]}2`, xlsxText(headerOf(layout, column)), STYLE.header),
  ).join('');
  return (
    sheetHead({ frozenRows: 2, columns }) +
    rowXml(1, cellXml('A1', xlsxText(note), STYLE.summaryLabel)) +
    rowXml(2, header)
  );
};

/** One divergent row's XML at sheet line `line` (DIVERGENCE_FIRST_LINE for the first). */
export const divergenceRowXml = (
  layout: DivergenceLayout,
  shown: ShownRow,
  line: number,
  table: NcmTable | undefined,
): string => {
  const cells = cellsOf(layout, shown, table);
  let xml = '';
  cells.forEach((value, i) => {
    if (value !== null) xml += cellXml(`${LETTERS[i]}${line}`, value, styleOf(COLUMNS[i]!, value, shown));
  });
  return rowXml(line, xml);
};

/** The sheet's filter: every column, from the header to the last row listed. */
export const divergenceFilterRange = (listed: number): string =>
  `A2:${LETTERS.at(-1)}${DIVERGENCE_FIRST_LINE - 1 + listed}`;

/** The sheet's closing XML after its last row: the filter over the `listed` rows, landscape printing. */
export const divergenceSheetTail = (listed: number): string =>
  sheetTail({ autoFilter: divergenceFilterRange(listed), orientation: 'landscape' });
