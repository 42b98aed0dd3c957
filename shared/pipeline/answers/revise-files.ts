/**
 * FinalizeAnswers' files (its step 5: a batch's outbox written again after a round) written in
 * legs, like Finalize's: a leg whose time is spent returns where it stopped, and the workflow
 * calls FinalizeAnswers again.
 *
 *   audit pass  audit.csv gains the events recorded since its last write (audit/audit-file.ts)
 *   csv pass    results.csv to work/<batch>/finalize/<run>/, the batch added up as it is written
 *   revision    the earlier files kept as rev<N> when the new results.csv differs (by sha256,
 *               both read by ranges), then the new one copied into the outbox
 *   xlsx pass   results.xlsx to the outbox, its summary sheet naming the revision
 *   the rest    to-check.csv, review.csv and .xlsx, summary.json, in place of any partial files
 *
 * The workbook waits for the revision because its summary sheet names it; the CSV comes first
 * because it is what a revision compares. Where a leg stopped: the pass, the row it wrote last,
 * the uploads' parts; the tally and the bytes not yet a part wait in `work/`.
 */

import * as z from 'zod';
import { type TableInForce, tableInForce } from '../../ncm-table/reference-table.js';
import { AuditWriting, writeAuditFile } from '../audit/audit-file.js';
import { finalizeWorkKey, outboxKey } from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, ReviewItem } from '../core/records.js';
import {
  loadTally,
  pageTally,
  saveTally,
  sha256Of,
  type TallyRead,
  tallyKey,
} from '../finalize/outbox-rows.js';
import { replacePartialFiles } from '../finalize/partial-results.js';
import { outboxResults, ResultsWriting, writeResultsFiles } from '../finalize/results-in-legs.js';
import {
  buildReviewCsv,
  OUTPUT_FILES,
  pendingReviewItems,
  writeReviewFiles,
} from '../outbox/results-files.js';
import type { ShownSummary } from '../outbox/results-summary-sheet.js';
import { summaryTime } from '../outbox/results-workbook.js';
import { reviewWorkbook } from '../outbox/review-workbook.js';
import { writeToCheckCsv } from '../outbox/to-check-files.js';
import { keepRevision } from './results-revisions.js';

/**
 * Where the writing of one batch's revised files stopped between legs: the pass, its upload, the
 * revision once known.
 */
export const RevisionProgress = z.object({
  /** Names this run's objects in `work/`: the round's id, or the time a round-less run began. */
  run: z.string().min(1),
  pass: z.enum(['csv', 'xlsx', 'audit']),
  writing: ResultsWriting.nullable(),
  /**
   * audit.csv's additions, the first pass: under way (pass `audit`), null once made; absent before.
   */
  audit: AuditWriting.nullable().optional(),
  /** Known once the csv pass is done. */
  revision: z.number().int().min(0).nullable(),
});
export type RevisionProgress = z.infer<typeof RevisionProgress>;

type RevisePorts = Pick<PipelinePorts, 'clock' | 'batches' | 'objects' | 'checks' | 'audit'>;

/**
 * What revising a batch's files needs: the width, when the leg stops, page and part sizes, the review
 * items, the summary.
 */
export type ReviseOptions = {
  /** Input columns the files carry: the widest row's (found as the rows in play were). */
  width: number;
  /** When this leg stops to go on in the next (epoch ms). */
  until: number;
  pageSize: number;
  partBytes: number;
  /** The review items as the round left them. */
  items: readonly ReviewItem[];
  /** summary.json (and the workbook's second sheet) from the batch added up and the revision. */
  summaryOf: (read: TallyRead, revision: number, ncm: TableInForce) => ShownSummary;
  now: Date;
};

/**
 * What one leg of revising returns: where it stopped (`again`), or the summary written and its
 * revision (`done`).
 */
export type ReviseOutcome =
  | { next: 'again'; progress: RevisionProgress }
  | { next: 'done'; summary: ShownSummary; revision: number };

const stagedCsv = (batchId: string, run: string) => {
  const name = `${run}/${OUTPUT_FILES.results}`;
  return { key: finalizeWorkKey(batchId, name), name };
};

/**
 * Writes one batch's outbox files again after a round: audit.csv's new lines, results.csv (keeping
 * the earlier files as a revision when it differs), results.xlsx, then the review files and
 * summary.json; from where the last leg stopped (`from`), or from the start. Returns
 * `next: "again"` with where it stopped when the leg's time ran out first.
 */
