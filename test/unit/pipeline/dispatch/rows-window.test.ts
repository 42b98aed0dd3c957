/**
 * A batch's window of the rows queue: Prepare's first window, the top-up from the batch table as
 * it drains (on the in-memory ports), and the dispatcher topping windows up on its schedule, when
 * the queue runs dry, and while it drains a stopped batch (against the sandbox).
 */
import { describe, expect, it } from 'vitest';
import { BatchRecord, type QueueWindow, RowRecord } from '../../../../shared/pipeline/core/records.js';
import type { RowStatus } from '../../../../shared/pipeline/core/row-statuses.js';
import { dispatchRows } from '../../../../shared/pipeline/dispatch/dispatch-rows.js';
import type { DispatchConfig } from '../../../../shared/pipeline/dispatch/dispatch-run.js';
import {
  MAX_WINDOW_ROWS,
  openingWindowSize,
  openWindow,
  openWindowInSendOrder,
  topUpWindow,
  topUpWindows,
  WHOLE_BATCH_MAX_QUEUED,
  windowSizeFor,
} from '../../../../shared/pipeline/dispatch/rows-window.js';
import { ProductRow } from '../../../../shared/spreadsheet/schemas.js';
import { fixedClock, memoryBatchStore, memoryRowQueue } from '../../../helpers/memory-ports.js';
import { makeWorld, sandbox, serviceFor, startSandboxPerFile } from '../../../helpers/sandbox-world.js';

const BATCH = 'catalogue-W1ndow0001';
const HOLD = { holdMs: 60_000 };
const AT = '2026-11-21T12:00:00.000Z';

/** The window a batch of queued rows has after Prepare sent `sent` of them. */
const windowOf = (size: number, sent: number): QueueWindow => ({
  size,
  enqueued_through: sent,
  passed_through: 0,
});

/** A running batch whose rows are all queued, the first `sent` of them with their message, on the backlogs list. */
const seed = async (
  ports: { batches: ReturnType<typeof memoryBatchStore>; queue: ReturnType<typeof memoryRowQueue> },
  options: { rows: number; size: number; sent: number; batchId?: string },
) => {
  const batchId = options.batchId ?? BATCH;
  const at = '2026-11-21T12:00:00.000Z';
  await ports.batches.createBatch(
    BatchRecord.parse({
      batch_id: batchId,
      name: 'catalogue',
      source: {
        bucket: 'b',
        key: 'inbox/c/p.csv',
        version_or_etag: 'e',
        folder: 'inbox/c/',
        file_name: 'p.csv',
      },
      execution_id: 'exec-1',
      state: 'running',
      rows_total: options.rows,
      rows_dispatched: options.rows,
      shard_count: 1,
      queue_window: windowOf(options.size, options.sent),
      started_at: at,
    }),
  );
  await ports.batches.putCompletionShards(batchId, new Map([[0, options.rows]]));
  await ports.batches.putRows(
    Array.from({ length: options.rows }, (_, index) =>
      RowRecord.parse({
        batch_id: batchId,
        row: index + 1,
        line: index + 2,
        cells: [`SKU-${index + 1}`],
        status: 'queued',
        product: ProductRow.parse({
          row: index + 1,
          description: `Parafuso de aço inoxidável M8, lote ${index + 1}`,
          operation: 'import',
          country: 'BR',
          sheet: null,
          external_reference: null,
          sku: `SKU-${index + 1}`,
          current_ncm: null,
          flags: [],
        }),
        updated_at: at,
      }),
    ),
  );
  await ports.queue.send(
    Array.from({ length: options.sent }, (_, index) => ({
      message: { batch_id: batchId, row: index + 1, attempt: 1, dispatch: 1 },
    })),
  );
  await ports.batches.markBacklog(batchId, true);
};

