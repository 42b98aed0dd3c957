/**
 * The audit log in the batch table, against dynalite: its events read back in key order, one item
 * per key however often a step records it, and never among the batch's rows or batches: the batch
 * store's partition queries (rowsPage, listRows, finishedRows) and its index (listBatches) read
 * only their own items.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoAuditLog } from '../../../shared/aws/dynamo-audit-log.js';
import { createDynamoBatchStore } from '../../../shared/aws/dynamo-batch-store.js';
import { type AuditEvent, auditEventKey } from '../../../shared/pipeline/core/audit-records.js';
import type { AuditLog, BatchStore } from '../../../shared/pipeline/core/ports.js';
import {
  BATCH_TABLE_KEYS,
  createTableWithKeys,
  type LocalDynamo,
  startLocalDynamo,
} from '../../helpers/dynalite.js';
import { BATCH, batchRecord, rowRecord } from '../../helpers/records.js';

let dynamo: LocalDynamo;
let tables = 0;
let batches: BatchStore;
let audit: AuditLog;
/** The adapter's clock: an hour after the seeded events, so they are on time. */
let now = 0;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  const tableName = `batches-audit-${++tables}`;
  // As the stack makes it: the batch table and its index of batches by start.
  await createTableWithKeys(dynamo.client, tableName, BATCH_TABLE_KEYS);
  batches = createDynamoBatchStore({ client: dynamo.client, tableName });
  now = Date.parse('2026-11-21T13:00:00.000Z');
  audit = createDynamoAuditLog({ client: dynamo.client, tableName, now: () => new Date(now) });
});

const event = (row: number, at: string, kind: AuditEvent['event'] = 'submitted'): AuditEvent => ({
  at,
  batch_id: BATCH,
  row,
  event: kind,
  who: kind === 'submitted' ? 'ana@example.com' : '',
  classification_id: `cls_${row}`,
  detail: '',
  sku: `SKU-${row}`,
});

/** Rows 1..5, and 30 events of them recorded twice over, in no order. */
const seed = async () => {
  await batches.createBatch(batchRecord({ rows_total: 5 }));
  await batches.putRows([1, 2, 3, 4, 5].map((row) => rowRecord(row)));
  const events = Array.from({ length: 30 }, (_, i) =>
    event(
      (i % 5) + 1,
      `2026-11-21T12:${String(59 - i).padStart(2, '0')}:00.000Z`,
      i % 2 ? 'resolved' : 'submitted',
    ),
  );
  await audit.record([...events].reverse());
  await audit.record(events);
  return events;
};

describe('the audit log in the batch table', () => {
  it('reads its events back in key order, a page after a key, each once however often recorded', async () => {
    const events = await seed();
    const sorted = [...events].sort((a, b) => auditEventKey(a).localeCompare(auditEventKey(b)));

    const first = await audit.page(BATCH, { after: null, limit: 12 });
    const second = await audit.page(BATCH, { after: auditEventKey(first.at(-1)!), limit: 100 });

    expect([...first, ...second]).toEqual(sorted);
    expect(await audit.page(BATCH, { after: auditEventKey(sorted.at(-1)!), limit: 10 })).toEqual([]);
    expect(await audit.page('another-batch', { after: null, limit: 10 })).toEqual([]);
  });

  it('is never read by the batch store: its rows, its pages, its counts and the list of batches', async () => {
    await seed();

    const listed = [];
    for await (const row of batches.listRows(BATCH)) listed.push(row.row);
    const page = await batches.rowsPage(BATCH, { after: null, limit: 100 });
    const after = await batches.rowsPage(BATCH, { after: 3, limit: 100 });
    const batch = (await batches.getBatch(BATCH))!;
    const listing = await batches.listBatches({ limit: 10 });

    expect(listed).toEqual([1, 2, 3, 4, 5]);
    expect(page.rows.map((row) => row.row)).toEqual([1, 2, 3, 4, 5]);
    expect(page.next).toBeNull();
    expect(after.rows.map((row) => row.row)).toEqual([4, 5]);
    expect(batch.rows_total).toBe(5);
    expect(await batches.finishedRows(batch)).toEqual(
      await batches.finishedRows(batchRecord({ rows_total: 5 })),
    );
    expect(listing.batches.map((b) => b.batch_id)).toEqual([BATCH]);
    // And the audit log reads none of theirs: its 30 events, nothing else.
    expect(await audit.page(BATCH, { after: null, limit: 100 })).toHaveLength(30);
  });

  it('keeps an event recorded late on its list until settled, once however often recorded, never one recorded on time', async () => {
    // Prepare: the seeded events on time; then, two hours on, one of them recorded again and two
    // late ones, the second recorded twice (a retried step)
    await seed();
    now += 2 * 60 * 60_000;
    const late = event(2, '2026-11-21T12:30:30.000Z', 'answered');
    const later = event(3, '2026-11-21T12:10:30.000Z', 'answered');
    await audit.record([event(1, '2026-11-21T12:59:00.000Z')]);
    await audit.record([late]);
    now += 1000;
    await audit.record([later]);
    now += 1000;
    await audit.record([later]);

    // Act
    const pending = await audit.pendingLate(BATCH, 10);

    // Assess: the two, in the order recorded; in the log too, marked late
    expect(pending.map((entry) => entry.event)).toEqual([late, later]);
    const logged = await audit.page(BATCH, { after: null, limit: 100 });
    expect(logged).toHaveLength(32);
    expect(logged.filter((entry) => entry.late).map((entry) => entry.row)).toEqual([3, 2]);

    // Settled: never given again, even when a step records it once more
    await audit.settleLate(
      BATCH,
      pending.map((entry) => entry.marker),
    );
    now += 1000;
    await audit.record([late]);
    expect(await audit.pendingLate(BATCH, 10)).toEqual([]);
  });
});
