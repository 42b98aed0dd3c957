/**
 * Prepare on files of any size: the file is read in chunks of rows, twice, and the rows are
 * written chunk by chunk. A few thousand rows with chunks of 50 prove what 400,000 rows with
 * chunks of 500 rely on (the benchmark measures those): nothing depends on holding the file.
 */
import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import type { BatchPlan } from '../../../../shared/pipeline/prepare/batch-plan.js';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import {
  PREPARE_SETTINGS,
  type PrepareSettings,
} from '../../../../shared/pipeline/prepare/prepare-passes.js';
import { productFingerprint } from '../../../../shared/pipeline/reuse/reuse.js';
import type { ByteSource } from '../../../../shared/spreadsheet/byte-source.js';
import { wordMessages } from '../../../../shared/wording/index.js';
import type { Message } from '../../../../shared/wording/message.js';
import {
  countingKick,
  fixedClock,
  memoryBatchStore,
  memoryObjectStore,
  memoryProductCache,
  memoryRowQueue,
  preparingService,
} from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { ACCEPTED_COUNTRIES, crlf, utf8, xlsx } from '../../spreadsheet/fixtures.js';

/** Messages as the English sentences results.csv and the logs keep. */
const english = (said: readonly Message[]): string[] => wordMessages(said, 'en');

const BUCKET = 'catalogue-bucket';
const FILE_KEY = 'inbox/grande/catalogo.csv';
const SMALL: PrepareSettings = { ...PREPARE_SETTINGS, rowsPerChunk: 50 };

const objectCreated = (key = FILE_KEY) => objectCreatedEvent(BUCKET, key);

/** Ports in memory that record how Prepare used them: rows per write, bytes per read. */
const world = (files: Record<string, Uint8Array | string>, key = FILE_KEY) => {
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const { service } = preparingService(ACCEPTED_COUNTRIES);
  const objects = memoryObjectStore(files);
  const chunkBytes: number[] = [];
  const source = objects.source;
  objects.source = async (wanted) => {
    const found = await source(wanted);
    if (!found || wanted !== key) return found;
    return {
      size: found.size,
      async *read(start, end) {
        for await (const chunk of found.read(start, end)) {
          chunkBytes.push(chunk.byteLength);
          yield chunk;
        }
      },
    } satisfies ByteSource;
  };
  const batches = memoryBatchStore();
  const writes: number[] = [];
  const putRows = batches.putRows;
  batches.putRows = async (rows) => {
    writes.push(rows.length);
    return putRows(rows);
  };
  const ports = {
    clock,
    service,
    objects,
    queue: memoryRowQueue(clock),
    batches,
    cache: memoryProductCache(),
    kick: countingKick(),
  };
  const batchId = batchSourceFromEvent(objectCreated(key))!.batchId;
  const run = (settings: PrepareSettings = SMALL) =>
    prepareBatch(ports, { event: objectCreated(key), execution_id: 'exec-1' }, settings);
  const rows = (): RowRecord[] =>
    [...batches.rows.values()].filter((r) => r.batch_id === batchId).sort((a, b) => a.row - b.row);
  return { ...ports, run, batchId, rows, writes, chunkBytes };
};

/** Row n's description: `products` distinct products, repeated down the file. */
const descriptionOf = (n: number, products: number) =>
  `Parafuso sextavado de aço inoxidável M${(n % products) + 4} x ${(n % products) * 5 + 10} mm`;

const catalogue = (count: number, products = count, extra: (n: number) => string = () => '') =>
  utf8(
    crlf(
      'SKU;Descrição;País;Operação;Observação',
      ...Array.from(
        { length: count },
        (_, i) => `SKU-${i + 1};${descriptionOf(i + 1, products)};BR;import;${extra(i + 1)}`,
      ),
    ),
  );

