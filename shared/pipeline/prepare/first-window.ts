/**
 * What Prepare puts in the rows queue: the first window of the batch's queued rows, never the
 * whole batch (docs/architecture.md, property 3). SQS keeps a message 14 days; the rows after the
 * window wait in the batch table, and the dispatcher sends them as the window drains, so no
 * message waits longer than a window takes to run.
 */
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, QueueWindow, RowMessage, RowRecord } from '../core/records.js';
import {
  openingWindowSize,
  openWindow,
  openWindowInSendOrder,
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
 * and how many rows are queued in all, then opens the batch's window from them. In file order the
 * first are the first in the file (one number each, enough for a batch sent whole); in exposure
 * order (rows that hold a `send_order`) the window's size of the first places, whatever the file's
 * order. Nothing else of the batch is kept.
 */
export const firstWindowCollector = (cap: number) => {
  // Enough first rows for a window sent whole (openingWindowSize): known only once all are counted.
  const keep = Math.max(WHOLE_BATCH_MAX_QUEUED, windowSizeFor(cap));
  const size = windowSizeFor(cap);
  const first: number[] = [];
  let places: { row: number; place: number }[] = [];
  let lastPlace = 0;
  let queued = 0;
  /** The `size` first places, kept by trimming a list twice that size: a sort each `size` rows. */
  const keepPlace = (row: number, place: number) => {
    places.push({ row, place });
    lastPlace = Math.max(lastPlace, place);
    if (places.length < 2 * size) return;
    places = places.sort((a, b) => a.place - b.place).slice(0, size);
  };
  return {
    add(records: readonly RowRecord[]): void {
      for (const record of records) {
        if (record.status !== 'queued') continue;
        queued += 1;
        if (record.send_order !== undefined) keepPlace(record.row, record.send_order);
        else if (first.length < keep) first.push(record.row);
      }
    },
    queued: () => queued,
    open: (rowsTotal: number): OpenedWindow =>
      lastPlace > 0
        ? openWindowInSendOrder({ size, firstPlaces: places, lastPlace })
        : openWindow({
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
  const window = batch.queue_window;
  if (window?.by === 'send_order') return sendSendOrderWindowAgain(ports, batch.batch_id, window);
  const through = window?.enqueued_through ?? batch.rows_total;
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

/** `sendWindowAgain` for a window in send order: its places read from the send-order index. */
const sendSendOrderWindowAgain = async (
  ports: WindowPorts,
  batchId: string,
  window: QueueWindow,
): Promise<void> => {
  if (window.enqueued_through < (window.last ?? 0)) await ports.batches.markBacklog(batchId, true);
  let after: number | null = 0;
  while (after !== null && after < window.enqueued_through) {
    const page = await ports.batches.sendOrderPage(batchId, { after, limit: ROWS_PER_READ });
    const messages: { message: RowMessage }[] = page.rows
      .filter((row) => row.send_order <= window.enqueued_through && row.status === 'queued' && !row.round)
      .map((row) => ({ message: rowMessageOf({ ...row, batch_id: batchId }) }));
    if (messages.length > 0) await ports.queue.send(messages);
    after = page.next;
  }
};
