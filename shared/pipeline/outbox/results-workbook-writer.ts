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
 *   list    the results sheet's end (its filter down to the last row); the divergence sheet opened
 *           (divergence-sheet.ts): the rows are read again, and `add` now lists the divergent ones
 *   finish  the divergence sheet's end, the summary sheet, workbook.xml, the small parts
 *           (relationships, styles, theme, properties), the directory
 *
 * A ZIP's entries are written whole one after the other, so the divergence sheet cannot grow beside
 * the results sheet; keeping its rows aside until then would hold them in memory or in the bucket.
 * The rows are read a second time instead, only when the first reading counted any divergent row.
 *
 * The same rows, summary and `at` give the same bytes whether written in one leg or several, when
 * each pause comes `betweenChunks` (right after an `add` that returned bytes: nothing gathered, so
 * the pause deflates nothing). A pause anywhere else ends a deflate chunk there, which one leg
 * would not: a file as valid, its parts the same once unzipped, its bytes a little different.
 * Carrying the gathered text to the next leg instead would put up to 256 KB of rows in the progress.
 */
import * as z from 'zod';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
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
import type { BatchRecord } from '../core/records.js';
import {
  DIVERGENCE_FIRST_LINE,
  type DivergenceLayout,
  divergenceFilterRange,
  divergenceLayout,
  divergenceRowXml,
  divergenceSheetHead,
  divergenceSheetTail,
  isDivergent,
} from './divergence-sheet.js';
import type { ShownRow } from './results-files.js';
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
import { wordsForBatch } from './workbook-language.js';

/**
 * Column widths fit the first rows a person sees: measuring every row would mean reading a large
 * batch twice, and a column sized to one long cell on row 90,000 helps nobody.
 */
export const ROWS_MEASURED_FOR_WIDTH = 1_000;

/** About how much sheet text waits before it is deflated: large chunks compress as well as one stream. */
const CHUNK_CHARACTERS = 256 * 1024;

/**
 * On the divergence sheet, rows read before what is gathered is deflated anyway: its rows may be
 * few and far between, and a leg stops only where nothing waits (`betweenChunks`).
 */
const ROWS_READ_PER_CHUNK = 1_000;

/** Where a results.xlsx being written stands between two legs: a few hundred bytes, never rows. */
export const ResultsWorkbookProgress = z.object({
  /**
   * The file's input columns: the header's, or more when a row is longer (`resultsInputWidth`),
   * before the layout keeps what a sheet holds.
   */
  width: z.number().int().min(0),
  /** Rows written so far, in every leg. */
  rows: z.number().int().min(0),
  /** Rows of the results sheet whose declared NCM diverges: the divergence sheet lists them. */
  divergent: z.number().int().min(0).default(0),
  /**
   * Once the divergence sheet is open (the rows read again): the rows listed on it so far, and the
   * rows read since its text began to gather (none when nothing is gathered, as at a pause).
   */
  listing: z.object({ listed: z.number().int().min(0), read: z.number().int().min(0) }).optional(),
  /** The archive: bytes written, its entries, the results sheet's running CRC and sizes, its date. */
  zip: ZipProgress,
});
export type ResultsWorkbookProgress = z.infer<typeof ResultsWorkbookProgress>;

/**
 * A results.xlsx being written: rows go in, bytes to append to the upload come out, and it can
 * pause between legs or finish the file.
 */
export type ResultsWorkbookWriter = {
  /**
   * Adds the next row (row order) to the results sheet, or once listing, to the divergence sheet if
   * it diverges; returns workbook bytes ready so far (often empty): append them to the upload.
   */
  add(shown: ShownRow): Uint8Array;
  /** Rows added to the results sheet that diverge: when any, read the rows again for `listDivergences`. */
  readonly divergent: number;
  /** Whether the divergence sheet is open: `add` lists the divergent rows of a second reading. */
  readonly listing: boolean;
  /** Ends the results sheet and opens the divergence sheet; returns the bytes to append. */
  listDivergences(): Uint8Array;
  /** Deflates what is gathered: the bytes to append, and the progress the next leg resumes from. */
  pause(): { bytes: Uint8Array; progress: ResultsWorkbookProgress };
  /**
   * The rest of the file: the divergence sheet's end (opened first, empty, when no row diverged),
   * the summary sheet, workbook.xml, the directory.
   */
  finish(summary: ShownSummary): Uint8Array;
  /**
   * No sheet text waits to be deflated (just after an `add` that returned bytes, or a resume): a
   * pause now ends no chunk of its own, so the file is byte for byte the one a single leg writes.
   */
  readonly betweenChunks: boolean;
};

