/**
 * The rows queue holds a window of each batch's messages, never its whole backlog. SQS deletes a
 * message 14 days after its send, so a batch with more rows than its cap gets through in 14 days
 * would lose its last ones if Prepare sent them all. Prepare sends the first window (`openWindow`);
 * the dispatcher sends the next queued rows as the window drains, reading them from the batch table
 * a page at a time (`topUpWindows`).
 *
 *   batch table:  row 1 … passed_through │ … enqueued_through │ … last row
 *                 left the window        │ queued rows have   │ queued rows wait here,
 *                                        │ their message      │ no message yet
 *   rows queue:                          └── ≤ size messages ─┘
 *
 * A top-up, for each batch on the backlogs list (BatchStore.listBacklogs):
 *
 *   batch not running ─────────────────────────────────────────▶ off the list
 *   held by another dispatcher ────────────────────────────────▶ left to it
 *   count the queued rows of (passed_through, enqueued_through]
 *     at least half the window ────────────────────────────────▶ nothing to do
 *     fewer ─▶ claimTopUp (a hold, only while the window ends where it was counted)
 *           ─▶ the next queued rows after enqueued_through, up to a full window
 *           ─▶ send ─▶ advanceWindow (only from the end it read; releases the hold)
 *           ─▶ nothing left after them ──────────────────────────▶ off the list
 *
 * Two dispatchers, and one that dies:
 *
 *   A: count 8 of 20 ─▶ claim ✓ ─▶ send rows 141…152 ─▶ advance 140 → 152 ✓
 *   B: count 8 of 20 ─▶ claim ✗ (A holds it): B leaves the window to A
 *   A': claim ✓ ─▶ send 141…152 ─✗ dies before advancing: the window still ends at 140
 *   B, once A's hold ran out: claim ✓ ─▶ sends 141…152 again ─▶ advance ✓
 *
 * The cursor moves only after the send, so a dispatcher that dies between reading the rows and
 * sending them loses nothing; its hold runs out and the next one sends the same rows. The rows
 * whose messages did go out get a second one, which is harmless: a row is started once, by its
 * `claimed` move and its execution's name, which makes a second start a no-op. The hold keeps that rare.
 *
 * In exposure order (a batch's products most exposed first, prepare/exposure-order.ts) the same
 * walk runs over places instead of rows: each row Prepare queued holds a place (`send_order`),
 * the window's two cursors count places (`by: 'send_order'`), and the rows are read in that order
 * from the batch table's send-order index, a page at a time as before. Places run 1, 2, 3… with no
 * gap, and the index may lag a write by a moment (or Prepare may still be storing the rows), so a
 * top-up sends places only up to the first one it does not find, and a batch whose last place
 * (`last`) it has not reached stays on the list: the next run looks again.
 */
import { scrubErrorText } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import type { QueueWindow, RowMessage, RowRecord, SendOrderRow } from '../core/records.js';

/**
 * Rows of a batch the rows queue holds for each slot of the cap. Ten runs a slot is about ten
 * minutes of work at a run a minute: far more than the minute between two scheduled dispatcher
 * runs, so a freed slot does not wait on a top-up; yet small enough that a message is received
 * within a week even when a thousand batches share the cap, well inside SQS's 14 days.
 */
const WINDOW_ROWS_PER_SLOT = 10;
/** The most messages a window holds, whatever cap the balance reports (the service's is 10). */
export const MAX_WINDOW_ROWS = 300;

/**
 * Gives the size of a batch's window when it runs at `cap` classifications at once: 10 a slot, at
 * most 300.
 */
export const windowSizeFor = (cap: number): number =>
  Math.min(MAX_WINDOW_ROWS, Math.max(1, Math.floor(cap)) * WINDOW_ROWS_PER_SLOT);

/**
 * A batch whose queued rows are at most this many is sent whole when they are sparse among its
 * rows (below). 5,000 classifications are about 8 hours at the service's cap of 10: a message
 * waits far less than SQS's 14 days even when some forty such batches share the cap.
 */
export const WHOLE_BATCH_MAX_QUEUED = 5_000;
/** Sparse: at most one queued row in this many (the others follow a row of the same product or end at Prepare). */
const SPARSE_ONE_IN = 4;

/**
 * Gives the size of the window a batch is opened with: the usual size, or the whole batch when its
 * queued rows are few and sparse. Topping a window up walks the batch table from the window's
 * end to its next queued rows; where they are sparse (an ERP export of 100,000 colour and size
 * variants of 200 products: one queued row in 500) that walk reads hundreds of rows for every
 * message, so such a batch, when its queued rows are few, is sent whole and never topped up.
 */
export const openingWindowSize = (cap: number, queued: number, rowsTotal: number): number =>
  queued <= WHOLE_BATCH_MAX_QUEUED && queued * SPARSE_ONE_IN <= rowsTotal
    ? Math.max(windowSizeFor(cap), queued)
    : windowSizeFor(cap);

