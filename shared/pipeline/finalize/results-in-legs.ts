/**
 * Finalize's results pass: results.csv and results.xlsx written from one reading of the batch, a
 * page at a time, each an S3 multipart upload; when a leg's time is spent, the pass stops and
 * returns where, to go on in the next invocation, like the settling pass before it:
 *
 *   leg 2: rows 1..180,000     csv parts 1..6, xlsx parts 1..2 ─▶ { next: again, written_through: 180000 }
 *   leg 3: rows 180,001..end   the last parts, results.csv put together; when rows diverge, they
 *          are read again from the first: the workbook's divergence sheet lists them
 *          ─▶ { next: again, written_through: end, listed_through: 150000 }
 *   leg 4: rows 150,001..end   the divergence sheet's last rows, results.xlsx put together ─▶ { next: done }
 *
 * What a leg holds: a page of rows, a part of each file being filled, the workbook's small state.
 */
import * as z from 'zod';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { formatCsvRecord } from '../../spreadsheet/write-csv.js';
import { XLSX_CONTENT_TYPE } from '../../spreadsheet/xlsx-layout.js';
import { finalizeWorkKey, outboxKey } from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord } from '../core/records.js';
import { ERP_UPDATE_FILE, erpUpdateLines } from '../outbox/erp-update.js';
import { type PartsUpload, PartsUploadProgress, partsUpload } from '../outbox/parts-upload.js';
import {
  CSV_CONTENT_TYPE,
  OUTPUT_FILES,
  resultsCsvHeader,
  resultsCsvRecord,
  type ShownRow,
} from '../outbox/results-files.js';
import type { ShownSummary } from '../outbox/results-summary-sheet.js';
import {
  openResultsWorkbook,
  ResultsWorkbookProgress,
  type ResultsWorkbookWriter,
  ROWS_MEASURED_FOR_WIDTH,
  resumeResultsWorkbook,
} from '../outbox/results-workbook-writer.js';
import { outboxRows } from './outbox-rows.js';
import { standingRows } from './standing-rows.js';

/**
 * Where the results pass stopped: the last row written (`written_through`), and each upload's
 * parts and the workbook's state, so the next leg reads on from the row after and the files come
 * out byte for byte as one leg would have made them.
 */
export const ResultsWriting = z.object({
  written_through: z.number().int().min(0),
  /**
   * Once results.csv is whole and the workbook lists its divergent rows (results-workbook-writer.ts):
   * the rows read again so far, the next leg reading on from the row after.
   */
  listed_through: z.number().int().min(0).optional(),
  csv: PartsUploadProgress.optional(),
  xlsx: z.object({ upload: PartsUploadProgress, workbook: ResultsWorkbookProgress }).optional(),
  /** erp-update.csv's upload, and where the SKUs it has written so far wait in `work/`. */
  erp: z.object({ upload: PartsUploadProgress, skus_key: z.string() }).optional(),
});
export type ResultsWriting = z.infer<typeof ResultsWriting>;

type ResultsPorts = Pick<PipelinePorts, 'clock' | 'batches' | 'objects'>;

/** Where a file goes (an object key), and the name its bytes carried between legs take in `work/`. */
export type ResultsTarget = { key: string; name: string };

/** Where a batch's final results.csv, results.xlsx and erp-update.csv go in its outbox. */
export const outboxResults = (batchId: string): Record<'csv' | 'xlsx' | 'erp', ResultsTarget> => ({
  csv: { key: outboxKey(batchId, OUTPUT_FILES.results), name: OUTPUT_FILES.results },
  xlsx: { key: outboxKey(batchId, OUTPUT_FILES.results_workbook), name: OUTPUT_FILES.results_workbook },
  erp: { key: outboxKey(batchId, ERP_UPDATE_FILE), name: ERP_UPDATE_FILE },
});

/**
 * What the results pass writes (results.csv, results.xlsx or both), from which rows, and when it must
 * stop.
 */
