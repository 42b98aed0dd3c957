/**
 * results.xlsx's second sheet as XML: one label and one value a line, counts by status, billed,
 * saved, the rows the divergence sheet lists and the NCM table they were checked against, dates,
 * problems and warnings, and the input columns a wide file's results sheet left out. Its cells and
 * styles are the results sheet's (results-sheet-xml.ts).
 */
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { columnLetter } from '../../spreadsheet/column-letters.js';
import { fittingWidth, xlsxText } from '../../spreadsheet/xlsx-layout.js';
import { rowXml, type SheetColumn, sheetHead, sheetTail } from '../../spreadsheet/xlsx-parts.js';
import { message, wordMessage } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { OUTPUT_STATUSES, type RowStatus } from '../core/row-statuses.js';
import { DIVERGENCE_WORDS } from './divergence-labels.js';
import type { BatchSummary } from './results-files.js';
import { cellXml, type ResultsLayout, type SheetCell, STYLE, shownWidth } from './results-sheet-xml.js';
import type { WorkbookWords } from './workbook-labels.js';

/** The summary a results workbook's second sheet shows: a batch's, a revision's or a partial one. */
export type ShownSummary = BatchSummary & {
  revision?: number;
  partial?: boolean;
  as_of?: string;
  working?: Record<string, number>;
};

const asDate = (iso: string | null | undefined): Date | null => {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
};

type SummaryLine = [label: string, value: SheetCell, style?: number];

/** A list of messages, one a line, each worded in the workbook's language (shared/wording/). */
const listLines = (label: string, items: readonly Message[], words: WorkbookWords): SummaryLine[] =>
  items.length === 0
    ? [[label, words.summary.none]]
    : items.map((item, i) => [i === 0 ? label : '', xlsxText(wordMessage(item, words.language))]);

/** Where the summary's saving came from: earlier verdicts reused, identical rows classified once. */
const savingOf = (summary: Pick<BatchSummary, 'saved_usd' | 'duplicates'>): Message => {
  const identical = Math.min(summary.saved_usd, summary.duplicates.saved_usd);
  return message('saving_sources', {
    reused_usd: Math.round((summary.saved_usd - identical) * 100) / 100,
    identical_usd: identical,
  });
};

/** What the summary says of the divergence sheet: how many rows it lists, against which table. */
export type DivergenceCount = { listed: number; table?: Pick<NcmTable, 'asOf' | 'act'> | undefined };

const summaryLines = (
  summary: ShownSummary,
  layout: ResultsLayout,
  divergences: DivergenceCount,
): SummaryLine[] => {
  const { words, width, leftOut } = layout;
  const w = words.summary;
  const d = DIVERGENCE_WORDS[words.language].summary;
  const { table } = divergences;
  return [
    [w.batch, xlsxText(summary.batch_id)],
    [w.name, summary.name === null ? null : xlsxText(summary.name)],
    [w.state, words.batchState[summary.state] ?? xlsxText(summary.state)],
    [w.source, summary.source ? xlsxText(summary.source.key) : null],
    // Where a reader of a wide file's results sheet looks first, before the counts.
    ...(leftOut > 0
      ? [[w.columnsLeftOut, xlsxText(w.columnsLeftOutNote(leftOut, columnLetter(width - 1)))] as SummaryLine]
      : []),
    ...(summary.revision ? [[w.revision, summary.revision] as SummaryLine] : []),
    [w.rowsTotal, summary.rows_total],
    ...OUTPUT_STATUSES.map((status): SummaryLine => [words.status[status], summary.by_status[status] ?? 0]),
    ...Object.entries(summary.working ?? {}).map(
      ([status, count]): SummaryLine => [words.status[status as RowStatus] ?? status, count],
    ),
    [w.billed, summary.billed_usd, STYLE.summaryUsd],
    [w.saved, summary.saved_usd, STYLE.summaryUsd],
    ...(summary.saved_usd > 0
      ? [[w.savedFrom, xlsxText(wordMessage(savingOf(summary), words.language))] as SummaryLine]
      : []),
    [w.duplicates, summary.duplicates.rows],
    [w.mismatches, summary.current_ncm_mismatches],
    [d.listed, divergences.listed],
    ...(table ? [[d.table, xlsxText(d.tableValue(table))] as SummaryLine] : []),
    [w.startedAt, asDate(summary.started_at), STYLE.summaryDate],
    [
      summary.partial ? w.asOf : w.finishedAt,
      asDate(summary.partial ? summary.as_of : summary.finished_at),
      STYLE.summaryDate,
    ],
    ...listLines(w.problems, summary.problems, words),
    ...listLines(w.warnings, summary.warnings, words),
  ];
};

/**
 * results.xlsx's summary sheet as one piece of XML: one label (bold) and one value (wrapped, at the
 * top left) a line.
 */
export const summarySheetXml = (
  summary: ShownSummary,
  layout: ResultsLayout,
  divergences: DivergenceCount = { listed: 0 },
): string => {
  const { words } = layout;
  const lines = summaryLines(summary, layout, divergences);
  const columns: SheetColumn[] = [
    {
      width: fittingWidth(
        lines.map(([label]) => label.length),
        { min: 12, max: 70 },
      ),
    },
    {
      width: fittingWidth(
        lines.map(([, value]) => shownWidth(value)),
        { min: 14, max: 100 },
      ),
    },
  ];
  const header = rowXml(
    1,
    cellXml('A1', words.summary.item, STYLE.header) + cellXml('B1', words.summary.value, STYLE.header),
  );
  const rows = lines.map(([label, value, style], i) =>
    rowXml(
      i + 2,
      cellXml(`A${i + 2}`, label, STYLE.summaryLabel) +
        cellXml(`B${i + 2}`, value, style ?? STYLE.summaryValue),
    ),
  );
  return (
    sheetHead({ frozenRows: 1, columns }) + header + rows.join('') + sheetTail({ orientation: 'portrait' })
  );
};