describe('Prepare streams the file', () => {
  it('writes 3,000 rows in chunks of 50 from a file read in small pieces, and sends the first window of them', async () => {
    const w = world({ [FILE_KEY]: catalogue(3_000) });

    expect(await w.run()).toMatchObject({ batch_id: w.batchId, next: 'wait' });

    expect(w.rows().map((row) => row.row)).toEqual(Array.from({ length: 3_000 }, (_, i) => i + 1));
    // The first window's 100 rows first (exposure order), then the other 2,900 in 58 chunks.
    expect(w.writes).toEqual([100, ...Array.from({ length: 58 }, () => 50)]);
    // The file came in pieces, none of them whole: memory holds a piece, not the file.
    expect(w.chunkBytes.length).toBeGreaterThan(20);
    expect(Math.max(...w.chunkBytes)).toBeLessThanOrEqual(4096);
    // The balance's cap of 10 makes a window of 100; the other 2,900 wait in the table for the dispatcher.
    const sent = w.queue.sent.map((entry) => entry.message.row);
    expect(sent).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(w.batches.batches.get(w.batchId)).toMatchObject({
      state: 'running',
      storing: false,
      rows_total: 3_000,
      rows_dispatched: 3_000,
      queue_window: { size: 100, enqueued_through: 100, passed_through: 0, by: 'send_order', last: 3_000 },
    });
    expect(await w.batches.listBacklogs()).toEqual([w.batchId]);
  });

  it('plans the same records in chunks of 50 as in one chunk: products, followers, budget', async () => {
    const files = {
      // 40 products over 2,000 rows: each product's copies lie in many chunks.
      [FILE_KEY]: catalogue(2_000, 40),
      'inbox/grande/batch.json': JSON.stringify({ max_usd: 60 }),
    };
    const chunked = world(files);
    const whole = world(files);

    await chunked.run(SMALL);
    await whole.run({ ...PREPARE_SETTINGS, rowsPerChunk: 10_000 });

    // The first window's rows first, then the chunks.
    expect(chunked.writes.length).toBe(41);
    expect(whole.writes.length).toBe(2);
    expect(chunked.rows()).toEqual(whole.rows());
    // 30 products fit the budget of USD 60; their copies follow them, the other 10 are left out.
    const statuses = new Map<string, number>();
    for (const row of chunked.rows()) statuses.set(row.status, (statuses.get(row.status) ?? 0) + 1);
    expect(Object.fromEntries(statuses)).toEqual({ queued: 30, following: 1_470, not_submitted: 500 });
    expect(chunked.rows()[1_989]).toMatchObject({ status: 'following', follows: 30 });
    expect(chunked.rows()[1_999]).toMatchObject({ status: 'not_submitted', follows: 40 });
    expect(chunked.batches.batches.get(chunked.batchId)).toMatchObject({
      rows_dispatched: 30,
      rows_total: 2_000,
    });
  });

  it('writes in legs when a leg’s time is spent, each going on where the last stopped, to the same batch', async () => {
    const files = { [FILE_KEY]: catalogue(2_000, 40) };
    const legged = world(files);
    const whole = world(files);
    // Each write takes a leg's whole time: a leg writes one chunk, then hands on.
    const { putRows } = legged.batches;
    legged.batches.putRows = async (rows) => {
      legged.clock.advance(60_000);
      return putRows(rows);
    };
    const settings = { ...SMALL, legMs: 60_000 };
    const event = objectCreated();

    const legs = [await prepareBatch(legged, { event, execution_id: 'exec-1' }, settings)];
    // The first leg already sent the window (the 40 products' leaders) and runs the batch while storing.
    const afterFirstLeg = {
      sent: legged.queue.sent.length,
      stored: legged.rows().length,
      batch: { ...legged.batches.batches.get(legged.batchId) },
    };
    while (legs.at(-1)!.next === 'again') {
      // The workflow hands Prepare its whole state, the last leg's answer at `prepare`.
      legs.push(
        await prepareBatch(
          legged,
          { event: { ...event, prepare: legs.at(-1) }, execution_id: 'exec-1' },
          settings,
        ),
      );
    }
    await whole.run(SMALL);

    expect(legs).toHaveLength(40);
    expect(afterFirstLeg).toMatchObject({ sent: 40, stored: 50, batch: { state: 'running', storing: true } });
    expect(legged.batches.batches.get(legged.batchId)?.storing).toBe(false);
    expect(legs.slice(0, 3).map((leg) => leg.written_through)).toEqual([50, 100, 150]);
    expect(legs.at(-1)).toMatchObject({ next: 'wait', batch_id: legged.batchId });
    // Every chunk written once, and the batch the same as one leg makes it.
    expect(legged.writes).toEqual(whole.writes);
    // Rows are stamped when written: the legs' clock moved on, nothing else differs.
    const unstamped = (rows: RowRecord[]) => rows.map(({ updated_at: _at, ...row }) => row);
    expect(unstamped(legged.rows())).toEqual(unstamped(whole.rows()));
    expect(legged.batches.batches.get(legged.batchId)).toEqual(whole.batches.batches.get(whole.batchId));
    expect(legged.queue.sent.map((entry) => entry.message.row)).toEqual(
      whole.queue.sent.map((entry) => entry.message.row),
    );
  });

  it('reuses a verdict for every row of a product when only a late row holds it, earlier chunks included', async () => {
    const w = world({ [FILE_KEY]: catalogue(1_000, 100) });
    // Row 1,000 is product 0 (1,000 % 100), like rows 100, 200, …; only its own SKU has a verdict.
    const product = { operation: 'import' as const, country: 'BR', description: descriptionOf(1_000, 100) };
    await w.cache.put({
      product_key: 'sku:SKU-1000',
      fingerprint: productFingerprint(product, null),
      classification_id: 'cls_7KQ2M9XW4RTC',
      resolved_at: '2026-11-20T12:00:00.000Z',
      result: {
        status: 'resolved',
        ncm: '7318.15.00',
        cost_usd: '2.00',
        classification_id: 'cls_7KQ2M9XW4RTC',
      },
      pdf_key: 'outbox/earlier/pdfs/01000-SKU-1000.pdf',
      batch_id: 'earlier',
    });

    await w.run();

    const ofProduct = w.rows().filter((row) => row.row % 100 === 0);
    expect(ofProduct).toHaveLength(10);
    expect(
      ofProduct.every((row) => row.status === 'reused' && row.classification_id === 'cls_7KQ2M9XW4RTC'),
    ).toBe(true);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({ rows_dispatched: 99 });
  });

  it('reuses the verdict of the first row that holds one, however late its chunk’s cache read comes back', async () => {
    const w = world({ [FILE_KEY]: catalogue(1_000, 100) });
    // Product 0's rows 100 (second chunk) and 200 (fourth) each hold a verdict of their own.
    const product = { operation: 'import' as const, country: 'BR', description: descriptionOf(1_000, 100) };
    for (const [sku, classificationId] of [
      ['SKU-100', 'cls_7KQ2M9XW4RTC'],
      ['SKU-200', 'cls_9PZ3N8VY5SWD'],
    ] as const)
      await w.cache.put({
        product_key: `sku:${sku}`,
        fingerprint: productFingerprint(product, null),
        classification_id: classificationId,
        resolved_at: '2026-11-20T12:00:00.000Z',
        result: {
          status: 'resolved',
          ncm: '7318.15.00',
          cost_usd: '2.00',
          classification_id: classificationId,
        },
        pdf_key: null,
        batch_id: 'earlier',
      });
    // The second chunk's read answers after the fourth's: the survey reads ahead while it waits.
    const getMany = w.cache.getMany;
    w.cache.getMany = async (keys) => {
      if (keys.includes('sku:SKU-100')) await new Promise((resolve) => setTimeout(resolve, 50));
      return getMany(keys);
    };

    await w.run();

    const ofProduct = w.rows().filter((row) => row.row % 100 === 0);
    expect(ofProduct.map((row) => [row.status, row.classification_id])).toEqual(
      ofProduct.map(() => ['reused', 'cls_7KQ2M9XW4RTC']),
    );
  });

  it('refuses a file over the row limit with a clear line and writes no row', async () => {
    const w = world({ [FILE_KEY]: catalogue(1_001) });

    await w.run({ ...SMALL, maxRows: 1_000 });

    expect(w.rows()).toEqual([]);
    expect(w.queue.sent).toEqual([]);
    const batch = w.batches.batches.get(w.batchId)!;
    expect(batch).toMatchObject({ state: 'failed', rows_total: 0 });
    expect(batch.stop?.type).toBe('too_many_rows');
    expect(english(batch.problems)).toEqual([
      'catalogo.csv, line 1002: has more than 1,000 data rows, the most one batch takes; split it into ' +
        'files of at most 1,000 rows and upload each',
    ]);
  });

  it('states the real limit of 400,000 rows', () => {
    expect(PREPARE_SETTINGS.maxRows).toBe(400_000);
  });

  it('fails a file whose quote is never closed near its end before writing any row', async () => {
    const bytes = Buffer.concat([catalogue(2_500), utf8('SKU-2501;"Porca sextavada M8;BR;import;\r\n')]);
    const w = world({ [FILE_KEY]: bytes });

    await w.run();

    expect(w.writes).toEqual([]);
    const batch = w.batches.batches.get(w.batchId)!;
    expect(batch).toMatchObject({ state: 'failed', rows_total: 0 });
    expect(english(batch.problems)[0]).toMatch(/^catalogo\.csv, line 2502: a quoted cell is never closed/);
  });

  it('lists the first problems of a kind and counts the rest, so the batch record stays small', async () => {
    // Every row has one cell more than the header.
    const w = world({ [FILE_KEY]: catalogue(500, 500, () => 'nota;a mais') });

    await w.run();

    const problems = w.batches.batches.get(w.batchId)!.problems;
    expect(problems).toHaveLength(51);
    expect(english(problems).at(-1)).toBe('catalogo.csv: 450 more rows like the ones above (500 in all).');
  });

  it('writes a plan of 3,000 rows line by line', async () => {
    const w = world({
      [FILE_KEY]: catalogue(3_000, 1_000),
      'inbox/grande/batch.json': '{"plan_only": true}',
    });

    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'planned' });

    expect(w.writes).toEqual([]);
    const plan = JSON.parse(
      Buffer.from((await w.objects.getBytes(`outbox/${w.batchId}/plan.json`))!).toString(),
    ) as BatchPlan;
    expect(plan.rows).toEqual({
      total: 3_000,
      classify: 1_000,
      same_product: 2_000,
      reuse: 0,
      rejected: 0,
      over_budget: 0,
      no_earlier_verdict: 0,
      service_item: 0,
      reuse_to_check: 0,
    });
    const csv = Buffer.from((await w.objects.getBytes(`outbox/${w.batchId}/plan.csv`))!).toString();
    const lines = csv.trim().split('\r\n');
    expect(lines).toHaveLength(3_001);
    expect(lines[3_000]).toMatch(/^3000;3001;SKU-3000;.*;same_product;;Same product as row 1000/);
  });

  it('streams an XLSX the same way', async () => {
    const key = 'inbox/grande/catalogo.xlsx';
    const w = world(
      {
        [key]: await xlsx([
          ['SKU', 'Descrição', 'País', 'Operação'],
          ...Array.from({ length: 1_200 }, (_, i) => [
            `SKU-${i + 1}`,
            descriptionOf(i + 1, 1_200),
            'BR',
            'import',
          ]),
        ]),
      },
      key,
    );

    await w.run();

    expect(w.rows()).toHaveLength(1_200);
    // The first window's 100 rows, then the 22 chunks of 50 that hold the other 1,100.
    expect(w.writes.length).toBe(23);
    expect(w.rows()[1_199]).toMatchObject({ status: 'queued', product: { sku: 'SKU-1200' } });
  });
});
