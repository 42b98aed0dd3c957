/**
 * A page costs the same at 100 rows and at 400,000: the console's batch view, batch list and rows
 * page, and `classify`'s progress line, on a running batch of 5,000 rows in a store that counts
 * what is read. The batch view, the list and the progress line read no row at all (the counters);
 * an unfiltered rows page reads its own rows and the leaders its followers name; a filtered page
 * reads a bounded number of rows and goes on at the next request. The counts equal the rows'.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readBatchProgress } from '../../../local/runtime/progress.js';
import { RowsQuery } from '../../../shared/console/api.js';
import { batchView, listBatchViews } from '../../../shared/console/batch-views.js';
import { listRowViews, ROWS_READ_PER_REQUEST } from '../../../shared/console/row-views.js';
import type { BatchStore } from '../../../shared/pipeline/core/ports.js';
import type { RowRecord } from '../../../shared/pipeline/core/records.js';
import { withFollowersDerived } from '../../../shared/pipeline/core/row-life.js';
import type { RowStatus } from '../../../shared/pipeline/core/row-statuses.js';
import { rowHolder } from '../../../shared/pipeline/dispatch/execution-names.js';
import { consoleWorld } from '../../helpers/console-world.js';
import { seedCountedBatch } from '../../helpers/counted-batch.js';
import { BATCH, batchRecord, classificationId, rowRecord } from '../../helpers/records.js';

const ROWS = 5_000;
const LEASED = [3601, 3606, 3611];

/**
 * Row r: every 500th rejected; rows 1, 6, 11… each lead the next four (one product each). Leaders
 * up to 3000 resolved, then failed to 3500, waiting for answers to 3600, in progress to 3700,
 * queued after.
 */
const rowOf = (r: number): RowRecord => {
  const product = {
    row: r,
    description: `Parafuso ${r}`,
    operation: 'import' as const,
    country: 'CN',
    sheet: null,
    external_reference: null,
    sku: `SKU-${r}`,
    current_ncm: null,
    flags: [],
  };
  if (r % 500 === 0)
    return rowRecord(r, { status: 'rejected', result: { status: 'rejected', cost_usd: '0.00' } });
  const leader = r - ((r - 1) % 5);
  if (leader !== r) return rowRecord(r, { status: 'following', follows: leader, product });
  const at = `2026-11-21T12:${String(Math.floor(r / 100)).padStart(2, '0')}:00.000Z`;
  const ended = (status: 'resolved' | 'failed' | 'pending_data', cost: string) =>
    rowRecord(r, {
      status,
      product,
      classification_id: classificationId(r),
      result: { status, cost_usd: cost, ...(status === 'resolved' ? { ncm: '73181500' } : {}) },
      finished_at: at,
    });
  if (r <= 3000) return ended('resolved', '2.00');
  if (r <= 3500) return ended('failed', '0.00');
  if (r <= 3600) return ended('pending_data', '2.00');
  if (r <= 3700)
    return rowRecord(r, { status: 'in_progress', product, classification_id: classificationId(r) });
  return rowRecord(r, { status: 'queued', product });
};

const ALL_ROWS = Array.from({ length: ROWS }, (_, i) => rowOf(i + 1));
/** What each row shows, counted from the rows themselves: what the counters must equal. */
const SHOWN = withFollowersDerived(ALL_ROWS);
const BILLED = SHOWN.reduce((sum, row) => sum + Number(row.result?.cost_usd ?? 0), 0);
const countOf = (statuses: readonly RowStatus[]) =>
  SHOWN.filter((row) => statuses.includes(row.status)).length;

/** The store, counting the rows it hands out and how. */
const countingStore = (inner: BatchStore) => {
  const reads = { rowsPage: 0, rowsRead: 0, getRow: 0, listRows: 0 };
  const store: BatchStore = {
    ...inner,
    rowsPage: async (batchId, page) => {
      reads.rowsPage += 1;
      const found = await inner.rowsPage(batchId, page);
      reads.rowsRead += found.rows.length;
      return found;
    },
    getRow: async (batchId, row) => {
      reads.getRow += 1;
      return inner.getRow(batchId, row);
    },
    listRows: (batchId) => {
      reads.listRows += 1;
      return inner.listRows(batchId);
    },
  };
  const reset = () => Object.assign(reads, { rowsPage: 0, rowsRead: 0, getRow: 0, listRows: 0 });
  return { store, reads, reset };
};