export type ResultsPassOptions = {
  /** results.csv, when this pass writes it. */
  csv?: ResultsTarget;
  /** results.xlsx, when this pass writes it: what its second sheet shows, and the time it is dated. */
  xlsx?: ResultsTarget & { summary: ShownSummary; at: Date };
  /** erp-update.csv, when this pass writes it (outbox/erp-update.ts). */
  erp?: ResultsTarget;
  /** Sees each row as it is written: a pass that adds the batch up as it writes it. */
  onShown?: (shown: ShownRow) => void;
  /**
   * A reused verdict links its copy in this batch's `pdfs/` (the outbox's files: Finalize made
   * the copies); false: the row as it stands (the partial files, before any copy is made).
   */
  linkReusedPdfs?: boolean;
  /** Input columns the files carry (the tally's `width`). */
  width: number;
  /** The NCM table in force, which each row's codes are checked against (core/ncm-in-force.ts). */
  table?: NcmTable;
  /**
   * When this leg stops to go on in the next (epoch ms): checked once a page, so a leg writes a page
   * at least.
   */
  until: number;
  pageSize: number;
  /** A part of either file: at least S3's least size. */
  partBytes: number;
};

/** About how many characters of CSV records are made into bytes at once. */
const CSV_CHUNK_CHARACTERS = 64 * 1024;

/** One file of the pass: rows in, bytes out to its upload. */
type FileWriter<Progress> = {
  add(shown: ShownRow): Promise<void>;
  /** Whether a pause now leaves the file's bytes as a single leg would make them. */
  readonly betweenChunks: boolean;
  pause(): Promise<Progress>;
  finish(): Promise<void>;
};

const csvWriter = async (
  upload: PartsUpload,
  batch: Pick<BatchRecord, 'header' | 'delimiter' | 'options'>,
  width: number,
  first: boolean,
): Promise<FileWriter<PartsUploadProgress>> => {
  let text = first ? `\uFEFF${formatCsvRecord(resultsCsvHeader(batch, width), batch.delimiter)}` : '';
  const flush = async () => {
    await upload.append(Buffer.from(text, 'utf8'));
    text = '';
  };
  return {
    async add(shown) {
      text += formatCsvRecord(resultsCsvRecord(shown, width, batch.options?.language), batch.delimiter);
      if (text.length >= CSV_CHUNK_CHARACTERS) await flush();
    },
    betweenChunks: true,
    async pause() {
      await flush();
      return upload.pause();
    },
    async finish() {
      await flush();
      await upload.complete();
    },
  };
};

/**
 * erp-update.csv's writer: a line for each new product to change; at a pause, the SKUs written so
 * far are kept in `work/` under the row they reach, so the next leg (or a retry of this one, which
 * starts from the same row) writes each SKU once.
 */
const erpWriter = async (
  objects: ResultsPorts['objects'],
  upload: PartsUpload,
  batch: Pick<BatchRecord, 'batch_id' | 'header' | 'delimiter'>,
  from: ResultsWriting['erp'] | null,
  through: () => number,
): Promise<FileWriter<NonNullable<ResultsWriting['erp']>>> => {
  const kept = from ? await objects.getBytes(from.skus_key) : null;
  if (from && !kept)
    throw new Error(`erp-update.csv: the SKUs an earlier leg kept are gone (${from.skus_key})`);
  const skus = new Set<string>(kept ? (JSON.parse(Buffer.from(kept).toString('utf8')) as string[]) : []);
  const lines = erpUpdateLines(batch.header, batch.delimiter, skus);
  let text = from ? '' : lines.header();
  const flush = async () => {
    await upload.append(Buffer.from(text, 'utf8'));
    text = '';
  };
  return {
    async add(shown) {
      text += lines.add(shown);
      if (text.length >= CSV_CHUNK_CHARACTERS) await flush();
    },
    betweenChunks: true,
    async pause() {
      await flush();
      const skusKey = finalizeWorkKey(batch.batch_id, `${ERP_UPDATE_FILE}.skus.${through()}.json`);
      await objects.put(skusKey, JSON.stringify([...skus]), 'application/json');
      return { upload: await upload.pause(), skus_key: skusKey };
    },
    async finish() {
      await flush();
      await upload.complete();
    },
  };
};

