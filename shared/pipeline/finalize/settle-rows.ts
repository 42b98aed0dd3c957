/**
 * Finalize's settling pass, the one pass of Finalize that changes rows: every row still working is
 * ended, and each reused verdict PDF copied, so that every row is final before the files are
 * written. Like Finalize's other passes it stops when a leg's time is spent and goes on in the next:
 *
 *   leg 1: rows 1..500, 501..1000, … until its time is spent ─▶ { next: again, settled_through: 12500 }
 *   leg 2: rows 12501.. to the last                          ─▶ { next: done }
 *
 * On each page: rows still working end now, and each verdict PDF a reused row names is copied
 * into this batch's `pdfs/` unless it is there already; then the page is shown as the moves left it.
 */

import * as z from 'zod';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { detailMessagesOf, detailOf } from '../../wording/details.js';
import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { resultEvents } from '../audit/audit-events.js';
import type { AuditEvent } from '../core/audit-records.js';
import { outboxKey, reusedPdfRelative } from '../core/bucket-layout.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, RowRecord } from '../core/records.js';
import { afterMove, type RowMove } from '../core/row-life.js';
import { errorResult, stoppedResult } from '../core/row-results.js';
import { isOutputStatus } from '../core/row-statuses.js';
import type { ShownRow } from '../outbox/results-files.js';
import { isPendingPdfCopy } from '../reuse/reuse.js';
import { standingRowPages } from './standing-rows.js';

/** Where the settling pass stopped when a leg's time ran out: the next leg goes on from there. */
export const SettlingProgress = z.object({
  /** Rows up to this one are settled. */
  settled_through: z.number().int().min(0),
  /** Rows ended `error` by the legs so far. */
  ended_now: z.number().int().min(0),
});
export type SettlingProgress = z.infer<typeof SettlingProgress>;

type SettlePorts = Pick<PipelinePorts, 'clock' | 'batches' | 'objects' | 'audit'>;

/** Rows' moves and PDF copies at once, a page at a time: bounded, never one request after another. */
const IN_FLIGHT = 16;
/** Reused PDFs remembered as copied between pages: far more than the products a page names. */
const COPIES_KEPT = 5_000;

/** What the settling pass needs: why rows still working end, the time, where to start, and when to stop. */
export type SettleOptions = {
  /** Why a row still working ends in `error`. */
  detail: Message;
  now: Date;
  from: SettlingProgress;
  /**
   * When this leg stops to go on in the next (epoch ms): checked between pages, so a leg settles a
   * page at least.
   */
  until: number;
  pageSize: number;
  /** The NCM table in force, which each row's codes are checked against (core/ncm-in-force.ts). */
  table?: NcmTable;
};

/**
 * Runs the settling pass from where the last leg stopped until every row is final (`next:
 * "done"`) or the leg's time is spent (`next: "again"`, with where it stopped). On each page:
 * rows still working end now (a row the batch's stop kept from being sent is `not_submitted` with
 * the stop's type, as the dispatcher would have made it; any other is an `error`; a row that
 * finishes at this very moment keeps its own result, since the move applies only to a row still
 * working), and each PDF a reused row names is copied into this batch's `pdfs/` unless it is
 * there already. Followers are not written: each shows its leader's outcome wherever it is read.
 *
 * Each page is then shown, as the moves left it, to `onShown`: a pass that starts at the first row
 * adds the batch up as it settles it, so Finalize reads the batch once less.
 */
export const settleRows = async (
  ports: SettlePorts,
  batch: BatchRecord,
  options: SettleOptions,
  onShown: (page: ShownRow[]) => void = () => {},
): Promise<{ next: 'again' | 'done'; progress: SettlingProgress }> => {
  const at = options.now.toISOString();
  const progress = { ...options.from };
  const copied = new Set<string>();
  const remember = (key: string) => {
    copied.add(key);
    if (copied.size > COPIES_KEPT) copied.delete(copied.values().next().value as string);
  };
  const settlePage = async (rows: RowRecord[]): Promise<RowRecord[]> => {
    const reused = new Map<string, RowRecord>();
    for (const row of rows) {
      const key = isPendingPdfCopy(row.result) ? row.result!.verdict_pdf! : null;
      if (key !== null && !copied.has(key) && !reused.has(key)) reused.set(key, row);
    }
    const ended: AuditEvent[] = [];
    const settled = await mapLimited(rows, IN_FLIGHT, async (row): Promise<RowRecord> => {
      if (isOutputStatus(row.status) || row.status === 'following') return row;
      const result =
        batch.stop && row.status === 'queued' ? stoppedResult(batch.stop) : errorResult(options.detail);
      const move: RowMove = { move: 'finished', result, at };
      if (!(await ports.batches.moveRow(batch.batch_id, row.row, move)))
        return (await ports.batches.getRow(batch.batch_id, row.row)) ?? row;
      if (result.status === 'error') progress.ended_now += 1;
      ended.push(
        ...resultEvents(
          { batch_id: batch.batch_id, row: row.row, sku: row.product?.sku ?? null },
          result,
          at,
        ),
      );
      return afterMove(row, move);
    });
    // The rows ended here, in audit.csv (which Finalize writes after this pass).
    if (ended.length > 0) await ports.audit.record(ended);
    await mapLimited([...reused], IN_FLIGHT, async ([key, row]) => {
      await copyReusedPdf(ports, batch.batch_id, key, row, at);
      remember(key);
    });
    return settled;
  };
  const pages = standingRowPages(ports.batches, batch.batch_id, {
    after: progress.settled_through === 0 ? null : progress.settled_through,
    pageSize: options.pageSize,
    beforeShowing: settlePage,
    table: options.table,
  });
  const through = (page: ShownRow[]) => page.at(-1)?.row.row ?? progress.settled_through;
  let next = await pages.next();
  while (!next.done) {
    onShown(next.value);
    progress.settled_through = through(next.value);
    next = await pages.next();
    // Checked between pages, a leg settling one at least: when its time is spent and a page is
    // left, that page (settled as it was read) is the last this leg did, and is shown too.
    if (!next.done && ports.clock.now().getTime() >= options.until) {
      onShown(next.value);
      progress.settled_through = through(next.value);
      return { next: 'again', progress };
    }
  }
  return { next: 'done', progress };
};

/**
 * One reused verdict's PDF into this batch, once however many rows reuse it: checked first
 * rather than caught, so a transient copy failure retries rather than empties the column. A PDF
 * no longer stored (retention) leaves the row's column empty and says so, on the row that reuses
 * it (its followers show the same); the verdict still stands.
 */
const copyReusedPdf = async (
  ports: Pick<SettlePorts, 'batches' | 'objects'>,
  batchId: string,
  kept: string,
  row: RowRecord,
  at: string,
): Promise<void> => {
  const copy = outboxKey(batchId, reusedPdfRelative(kept));
  if (await ports.objects.head(copy)) return;
  if (await ports.objects.head(kept)) {
    await ports.objects.copy(kept, copy);
    return;
  }
  const result = {
    ...row.result!,
    verdict_pdf: '',
    ...detailOf([...detailMessagesOf(row.result!), message('earlier_pdf_gone', {})]),
  };
  await ports.batches.moveRow(batchId, row.row, { move: 'amended', result, at });
};