/**
 * Gives the size of the window a batch in exposure order is opened with: the usual size, or the
 * whole batch when its queued rows are sparse and no more than a window ever holds (300). Sent
 * whole, a nightly export of variants is never topped up (no dispatcher run reads its window);
 * kept to a window's bound, the queue's own order (a message that loses a slot race goes back
 * behind the others) never puts a most exposed product far behind.
 */
export const sendOrderWindowSize = (cap: number, queued: number, rowsTotal: number): number =>
  queued <= MAX_WINDOW_ROWS && queued * SPARSE_ONE_IN <= rowsTotal
    ? Math.max(windowSizeFor(cap), queued)
    : windowSizeFor(cap);

/** A window is topped up once fewer than this many of its messages are left. */
const refillBelow = (size: number): number => Math.ceil(size / 2);

/** Rows read at a time from the batch table while counting or finding the next rows. */
const ROWS_PER_READ = 200;

/** While a row is one of these, a message of the window may still be its: it has not left the window. */
const IN_THE_WINDOW: ReadonlySet<RowRecord['status']> = new Set(['queued', 'submitting', 'in_progress']);

/** A row as a window reads it, at its place: its row number in file order, its `send_order` in send order. */
type WindowRow = Pick<SendOrderRow, 'row' | 'status' | 'round' | 'attempt' | 'dispatch'> & { place: number };
/** Up to `limit` rows of the window's order after place `after`, and the last place read when more may follow. */
type WindowReader = (after: number, limit: number) => Promise<{ rows: WindowRow[]; next: number | null }>;

/** Reads a batch's rows in its window's order: the batch table's rows in row order, or its send-order index. */
const windowReader =
  (ports: Pick<WindowPorts, 'batches'>, batchId: string, window: QueueWindow): WindowReader =>
  async (after, limit) => {
    if (window.by === 'send_order') {
      const page = await ports.batches.sendOrderPage(batchId, { after, limit });
      return { rows: page.rows.map((row) => ({ ...row, place: row.send_order })), next: page.next };
    }
    const page = await ports.batches.rowsPage(batchId, { after, limit });
    return { rows: page.rows.map((row) => ({ ...row, place: row.row })), next: page.next };
  };

type WindowPorts = Pick<PipelinePorts, 'clock' | 'queue' | 'batches'>;

/** How a top-up is set up by the dispatcher that runs it. */
export type TopUpConfig = {
  /**
   * How long a dispatcher holds a batch's top-up, in real milliseconds: the dispatcher's own
   * longest life (its function's timeout), after which nobody holds it.
   */
  holdMs: number;
};

/**
 * Gives the window Prepare opens, from the batch's first queued rows in row order (only the first
 * `size` are needed) and how many are queued in all: the rows to send now, the window they leave,
 * and whether rows are left behind for the dispatcher to send later (`backlog`).
 */
export const openWindow = (input: {
  size: number;
  firstQueued: readonly number[];
  queuedCount: number;
  rowsTotal: number;
}): { send: number[]; window: QueueWindow; backlog: boolean } => {
  const send = input.firstQueued.slice(0, input.size);
  const backlog = input.queuedCount > send.length;
  return {
    send,
    // With nothing left behind, every row of the batch has been considered.
    window: {
      size: input.size,
      enqueued_through: backlog ? (send.at(-1) ?? 0) : input.rowsTotal,
      passed_through: 0,
    },
    backlog,
  };
};

/**
 * Gives the window Prepare opens in exposure order, from the first places of the send order (each
 * a queued row and its place, the first `size` are needed, in any order) and the last place any
 * queued row holds: the rows to send now, most exposed first, the window they leave (its cursors
 * count places), and whether rows are left behind.
 */
export const openWindowInSendOrder = (input: {
  size: number;
  firstPlaces: readonly { row: number; place: number }[];
  lastPlace: number;
}): { send: number[]; window: QueueWindow; backlog: boolean } => {
  const first = [...input.firstPlaces].sort((a, b) => a.place - b.place).slice(0, input.size);
  const through = first.at(-1)?.place ?? 0;
  const backlog = through < input.lastPlace;
  return {
    send: first.map((entry) => entry.row),
    window: {
      size: input.size,
      enqueued_through: backlog ? through : input.lastPlace,
      passed_through: 0,
      by: 'send_order',
      last: input.lastPlace,
    },
    backlog,
  };
};

/**
 * Gives a queued row's message for the rows queue: its batch, row, and the attempt and dispatch it
 * waits under.
 */
export const rowMessageOf = (
  row: Pick<RowRecord, 'batch_id' | 'row' | 'attempt' | 'dispatch'>,
): RowMessage => ({
  batch_id: row.batch_id,
  row: row.row,
  attempt: row.attempt,
  dispatch: row.dispatch,
});

/**
 * The window's queued rows, read from `passed_through` to `enqueued_through`, and how far the rows
 * that have left it reach (the leading rows neither queued nor running).
 */