/**
 * What of the batch record a workbook needs: the input's header, and the options that choose its
 * language.
 */
export type WorkbookBatch = Pick<BatchRecord, 'header' | 'options'>;

const RESULTS_SHEET = sheetPath(0);
const SUMMARY_SHEET = sheetPath(1);
const DIVERGENCE_SHEET = sheetPath(2);
const NOTHING = new Uint8Array(0);

/**
 * The parts after the two large sheets, each whole: the summary, workbook.xml (each sheet's filter
 * down to its last row), and the small parts that depend only on the batch's language and the
 * date. Written at the finish, so the progress between legs lists no entry but the ones the sheets follow.
 */
const partsAfterSheets = (
  layout: ResultsLayout,
  summary: ShownSummary,
  counts: { rows: number; listed: number; table: NcmTable | undefined },
  at: Date,
): [string, string][] => {
  const { words } = layout;
  const divergences = divergenceLayout(words).own.sheet;
  const names = [words.sheets.results, words.sheets.summary, divergences];
  return [
    [SUMMARY_SHEET, summarySheetXml(summary, layout, { listed: counts.listed, table: counts.table })],
    [
      'xl/workbook.xml',
      workbookXml([
        {
          name: words.sheets.results,
          autoFilter: resultsFilterRange(layout, counts.rows),
          printTitleRow: true,
        },
        { name: words.sheets.summary, printTitleRow: true },
        { name: divergences, autoFilter: divergenceFilterRange(counts.listed) },
      ]),
    ],
    ['xl/_rels/workbook.xml.rels', workbookRelationshipsXml(names.length)],
    ['xl/styles.xml', stylesXml(resultsStyles(words))],
    ['xl/theme/theme1.xml', THEME_XML],
    ['_rels/.rels', rootRelationshipsXml()],
    ['docProps/app.xml', appPropertiesXml(names)],
    ['docProps/core.xml', corePropertiesXml(at)],
  ];
};

type WriterStart = {
  zip: ZipProgress;
  rows: number;
  divergent: number;
  listing?: { listed: number; read: number } | undefined;
  gathered: string[];
  ready: Uint8Array[];
};

/**
 * The archive as it is written: the open sheet's text gathered until it is deflated, and the bytes
 * made and not yet taken.
 */
const archiveAt = (start: Pick<WriterStart, 'zip' | 'gathered' | 'ready'>) => {
  let { zip, gathered } = start;
  let length = gathered.reduce((sum, text) => sum + text.length, 0);
  const ready = start.ready;
  const stepped = (step: { bytes: Uint8Array; zip: ZipProgress }) => {
    zip = step.zip;
    ready.push(step.bytes);
  };
  return {
    get zip() {
      return zip;
    },
    get gathered() {
      return gathered.length > 0 ? length : null;
    },
    gather(xml: string) {
      gathered.push(xml);
      length += xml.length;
    },
    deflate() {
      if (gathered.length === 0) return;
      stepped(appendToEntry(zip, gathered.join('')));
      gathered = [];
      length = 0;
    },
    /** The open sheet's end, deflated and closed; `next` opened after it. */
    closeSheet(next?: string) {
      this.deflate();
      stepped(closeEntry(zip));
      if (next) stepped(openEntry(zip, next));
    },
    addWhole: (name: string, xml: string) => stepped(addWholeEntry(zip, name, xml)),
    finish: () => ready.push(finishZip(zip)),
    take(): Uint8Array {
      const bytes = ready.length === 0 ? NOTHING : ready.length === 1 ? ready[0]! : Buffer.concat(ready);
      ready.length = 0;
      return bytes;
    },
  };
};

