/**
 * Partial results while a long batch runs: `results.partial.csv`, `results.partial.xlsx` and
 * `summary.partial.json` in the outbox, with every row's state now, so people can work on the
 * rows already final long before the last one ends. Written at most every `partial_every_minutes` while rows finish
 * (Complete asks: row/complete.ts) and whenever someone asks (a request object under
 * `requests/<batch-id>/`, or `npm run classify -- --status <batch-id>`).
 *
 * A row already final reads exactly as it will in results.csv; a row of the same product as one
 * that is final takes its outcome here too (core/same-product.ts), without writing it; a row
 * still on its way shows its working status. Finalize replaces the files' contents with the
 * final ones, so a partial file left in the outbox never says less than results.csv.
 */
import { z } from 'zod';
import { XLSX_CONTENT_TYPE } from '../../spreadsheet/write-xlsx.js';
import { batchIdOfRequestKey, outboxKey } from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import { tallyBatch } from './outbox-rows.js';
import { BatchSummary, CSV_CONTENT_TYPE, OUTPUT_FILES, streamResultsCsv } from './results-files.js';
import { resultsWorkbook } from './results-workbook.js';
import { ROWS_PER_PAGE, standingRows } from './standing-rows.js';

export const PARTIAL_FILES = {
  results: 'results.partial.csv',
  results_workbook: 'results.partial.xlsx',
  summary: 'summary.partial.json',
} as const;

export const PartialSummary = BatchSummary.extend({
  /** True while the batch runs; false once Finalize replaced it with the final state. */
  partial: z.boolean(),
  as_of: z.string(),
  /** Rows still on their way, by working status (`queued`, `submitting`, `in_progress`, `following`). */
  working: z.record(z.string(), z.number().int().min(0)),
});
export type PartialSummary = z.infer<typeof PartialSummary>;

export type PartialReport = { batch_id: string; written: boolean; ended?: boolean; why?: string };

/**
 * Writes the partial files of a batch (or of the batch an answers round resumes). A batch that
 * has ended has its final files: nothing is written.
 */
export const writePartialResults = async (
  ports: Pick<PipelinePorts, 'clock' | 'objects' | 'batches'>,
  requestedId: string,
): Promise<PartialReport> => {
  const requested = await ports.batches.getBatch(requestedId);
  const batchId = requested?.round_of ?? requestedId;
  const batch = requested?.round_of ? await ports.batches.getBatch(batchId) : requested;
  if (!batch) return { batch_id: batchId, written: false, why: 'no such batch' };
  if (batch.finished_at !== undefined && !requested?.round_of)
    return {
      batch_id: batchId,
      written: false,
      ended: true,
      why: 'the batch has ended: its final files are in the outbox',
    };
  // One pass adds up the rows as they stand; the files read the batch again as they are written.
  const now = ports.clock.now();
  // A working row counts among the rows (and as a follower) but under no output status.
  const { tally, width, working } = await tallyBatch(ports.batches, batch, ROWS_PER_PAGE);
  const summary: PartialSummary = {
    ...tally.summary(batch, now),
    partial: true,
    as_of: now.toISOString(),
    working,
  };
  await ports.objects.put(
    outboxKey(batchId, PARTIAL_FILES.results),
    streamResultsCsv(batch, width, standingRows(ports.batches, batchId)),
    CSV_CONTENT_TYPE,
  );
  await ports.objects.put(
    outboxKey(batchId, PARTIAL_FILES.results_workbook),
    resultsWorkbook({ batch, summary, width, shownRows: standingRows(ports.batches, batchId) }),
    XLSX_CONTENT_TYPE,
  );
  await ports.objects.put(
    outboxKey(batchId, PARTIAL_FILES.summary),
    JSON.stringify(summary, null, 2),
    'application/json',
  );
  return { batch_id: batchId, written: true };
};

/**
 * Finalize's last word on the partial files, when there are any: the final results and summary
 * in their place, marked no longer partial; the workbook a copy of the final results.xlsx.
 */
export const replacePartialFiles = async (
  objects: Pick<PipelinePorts['objects'], 'head' | 'put' | 'copy'>,
  batchId: string,
  final: { summary: BatchSummary; at: string },
): Promise<void> => {
  if (!(await objects.head(outboxKey(batchId, PARTIAL_FILES.summary)))) return;
  // Copies of the final files, written just before: a large batch's results are not made twice.
  await objects.copy(outboxKey(batchId, OUTPUT_FILES.results), outboxKey(batchId, PARTIAL_FILES.results));
  await objects.copy(
    outboxKey(batchId, OUTPUT_FILES.results_workbook),
    outboxKey(batchId, PARTIAL_FILES.results_workbook),
  );
  const summary: PartialSummary = { ...final.summary, partial: false, as_of: final.at, working: {} };
  await objects.put(
    outboxKey(batchId, PARTIAL_FILES.summary),
    JSON.stringify(summary, null, 2),
    'application/json',
  );
};

const PartialResultsAsked = z.object({ batch_id: z.string().min(1) });
const RequestObjectCreated = z.object({
  'detail-type': z.literal('Object Created'),
  detail: z.object({ object: z.object({ key: z.string() }) }),
});

/**
 * The batch whose partial results an event asks for: `{ "batch_id": … }` (a finishing row, a
 * person invoking the function), or S3's *Object Created* for a request object dropped under
 * `requests/<batch id>/`. Null for anything else.
 */
export const partialResultsRequestOf = (event: unknown): string | null => {
  const asked = PartialResultsAsked.safeParse(event);
  if (asked.success) return asked.data.batch_id;
  const created = RequestObjectCreated.safeParse(event);
  if (!created.success) return null;
  try {
    // S3 form-encodes the key in the event, as it does for a dropped spreadsheet.
    return batchIdOfRequestKey(decodeURIComponent(created.data.detail.object.key.replace(/\+/g, ' ')));
  } catch {
    return null;
  }
};
