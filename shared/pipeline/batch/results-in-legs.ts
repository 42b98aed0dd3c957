/**
 * Finalize's results pass: results.csv and results.xlsx written from one reading of the batch, a
 * page at a time, each an upload in parts (parts-upload.ts), and handed on to the next invocation
 * when a leg's time is spent, like the settling pass before it:
 *
 *   leg 2: rows 1..180,000     csv parts 1..6, xlsx parts 1..2 ─▶ { next: again, written_through: 180000 }
 *   leg 3: rows 180,001..end   the last parts, both files put together ─▶ { next: done }
 *
 * What a leg holds: a page of rows, a part of each file being filled, the workbook's small state.
 */
import { z } from 'zod';
import { formatCsvRecord } from '../../spreadsheet/write-csv.js';
import { XLSX_CONTENT_TYPE } from '../../spreadsheet/write-xlsx.js';
import { outboxKey } from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord } from '../core/records.js';
import { outboxRows } from './outbox-rows.js';
import { PartsUploadProgress, partsUpload } from './parts-upload.js';
import {
  CSV_CONTENT_TYPE,
  OUTPUT_FILES,
  resultsCsvHeader,
  resultsCsvRecord,
  type ShownRow,
} from './results-files.js';
import {
  openResultsWorkbook,
  ResultsWorkbookProgress,
  ROWS_MEASURED_FOR_WIDTH,
  resumeResultsWorkbook,
  type ShownSummary,
} from './results-workbook.js';

/** Where the results pass stopped: the next leg reads on from the row after `written_through`. */
export const ResultsWriting = z.object({
  written_through: z.number().int().min(0),
  csv: PartsUploadProgress,
  xlsx: PartsUploadProgress,
  workbook: ResultsWorkbookProgress,
});
export type ResultsWriting = z.infer<typeof ResultsWriting>;

type ResultsPorts = Pick<PipelinePorts, 'clock' | 'batches' | 'objects'>;

/** Where each file goes (an object key), and the name its bytes carried between legs take in `work/`. */
export type ResultsTargets = Record<'csv' | 'xlsx', { key: string; name: string }>;

/** The outbox's results.csv and .xlsx. */
export const outboxResults = (batchId: string): ResultsTargets => ({
  csv: { key: outboxKey(batchId, OUTPUT_FILES.results), name: OUTPUT_FILES.results },
  xlsx: { key: outboxKey(batchId, OUTPUT_FILES.results_workbook), name: OUTPUT_FILES.results_workbook },
});

export type ResultsPassOptions = {
  targets: ResultsTargets;
  /** Sees each row as it is written: a pass that adds the batch up as it writes it. */
  onShown?: (shown: ShownRow) => void;
  /** Input columns the files carry (the tally's `width`). */
  width: number;
  /** What the workbook's second sheet shows, and the time it is dated. */
  summary: ShownSummary;
  at: Date;
  /** When this leg hands on (epoch ms): checked between rows, a leg writing a page at least. */
  until: number;
  pageSize: number;
  /** A part of either file: at least S3's least size. */
  partBytes: number;
};

/** About how many characters of CSV records are made into bytes at once. */
const CSV_CHUNK_CHARACTERS = 64 * 1024;

/** The results pass from where the last leg stopped, or from the first row. */
export const writeResultsFiles = async (
  ports: ResultsPorts,
  batch: Pick<BatchRecord, 'batch_id' | 'header' | 'delimiter' | 'options'>,
  from: ResultsWriting | null,
  options: ResultsPassOptions,
): Promise<{ next: 'again'; writing: ResultsWriting } | { next: 'done' }> => {
  const batchId = batch.batch_id;
  const upload = (file: 'csv' | 'xlsx', contentType: string) =>
    partsUpload(
      ports.objects,
      { batchId, ...options.targets[file], contentType, partBytes: options.partBytes },
      from?.[file] ?? null,
    );
  const csv = await upload('csv', CSV_CONTENT_TYPE);
  const xlsx = await upload('xlsx', XLSX_CONTENT_TYPE);

  const rows = outboxRows(ports.batches, batchId, options.pageSize, from?.written_through ?? null);
  let text = '';
  const addCsv = async (record: string) => {
    text += record;
    if (text.length < CSV_CHUNK_CHARACTERS) return;
    await csv.append(Buffer.from(text, 'utf8'));
    text = '';
  };

  let measured: ShownRow[] = [];
  if (!from) {
    await addCsv(`\uFEFF${formatCsvRecord(resultsCsvHeader(batch, options.width), batch.delimiter)}`);
    // The first rows size the workbook's columns: read ahead, then written like the rest.
    for (let next = await rows.next(); !next.done; next = await rows.next()) {
      measured.push(next.value);
      if (measured.length === ROWS_MEASURED_FOR_WIDTH) break;
    }
  }
  const workbook = from
    ? resumeResultsWorkbook(batch, from.workbook)
    : openResultsWorkbook({ batch, width: options.width, measured, at: options.at });

  let writtenThrough = from?.written_through ?? 0;
  let sinceCheck = 0;
  let spent = false;
  const add = async (shown: ShownRow) => {
    await addCsv(formatCsvRecord(resultsCsvRecord(shown, options.width), batch.delimiter));
    await xlsx.append(workbook.add(shown));
    options.onShown?.(shown);
    writtenThrough = shown.row.row;
    sinceCheck += 1;
  };
  for (const shown of measured) await add(shown);
  measured = [];
  // A generator already done (a batch shorter than the rows measured) stays done.
  for (let next = await rows.next(); !next.done; ) {
    await add(next.value);
    next = await rows.next();
    // A leg writes a page at least; its time is read once a page, not once a row. Once it is
    // spent, the leg hands on where the workbook has no text waiting to be compressed (a few
    // hundred rows on at most), so a file written in legs is the same bytes as one written at once.
    if (next.done) continue;
    if (!spent && sinceCheck >= options.pageSize) {
      sinceCheck = 0;
      spent = ports.clock.now().getTime() >= options.until;
    }
    if (!spent || !workbook.betweenChunks) continue;
    await rows.return(undefined);
    await csv.append(Buffer.from(text, 'utf8'));
    const paused = workbook.pause();
    await xlsx.append(paused.bytes);
    return {
      next: 'again',
      writing: {
        written_through: writtenThrough,
        csv: await csv.pause(),
        xlsx: await xlsx.pause(),
        workbook: paused.progress,
      },
    };
  }
  await csv.append(Buffer.from(text, 'utf8'));
  await xlsx.append(workbook.finish(options.summary));
  await csv.complete();
  await xlsx.complete();
  return { next: 'done' };
};