/** A writer over the archive as it stands: `gathered` sheet text not deflated yet, `ready` bytes not returned yet. */
const writerAt = (
  layout: ResultsLayout,
  table: NcmTable | undefined,
  start: WriterStart,
): ResultsWorkbookWriter => {
  let { rows, divergent } = start;
  let listing = start.listing ? { ...start.listing } : null;
  const divergences: DivergenceLayout = divergenceLayout(layout.words);
  const archive = archiveAt(start);
  let finished = false;
  const notFinished = (doing: string) => {
    if (finished) throw new Error(`results.xlsx: cannot ${doing} a workbook already finished`);
  };
  const deflate = () => {
    archive.deflate();
    if (listing) listing.read = 0;
  };
  const listDivergences = () => {
    notFinished('list the divergences of');
    if (listing) throw new Error('results.xlsx: the divergence sheet is already open');
    archive.gather(resultsSheetTail(layout, rows));
    archive.closeSheet(DIVERGENCE_SHEET);
    listing = { listed: 0, read: 0 };
    archive.gather(divergenceSheetHead(divergences, table));
  };
  /** Whether what is gathered waits for more: under a chunk's text, and listing, under its rows read. */
  const waiting = (): boolean => {
    const gathered = archive.gathered ?? 0;
    return gathered < CHUNK_CHARACTERS && (listing === null || listing.read < ROWS_READ_PER_CHUNK);
  };

  return {
    get betweenChunks() {
      return archive.gathered === null;
    },
    get divergent() {
      return divergent;
    },
    get listing() {
      return listing !== null;
    },
    add(shown) {
      notFinished('add a row to');
      if (listing) {
        if (archive.gathered !== null) listing.read += 1;
        if (isDivergent(shown)) {
          listing.listed += 1;
          const line = DIVERGENCE_FIRST_LINE - 1 + listing.listed;
          archive.gather(divergenceRowXml(divergences, shown, line, table));
        }
      } else {
        rows += 1;
        if (isDivergent(shown)) divergent += 1;
        archive.gather(resultsRowXml(layout, shown, rows + 1));
      }
      if (waiting()) return NOTHING;
      deflate();
      return archive.take();
    },
    listDivergences() {
      listDivergences();
      return archive.take();
    },
    pause() {
      notFinished('pause');
      deflate();
      const width = layout.width + layout.leftOut;
      const progress: ResultsWorkbookProgress = { width, rows, divergent, zip: archive.zip };
      if (listing) progress.listing = { ...listing };
      return { bytes: archive.take(), progress };
    },
    finish(summary) {
      notFinished('finish');
      if (!listing && divergent > 0)
        throw new Error(
          `results.xlsx: ${divergent} divergent rows are to be listed: read the rows again after listDivergences before finishing`,
        );
      if (!listing) listDivergences();
      finished = true;
      const listed = listing?.listed ?? 0;
      archive.gather(divergenceSheetTail(listed));
      archive.closeSheet();
      const counts = { rows, listed, table };
      for (const [name, xml] of partsAfterSheets(layout, summary, counts, new Date(archive.zip.at)))
        archive.addWhole(name, xml);
      archive.finish();
      return archive.take();
    },
  };
};

/**
 * Opens a new results.xlsx. `measured`: the first rows (up to ROWS_MEASURED_FOR_WIDTH), read ahead to
 * size the columns; they are not added by this call. `at` dates the workbook (its properties and
 * every ZIP entry) instead of the clock: a step run twice writes the same file.
 */
export const openResultsWorkbook = (input: {
  batch: WorkbookBatch;
  width: number;
  measured: readonly ShownRow[];
  at: Date;
  /** The NCM table in force: the divergence sheet's descriptions, the summary's line naming it. */
  table?: NcmTable | undefined;
}): ResultsWorkbookWriter => {
  const layout = resultsLayout(input.batch.header, input.width, wordsForBatch(input.batch));
  // The content types first, where programs that sniff a file's kind look for them.
  const types = addWholeEntry(startZip(input.at), '[Content_Types].xml', contentTypesXml(3));
  const opened = openEntry(types.zip, RESULTS_SHEET);
  const ready: Uint8Array[] = [types.bytes, opened.bytes];
  const head = resultsSheetHead(layout, measuredWidths(layout, input.measured));
  return writerAt(layout, input.table, {
    zip: opened.zip,
    rows: 0,
    divergent: 0,
    gathered: [head],
    ready,
  });
};

/**
 * Resumes the results.xlsx a previous leg paused, for the same batch, from its progress record:
 * add the next rows, list the divergences, pause again or finish. Throws when the progress has
 * no sheet open where it should.
 */
export const resumeResultsWorkbook = (
  batch: WorkbookBatch,
  progress: ResultsWorkbookProgress,
  table?: NcmTable,
): ResultsWorkbookWriter => {
  const { width, rows, divergent, listing, zip } = ResultsWorkbookProgress.parse(progress);
  const expected = listing ? DIVERGENCE_SHEET : RESULTS_SHEET;
  if (zip.open?.name !== expected)
    throw new Error(
      `results.xlsx: the progress has no ${listing ? 'divergence' : 'results'} sheet open to resume (${zip.open?.name ?? 'none'})`,
    );
  const layout = resultsLayout(batch.header, width, wordsForBatch(batch));
  return writerAt(layout, table, { zip, rows, divergent, listing, gathered: [], ready: [] });
};
