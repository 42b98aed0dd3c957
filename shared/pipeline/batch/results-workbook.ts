/**
 * results.xlsx: the same rows and values as results.csv, made to be opened by a person. Pure
 * layout over records; the bytes stream out as rows are added (spreadsheet/write-xlsx.ts).
 *
 *   sheet 1 (Resultados | Resultados | Results)  every input row, input order: the input's cells as
 *           read (always text), then the result columns under headers in the batch's language;
 *           header frozen, autofilter, widths that fit; NCM and SIM codes as dotted text; money
 *           and percentages as numbers with formats; the status worded and coloured; the verdict
 *           PDF a link to `pdfs/…` beside the workbook
 *   sheet 2 (Resumo | Resumen | Summary)  counts by status, billed, saved, problems, warnings
 */
import type { Readable } from 'node:stream';
import { formatNcm } from '../../spreadsheet/write-csv.js';
import {
  addRows,
  BODY_FONT,
  type CellValue,
  fittingWidth,
  PRINT_SETUP,
  streamWorkbook,
  styleHeader,
  textWidth,
  type WorkbookWriter,
  xlsxText,
} from '../../spreadsheet/write-xlsx.js';
import {
  type BatchRecord,
  RESULT_COLUMNS,
  type ResultColumn,
  type ReviewItem,
  type RowRecord,
} from '../core/records.js';
import { OUTPUT_STATUSES, type RowStatus, resultNow, type ShownResult } from '../core/row-life.js';
import {
  type BatchSummary,
  type OutboxWorkbooks,
  resultsInputWidth,
  type ShownRow,
} from './results-files.js';
import { reviewWorkbook } from './review-workbook.js';
import type { WorkbookWords } from './workbook-labels.js';
import { wordsForBatch } from './workbook-language.js';

/** How a result column's text becomes a cell. */
type CellKind = 'text' | 'integer' | 'percent' | 'rate' | 'usd' | 'code' | 'status' | 'coded' | 'link';

const KIND: Readonly<Record<ResultColumn, CellKind>> = {
  row: 'integer',
  status: 'status',
  reason: 'text',
  detail: 'text',
  classification_id: 'text',
  // Text, not a link: the verdict PDF beside the workbook is the one thing people open from here.
  app_url: 'text',
  title: 'text',
  ncm: 'code',
  ncm_description: 'text',
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
  current_ncm_matches: 'coded',
  cost_usd: 'usd',
};

/** Percent units as the service gives them (14 means 14 %), shown as Excel percentages. */
const NUMBER_FORMATS: Partial<Record<CellKind, string>> = {
  percent: '0%',
  rate: '0.00%',
  usd: '"US$" #,##0.00',
};

const LINK_FONT = { ...BODY_FONT, color: { argb: 'FF0563C1' }, underline: true } as const;

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

const statusStyle = (status: string) => {
  const colours = STATUS_COLOURS[status as RowStatus];
  return colours
    ? {
        fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: colours.fill } } as const,
        font: { ...BODY_FONT, color: { argb: colours.font } },
      }
    : {};
};

/** The longest text Excel takes in a formula's string. */
const HYPERLINK_TEXT_MAX = 255;

/**
 * A link only to a verdict PDF beside the workbook (`pdfs/…`, or `pdfs/<batch>/…` for one reused
 * from the batch that made it: core/bucket-layout.ts, `reusedPdfRelative`), never to anything a
 * cell could name, never out of `pdfs/`; at most what a formula's string may hold.
 */