const xlsxWriter = (
  upload: PartsUpload,
  workbook: ResultsWorkbookWriter,
  summary: ShownSummary,
): FileWriter<NonNullable<ResultsWriting['xlsx']>> & {
  readonly workbook: ResultsWorkbookWriter;
  listDivergences(): Promise<void>;
} => ({
  workbook,
  add: (shown) => upload.append(workbook.add(shown)),
  listDivergences: () => upload.append(workbook.listDivergences()),
  get betweenChunks() {
    return workbook.betweenChunks;
  },
  async pause() {
    const paused = workbook.pause();
    await upload.append(paused.bytes);
    return { upload: await upload.pause(), workbook: paused.progress };
  },
  async finish() {
    await upload.append(workbook.finish(summary));
    await upload.complete();
  },
});

/** A leg's clock: read once a page of rows, across both readings. */
type LegTime = { sinceCheck: number; spent: boolean };

/**
 * Reads `rows` into `add` until they end (`ended`), or until the leg's time is spent at a row
 * where `canPause` (`spent`: the rows generator is closed, the files are to pause).
 */
const readOn = async (
  rows: AsyncGenerator<ShownRow>,
  add: (shown: ShownRow) => Promise<void>,
  canPause: () => boolean,
  time: LegTime,
  clock: () => number,
  options: Pick<ResultsPassOptions, 'pageSize' | 'until'>,
): Promise<'ended' | 'spent'> => {
  // A generator already done (a batch shorter than the rows measured) stays done.
  for (let next = await rows.next(); !next.done; ) {
    await add(next.value);
    time.sinceCheck += 1;
    next = await rows.next();
    // A leg writes a page at least; its time is read once a page, not once a row. Once it is
    // spent, the leg stops where the workbook has no text waiting to be compressed (a few
    // hundred rows on at most), so a file written in legs is the same bytes as one written at once.
    if (next.done) continue;
    if (!time.spent && time.sinceCheck >= options.pageSize) {
      time.sinceCheck = 0;
      time.spent = clock() >= options.until;
    }
    if (!time.spent || !canPause()) continue;
    await rows.return(undefined);
    return 'spent';
  }
  return 'ended';
};

/** Opens an upload of one of the pass's files, new or from where it stopped. */
type OpenUpload = (
  target: ResultsTarget,
  contentType: string,
  progress: PartsUploadProgress | null,
) => Promise<PartsUpload>;

/**
 * Opens the pass's CSV writers (results.csv, erp-update.csv), each when the pass writes it, new or
 * from where the last leg stopped; `through` gives the last row written, for a pause.
 */
const openCsvWriters = async (
  objects: ResultsPorts['objects'],
  batch: Pick<BatchRecord, 'batch_id' | 'header' | 'delimiter' | 'options'>,
  from: ResultsWriting | null,
  options: Pick<ResultsPassOptions, 'csv' | 'erp' | 'width'>,
  upload: OpenUpload,
  through: () => number,
) => ({
  csv: options.csv
    ? await csvWriter(
        await upload(options.csv, CSV_CONTENT_TYPE, from?.csv ?? null),
        batch,
        options.width,
        from === null,
      )
    : null,
  erp: options.erp
    ? await erpWriter(
        objects,
        await upload(options.erp, CSV_CONTENT_TYPE, from?.erp?.upload ?? null),
        batch,
        from?.erp ?? null,
        through,
      )
    : null,
});

/**
 * Writes results.csv, erp-update.csv and/or results.xlsx from the first row, or from where the
 * last leg stopped (`from`); returns `next: "done"` once all are stored, or `next: "again"` with where it stopped
 * when the leg's time ran out first.
 */