const memoryWorld = () => {
  const clock = fixedClock();
  const ports = { clock, queue: memoryRowQueue(clock), batches: memoryBatchStore() };
  /** Rows taken out of the window as a dispatcher would: status changed, message deleted. */
  const leaveWindow = (rows: readonly number[], status: RowStatus, batchId = BATCH) => {
    for (const row of rows) {
      ports.batches.placeRow(batchId, row, { status });
      const index = ports.queue.entries.findIndex(
        (entry) => entry.message.batch_id === batchId && entry.message.row === row,
      );
      if (index >= 0) ports.queue.entries.splice(index, 1);
    }
  };
  const queuedRows = (batchId = BATCH) =>
    ports.queue.entries
      .filter((entry) => entry.message.batch_id === batchId)
      .map((entry) => entry.message.row);
  return { ...ports, ports, leaveWindow, queuedRows };
};

describe('the window Prepare opens', () => {
  it('is ten rows a slot of the cap, never above a few hundred', () => {
    expect([1, 2, 10].map(windowSizeFor)).toEqual([10, 20, 100]);
    expect(windowSizeFor(1000)).toBe(MAX_WINDOW_ROWS);
    expect(windowSizeFor(0)).toBe(10);
  });

  it('sends a batch whole when its queued rows are few and sparse among its rows, as an ERP export of variants', () => {
    // 100,000 rows of 200 products: one queued row in 500; topping up would walk 500 rows a message.
    expect(openingWindowSize(10, 200, 100_000)).toBe(200);
    expect(openingWindowSize(10, WHOLE_BATCH_MAX_QUEUED, 400_000)).toBe(WHOLE_BATCH_MAX_QUEUED);
    // Dense (every row a product of its own), or too many to wait in the queue: a window.
    expect(openingWindowSize(1, 100, 100)).toBe(windowSizeFor(1));
    expect(openingWindowSize(10, WHOLE_BATCH_MAX_QUEUED + 1, 400_000)).toBe(windowSizeFor(10));
    expect(openingWindowSize(10, 50, 120)).toBe(windowSizeFor(10));
  });

  it('sends the first rows of a larger batch and leaves a backlog', () => {
    expect(openWindow({ size: 3, firstQueued: [2, 4, 5], queuedCount: 40, rowsTotal: 60 })).toEqual({
      send: [2, 4, 5],
      window: { size: 3, enqueued_through: 5, passed_through: 0 },
      backlog: true,
    });
  });

  it('sends every row of a batch the window holds, and leaves none behind', () => {
    expect(openWindow({ size: 20, firstQueued: [1, 3], queuedCount: 2, rowsTotal: 9 })).toEqual({
      send: [1, 3],
      window: { size: 20, enqueued_through: 9, passed_through: 0 },
      backlog: false,
    });
  });
});

