/**
 * results.xlsx: the same rows and values as results.csv, made to be opened by a person (the layout:
 * results-sheet-xml.ts). Written without a library, so that it can be written in legs: Finalize
 * adds rows until its invocation's time is spent, pauses, and the next invocation resumes the
 * same file from a small JSON progress record (`ResultsWorkbookProgress`) and appends to the same
 * upload. The archive is spreadsheet/zip-in-legs.ts; the big sheet its one streamed entry.
 *
 *   open    the content types, then the results sheet's head: columns sized from the first rows,
 *           the header row
 *   add     a row's XML, gathered; deflated into the file when about 256 KB of text is waiting
 *   pause   what is gathered deflated now; the progress: input columns, rows written, the archive's
 *           state (never rows: a few hundred bytes, however long the batch)
 *   finish  the results sheet's end (its filter down to the last row), the summary sheet,
 *           workbook.xml, the small parts (relationships, styles, theme, properties), the directory
 *
 * The same rows, summary and `at` give the same bytes whether written in one leg or several, when
 * each pause comes `betweenChunks` (right after an `add` that returned bytes: nothing gathered, so
 * the pause deflates nothing). A pause anywhere else ends a deflate chunk there, which one leg
 * would not: a file as valid, its parts the same once unzipped, its bytes a little different.
 * Carrying the gathered text to the next leg instead would put up to 256 KB of rows in the progress.
 */
import { Readable } from 'node:stream';
import { z } from 'zod';
import {
  appPropertiesXml,
  contentTypesXml,
  corePropertiesXml,
  rootRelationshipsXml,
  sheetPath,
  stylesXml,
  workbookRelationshipsXml,
  workbookXml,
} from '../../spreadsheet/xlsx-parts.js';
import { THEME_XML } from '../../spreadsheet/xlsx-theme.js';
import {
  addWholeEntry,
  appendToEntry,
  closeEntry,
  finishZip,
  openEntry,
  startZip,
  ZipProgress,
} from '../../spreadsheet/zip-in-legs.js';
import type { BatchRecord, ReviewItem, RowRecord } from '../core/records.js';
import { resultNow, type ShownResult } from '../core/row-life.js';
import { type OutboxWorkbooks, resultsInputWidth, type ShownRow } from './results-files.js';
import {
  measuredWidths,
  type ResultsLayout,
  resultsFilterRange,
  resultsLayout,
  resultsRowXml,
  resultsSheetHead,
  resultsSheetTail,
  resultsStyles,
} from './results-sheet-xml.js';
import { type ShownSummary, summarySheetXml } from './results-summary-sheet.js';
import { reviewWorkbook } from './review-workbook.js';
import { wordsForBatch } from './workbook-language.js';

export type { ShownSummary } from './results-summary-sheet.js';

/**
 * Column widths fit the first rows a person sees: measuring every row would mean reading a large
 * batch twice, and a column sized to one long cell on row 90,000 helps nobody.
 */
export const ROWS_MEASURED_FOR_WIDTH = 1_000;

/** About how much sheet text waits before it is deflated: large chunks compress as well as one stream. */
const CHUNK_CHARACTERS = 256 * 1024;

/** Where a results.xlsx being written stands between two legs. */
export const ResultsWorkbookProgress = z.object({
  /**
   * The file's input columns: the header's, or more when a row is longer (`resultsInputWidth`),
   * before the layout keeps what a sheet holds.
   */
  width: z.number().int().min(0),
  /** Rows written so far, in every leg. */
  rows: z.number().int().min(0),
  /** The archive: bytes written, its entries, the results sheet's running CRC and sizes, its date. */
  zip: ZipProgress,
});
export type ResultsWorkbookProgress = z.infer<typeof ResultsWorkbookProgress>;