export const writeResultsFiles = async (
  ports: ResultsPorts,
  batch: Pick<BatchRecord, 'batch_id' | 'header' | 'delimiter' | 'options'>,
  from: ResultsWriting | null,
  options: ResultsPassOptions,
): Promise<{ next: 'again'; writing: ResultsWriting } | { next: 'done' }> => {
  const upload: OpenUpload = (target, contentType, progress) =>
    partsUpload(
      ports.objects,
      { batchId: batch.batch_id, ...target, contentType, partBytes: options.partBytes },
      progress,
    );
  const { table } = options;
  const readRows = (after: number | null) =>
    options.linkReusedPdfs === false
      ? standingRows(ports.batches, batch.batch_id, { pageSize: options.pageSize, after, table })
      : outboxRows(ports.batches, batch.batch_id, options.pageSize, after, table);
  const clock = () => ports.clock.now().getTime();
  const time: LegTime = { sinceCheck: 0, spent: false };
  // Once listing, the second reading goes on from the last row it read; before, the first.
  const listedFrom = from?.listed_through;
  const listing = listedFrom !== undefined;
  const rows = readRows((listing ? listedFrom : from?.written_through) || null);
  // The first rows size the workbook's columns: read ahead, then written like the rest.
  const measured: ShownRow[] = [];
  if (!from && options.xlsx) {
    for (let next = await rows.next(); !next.done; next = await rows.next()) {
      measured.push(next.value);
      if (measured.length === ROWS_MEASURED_FOR_WIDTH) break;
    }
  }
  let writtenThrough = from?.written_through ?? 0;
  // results.csv and erp-update.csv are whole once the rows are read again.
  const { csv, erp } = listing
    ? { csv: null, erp: null }
    : await openCsvWriters(ports.objects, batch, from, options, upload, () => writtenThrough);
  const { xlsx: workbookTarget } = options;
  const xlsx = workbookTarget
    ? xlsxWriter(
        await upload(workbookTarget, XLSX_CONTENT_TYPE, from?.xlsx?.upload ?? null),
        from?.xlsx
          ? resumeResultsWorkbook(batch, from.xlsx.workbook, table)
          : openResultsWorkbook({ batch, width: options.width, measured, at: workbookTarget.at, table }),
        workbookTarget.summary,
      )
    : null;
  const canPause = () => xlsx === null || xlsx.betweenChunks;

  if (!listing) {
    const add = async (shown: ShownRow) => {
      await csv?.add(shown);
      await erp?.add(shown);
      await xlsx?.add(shown);
      options.onShown?.(shown);
      writtenThrough = shown.row.row;
    };
    for (const shown of measured.splice(0)) {
      await add(shown);
      time.sinceCheck += 1;
    }
    if ((await readOn(rows, add, canPause, time, clock, options)) === 'spent') {
      const writing: ResultsWriting = { written_through: writtenThrough };
      if (csv) writing.csv = await csv.pause();
      if (erp) writing.erp = await erp.pause();
      if (xlsx) writing.xlsx = await xlsx.pause();
      return { next: 'again', writing };
    }
    await csv?.finish();
    await erp?.finish();
    if (xlsx === null || xlsx.workbook.divergent === 0) {
      await xlsx?.finish();
      return { next: 'done' };
    }
    await xlsx.listDivergences();
  }
  if (xlsx === null)
    throw new Error('results pass: a divergence sheet to list and no results.xlsx to list it in');

  // The rows read again, the divergent ones listed on the workbook's divergence sheet.
  let listedThrough = from?.listed_through ?? 0;
  const again = listing ? rows : readRows(null);
  const list = async (shown: ShownRow) => {
    await xlsx.add(shown);
    listedThrough = shown.row.row;
  };
  if ((await readOn(again, list, canPause, time, clock, options)) === 'spent') {
    const writing: ResultsWriting = { written_through: writtenThrough, listed_through: listedThrough };
    writing.xlsx = await xlsx.pause();
    return { next: 'again', writing };
  }
  await xlsx.finish();
  return { next: 'done' };
};