describe('topUpWindow', () => {
  it('leaves a window alone while at least half of it waits', async () => {
    // Prepare: 10 sent, 5 of them taken.
    const w = memoryWorld();
    await seed(w, { rows: 40, size: 10, sent: 10 });
    w.leaveWindow([1, 2, 3, 4, 5], 'submitting');

    // Act
    const topUp = await topUpWindow(w.ports, BATCH, HOLD);

    // Assess
    expect(topUp).toEqual({ outcome: 'full', sent: 0 });
    expect(w.queuedRows()).toEqual([6, 7, 8, 9, 10]);
    expect((await w.batches.getBatch(BATCH))?.queue_window).toEqual(windowOf(10, 10));
  });

  it('tops a drained window up to its size with the next queued rows, and moves its ends', async () => {
    // Prepare: 6 of 10 taken: rows 1–3 finished, 4 running, 5–6 being started.
    const w = memoryWorld();
    await seed(w, { rows: 40, size: 10, sent: 10 });
    w.leaveWindow([1, 2, 3], 'resolved');
    w.leaveWindow([4], 'in_progress');
    w.leaveWindow([5, 6], 'submitting');
    // Rows the next ones skip: final at Prepare, or following another row.
    w.batches.placeRow(BATCH, 12, { status: 'rejected' });
    w.batches.placeRow(BATCH, 13, { status: 'following', follows: 11 });

    // Act
    const topUp = await topUpWindow(w.ports, BATCH, HOLD);

    // Assess: 4 left + 6 sent; the rows before the first still running have left the window.
    expect(topUp).toEqual({ outcome: 'sent', sent: 6 });
    expect(w.queuedRows()).toEqual([7, 8, 9, 10, 11, 14, 15, 16, 17, 18]);
    expect((await w.batches.getBatch(BATCH))?.queue_window).toEqual({
      size: 10,
      enqueued_through: 18,
      passed_through: 3,
    });
    expect(await w.batches.listBacklogs()).toEqual([BATCH]);
  });

  it('sends the last rows and takes the batch off the backlogs; then has nothing more to send', async () => {
    // Prepare
    const w = memoryWorld();
    await seed(w, { rows: 14, size: 10, sent: 10 });
    w.leaveWindow([1, 2, 3, 4, 5, 6, 7, 8], 'resolved');

    // Act
    const last = await topUpWindow(w.ports, BATCH, HOLD);
    w.leaveWindow([9, 10, 11, 12, 13, 14], 'resolved');
    const after = await topUpWindow(w.ports, BATCH, HOLD);

    // Assess
    expect(last).toEqual({ outcome: 'sent', sent: 4 });
    expect(w.queuedRows()).toEqual([]);
    expect(await w.batches.listBacklogs()).toEqual([]);
    expect(after).toEqual({ outcome: 'closed', sent: 0 });
  });

  it('sends nothing for a batch that no longer runs (timed out, finalized), and takes it off the backlogs', async () => {
    // Prepare
    const w = memoryWorld();
    await seed(w, { rows: 40, size: 10, sent: 10 });
    w.leaveWindow([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'resolved');
    await w.batches.updateBatch(BATCH, { state: 'completed' });

    // Act
    const topUp = await topUpWindow(w.ports, BATCH, HOLD);

    // Assess
    expect(topUp).toEqual({ outcome: 'closed', sent: 0 });
    expect(w.queuedRows()).toEqual([]);
    expect(await w.batches.listBacklogs()).toEqual([]);
  });

  it('leaves a window another dispatcher holds, and takes it once the hold has run out', async () => {
    // Prepare: another run holds the window for a minute.
    const w = memoryWorld();
    await seed(w, { rows: 40, size: 10, sent: 10 });
    w.leaveWindow([1, 2, 3, 4, 5, 6, 7, 8], 'resolved');
    const now = w.clock.now();
    await w.batches.claimTopUp(BATCH, {
      now: now.toISOString(),
      until: new Date(now.getTime() + 60_000).toISOString(),
      enqueuedThrough: 10,
    });

    // Act
    const held = await topUpWindow(w.ports, BATCH, HOLD);
    w.clock.advance(60_000);
    const afterHold = await topUpWindow(w.ports, BATCH, HOLD);

    // Assess
    expect(held).toEqual({ outcome: 'held', sent: 0 });
    expect(afterHold).toEqual({ outcome: 'sent', sent: 8 });
  });

  it('lets one of two dispatchers racing send the next rows: no row gets two messages', async () => {
    // Prepare
    const w = memoryWorld();
    await seed(w, { rows: 40, size: 10, sent: 10 });
    w.leaveWindow([1, 2, 3, 4, 5, 6], 'resolved');

    // Act
    const both = await Promise.all([topUpWindow(w.ports, BATCH, HOLD), topUpWindow(w.ports, BATCH, HOLD)]);

    // Assess
    expect(both.map((topUp) => topUp.outcome).sort()).toEqual(['held', 'sent']);
    expect(w.queuedRows()).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
  });

  it('loses nothing when a dispatcher dies between reading the rows and sending them', async () => {
    // Prepare: the first top-up's send fails after its hold was taken.
    const w = memoryWorld();
    await seed(w, { rows: 40, size: 10, sent: 10 });
    w.leaveWindow([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'resolved');
    const send = w.queue.send;
    w.queue.send = async () => {
      throw new Error('SQS unavailable');
    };

    // Act
    await expect(topUpWindow(w.ports, BATCH, HOLD)).rejects.toThrow('SQS unavailable');
    w.queue.send = send;
    const whileHeld = await topUpWindow(w.ports, BATCH, HOLD);
    w.clock.advance(HOLD.holdMs);
    const next = await topUpWindow(w.ports, BATCH, HOLD);

    // Assess: the window did not move; the next dispatcher sent the same rows once the hold ran out.
    expect(whileHeld).toEqual({ outcome: 'held', sent: 0 });
    expect(next).toEqual({ outcome: 'sent', sent: 10 });
    expect(w.queuedRows()).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  });

  it('sends no message for a row an answers round has taken: the round sends its own', async () => {
    // Prepare
    const w = memoryWorld();
    await seed(w, { rows: 20, size: 4, sent: 4 });
    w.leaveWindow([1, 2, 3, 4], 'resolved');
    w.batches.placeRow(BATCH, 5, {
      round: {
        round_id: `${BATCH}~r1`,
        answers: [],
        answers_key: 'a_x',
        answered_by: 'ana',
        answered_at: 'x',
      },
    });

    // Act
    await topUpWindow(w.ports, BATCH, HOLD);

    // Assess
    expect(w.queuedRows()).toEqual([6, 7, 8, 9]);
  });
});

describe('topUpWindows', () => {
  it('tops up every batch with a backlog; one that fails is counted and the others still get theirs', async () => {
    // Prepare
    const w = memoryWorld();
    await seed(w, { rows: 30, size: 5, sent: 5, batchId: 'a-batch' });
    await seed(w, { rows: 30, size: 5, sent: 5, batchId: 'b-batch' });
    w.leaveWindow([1, 2, 3, 4, 5], 'resolved', 'a-batch');
    w.leaveWindow([1, 2, 3, 4, 5], 'resolved', 'b-batch');
    await w.batches.markBacklog('broken-batch', true);
    const getBatch = w.batches.getBatch;
    w.batches.getBatch = async (batchId) => {
      if (batchId === 'broken-batch') throw new Error('throttled');
      return getBatch(batchId);
    };

    // Act
    const report = await topUpWindows(w.ports, HOLD);

    // Assess
    expect(report).toEqual({ sent: 10, failures: 1, detail: 'top-up of broken-batch: throttled' });
    expect(w.queuedRows('a-batch')).toEqual([6, 7, 8, 9, 10]);
    expect(w.queuedRows('b-batch')).toEqual([6, 7, 8, 9, 10]);
  });
});

describe('topUpWindows when the backlogs cannot be read', () => {
  it('reports the failure and sends nothing, without failing', async () => {
    // Prepare
    const w = memoryWorld();
    w.batches.listBacklogs = async () => {
      throw new Error('ThrottlingException: Rate exceeded');
    };

    // Act
    const report = await topUpWindows(w.ports, HOLD);

    // Assess
    expect(report).toEqual({
      sent: 0,
      failures: 1,
      detail: 'the backlogs: ThrottlingException: Rate exceeded',
    });
  });
});

describe('dispatchRows and the windows', () => {
  startSandboxPerFile('rows-window');
  const DISPATCH: DispatchConfig = {
    capOverride: 2,
    leaseTtlMs: 10 * 60_000,
    maxRuntimeMs: 60_000,
    topUpHoldMs: 60_000,
  };
  const sandboxWorld = async (rows: number, service = serviceFor()) => {
    const w = makeWorld(service);
    await seed(w, { rows, size: 4, sent: 4 });
    await w.batches.registerWaiter(BATCH, 'batch-task-token');
    return w;
  };
  const startedRows = (w: Awaited<ReturnType<typeof sandboxWorld>>) =>
    [...w.workflows.started.values()].map((input) => input.row).sort((a, b) => a - b);

  it('the schedule tops the windows up before it fills the slots', async () => {
    // Prepare: the window drained to one message.
    const w = await sandboxWorld(20);
    for (const row of [1, 2, 3]) w.batches.placeRow(BATCH, row, { status: 'resolved' });
    w.queue.entries.splice(0, 3);

    // Act
    const report = await dispatchRows(w.ports, { ...DISPATCH, topUpFirst: true });

    // Assess: rows 5–7 sent, the two free slots took rows 4 and 5.
    expect(report).toMatchObject({ toppedUp: 3, started: 2, topUpFailures: 0 });
    expect(startedRows(w)).toEqual([4, 5]);
    expect(w.queue.entries.map((entry) => entry.message.row)).toEqual([6, 7]);
  });

  it('a kick that finds the queue empty with slots free tops the windows up and fills them', async () => {
    // Prepare: every message of the window taken.
    const w = await sandboxWorld(20);
    for (const row of [1, 2, 3, 4]) w.batches.placeRow(BATCH, row, { status: 'resolved' });
    w.queue.entries.splice(0, 4);

    // Act
    const report = await dispatchRows(w.ports, DISPATCH);

    // Assess
    expect(report).toMatchObject({ toppedUp: 4, started: 2, received: 2 });
    expect(startedRows(w)).toEqual([5, 6]);
  });

  it('a refused key drains a stopped batch through its windows: every row not_submitted, the batch woken', async () => {
    // Prepare
    const w = await sandboxWorld(11, serviceFor(sandbox.keys.revoked));

    // Act
    const report = await dispatchRows(w.ports, DISPATCH);

    // Assess
    expect(report).toMatchObject({ outcome: 'stopped', notSubmitted: 11, toppedUp: 7 });
    const statuses = new Set([...w.batches.rows.values()].map((row) => row.status));
    expect(statuses).toEqual(new Set(['not_submitted']));
    expect(w.wakes).toEqual([BATCH]);
    expect(await w.batches.listBacklogs()).toEqual([]);
  });
});

describe('a window in exposure order', () => {
  /** A running batch of 40 queued rows whose send order runs backwards (row 40 first), the first `sent` places sent. */
  const seedInSendOrder = async (w: ReturnType<typeof memoryWorld>, sent: number) => {
    await seed(w, { rows: 40, size: 10, sent: 0 });
    for (let row = 1; row <= 40; row += 1) w.batches.placeRow(BATCH, row, { send_order: 41 - row });
    const opened = openWindowInSendOrder({
      size: 10,
      firstPlaces: Array.from({ length: 40 }, (_, index) => ({ row: index + 1, place: 40 - index })),
      lastPlace: 40,
    });
    await w.batches.updateBatch(BATCH, { queue_window: { ...opened.window, enqueued_through: sent } });
    await w.queue.send(
      Array.from({ length: sent }, (_, index) => ({
        message: { batch_id: BATCH, row: 40 - index, attempt: 1, dispatch: 1 },
      })),
    );
    return opened;
  };

  it('opens with the first places, whatever the rows, its cursors counting places', () => {
    const opened = openWindowInSendOrder({
      size: 3,
      firstPlaces: [
        { row: 7, place: 4 },
        { row: 2, place: 9 },
        { row: 30, place: 1 },
        { row: 12, place: 2 },
      ],
      lastPlace: 9,
    });
    expect(opened).toEqual({
      send: [30, 12, 7],
      window: { size: 3, enqueued_through: 4, passed_through: 0, by: 'send_order', last: 9 },
      backlog: true,
    });
  });

  it('tops up with the next places in send order, skipping a row a round took, its cursors in places', async () => {
    // Prepare: places 1–10 sent (rows 40–31); 1–6 left the window; row 28 (place 13) was taken by a round.
    const w = memoryWorld();
    await seedInSendOrder(w, 10);
    w.leaveWindow([40, 39, 38], 'resolved');
    w.leaveWindow([37, 36, 35], 'in_progress');
    w.batches.placeRow(BATCH, 28, {
      round: {
        round_id: 'r1',
        kind: 'resend',
        answers: [],
        answers_key: 'k',
        answered_by: 'Ana',
        answered_at: AT,
      },
    });

    // Act
    const topUp = await topUpWindow(w.ports, BATCH, HOLD);

    // Assess: 4 wait, 6 more sent in send order (places 11, 12, 14–17), row 28 skipped.
    expect(topUp).toEqual({ outcome: 'sent', sent: 6 });
    expect(w.queuedRows()).toEqual([34, 33, 32, 31, 30, 29, 27, 26, 25, 24]);
    expect((await w.batches.getBatch(BATCH))?.queue_window).toMatchObject({
      enqueued_through: 17,
      passed_through: 3,
      by: 'send_order',
      last: 40,
    });
  });

  it('keeps the batch on the list when the index does not show its next places yet, and sends them once it does', async () => {
    // Prepare: the index shows places up to 12 only, as just after Prepare wrote them.
    const w = memoryWorld();
    await seedInSendOrder(w, 10);
    w.leaveWindow([40, 39, 38, 37, 36, 35, 34, 33], 'resolved');
    let shownThrough = 12;
    const lagging = {
      ...w.ports,
      batches: {
        ...w.batches,
        sendOrderPage: async (batchId: string, page: { after: number; limit: number }) => {
          const read = await w.batches.sendOrderPage(batchId, page);
          const rows = read.rows.filter((row) => row.send_order <= shownThrough);
          return { rows, next: rows.length < read.rows.length ? null : read.next };
        },
      },
    };

    // Act
    const early = await topUpWindow(lagging, BATCH, HOLD);
    shownThrough = 40;
    w.leaveWindow([32, 31, 30, 29], 'resolved');
    const later = await topUpWindow(lagging, BATCH, HOLD);

    // Assess: places 11–12 sent at first, the batch kept on the list; the rest once shown.
    expect(early).toEqual({ outcome: 'sent', sent: 2 });
    expect(await w.batches.listBacklogs()).toEqual([BATCH]);
    expect(later).toEqual({ outcome: 'sent', sent: 10 });
    expect(w.queuedRows()).toEqual([...Array.from({ length: 10 }, (_, index) => 28 - index)]);
    expect((await w.batches.getBatch(BATCH))?.queue_window?.enqueued_through).toBe(22);
  });

  it('sends no place past one it does not find yet, so none is skipped while Prepare still stores rows', async () => {
    // Prepare: places 13 and 14 not stored yet (rows 28 and 27); the window drained.
    const w = memoryWorld();
    await seedInSendOrder(w, 10);
    w.leaveWindow([40, 39, 38, 37, 36, 35, 34, 33, 32, 31], 'resolved');
    const hidden = new Set([13, 14]);
    const storing = {
      ...w.ports,
      batches: {
        ...w.batches,
        sendOrderPage: async (batchId: string, page: { after: number; limit: number }) => {
          const read = await w.batches.sendOrderPage(batchId, page);
          return { ...read, rows: read.rows.filter((row) => !hidden.has(row.send_order)) };
        },
      },
    };

    // Act
    const early = await topUpWindow(storing, BATCH, HOLD);
    hidden.clear();
    w.leaveWindow([30, 29], 'resolved');
    const later = await topUpWindow(storing, BATCH, HOLD);

    // Assess: places 11–12 first, then 13–22 in order: 13 and 14 not skipped.
    expect(early).toEqual({ outcome: 'sent', sent: 2 });
    expect(later).toEqual({ outcome: 'sent', sent: 10 });
    expect(w.queuedRows()).toEqual(Array.from({ length: 10 }, (_, index) => 28 - index));
  });
});