const world = consoleWorld();
const counting = countingStore(world.ports.batches);
const ports = { ...world.ports, batches: counting.store };
const query = (raw: Record<string, string>) => RowsQuery.parse(raw);

beforeAll(async () => {
  await seedCountedBatch(
    world.ports.batches,
    batchRecord({ state: 'running', started_at: '2026-11-21T12:00:00.000Z' }),
    ALL_ROWS,
  );
  for (const r of LEASED)
    await world.ports.leases.acquire({
      holder: rowHolder(BATCH, r, 1),
      cap: 10,
      ttlMs: 60 * 60_000,
      now: world.ports.clock.now().getTime(),
    });
});

describe('a running batch of 5,000 rows', () => {
  it('shows the batch from its counters, reading no row; the counts are the rows’ own', async () => {
    // Act
    counting.reset();
    const view = await batchView(ports, BATCH);

    // Assess
    expect(counting.reads).toEqual({ rowsPage: 0, rowsRead: 0, getRow: 0, listRows: 0 });
    const working = countOf(['queued', 'submitting', 'in_progress']);
    expect(view.by_status).toEqual({
      resolved: countOf(['resolved']),
      failed: countOf(['failed']),
      pending_data: countOf(['pending_data']),
      rejected: countOf(['rejected']),
      following: countOf(['following']),
      // The rows in flight are the leases the batch's rows hold; the other working rows wait.
      in_progress: LEASED.length,
      queued: working - LEASED.length,
    });
    expect(view.by_status.resolved).toBe(3_000 - 6);
    expect(view.rows_total).toBe(ROWS);
    expect(view.rows_done).toBe(countOf(['resolved', 'failed', 'pending_data', 'rejected']));
    // 600 resolved and 20 pending classifications at USD 2.00; followers cost nothing.
    expect(view.billed_usd).toBe(BILLED);
    expect(BILLED).toBe(1_240);
    expect(view.pending_questions).toBe(countOf(['pending_data']));
    expect(view.stage).toBe('dispatching');
    // What matters first: the rows with a verdict, after the classifications that ended (leaders sent).
    const sent = ALL_ROWS.filter((row) => row.follows === undefined && row.status !== 'rejected');
    const ended = sent.filter((row) => ['resolved', 'failed', 'pending_data'].includes(row.status));
    expect(view.coverage).toEqual({
      rows: Math.floor((countOf(['resolved']) / ROWS) * 100),
      // The file gives no value column: no share of the value to say.
      value: null,
      classifications: Math.floor((ended.length / sent.length) * 100),
    });
    expect(view.coverage).toEqual({ rows: 59, value: null, classifications: 72 });
    expect(view.rows_read).toBeNull();
  });

  it('lists the batch from its counters too, reading no row', async () => {
    counting.reset();
    const list = await listBatchViews(ports, { limit: 20 });
    expect(counting.reads).toEqual({ rowsPage: 0, rowsRead: 0, getRow: 0, listRows: 0 });
    expect(list.batches[0]).toMatchObject({ batch_id: BATCH, rows_total: ROWS, billed_usd: BILLED });
  });

  it('gives the progress line from the counters, reading no row', async () => {
    counting.reset();
    const progress = await readBatchProgress(
      { batches: counting.store, leases: world.ports.leases, cap: async () => 10 },
      BATCH,
    );
    expect(counting.reads).toEqual({ rowsPage: 0, rowsRead: 0, getRow: 0, listRows: 0 });
    expect(progress).toMatchObject({ rowsTotal: ROWS, billedUsd: BILLED, stage: 'dispatching' });
    expect(progress.byStatus.following).toBe(countOf(['following']));
  });

  it('reads one page of rows for an unfiltered page, and the one leader named from before it', async () => {
    // Act: rows 2003…2102; rows 2003 to 2005 follow row 2001, before the page.
    counting.reset();
    const page = await listRowViews(ports, BATCH, query({ after: '2002', limit: '100' }));

    // Assess
    expect(counting.reads).toMatchObject({ rowsPage: 1, listRows: 0 });
    expect(counting.reads.rowsRead).toBeLessThanOrEqual(101);
    expect(counting.reads.getRow).toBe(1);
    expect(page.rows.map((row) => row.row)).toEqual(Array.from({ length: 100 }, (_, i) => 2003 + i));
    expect(page.rows[0]).toMatchObject({ row: 2003, status: 'resolved', follows: 2001, cost_usd: 0 });
    expect(page).toMatchObject({ next: 2102, matching: ROWS });
    expect(page.by_status.following).toBe(countOf(['following']));
  });

  it('ends the last unfiltered page with no next', async () => {
    const page = await listRowViews(ports, BATCH, query({ after: String(ROWS - 50), limit: '100' }));
    expect(page.rows).toHaveLength(50);
    expect(page.next).toBeNull();
  });

  it('finds a filter’s rows over several requests, each reading a bounded number of rows', async () => {
    // Act: page through every failed row, 100 at a time, as the page's "load more" does.
    const found: number[] = [];
    const readsPerRequest: number[] = [];
    let after: number | null = null;
    let matching: number | null = null;
    do {
      counting.reset();
      const page = await listRowViews(
        ports,
        BATCH,
        query({ status: 'failed', limit: '100', ...(after === null ? {} : { after: String(after) }) }),
      );
      readsPerRequest.push(counting.reads.rowsRead);
      found.push(...page.rows.map((row) => row.row));
      matching = page.matching;
      after = page.next;
    } while (after !== null);

    // Assess
    const failed = SHOWN.filter((row) => row.status === 'failed').map((row) => row.row);
    expect(found).toEqual(failed);
    expect(matching).toBe(failed.length);
    expect(Math.max(...readsPerRequest)).toBeLessThanOrEqual(ROWS_READ_PER_REQUEST);
    // The first request read its bound and found nothing before row 3001: it said where to go on.
    expect(readsPerRequest[0]).toBe(ROWS_READ_PER_REQUEST);
  });

  it('does not count a search’s matches: matching is null, the rows found are there', async () => {
    const page = await listRowViews(ports, BATCH, query({ q: 'parafuso 3001', limit: '100' }));
    expect(page.matching).toBeNull();
    expect(page.rows.map((row) => row.row)).toEqual([]);
    expect(page.next).toBe(ROWS_READ_PER_REQUEST);
    const further = await listRowViews(
      ports,
      BATCH,
      query({ q: 'parafuso 3001', limit: '100', after: '2000' }),
    );
    expect(further.rows.map((row) => row.row)).toEqual([3001]);
  });
});