export type ResultsWorkbookWriter = {
  /** Adds the next row (row order); returns workbook bytes ready so far (often empty): append them to the upload. */
  add(shown: ShownRow): Uint8Array;
  /** Deflates what is gathered: the bytes to append, and the progress the next leg resumes from. */
  pause(): { bytes: Uint8Array; progress: ResultsWorkbookProgress };
  /** The rest of the file: the sheet's end (autofilter to the last row written), the summary sheet, workbook.xml, the directory. */
  finish(summary: ShownSummary): Uint8Array;
  /**
   * No sheet text waits to be deflated (just after an `add` that returned bytes, or a resume): a
   * pause now ends no chunk of its own, so the file is byte for byte the one a single leg writes.
   */
  readonly betweenChunks: boolean;
};

type WorkbookBatch = Pick<BatchRecord, 'header' | 'options'>;

const RESULTS_SHEET = sheetPath(0);
const SUMMARY_SHEET = sheetPath(1);
const NOTHING = new Uint8Array(0);

/**
 * The parts after the results sheet, each whole: the summary, workbook.xml (its filter down to the
 * last row), and the small parts that depend only on the batch's language and the date. Written
 * at the finish, so the progress between legs lists no entry but the two the sheet follows.
 */
const partsAfterSheet = (
  layout: ResultsLayout,
  summary: ShownSummary,
  rows: number,
  at: Date,
): [string, string][] => {
  const { words } = layout;
  return [
    [SUMMARY_SHEET, summarySheetXml(summary, layout)],
    [
      'xl/workbook.xml',
      workbookXml([
        { name: words.sheets.results, autoFilter: resultsFilterRange(layout, rows), printTitleRow: true },
        { name: words.sheets.summary, printTitleRow: true },
      ]),
    ],
    ['xl/_rels/workbook.xml.rels', workbookRelationshipsXml(2)],
    ['xl/styles.xml', stylesXml(resultsStyles(words))],
    ['xl/theme/theme1.xml', THEME_XML],
    ['_rels/.rels', rootRelationshipsXml()],
    ['docProps/app.xml', appPropertiesXml([words.sheets.results, words.sheets.summary])],
    ['docProps/core.xml', corePropertiesXml(at)],
  ];
};

/** A writer over the archive as it stands: `gathered` sheet text not deflated yet, `ready` bytes not returned yet. */
const writerAt = (
  layout: ResultsLayout,
  start: { zip: ZipProgress; rows: number; gathered: string[]; ready: Uint8Array[] },
): ResultsWorkbookWriter => {
  let { zip, rows, gathered } = start;
  let gatheredLength = gathered.reduce((sum, text) => sum + text.length, 0);
  const ready = start.ready;
  let finished = false;

  const deflateGathered = () => {
    if (gathered.length === 0) return;
    const step = appendToEntry(zip, gathered.join(''));
    zip = step.zip;
    ready.push(step.bytes);
    gathered = [];
    gatheredLength = 0;
  };
  const takeReady = (): Uint8Array => {
    const bytes = ready.length === 0 ? NOTHING : ready.length === 1 ? ready[0]! : Buffer.concat(ready);
    ready.length = 0;
    return bytes;
  };
  const notFinished = (doing: string) => {
    if (finished) throw new Error(`results.xlsx: cannot ${doing} a workbook already finished`);
  };

  return {
    get betweenChunks() {
      return gathered.length === 0;
    },
    add(shown) {
      notFinished('add a row to');
      rows += 1;
      const xml = resultsRowXml(layout, shown, rows + 1);
      gathered.push(xml);
      gatheredLength += xml.length;
      if (gatheredLength < CHUNK_CHARACTERS) return NOTHING;
      deflateGathered();
      return takeReady();
    },
    pause() {
      notFinished('pause');
      deflateGathered();
      return { bytes: takeReady(), progress: { width: layout.width + layout.leftOut, rows, zip } };
    },
    finish(summary) {
      notFinished('finish');
      finished = true;
      gathered.push(resultsSheetTail(layout, rows));
      deflateGathered();
      const closed = closeEntry(zip);
      zip = closed.zip;
      ready.push(closed.bytes);
      for (const [name, xml] of partsAfterSheet(layout, summary, rows, new Date(zip.at))) {
        const step = addWholeEntry(zip, name, xml);
        zip = step.zip;
        ready.push(step.bytes);
      }
      ready.push(finishZip(zip));
      return takeReady();
    },
  };
};

