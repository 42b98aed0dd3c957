/**
 * What Prepare puts in the rows queue: the first window of the batch's queued rows, never the
 * whole batch (docs/architecture.md, property 3). SQS keeps a message 14 days; the rows after the
 * window wait in the batch table, and the dispatcher sends them as the window drains, so no
 * message waits longer than a window takes to run.
 */
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, RowMessage, RowRecord } from '../core/records.js';
import {
  openingWindowSize,
  openWindow,
  rowMessageOf,
  WHOLE_BATCH_MAX_QUEUED,
  windowSizeFor,
} from '../dispatch/rows-window.js';

type WindowPorts = Pick<PipelinePorts, 'queue' | 'batches'>;

/**
 * The window Prepare opens: the rows to send now, the window they leave, and whether rows are left
 * behind.
 */
export type OpenedWindow = ReturnType<typeof openWindow>;

/**
 * Gives a collector Prepare feeds its row records chunk by chunk: it keeps the first queued rows
 * (one number each, enough for a batch sent whole) and how many rows are queued in all, then opens
 * the batch's window from them. Nothing else of the batch is kept.
 */
export const firstWindowCollector = (cap: number) => {
  // Enough first rows for a window sent whole (openingWindowSize): known only once all are counted.
  const keep = Math.max(WHOLE_BATCH_MAX_QUEUED, windowSizeFor(cap));
  const first: number[] = [];
  let queued = 0;
  return {
    add(records: readonly RowRecord[]): void {
      for (const record of records) {
        if (record.status !== 'queued') continue;
        queued += 1;
        if (first.length < keep) first.push(record.row);
      }
    },
    queued: () => queued,
    open: (rowsTotal: number): OpenedWindow =>
      openWindow({
        size: openingWindowSize(cap, queued, rowsTotal),
        firstQueued: first,
        queuedCount: queued,
        rowsTotal,
      }),
  };
};

/**
 * Sends the window's messages, once the batch is `running` with its window, after putting the
 * batch on the backlogs list when rows are left behind. Listed first: a Prepare that dies between
 * the two is retried and sends the window again (`sendWindowAgain`).
 */
export const sendFirstWindow = async (ports: WindowPorts, batchId: string, opened: OpenedWindow) => {
  if (opened.backlog) await ports.batches.markBacklog(batchId, true);
  await ports.queue.send(
    opened.send.map((row) => ({ message: { batch_id: batchId, row, attempt: 1, dispatch: 1 } })),
  );
};

/** Rows read at a time when a retried Prepare looks for its window's queued rows. */
const ROWS_PER_READ = 500;

/**
 * Sends a written batch's window again, for a retried Prepare: the queued rows of its window sent
 * again (those whose message went out get a second one, which starts nothing twice, since an
 * execution's name is fixed by its row, attempt and dispatch), and the batch
 * listed again when rows were left behind. Read a page at a time up to the window's end. A batch
 * written before windows existed had every queued row sent: its window is the whole batch.
 */
export const sendWindowAgain = async (ports: WindowPorts, batch: BatchRecord): Promise<void> => {
  const through = batch.queue_window?.enqueued_through ?? batch.rows_total;
  if (through < batch.rows_total) await ports.batches.markBacklog(batch.batch_id, true);
  let after: number | null = 0;
  while (after !== null && after < through) {
    const page = await ports.batches.rowsPage(batch.batch_id, { after, limit: ROWS_PER_READ });
    const messages: { message: RowMessage }[] = page.rows
      .filter((row) => row.row <= through && row.status === 'queued' && row.round === undefined)
      .map((row) => ({ message: rowMessageOf(row) }));
    if (messages.length > 0) await ports.queue.send(messages);
    after = page.next;
  }
};