describe('a finished batch', () => {
  const summary = (byStatus: Record<string, number>) =>
    JSON.stringify({
      batch_id: 'done-1',
      name: 'done-1',
      source: null,
      state: 'completed',
      rows_total: 3,
      rows_dispatched: 3,
      by_status: {
        resolved: 0,
        pending_data: 0,
        failed: 0,
        abandoned: 0,
        rejected: 0,
        reused: 0,
        not_submitted: 0,
        error: 0,
        ...byStatus,
      },
      billed_usd: 6,
      saved_usd: 0,
      duplicates: { rows: 0, saved_usd: 0 },
      current_ncm_mismatches: 0,
      started_at: null,
      finished_at: '2026-11-20T08:05:00.000Z',
      problems: [],
      warnings: [],
      columns: [],
      stop: null,
      options: null,
      outputs: { results: 'results.csv', review: 'review.csv', summary: 'summary.json', pdfs: 'pdfs/' },
    });

  it('shows the counts of its summary.json, and the new ones once an answers round rewrote it', async () => {
    // Prepare
    const finished = consoleWorld();
    await finished.ports.batches.createBatch(
      batchRecord({
        batch_id: 'done-1',
        state: 'completed',
        rows_total: 3,
        finished_at: '2026-11-20T08:05:00.000Z',
      }),
    );
    finished.ports.objects.set('outbox/done-1/summary.json', summary({ resolved: 1, pending_data: 2 }));
    const before = await batchView(finished.ports, 'done-1');

    // Act: FinalizeAnswers writes the batch's summary.json again.
    finished.ports.objects.set('outbox/done-1/summary.json', summary({ resolved: 3 }));
    const after = await batchView(finished.ports, 'done-1');
    const rows = await listRowViews(finished.ports, 'done-1', query({}));

    // Assess
    expect(before).toMatchObject({ by_status: { resolved: 1, pending_data: 2 }, pending_questions: 2 });
    expect(after).toMatchObject({ by_status: { resolved: 3 }, pending_questions: 0, rows_done: 3 });
    expect(rows.by_status).toEqual({ resolved: 3 });
  });
});