export const reviseFiles = async (
  ports: RevisePorts,
  batch: BatchRecord,
  from: RevisionProgress,
  options: ReviseOptions,
): Promise<ReviseOutcome> => {
  const batchId = batch.batch_id;
  const { run } = from;
  const ncm = await tableInForce(ports.objects);
  const pass = { width: options.width, until: options.until, pageSize: options.pageSize, table: ncm.table };
  // audit.csv first: it only grows, whatever the results files come to (audit/audit-file.ts).
  if (from.pass === 'audit' || (from.pass === 'csv' && from.writing === null && from.audit === undefined)) {
    const audit = await writeAuditFile(ports, batch, from.audit ?? null, {
      until: options.until,
      pageSize: options.pageSize,
      partBytes: options.partBytes,
    });
    if (audit.next === 'again')
      return { next: 'again', progress: { ...from, pass: 'audit', audit: audit.writing } };
    from = { ...from, pass: 'csv', audit: null };
  }
  let { revision } = from;
  let xlsxFrom = from.pass === 'xlsx' ? from.writing : null;
  if (from.pass === 'csv') {
    const resumed = from.writing;
    const tallied = pageTally(
      batch,
      resumed ? await loadTally(ports.objects, tallyKey(batchId, resumed.written_through, run)) : undefined,
    );
    const written = await writeResultsFiles(ports, batch, resumed, {
      ...pass,
      csv: stagedCsv(batchId, run),
      // erp-update.csv again, with what the round settled: straight to the outbox, whole or not at all.
      erp: outboxResults(batchId).erp,
      onShown: (shown) => tallied.add([shown]),
      partBytes: options.partBytes,
    });
    if (written.next === 'again') {
      await saveTally(ports.objects, tallyKey(batchId, written.writing.written_through, run), tallied.read);
      return { next: 'again', progress: { ...from, writing: written.writing } };
    }
    await saveTally(ports.objects, tallyKey(batchId, 'whole', run), tallied.read);
    revision = await reviseResultsCsv(ports.objects, batchId, run);
    xlsxFrom = null;
  }

  const read = pageTally(batch, await loadTally(ports.objects, tallyKey(batchId, 'whole', run))).read;
  const summary = options.summaryOf(read, revision ?? 0, ncm);
  const xlsx = await writeResultsFiles(ports, batch, xlsxFrom, {
    ...pass,
    xlsx: { ...outboxResults(batchId).xlsx, summary, at: summaryTime(summary) },
    partBytes: options.partBytes,
  });
  if (xlsx.next === 'again')
    return { next: 'again', progress: { run, pass: 'xlsx', writing: xlsx.writing, revision } };

  const review = pendingReviewItems(options.items, read.pendingRows);
  const checks = await ports.checks.listByBatch(batchId);
  const { sameProductRows } = read;
  await writeToCheckCsv(ports.objects, batchId, {
    items: checks,
    delimiter: batch.delimiter,
    sameProductRows,
  });
  await writeReviewFiles(ports.objects, batchId, {
    review: buildReviewCsv(review, batch.delimiter, { sameProductRows }),
    workbook: () =>
      reviewWorkbook({ batch, items: review, sameProductRows, checks, at: summaryTime(summary) }),
    summary,
  });
  await replacePartialFiles(ports.objects, batchId, { summary, at: options.now.toISOString() });
  return { next: 'done', summary, revision: revision ?? 0 };
};

/**
 * The new results.csv, written to `work/`, against the outbox's: the earlier files kept as a
 * revision when it differs (results-revisions.ts), then it takes the outbox's place (a copy in
 * the bucket, whatever its size). Returns the revision the new files are.
 */
const reviseResultsCsv = async (
  objects: RevisePorts['objects'],
  batchId: string,
  run: string,
): Promise<number> => {
  const staged = stagedCsv(batchId, run).key;
  const source = await objects.source(staged);
  if (!source) throw new Error(`The new results.csv is gone from ${staged}.`);
  const revision = await keepRevision(objects, batchId, await sha256Of(source.read(0, source.size)));
  await objects.copy(staged, outboxKey(batchId, OUTPUT_FILES.results));
  return revision;
};