const countWaiting = async (
  read: WindowReader,
  window: QueueWindow,
): Promise<{ waiting: number; passedThrough: number }> => {
  let waiting = 0;
  let passedThrough = window.passed_through;
  let leading = true;
  let after: number | null = window.passed_through;
  while (after !== null && after < window.enqueued_through) {
    const page = await read(after, Math.min(ROWS_PER_READ, window.enqueued_through - after));
    for (const row of page.rows) {
      if (row.place > window.enqueued_through) break;
      if (row.status === 'queued') waiting += 1;
      if (leading && !IN_THE_WINDOW.has(row.status)) passedThrough = row.place;
      else leading = false;
    }
    after = page.next;
  }
  return { waiting, passedThrough };
};

/**
 * Up to `wanted` queued rows after the window's end, the place where the reading stopped, and
 * whether nothing is left to send: read to the end, and in send order past the last place (a
 * place the index does not show yet is looked for again next run).
 */
const nextQueuedRows = async (
  read: WindowReader,
  window: QueueWindow,
  wanted: number,
): Promise<{ rows: WindowRow[]; through: number; exhausted: boolean }> => {
  const rows: WindowRow[] = [];
  let through = window.enqueued_through;
  let after: number | null = window.enqueued_through;
  while (after !== null) {
    const page = await read(after, ROWS_PER_READ);
    for (const row of page.rows) {
      // In send order places have no gap: one missing is a row not stored or indexed yet.
      if (window.by === 'send_order' && row.place !== through + 1) return { rows, through, exhausted: false };
      // A row an answers or resend round took has its own message (PrepareAnswers sends it).
      if (row.status === 'queued' && row.round === undefined) rows.push(row);
      through = row.place;
      if (rows.length >= wanted) return { rows, through, exhausted: false };
    }
    after = page.next;
  }
  return { rows, through, exhausted: window.last === undefined || through >= window.last };
};

/** What topping up one batch's window did, and how many messages it sent. */
export type TopUp = {
  /** `sent`: the window was topped up; `full`: at least half of it is left; `held`: another dispatcher is at it; `closed`: the backlog is done. */
  outcome: 'sent' | 'full' | 'held' | 'closed';
  sent: number;
};

/**
 * Tops one batch's window up when it has drained below half: claims the top-up, sends the next
 * queued rows up to a full window, then moves the window's end. A batch no longer running, or with
 * nothing left to send, is taken off the backlogs list. Safe when dispatchers race or one dies.
 */
export const topUpWindow = async (
  ports: WindowPorts,
  batchId: string,
  config: TopUpConfig,
): Promise<TopUp> => {
  const batch = await ports.batches.getBatch(batchId);
  const window = batch?.queue_window;
  // A batch finalized (a timeout, a stop) or gone sends nothing more: Finalize settled its rows.
  if (!window || batch.state !== 'running') {
    await ports.batches.markBacklog(batchId, false);
    return { outcome: 'closed', sent: 0 };
  }
  const now = ports.clock.now();
  if (window.topping_up_until !== undefined && window.topping_up_until > now.toISOString())
    return { outcome: 'held', sent: 0 };
  const read = windowReader(ports, batchId, window);
  const { waiting, passedThrough } = await countWaiting(read, window);
  if (waiting >= refillBelow(window.size)) return { outcome: 'full', sent: 0 };
  const claimed = await ports.batches.claimTopUp(batchId, {
    now: now.toISOString(),
    until: new Date(now.getTime() + config.holdMs).toISOString(),
    enqueuedThrough: window.enqueued_through,
  });
  if (!claimed) return { outcome: 'held', sent: 0 };

  const next = await nextQueuedRows(read, window, window.size - waiting);
  if (next.rows.length > 0)
    await ports.queue.send(
      next.rows.map((row) => ({ message: rowMessageOf({ ...row, batch_id: batchId }) })),
    );
  await ports.batches.advanceWindow(batchId, {
    from: window.enqueued_through,
    to: next.through,
    passedThrough,
  });
  if (next.exhausted) await ports.batches.markBacklog(batchId, false);
  return { outcome: next.exhausted && next.rows.length === 0 ? 'closed' : 'sent', sent: next.rows.length };
};

/** What topping every window up did: the messages sent, the batches whose top-up failed, the last error. */
export type TopUpReport = { sent: number; failures: number; detail?: string };

const failureText = (what: string, error: unknown) =>
  scrubErrorText(`${what}: ${error instanceof Error ? error.message : String(error)}`);

/**
 * Tops up the window of every batch with a backlog, where it needs it. A top-up that fails is left for the
 * next run (counted, its error kept), never the dispatcher's failure: filling the slots goes on,
 * and the other batches are not held up by it.
 */
export const topUpWindows = async (ports: WindowPorts, config: TopUpConfig): Promise<TopUpReport> => {
  const report: TopUpReport = { sent: 0, failures: 0 };
  let batchIds: string[];
  try {
    batchIds = await ports.batches.listBacklogs();
  } catch (error) {
    return { ...report, failures: 1, detail: failureText('the backlogs', error) };
  }
  for (const batchId of batchIds) {
    try {
      report.sent += (await topUpWindow(ports, batchId, config)).sent;
    } catch (error) {
      report.failures += 1;
      report.detail = failureText(`top-up of ${batchId}`, error);
    }
  }
  return report;
};