/**
 * A new results.xlsx. `measured`: the first rows (up to ROWS_MEASURED_FOR_WIDTH), read ahead to
 * size the columns; they are not added by this call. `at` dates the workbook (its properties and
 * every ZIP entry) instead of the clock: a step run twice writes the same file.
 */
export const openResultsWorkbook = (input: {
  batch: WorkbookBatch;
  width: number;
  measured: readonly ShownRow[];
  at: Date;
}): ResultsWorkbookWriter => {
  const layout = resultsLayout(input.batch.header, input.width, wordsForBatch(input.batch));
  // The content types first, where programs that sniff a file's kind look for them.
  const types = addWholeEntry(startZip(input.at), '[Content_Types].xml', contentTypesXml(2));
  const opened = openEntry(types.zip, RESULTS_SHEET);
  const ready: Uint8Array[] = [types.bytes, opened.bytes];
  const head = resultsSheetHead(layout, measuredWidths(layout, input.measured));
  return writerAt(layout, { zip: opened.zip, rows: 0, gathered: [head], ready });
};

/** The results.xlsx a previous leg paused, for the same batch: add the next rows, pause again or finish. */
export const resumeResultsWorkbook = (
  batch: WorkbookBatch,
  progress: ResultsWorkbookProgress,
): ResultsWorkbookWriter => {
  const { width, rows, zip } = ResultsWorkbookProgress.parse(progress);
  if (zip.open?.name !== RESULTS_SHEET)
    throw new Error(
      `results.xlsx: the progress has no results sheet open to resume (${zip.open?.name ?? 'none'})`,
    );
  const layout = resultsLayout(batch.header, width, wordsForBatch(batch));
  return writerAt(layout, { zip, rows, gathered: [], ready: [] });
};

export type ResultsWorkbookInput = {
  batch: WorkbookBatch;
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

async function* inRowOrder(rows: readonly RowRecord[], resultFor: (row: RowRecord) => ShownResult) {
  for (const row of [...rows].sort((a, b) => a.row - b.row)) yield { row, result: resultFor(row) };
}

/** The time a workbook is as of: its summary's (a run twice writes the same bytes). */
export const summaryTime = (summary: ShownSummary): Date =>
  new Date((summary.partial ? summary.as_of : undefined) ?? summary.finished_at);

/** The whole workbook in one leg, a chunk at a time, the rows read as the chunks are taken. */
async function* resultsWorkbookChunks(input: ResultsWorkbookInput): AsyncGenerator<Uint8Array> {
  const { width, shownRows } =
    'shownRows' in input
      ? input
      : {
          width: resultsInputWidth(input.batch, input.rows),
          shownRows: inRowOrder(input.rows, input.resultFor ?? ((row: RowRecord) => resultNow(row))),
        };
  const iterator = shownRows[Symbol.asyncIterator]();
  try {
    const measured: ShownRow[] = [];
    let next = await iterator.next();
    for (; !next.done && measured.length < ROWS_MEASURED_FOR_WIDTH; next = await iterator.next())
      measured.push(next.value);
    const workbook = openResultsWorkbook({
      batch: input.batch,
      width,
      measured,
      at: summaryTime(input.summary),
    });
    for (const shown of measured.splice(0)) {
      const bytes = workbook.add(shown);
      if (bytes.length > 0) yield bytes;
    }
    for (; !next.done; next = await iterator.next()) {
      const bytes = workbook.add(next.value);
      if (bytes.length > 0) yield bytes;
    }
    yield workbook.finish(input.summary);
  } finally {
    await iterator.return?.();
  }
}

/**
 * results.xlsx as a stream: give it to an upload as its body. Rows are read only as fast as the
 * upload takes the bytes, so a slow reader slows the writing instead of it piling up in memory.
 */
export const resultsWorkbook = (input: ResultsWorkbookInput): Readable =>
  Readable.from(resultsWorkbookChunks(input), { objectMode: false });

/** The outbox's two workbooks, made from what its CSVs are made from, both as of the summary's time. */
export const outboxWorkbooks = (input: {
  batch: WorkbookBatch;
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
