/** Partial results: every row's state now, final rows exactly as results.csv will have them. */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { MIN_PART_BYTES } from '../../../../shared/pipeline/core/ports.js';
import {
  PartialSummary,
  partialProgressOf,
  partialResultsRequestOf,
  replacePartialFiles,
  writePartialResults,
} from '../../../../shared/pipeline/finalize/partial-results.js';
import { buildResultsCsv } from '../../../../shared/pipeline/outbox/results-files.js';
import { fixedClock, memoryBatchStore, memoryObjectStore } from '../../../helpers/memory-ports.js';
import { BATCH, batchRecord, rowRecord } from '../../../helpers/records.js';

const world = async () => {
  const batches = memoryBatchStore();
  const objects = memoryObjectStore({});
  const clock = fixedClock('2026-11-21T12:15:00.000Z');
  await batches.createBatch(
    batchRecord({ state: 'running', header: ['sku', 'description'], rows_dispatched: 3 }),
  );
  await batches.putRows([
    rowRecord(1, {
      status: 'resolved',
      result: {
        status: 'resolved',
        ncm: '0901.21.00',
        cost_usd: '2.00',
        classification_id: 'cls_7KQ2M9XW4RTB',
      },
    }),
    rowRecord(2, { status: 'in_progress', classification_id: 'cls_H3N8P2QVZ6MC' }),
    rowRecord(3, { status: 'following', follows: 1 }),
    rowRecord(4, { status: 'queued' }),
    rowRecord(5, { status: 'following', follows: 2 }),
  ]);
  const text = (name: string) => {
    const stored = objects.objects.get(`outbox/${BATCH}/${name}`);
    return stored ? Buffer.from(stored.bytes).toString('utf8') : undefined;
  };
  const csv = (name: string) =>
    Papa.parse<Record<string, string>>(text(name)!.replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    }).data;
  return { ports: { batches, objects, clock }, batches, objects, text, csv };
};

describe('writePartialResults', () => {
  it('shows every row as it stands: final ones as they will end, the others by working status', async () => {
    const w = await world();

    expect(await writePartialResults(w.ports, BATCH)).toEqual({ batch_id: BATCH, written: true });

    const rows = w.csv('results.partial.csv');
    expect(rows.map((r) => [r.row, r.status, r.cost_usd])).toEqual([
      ['1', 'resolved', '2.00'],
      ['2', 'in_progress', ''],
      ['3', 'resolved', '0.00'],
      ['4', 'queued', ''],
      ['5', 'following', ''],
    ]);
    expect(rows[1]).toMatchObject({
      classification_id: 'cls_H3N8P2QVZ6MC',
      detail: 'Being classified by the service.',
    });
    expect(rows[2]!.detail).toMatch(/^Same product as row 1 /);
    const summary = PartialSummary.parse(JSON.parse(w.text('summary.partial.json')!));
    expect(summary).toMatchObject({
      partial: true,
      as_of: '2026-11-21T12:15:00.000Z',
      rows_total: 5,
      billed_usd: 2,
      working: { in_progress: 1, queued: 1, following: 1 },
      duplicates: { rows: 2, saved_usd: 2 },
    });
    expect(summary.by_status).toMatchObject({ resolved: 2, error: 0 });
    // Rows 1 and 3 have a verdict; of 3 classifications, rows 2 and 4 are still to end. No value column.
    expect(summary.coverage).toEqual({ rows_pct: 40, value_pct: null, classifications_pct: 33 });
    // The follower's outcome is shown, not written: Finalize writes it.
    expect((await w.batches.getRow(BATCH, 3))?.status).toBe('following');
  });

  it("says the share of the file's value with a verdict, from its value column", async () => {
    // Prepare: the value column Prepare ranked by, as people write money; row 3 follows row 1.
    const batches = memoryBatchStore();
    const objects = memoryObjectStore({});
    await batches.createBatch(
      batchRecord({
        state: 'running',
        header: ['sku', 'Valor total'],
        rows_dispatched: 3,
        exposure: { products: 3, value_header: 'Valor total', unread_cells: 1, unread_rows: [4] },
      }),
    );
    await batches.putRows([
      rowRecord(1, {
        cells: ['A', 'R$ 600,00'],
        status: 'resolved',
        result: {
          status: 'resolved',
          ncm: '0901.21.00',
          cost_usd: '2.00',
          classification_id: 'cls_7KQ2M9XW4RTB',
        },
      }),
      rowRecord(2, {
        cells: ['B', '1.200,00'],
        status: 'in_progress',
        classification_id: 'cls_H3N8P2QVZ6MC',
      }),
      rowRecord(3, { cells: ['A', '200'], status: 'following', follows: 1 }),
      rowRecord(4, { cells: ['C', 'n/d'], status: 'queued' }),
    ]);

    // Act
    await writePartialResults({ batches, objects, clock: fixedClock('2026-12-04T12:00:00.000Z') }, BATCH);

    // Assess: 800 of 2,000 with a verdict; one classification of three over.
    const stored = objects.objects.get(`outbox/${BATCH}/summary.partial.json`);
    const summary = PartialSummary.parse(JSON.parse(Buffer.from(stored!.bytes).toString('utf8')));
    expect(summary.coverage).toEqual({ rows_pct: 50, value_pct: 40, classifications_pct: 33 });
  });

  it('writes nothing for a batch that has ended, or one that does not exist', async () => {
    const w = await world();
    await w.batches.updateBatch(BATCH, { state: 'completed', finished_at: '2026-11-21T13:00:00.000Z' });
    expect((await writePartialResults(w.ports, BATCH)).written).toBe(false);
    expect((await writePartialResults(w.ports, 'nope')).written).toBe(false);
    expect(w.text('results.partial.csv')).toBeUndefined();
  });

  it('is replaced by the final files at the end, and only when there was one', async () => {
    const w = await world();
    const final = {
      results: buildResultsCsv({ header: [], delimiter: ',' }, []),
      at: '2026-11-21T13:00:00.000Z',
    };
    await writePartialResults(w.ports, BATCH);
    const summary = PartialSummary.omit({ partial: true, as_of: true, working: true }).parse({
      ...JSON.parse(w.text('summary.partial.json')!),
    });
    expect(w.objects.objects.has(`outbox/${BATCH}/results.partial.xlsx`)).toBe(true);
    // Finalize has written the final workbook by then; the partial one becomes a copy of it.
    await w.objects.put(`outbox/${BATCH}/results.xlsx`, 'final workbook', 'application/octet-stream');
    await w.objects.put(`outbox/${BATCH}/results.csv`, final.results, 'text/csv');
    await replacePartialFiles(w.objects, BATCH, { at: final.at, summary });
    expect(JSON.parse(w.text('summary.partial.json')!)).toMatchObject({ partial: false, working: {} });
    expect(w.text('results.partial.csv')).toBe(final.results.toString('utf8'));
    expect(w.text('results.partial.xlsx')).toBe('final workbook');

    await replacePartialFiles(w.objects, 'other-batch', { at: final.at, summary });
    expect(w.objects.objects.has('outbox/other-batch/summary.partial.json')).toBe(false);
  });
});