const isOpenableLink = (target: string): boolean =>
  /^pdfs\/([^/\\:"]+\/)?[^/\\:"]+\.pdf$/i.test(target) &&
  !target.split('/').some((part) => part === '..' || part === '.') &&
  target.length <= HYPERLINK_TEXT_MAX;

/**
 * A verdict PDF's link as a HYPERLINK formula, its path as the value every program shows. Not a
 * cell hyperlink: those are kept, with a relationship each, until the sheet's last row, about
 * 0.3 KB for every linked row of a large batch; a formula needs nothing after its row. The path
 * is one `isOpenableLink` let through, so the formula says nothing but where the PDF is.
 */
const pdfLink = (target: string): CellValue => ({
  formula: `HYPERLINK("${target}","${target}")`,
  result: target,
});

const numberOf = (text: string): number | null => {
  const value = Number(text);
  return text.trim() !== '' && Number.isFinite(value) ? value : null;
};

/** The cell of one result column; the text when it is not what the column expects. */
export const resultCell = (column: ResultColumn, text: string, words: WorkbookWords): CellValue => {
  if (text === '') return null;
  const kind = KIND[column];
  const number = numberOf(text);
  switch (kind) {
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
const shownWidth = (value: CellValue): number => {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return String(Math.round(value * 10_000) / 100).length + 2;
  if (typeof value === 'string') return textWidth(value);
  if (typeof value === 'object' && 'text' in value && typeof value.text === 'string')
    return textWidth(value.text);
  if (typeof value === 'object' && 'result' in value && typeof value.result === 'string')
    return textWidth(value.result);
  return 10;
};

/** The summary a results workbook's second sheet shows: a batch's, a revision's or a partial one. */
export type ShownSummary = BatchSummary & {
  revision?: number;
  partial?: boolean;
  as_of?: string;
  working?: Record<string, number>;
};

export type ResultsWorkbookInput = {
  batch: Pick<BatchRecord, 'header' | 'options'>;
  summary: ShownSummary;
} & (
  | {
      rows: readonly RowRecord[];
      /** A row's output columns; a partial file shows rows still on their way with their working status. */
      resultFor?: (row: RowRecord) => ShownResult;
    }
  | {
      /** The rows in row order, each with what it shows, read as the workbook is written (Finalize). */
      shownRows: AsyncIterable<ShownRow>;
      /** How many input columns: the header's, or more when a row is longer (`resultsInputWidth`). */
      width: number;
    }
);

/**
 * Column widths fit the first rows a person sees: measuring every row would mean reading a large
 * batch twice, and a column sized to one long cell on row 90,000 helps nobody.
 */
const ROWS_MEASURED_FOR_WIDTH = 1_000;

async function* inRowOrder(rows: readonly RowRecord[], resultFor: (row: RowRecord) => ShownResult) {
  for (const row of [...rows].sort((a, b) => a.row - b.row)) yield { row, result: resultFor(row) };
}

/** The time a workbook is as of: its summary's (a run twice writes the same bytes). */
export const summaryTime = (summary: ShownSummary): Date =>
  new Date((summary.partial ? summary.as_of : undefined) ?? summary.finished_at);

/** The outbox's two workbooks, made from what its CSVs are made from, both as of the summary's time. */
export const outboxWorkbooks = (input: {
  batch: Pick<BatchRecord, 'header' | 'options'>;
  rows: readonly RowRecord[];
  summary: ShownSummary;
  review: readonly ReviewItem[];
  sameProductRows?: ReadonlyMap<number, readonly number[]>;
}): OutboxWorkbooks => ({
  results: () => resultsWorkbook({ batch: input.batch, rows: input.rows, summary: input.summary }),
  review: () =>
    reviewWorkbook({
      batch: input.batch,
      items: input.review,
      ...(input.sameProductRows ? { sameProductRows: input.sameProductRows } : {}),
      at: summaryTime(input.summary),
    }),
});

/** results.xlsx as a stream: give it to an upload as its body. */
export const resultsWorkbook = (input: ResultsWorkbookInput): Readable =>
  streamWorkbook((workbook) => writeResultsWorkbook(workbook, input), summaryTime(input.summary));

const writeResultsWorkbook = async (workbook: WorkbookWriter, input: ResultsWorkbookInput): Promise<void> => {
  const words = wordsForBatch(input.batch);
  const { width, shownRows } =
    'shownRows' in input
      ? input
      : {
          width: resultsInputWidth(input.batch, input.rows),
          shownRows: inRowOrder(input.rows, input.resultFor ?? ((row: RowRecord) => resultNow(row))),
        };
  const inputHeader = [...input.batch.header, ...Array<string>(width - input.batch.header.length).fill('')];
  const header = [...inputHeader, ...RESULT_COLUMNS.map((column) => words.results[column])];

  const cellsOf = ({ row, result }: ShownRow): CellValue[] => {
    const inputCells = Array.from({ length: width }, (_, i) => {
      const cell = row.cells[i] ?? '';
      return cell === '' ? null : xlsxText(cell);
    });
    return [
      ...inputCells,
      ...RESULT_COLUMNS.map((column) =>
        resultCell(
          column,
          column === 'row' ? String(row.row) : column === 'status' ? result.status : (result[column] ?? ''),
          words,
        ),
      ),
    ];
  };

  // Widths before the first row: the columns are written first. The first rows are held to measure them.
  const iterator = shownRows[Symbol.asyncIterator]();
  const measured: ShownRow[] = [];
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    measured.push(next.value);
    if (measured.length === ROWS_MEASURED_FOR_WIDTH) break;
  }
  const widths = header.map((text) => textWidth(text));
  for (const shown of measured) {
    cellsOf(shown).forEach((value, i) => {
      widths[i] = Math.max(widths[i] ?? 0, shownWidth(value));
    });
  }
  async function* allRows(): AsyncGenerator<ShownRow> {
    yield* measured;
    if (measured.length < ROWS_MEASURED_FOR_WIDTH) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }

  const sheet = workbook.addWorksheet(words.sheets.results, {
    views: [{ state: 'frozen', ySplit: 1, xSplit: 0 }],
    pageSetup: PRINT_SETUP,
  });
  sheet.columns = header.map((text, i) => {
    const kind = i < width ? 'text' : KIND[RESULT_COLUMNS[i - width]!];
    return {
      header: xlsxText(text),
      width: fittingWidth([widths[i] ?? 0]),
      ...(NUMBER_FORMATS[kind] ? { style: { numFmt: NUMBER_FORMATS[kind] } } : {}),
    };
  });
  styleHeader(sheet.getRow(1));
  sheet.getRow(1).commit();

  const statusColumn = width + RESULT_COLUMNS.indexOf('status') + 1;
  const pdfColumn = width + RESULT_COLUMNS.indexOf('verdict_pdf') + 1;
  const written = await addRows(sheet, allRows(), (shown) => {
    const added = sheet.addRow(cellsOf(shown));
    Object.assign(added.getCell(statusColumn), statusStyle(shown.result.status));
    const pdf = added.getCell(pdfColumn);
    if (typeof pdf.value === 'object' && pdf.value !== null && 'formula' in pdf.value) pdf.font = LINK_FONT;
    return added;
  });
  sheet.autoFilter = {
    from: { row: 1, column: 1 },
    to: { row: Math.max(1, written + 1), column: header.length },
  };
  sheet.commit();

  addSummarySheet(workbook, input.summary, words);
};

const asDate = (iso: string | null | undefined): Date | null => {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
};

/** The second sheet: one label and one value a line; problems and warnings one a line. */
const addSummarySheet = (workbook: WorkbookWriter, summary: ShownSummary, words: WorkbookWords): void => {
  const w = words.summary;
  const sheet = workbook.addWorksheet(words.sheets.summary, {
    views: [{ state: 'frozen', ySplit: 1 }],
    pageSetup: { ...PRINT_SETUP, orientation: 'portrait' },
  });
  const lines: [string, CellValue, string?][] = [
    [w.batch, summary.batch_id],
    [w.name, summary.name === null ? null : xlsxText(summary.name)],
    [w.state, words.batchState[summary.state] ?? summary.state],
    [w.source, summary.source ? xlsxText(summary.source.key) : null],
    ...(summary.revision ? [[w.revision, summary.revision] as [string, CellValue]] : []),
    [w.rowsTotal, summary.rows_total],
    ...OUTPUT_STATUSES.map((status): [string, CellValue] => [
      words.status[status],
      summary.by_status[status] ?? 0,
    ]),
    ...Object.entries(summary.working ?? {}).map(([status, count]): [string, CellValue] => [
      words.status[status as RowStatus] ?? status,
      count,
    ]),
    [w.billed, summary.billed_usd, NUMBER_FORMATS.usd],
    [w.saved, summary.saved_usd, NUMBER_FORMATS.usd],
    [w.duplicates, summary.duplicates.rows],
    [w.mismatches, summary.current_ncm_mismatches],
    [w.startedAt, asDate(summary.started_at), words.dateFormat],
    [
      summary.partial ? w.asOf : w.finishedAt,
      asDate(summary.partial ? summary.as_of : summary.finished_at),
      words.dateFormat,
    ],
    ...listLines(w.problems, summary.problems, w.none),
    ...listLines(w.warnings, summary.warnings, w.none),
  ];
  const labelWidth = fittingWidth(
    lines.map(([label]) => label.length),
    { min: 12, max: 70 },
  );
  const valueWidth = fittingWidth(
    lines.map(([, value]) => shownWidth(value)),
    { min: 14, max: 100 },
  );
  sheet.columns = [
    { header: w.item, width: labelWidth },
    { header: w.value, width: valueWidth },
  ];
  styleHeader(sheet.getRow(1));
  sheet.getRow(1).commit();
  for (const [label, value, numFmt] of lines) {
    const row = sheet.addRow([label, value]);
    row.getCell(1).font = { ...BODY_FONT, bold: true };
    const cell = row.getCell(2);
    cell.alignment = { horizontal: 'left', vertical: 'top', wrapText: true };
    if (numFmt) cell.numFmt = numFmt;
    row.commit();
  }
  sheet.commit();
};

const listLines = (label: string, items: readonly string[], none: string): [string, CellValue][] =>
  items.length === 0 ? [[label, none]] : items.map((item, i) => [i === 0 ? label : '', xlsxText(item)]);