describe('partial results that outlast an invocation', () => {
  it('go on by a request object each leg drops, to the files one invocation writes', async () => {
    const inLegs = await world();
    const atOnce = await world();
    // Every leg's time is spent at once, and a page is two rows: each pass hands on after a page.
    const settings = { legMs: 0, pageSize: 2, partBytes: MIN_PART_BYTES };
    const reports = [await writePartialResults(inLegs.ports, BATCH, null, settings)];
    while (reports.at(-1)!.continues) {
      // The request object the leg dropped, as its Object Created event brings it back.
      const dropped = (await inLegs.objects.list(`requests/${BATCH}/`)).at(-1)!;
      const event = { 'detail-type': 'Object Created', detail: { object: { key: dropped } } };
      expect(partialResultsRequestOf(event)).toBe(BATCH);
      const progress = await partialProgressOf(inLegs.objects, event);
      expect(progress).not.toBeNull();
      reports.push(await writePartialResults(inLegs.ports, BATCH, progress, settings));
    }
    await writePartialResults(atOnce.ports, BATCH);

    // Five rows: the tally in three legs (two, two, one), then the files; each leg its own request.
    expect(reports.map((report) => report.continues ?? false)).toEqual([true, true, false]);
    expect(reports.at(-1)).toEqual({ batch_id: BATCH, written: true });
    expect(await inLegs.objects.list(`requests/${BATCH}/`)).toHaveLength(2);
    for (const name of ['results.partial.csv', 'results.partial.xlsx', 'summary.partial.json']) {
      const legs = inLegs.objects.objects.get(`outbox/${BATCH}/${name}`)!.bytes;
      const once = atOnce.objects.objects.get(`outbox/${BATCH}/${name}`)!.bytes;
      expect(Buffer.from(legs).equals(Buffer.from(once)), name).toBe(true);
    }
  });

  it('reads no progress from a first request', async () => {
    const w = await world();
    const event = {
      'detail-type': 'Object Created',
      detail: { object: { key: `requests/${BATCH}/now.txt` } },
    };
    expect(await partialProgressOf(w.objects, event)).toBeNull();
    expect(await partialProgressOf(w.objects, { batch_id: BATCH })).toBeNull();
  });
});

describe('partialResultsRequestOf', () => {
  const objectCreated = (key: string) => ({
    'detail-type': 'Object Created',
    source: 'aws.s3',
    detail: { bucket: { name: 'b' }, object: { key } },
  });

  it('reads the batch from an invoke or from a request object dropped under requests/<batch-id>/', () => {
    expect(partialResultsRequestOf({ batch_id: 'lote-7Kq2M9xW4r' })).toBe('lote-7Kq2M9xW4r');
    expect(partialResultsRequestOf(objectCreated('requests/lote-7Kq2M9xW4r/agora.txt'))).toBe(
      'lote-7Kq2M9xW4r',
    );
    expect(partialResultsRequestOf(objectCreated('requests/lote%2Bx-7Kq2M9xW4r/a'))).toBe(
      'lote+x-7Kq2M9xW4r',
    );
  });

  it('names no batch for other keys and other events', () => {
    expect(partialResultsRequestOf(objectCreated('requests/lote-7Kq2M9xW4r'))).toBeNull();
    expect(partialResultsRequestOf(objectCreated('inbox/lote/products.csv'))).toBeNull();
    expect(partialResultsRequestOf(objectCreated('requests/%E0%A4%A/x'))).toBeNull();
    expect(partialResultsRequestOf({ source: 'schedule' })).toBeNull();
  });
});
