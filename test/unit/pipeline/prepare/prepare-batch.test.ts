/** Prepare: an input file in the bucket → row records, queue messages, a running batch. */
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../shared/pipeline/core/keys.js';
import type { CachedVerdict, RowRecord } from '../../../../shared/pipeline/core/records.js';
import {
  MAX_WAIT_SECONDS,
  MIN_WAIT_SECONDS,
  WAIT_MARGIN,
  waitSecondsFor,
} from '../../../../shared/pipeline/prepare/batch-plan.js';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { type PrepareInput, prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import { productFingerprint, productIdentity } from '../../../../shared/pipeline/reuse/reuse.js';
import { everyColumnUse } from '../../../../shared/spreadsheet/input-report.js';
import { TcsProblemError } from '../../../../shared/tcs/errors.js';
import { LIMITS } from '../../../../shared/tcs/schemas.js';
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
const NOW_ISO = '2026-11-21T12:00:00.000Z';
const FILE_KEY = 'inbox/lote/produtos.csv';
const PDF = (text: string) => utf8(`%PDF-1.7\n${text}\n%%EOF\n`);

const DESCRIPTIONS = [
  'Café torrado em grãos, não descafeinado',
  'Rolamento de esferas de aço, diâmetro 22 mm',
  'Frango congelado em pedaços, sem osso',
  'Vinho tinto seco, garrafa de 750 ml',
  'Parafuso de aço inoxidável M8 x 40 mm',
];

const objectCreated = (key = FILE_KEY, etag = 'etag-1') => objectCreatedEvent(BUCKET, key, etag);

const world = (files: Record<string, Uint8Array | string> = {}) => {
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const { service, countryCalls } = preparingService(ACCEPTED_COUNTRIES);
  const objects = memoryObjectStore(files);
  const reads: string[] = [];
  const getBytes = objects.getBytes;
  objects.getBytes = async (key) => {
    reads.push(key);
    return getBytes(key);
  };
  const ports = {
    clock,
    service,
    objects,
    queue: memoryRowQueue(clock),
    batches: memoryBatchStore(),
    cache: memoryProductCache(),
    kick: countingKick(),
  };
  const run = (input: Partial<PrepareInput> = {}, deployment?: Parameters<typeof prepareBatch>[3]) =>
    prepareBatch(ports, { event: objectCreated(), execution_id: 'exec-1', ...input }, undefined, deployment);
  const batchId = batchSourceFromEvent(objectCreated())!.batchId;
  const rows = () =>
    [...ports.batches.rows.values()].filter((r) => r.batch_id === batchId).sort((a, b) => a.row - b.row);
  return { ...ports, ports, run, batchId, rows, reads, countryCalls };
};

const csvOf = (header: string, lines: string[]) => utf8(crlf(header, ...lines));
const simpleCsv = (count = 3) =>
  csvOf(
    'SKU;Descrição;País;Operação',
    DESCRIPTIONS.slice(0, count).map((description, i) => `SKU-${i + 1};${description};BR;importação`),
  );

describe('the rows queue gets a window of the batch, and the wait is sized from it', () => {
  const manyRows = (count: number) =>
    csvOf(
      'SKU;Descrição;País;Operação',
      Array.from(
        { length: count },
        (_, i) => `SKU-${i + 1};${DESCRIPTIONS[i % 5]}, lote ${i + 1};BR;importação`,
      ),
    );

  it('sends the first window of a larger batch, leaves the rest in the table and lists its backlog', async () => {
    // Prepare: a deployment cap of 2 (under the balance's 10): a window of 20 rows out of 45.
    const w = world({ [FILE_KEY]: manyRows(45) });

    // Act
    const result = await w.run({}, { capOverride: 2, maxWaitSeconds: null });

    // Assess
    expect(result).toEqual({ batch_id: w.batchId, next: 'wait', wait_seconds: MIN_WAIT_SECONDS });
    expect(w.queue.sent.map((s) => s.message.row)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(w.rows().every((row) => row.status === 'queued')).toBe(true);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({
      rows_dispatched: 45,
      queue_window: { size: 20, enqueued_through: 20, passed_through: 0 },
    });
    expect(await w.batches.listBacklogs()).toEqual([w.batchId]);
    expect(w.kick.reasons).toEqual(['rows_queued']);
  });

  /**
   * Four products in file order A, B, C, D: A on rows 1, 6, 7; B on row 2 (R$ 1.000,00); C on rows
   * 3 and 4; D on row 5 (R$ 10,00). Most exposed first: A (3 rows), C (2), B (1, more value), D.
   */
  const exposureCsv = csvOf('SKU;Descrição;País;Operação;Valor', [
    `A;${DESCRIPTIONS[0]};BR;importação;5,00`,
    `B;${DESCRIPTIONS[1]};BR;importação;1.000,00`,
    `C;${DESCRIPTIONS[2]};BR;importação;1,00`,
    `C;${DESCRIPTIONS[2]};BR;importação;1,00`,
    `D;${DESCRIPTIONS[3]};BR;importação;10,00`,
    `A;${DESCRIPTIONS[0]};BR;importação;5,00`,
    `A;${DESCRIPTIONS[0]};BR;importação;abc`,
  ]);

  it('sends the most exposed products first: by the rows they cover, then by the value the file gives', async () => {
    // Prepare
    const w = world({ [FILE_KEY]: exposureCsv });

    // Act
    await w.run();

    // Assess: each leader holds its product's place; the window opens in that order, counting places.
    const places = new Map(w.rows().map((row) => [row.row, row.send_order]));
    expect([...places]).toEqual([
      [1, 1],
      [2, 3],
      [3, 2],
      [4, undefined],
      [5, 4],
      [6, undefined],
      [7, undefined],
    ]);
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([1, 3, 2, 5]);
    // Each leader carries the value its verdict covers (its product's rows), counted when it resolves.
    expect(
      w.rows().flatMap((row) => (row.covers_value_cents ? [[row.row, row.covers_value_cents]] : [])),
    ).toEqual([
      [1, 1_000],
      [2, 100_000],
      [3, 200],
      [5, 1_000],
    ]);
    const batch = w.batches.batches.get(w.batchId);
    expect(batch?.queue_window).toEqual({
      size: 100,
      enqueued_through: 4,
      passed_through: 0,
      by: 'send_order',
      last: 4,
    });
    // The cell the value column could not read is counted as nothing, and said.
    expect(batch?.exposure).toEqual({
      products: 4,
      value_header: 'Valor',
      unread_cells: 1,
      value_total_cents: 102_200,
      unread_rows: [7],
    });
  });

  it('plans the order: by what, and the share of the rows with a verdict after an hour, a day, a week', async () => {
    // Prepare
    const w = world({ [FILE_KEY]: exposureCsv, 'inbox/lote/batch.json': '{"plan_only": true}' });

    // Act
    await w.run();

    // Assess: four classifications at a cap of 10 are done within the hour.
    const stored = w.objects.objects.get(`outbox/${w.batchId}/plan.json`);
    const plan = JSON.parse(Buffer.from(stored!.bytes).toString('utf8'));
    // The first verdict: the file read twice (this plan timed one read), then a run of about a minute.
    expect(plan.order.first_verdict_seconds).toBeGreaterThanOrEqual(60);
    expect(plan.order.first_verdict).toMatch(/^about \d+ min$/);
    expect(plan.order).toMatchObject({
      value_header: 'Valor',
      unread_cells: 1,
      coverage: [
        { after: 'an hour', classifications: 600, rows_share: 1, value_share: 1 },
        { after: 'a day', classifications: 14_400, rows_share: 1, value_share: 1 },
        { after: 'a week', classifications: 100_800, rows_share: 1, value_share: 1 },
      ],
    });
  });

  it('sends a batch of at most 300 products among many rows whole, most exposed first, and lists no backlog', async () => {
    // Prepare: 1,000 rows of 200 products (one queued row in five): topping up would cost a read a run.
    const rows = Array.from({ length: 1_000 }, (_, i) => {
      const product = i % 200;
      return `SKU-${i + 1};${DESCRIPTIONS[product % 5]}, modelo ${product};BR;importação;${product === 150 ? '900,00' : '1,00'}`;
    });
    const w = world({ [FILE_KEY]: csvOf('SKU;Descrição;País;Operação;Valor', rows) });

    // Act
    await w.run();

    // Assess: 200 messages at once, the product worth most (row 151's) first.
    expect(w.queue.sent).toHaveLength(200);
    expect(w.queue.sent[0]?.message.row).toBe(151);
    expect(w.batches.batches.get(w.batchId)?.queue_window).toEqual({
      size: 200,
      enqueued_through: 200,
      passed_through: 0,
      by: 'send_order',
      last: 200,
    });
    expect(await w.batches.listBacklogs()).toEqual([]);
  });

  it('keeps the file’s order when batch.json says `order: "file"`', async () => {
    // Prepare
    const w = world({ [FILE_KEY]: exposureCsv, 'inbox/lote/batch.json': JSON.stringify({ order: 'file' }) });

    // Act
    await w.run();

    // Assess
    expect(w.rows().every((row) => row.send_order === undefined)).toBe(true);
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([1, 2, 3, 5]);
    const batch = w.batches.batches.get(w.batchId);
    expect(batch?.queue_window).toEqual({ size: 100, enqueued_through: 7, passed_through: 0 });
    expect(batch?.exposure).toBeUndefined();
  });

  it("sizes the wait of any batch between 72 h and a Standard execution's year, under a ceiling", () => {
    // 400,000 rows at the service's cap of 10: 40,000 runs of a minute, about 28 days; 83 days with the margin.
    expect(waitSecondsFor(400_000, 10, null)).toBe(40_000 * 60 * WAIT_MARGIN);
    expect(waitSecondsFor(3, 10, null)).toBe(MIN_WAIT_SECONDS);
    expect(waitSecondsFor(400_000, 1, null)).toBe(MAX_WAIT_SECONDS);
    expect(MAX_WAIT_SECONDS).toBe(365 * 24 * 3600 - 3 * 3600);
    expect(waitSecondsFor(400_000, 10, 24 * 3600)).toBe(24 * 3600);
  });

  it('waits three times the estimate at the cap once that passes 72 h, and no longer than the deployment allows', async () => {
    // Prepare: 1,500 rows at a cap of 1 are 1,500 runs of a minute; three times that is 75 h.
    const file = { [FILE_KEY]: manyRows(1_500) };
    const sized = world(file);
    const capped = world(file);

    // Act
    const result = await sized.run({}, { capOverride: 1, maxWaitSeconds: null });
    const cappedResult = await capped.run({}, { capOverride: 1, maxWaitSeconds: 48 * 3600 });

    // Assess
    expect(result.wait_seconds).toBe(75 * 3600);
    expect(sized.batches.batches.get(sized.batchId)?.wait_seconds).toBe(75 * 3600);
    expect(cappedResult.wait_seconds).toBe(48 * 3600);
  });
});

describe('a batch file becomes rows', () => {
  it('writes every row, queues the valid ones in order, runs the batch and kicks the dispatcher', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(3) });

    const result = await w.run();

    expect(result).toEqual({ batch_id: w.batchId, next: 'wait', wait_seconds: MIN_WAIT_SECONDS });
    expect(w.rows().map((r) => [r.row, r.status])).toEqual([
      [1, 'queued'],
      [2, 'queued'],
      [3, 'queued'],
    ]);
    const first = w.rows()[0]!;
    expect(first.product).toMatchObject({ sku: 'SKU-1', country: 'BR', operation: 'import' });
    expect(first.product_key).toBe('sku:SKU-1');
    expect(first.fingerprint).toBe(productFingerprint(first.product!, null));
    expect(first.cells).toEqual(['SKU-1', DESCRIPTIONS[0], 'BR', 'importação']);
    expect(w.queue.sent.map((s) => s.message)).toEqual(
      [1, 2, 3].map((row) => ({ batch_id: w.batchId, row, attempt: 1, dispatch: 1 })),
    );
    expect(w.kick.reasons).toEqual(['rows_queued']);
    expect(w.batches.shards.get(`${w.batchId}#0`)).toEqual({ expected: 3, done: new Set() });
    expect(w.batches.batches.get(w.batchId)).toMatchObject({
      state: 'running',
      name: 'lote',
      execution_id: 'exec-1',
      rows_total: 3,
      rows_dispatched: 3,
      shard_count: 1,
      // The balance's cap of 10: a window of 100 holds every row, nothing is left behind.
      queue_window: { size: 100, enqueued_through: 3, passed_through: 0 },
      wait_seconds: MIN_WAIT_SECONDS,
      header: ['SKU', 'Descrição', 'País', 'Operação'],
      delimiter: ';',
      format: 'csv',
      options: { reclassify: 'changed', reuse_max_age_days: 30 },
      started_at: '2026-11-21T12:00:00.000Z',
    });
  });

  it('keeps how each column was understood and what its sender should look at, for summary.json', async () => {
    // Prepare: a column of sheet names under a header no alias knows, and an NCM without its zero.
    const w = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação;Planos;NCM atual', [
        `SKU-1;${DESCRIPTIONS[0]};BR;importação;cafe.pdf;9012100`,
        `SKU-2;${DESCRIPTIONS[1]};BR;importação;rolamento.pdf;84821010`,
      ]),
    });

    // Act
    await w.run();

    // Assess
    const batch = w.batches.batches.get(w.batchId)!;
    // The record keeps the columns read as fields (a wide file's every column would outgrow its
    // item); summary.json and plan.json list every column, the others passed through.
    expect(batch.columns?.map((use) => use.column)).toEqual(['A', 'B', 'C', 'D', 'F']);
    expect(
      everyColumnUse(batch.header, batch.columns ?? []).map((use) => [use.column, use.understood_as]),
    ).toEqual([
      ['A', 'sku'],
      ['B', 'description'],
      ['C', 'country'],
      ['D', 'operation'],
      ['E', null],
      ['F', 'current_ncm'],
    ]);
    expect(english(batch.warnings ?? [])).toEqual([
      expect.stringContaining('Column "Planos" (column E) is not read'),
      expect.stringContaining('Row 1 declares a 7-digit NCM (9012100) in column "NCM atual" (column F)'),
    ]);
  });

  it('skips an object that is no batch file, creating nothing', async () => {
    const w = world({ 'inbox/lote/batch.json': '{}' });
    expect(await w.run({ event: objectCreated('inbox/lote/batch.json') })).toEqual({
      batch_id: null,
      next: 'skip',
    });
    expect(w.batches.batches.size).toBe(0);
  });

  it('reads an XLSX and answers with ; for Excel in pt-BR', async () => {
    const key = 'inbox/lote/produtos.xlsx';
    const bytes = await xlsx([
      [{ value: 'Descripción' }, { value: 'País' }, { value: 'Operación' }],
      [{ value: DESCRIPTIONS[1] }, { value: 'AR' }, { value: 'importación' }],
    ]);
    const w = world({ [key]: bytes });

    const result = await w.run({ event: objectCreated(key) });

    const batchId = batchSourceFromEvent(objectCreated(key))!.batchId;
    expect(result).toEqual({ batch_id: batchId, next: 'wait', wait_seconds: MIN_WAIT_SECONDS });
    expect(w.batches.batches.get(batchId)).toMatchObject({ format: 'xlsx', delimiter: ';', rows_total: 1 });
  });

  it('reads a file whose key arrived URL-encoded in the event', async () => {
    const w = world({ 'inbox/lote noturno/catálogo.csv': simpleCsv(1) });

    const result = await w.run({ event: objectCreated('inbox/lote+noturno/cat%C3%A1logo.csv') });

    expect(result.next).toBe('wait');
    expect(w.batches.batches.get(result.batch_id!)?.source).toMatchObject({
      key: 'inbox/lote noturno/catálogo.csv',
      folder: 'inbox/lote noturno/',
      file_name: 'catálogo.csv',
    });
  });

  it('rejects invalid rows with the reason and the column as the file wrote it; they are not queued', async () => {
    const w = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', [
        `SKU-1;${DESCRIPTIONS[0]};BR;importação`,
        'SKU-2;Café;Narnia;importação',
        `SKU-3;${DESCRIPTIONS[2]};AR;import`,
      ]),
    });

    await w.run();

    const rejected = w.rows()[1]!;
    expect(rejected.status).toBe('rejected');
    expect(rejected.result).toMatchObject({ status: 'rejected', reason: 'description_too_short' });
    expect(rejected.result?.detail).toContain('Column "Descrição"');
    expect(rejected.result?.detail).toContain('Column "País"');
    expect(rejected.cells).toEqual(['SKU-2', 'Café', 'Narnia', 'importação']);
    expect(rejected.finished_at).toBeDefined();
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([1, 3]);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({ rows_total: 3, rows_dispatched: 2 });
  });

  it('applies batch.json defaults to empty cells', async () => {
    const w = world({
      [FILE_KEY]: csvOf('Descrição;País', [`${DESCRIPTIONS[0]};`, `${DESCRIPTIONS[1]};AR`]),
      'inbox/lote/batch.json': JSON.stringify({ operation: 'export', country: 'CN' }),
    });

    await w.run();

    expect(w.rows().map((r) => [r.product?.operation, r.product?.country])).toEqual([
      ['export', 'CN'],
      ['export', 'AR'],
    ]);
  });

  it('finalizes at once when no row can be dispatched', async () => {
    const w = world({ [FILE_KEY]: csvOf('Descrição;País;Operação', ['Café;BR;import']) });

    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'finalize' });
    expect(w.queue.sent).toHaveLength(0);
    expect(w.kick.count).toBe(0);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({
      state: 'running',
      rows_dispatched: 0,
      shard_count: 0,
    });
  });
});

describe('at-least-once delivery', () => {
  it('is one batch when the same object version is delivered twice', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(2) });

    const first = await w.run({ execution_id: 'exec-1' });
    const second = await w.run({ execution_id: 'exec-2' });

    expect(first.next).toBe('wait');
    expect(second).toEqual({ batch_id: w.batchId, next: 'skip' });
    expect(w.batches.batches.size).toBe(1);
    expect(w.batches.batches.get(w.batchId)?.execution_id).toBe('exec-1');
    expect(w.queue.sent).toHaveLength(2);
  });

  it('a retried Prepare of the same execution sends still-queued rows again and rewrites nothing', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(3) });
    await w.run();
    // Row 1 is already under way when the retry comes.
    w.batches.placeRow(w.batchId, 1, { status: 'in_progress', classification_id: 'cls_7KQ2M9XW4RTB' });

    const retry = await w.run();

    expect(retry).toEqual({ batch_id: w.batchId, next: 'wait', wait_seconds: MIN_WAIT_SECONDS });
    expect(w.rows()[0]).toMatchObject({ status: 'in_progress', classification_id: 'cls_7KQ2M9XW4RTB' });
    expect(w.queue.sent.slice(3).map((s) => s.message)).toEqual([
      { batch_id: w.batchId, row: 2, attempt: 1, dispatch: 1 },
      { batch_id: w.batchId, row: 3, attempt: 1, dispatch: 1 },
    ]);
  });

  it('a retried Prepare that crashed before the batch ran does the whole work once', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(2) });
    const source = batchSourceFromEvent(objectCreated())!;
    await w.batches.createBatch({
      batch_id: w.batchId,
      name: 'lote',
      source: source.source,
      execution_id: 'exec-1',
      state: 'preparing',
      header: [],
      delimiter: ',',
      rows_total: 0,
      rows_dispatched: 0,
      shard_count: 0,
      complete_shards: [],
      problems: [],
      started_at: '2026-11-21T11:59:00.000Z',
    });

    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'wait', wait_seconds: MIN_WAIT_SECONDS });
    expect(w.queue.sent).toHaveLength(2);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({ state: 'running', rows_total: 2 });
  });

  it('a retried Prepare of a batch larger than its window sends the window again and lists its backlog', async () => {
    // Prepare: a cap of 1 makes a window of 10 rows out of 12; row 1 is under way, the list was lost.
    const lines = Array.from(
      { length: 12 },
      (_, i) => `SKU-${i + 1};${DESCRIPTIONS[i % 5]}, lote ${i + 1};BR;importação`,
    );
    const w = world({ [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', lines) });
    const deployment = { capOverride: 1, maxWaitSeconds: null };
    await w.run({}, deployment);
    w.batches.placeRow(w.batchId, 1, { status: 'submitting' });
    await w.batches.markBacklog(w.batchId, false);

    // Act
    const retry = await w.run({}, deployment);

    // Assess: the same wait; rows 2–10 again (never 11–12, which wait in the table); listed again.
    expect(retry).toEqual({ batch_id: w.batchId, next: 'wait', wait_seconds: MIN_WAIT_SECONDS });
    expect(w.queue.sent.slice(10).map((s) => s.message.row)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await w.batches.listBacklogs()).toEqual([w.batchId]);
  });

  it('a retried Prepare of a failed batch goes to Finalize without sending anything', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(2), 'inbox/lote/batch.json': '{' });
    await w.run();
    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'finalize' });
    expect(w.queue.sent).toHaveLength(0);
  });
});

describe('invalid batch.json fails the batch before anything is queued', () => {
  it.each([
    ['bad JSON', '{"country": "BR",}', ['inbox/lote/batch.json is not valid JSON']],
    [
      'an unknown field',
      '{"country": "BR", "budget": 10}',
      ['inbox/lote/batch.json is invalid', 'unknown field "budget"', 'max_usd'],
    ],
    [
      'a wrong type',
      '{"max_usd": "10"}',
      ['inbox/lote/batch.json is invalid', 'field "max_usd"', 'expected number'],
    ],
    ['a value out of the list', '{"reclassify": "some"}', ['field "reclassify"', '"changed"']],
    ['an empty file', '', ['inbox/lote/batch.json is not valid JSON (the file is empty)']],
  ])('%s', async (_what, json, phrases) => {
    const w = world({ [FILE_KEY]: simpleCsv(2), 'inbox/lote/batch.json': json });

    const result = await w.run();

    expect(result).toEqual({ batch_id: w.batchId, next: 'finalize' });
    const batch = w.batches.batches.get(w.batchId)!;
    expect(batch.state).toBe('failed');
    expect(batch.stop?.type).toBe('invalid_options');
    for (const phrase of phrases) {
      expect(english(batch.problems)[0]).toContain(phrase);
      expect(batch.stop?.detail).toContain(phrase);
    }
    expect(w.rows().map((r) => [r.status, r.result?.reason])).toEqual([
      ['not_submitted', 'invalid_options'],
      ['not_submitted', 'invalid_options'],
    ]);
    expect(w.rows()[0]!.result?.detail).toContain('batch.json');
    expect(w.queue.sent).toHaveLength(0);
    expect(w.kick.count).toBe(0);
    expect(w.countryCalls()).toBe(0);
    expect(batch.header).toEqual(['SKU', 'Descrição', 'País', 'Operação']);
  });
});

describe('an unreadable input file fails the batch', () => {
  it('names the file and the problem when a required column is missing', async () => {
    const w = world({ [FILE_KEY]: csvOf('SKU;Nome;País', ['SKU-1;Café;BR']) });

    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'finalize' });

    const batch = w.batches.batches.get(w.batchId)!;
    expect(batch).toMatchObject({ state: 'failed', rows_total: 0 });
    expect(batch.stop?.type).toBe('no_description_or_sheet_column');
    expect(english(batch.problems)[0]).toMatch(/^produtos\.csv: has no description column/);
    expect(english(batch.problems)[0]).toContain('"Nome"');
    expect(w.rows()).toHaveLength(0);
    expect(w.queue.sent).toHaveLength(0);
  });

  it('names the column of a duplicate header', async () => {
    const w = world({ [FILE_KEY]: csvOf('Descrição;Description', ['a;b']) });
    await w.run();
    const batch = w.batches.batches.get(w.batchId)!;
    expect(batch.stop?.type).toBe('duplicate_column');
    expect(english(batch.problems)[0]).toContain('column "Description"');
  });

  it('says so when the file is empty', async () => {
    const w = world({ [FILE_KEY]: '' });
    await w.run();
    expect(english(w.batches.batches.get(w.batchId)?.problems ?? [])[0]).toBe(
      'produtos.csv: is empty (0 bytes)',
    );
  });

  it('says so when the file was deleted before Prepare read it', async () => {
    const w = world();
    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'finalize' });
    expect(w.batches.batches.get(w.batchId)?.stop?.type).toBe('file_not_found');
  });
});

describe('technical sheets', () => {
  const sheetCsv = (sheets: string[]) =>
    csvOf(
      'SKU;Descrição;Ficha técnica;País;Operação',
      sheets.map((sheet, i) => `SKU-${i + 1};${DESCRIPTIONS[i]};${sheet};BR;import`),
    );

  it('attaches a valid sheet with its sha256, reading a shared sheet once', async () => {
    const pdf = PDF('ficha do café');
    const w = world({
      [FILE_KEY]: sheetCsv(['fichas/cafe.pdf', 'fichas/cafe.pdf']),
      'inbox/lote/fichas/cafe.pdf': pdf,
    });

    await w.run();

    expect(w.rows().map((r) => r.status)).toEqual(['queued', 'queued']);
    expect(w.rows()[0]!.sheet).toEqual({
      key: 'inbox/lote/fichas/cafe.pdf',
      sha256: sha256Hex(pdf),
      size: pdf.byteLength,
      file_name: 'cafe.pdf',
      // This made-up PDF names no font: no text layer.
      text_layer: false,
    });
    expect(w.rows()[0]!.fingerprint).toBe(productFingerprint(w.rows()[0]!.product!, sha256Hex(pdf)));
    expect(w.reads.filter((key) => key.endsWith('cafe.pdf'))).toHaveLength(1);
  });

  it('finds a sheet written with another case or Unicode form, as Windows and macOS do', async () => {
    const w = world({
      [FILE_KEY]: sheetCsv(['Fichas\\Café.PDF']),
      'inbox/lote/fichas/cafe\u0301.pdf': PDF('nfd'),
    });
    await w.run();
    expect(w.rows()[0]).toMatchObject({
      status: 'queued',
      sheet: { key: 'inbox/lote/fichas/cafe\u0301.pdf' },
    });
  });

  it.each([
    ['sheet_not_found', 'fichas/nao-existe.pdf', {}, 'was not found in the batch folder inbox/lote/'],
    [
      'sheet_too_large',
      'fichas/grande.pdf',
      { 'inbox/lote/fichas/grande.pdf': new Uint8Array(LIMITS.sheetMaxBytes + 1).fill(0x25) },
      'the service accepts technical sheets up to 10.0 MB',
    ],
    [
      'sheet_not_pdf',
      'fichas/foto.pdf',
      { 'inbox/lote/fichas/foto.pdf': utf8('\u0089PNG not a pdf') },
      'is not a PDF',
    ],
  ])('%s', async (reason, path, files: Record<string, Uint8Array>, phrase) => {
    const w = world({ [FILE_KEY]: sheetCsv([path]), ...files });

    await w.run();

    const row = w.rows()[0]!;
    expect(row.status).toBe('rejected');
    expect(row.rejection).toMatchObject({ reason, column: 'sheet' });
    expect(row.result).toMatchObject({ status: 'rejected', reason });
    expect(row.result?.detail).toContain(`Column "Ficha técnica": "${path}"`);
    expect(row.result?.detail).toContain(phrase);
    expect(w.queue.sent).toHaveLength(0);
  });
});

describe('reuse of unchanged products', () => {
  const verdictFor = async (w: ReturnType<typeof world>, overrides: Partial<CachedVerdict> = {}) => {
    // A dry run elsewhere tells us the fingerprint this file's row 1 gets.
    const product = { operation: 'import' as const, country: 'BR', description: DESCRIPTIONS[0]! };
    const verdict: CachedVerdict = {
      product_key: 'sku:SKU-1',
      fingerprint: productFingerprint(product, null),
      classification_id: 'cls_7KQ2M9XW4RTB',
      resolved_at: '2026-11-11T12:00:00.000Z',
      result: {
        status: 'resolved',
        ncm: '0901.21.00',
        cost_usd: '2.00',
        classification_id: 'cls_7KQ2M9XW4RTB',
      },
      pdf_key: 'outbox/earlier-x/pdfs/00001-SKU-1.pdf',
      batch_id: 'earlier-x',
      ...overrides,
    };
    await w.cache.put(verdict);
    return verdict;
  };

  it('reuses a recent verdict of an unchanged product: final at once, not queued, no cost', async () => {
    const w = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação;NCM atual', [
        `SKU-1;${DESCRIPTIONS[0]};BR;import;9012100`,
        `SKU-2;${DESCRIPTIONS[1]};BR;import;`,
      ]),
    });
    await verdictFor(w);

    await w.run();

    const reused = w.rows()[0]!;
    expect(reused).toMatchObject({ status: 'reused', classification_id: 'cls_7KQ2M9XW4RTB' });
    expect(reused.result).toMatchObject({
      status: 'reused',
      cost_usd: '0.00',
      ncm: '0901.21.00',
      current_ncm_matches: 'yes',
      verdict_pdf: 'outbox/earlier-x/pdfs/00001-SKU-1.pdf',
    });
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([2]);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({ rows_dispatched: 1, rows_total: 2 });
  });

  it.each([
    ['the product changed', { fingerprint: 'f'.repeat(64) }, {}],
    ['the verdict is too old', { resolved_at: '2026-10-01T12:00:00.000Z' }, {}],
    ['the batch reclassifies all', {}, { reclassify: 'all' }],
    ['the batch allows no age', {}, { reuse_max_age_days: 0 }],
  ])('classifies again when %s', async (_what, verdict: Partial<CachedVerdict>, options) => {
    const w = world({ [FILE_KEY]: simpleCsv(1), 'inbox/lote/batch.json': JSON.stringify(options) });
    await verdictFor(w, verdict);

    await w.run();

    expect(w.rows()[0]!.status).toBe('queued');
    expect(w.queue.sent).toHaveLength(1);
  });

  it('reads the cache once for the whole batch, and not at all when it reclassifies all', async () => {
    const calls: (readonly string[])[] = [];
    const w = world({ [FILE_KEY]: simpleCsv(3) });
    const getMany = w.cache.getMany;
    w.cache.getMany = async (keys) => {
      calls.push(keys);
      return getMany(keys);
    };
    await w.run();
    // Each product by its SKU and by its fingerprint alone (a verdict another SKU of it left).
    expect(calls).toHaveLength(1);
    expect(calls[0]!.filter((key) => key.startsWith('sku:'))).toEqual([
      'sku:SKU-1',
      'sku:SKU-2',
      'sku:SKU-3',
    ]);
    expect(calls[0]!.filter((key) => /^h:[0-9a-f]{64}$/.test(key))).toHaveLength(3);

    const all = world({ [FILE_KEY]: simpleCsv(3), 'inbox/lote/batch.json': '{"reclassify":"all"}' });
    all.cache.getMany = async (keys) => {
      calls.push(keys);
      return new Map();
    };
    await all.run();
    expect(calls).toHaveLength(1);
  });
});

describe('identical products are classified once', () => {
  const sameProductCsv = () =>
    csvOf('SKU;Descrição;País;Operação;NCM atual', [
      `SKU-1;${DESCRIPTIONS[0]};BR;import;09012100`,
      `SKU-2;${DESCRIPTIONS[1]};BR;import;`,
      `SKU-3;${DESCRIPTIONS[0]};BR;import;09011100`, // same product as row 1
      `SKU-4;${DESCRIPTIONS[0]};BR;export;`, // another operation: the same goods
      `SKU-5;${DESCRIPTIONS[0]};BR;import;`, // same product as row 1
      `SKU-6;${DESCRIPTIONS[1]};AR;import;`, // another country: the same goods as row 2
    ]);

  it('queues the first row of a product; the others follow it, whatever their origin, and are not dispatched', async () => {
    const w = world({ [FILE_KEY]: sameProductCsv() });

    expect((await w.run()).next).toBe('wait');

    expect(w.rows().map((r) => [r.row, r.status, r.follows ?? null, r.other_origins ?? []])).toEqual([
      [1, 'queued', null, ['export:BR']],
      [2, 'queued', null, ['import:AR']],
      [3, 'following', 1, []],
      [4, 'following', 1, []],
      [5, 'following', 1, []],
      [6, 'following', 2, []],
    ]);
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([1, 2]);
    // Followers are not counted as dispatched: the batch wakes when its leaders are done.
    expect(w.batches.batches.get(w.batchId)).toMatchObject({ rows_total: 6, rows_dispatched: 2 });
    expect(w.batches.shards.get(`${w.batchId}#0`)).toEqual({ expected: 2, done: new Set() });
  });

  it('classifies each country and operation on its own when batch.json says verdict_per_country', async () => {
    const w = world({
      [FILE_KEY]: sameProductCsv(),
      'inbox/lote/batch.json': JSON.stringify({ verdict_per_country: true }),
    });

    await w.run();

    expect(w.rows().map((r) => [r.row, r.status, r.follows ?? null, r.other_origins ?? []])).toEqual([
      [1, 'queued', null, []],
      [2, 'queued', null, []],
      [3, 'following', 1, []],
      [4, 'queued', null, []],
      [5, 'following', 1, []],
      [6, 'queued', null, []],
    ]);
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([1, 2, 4, 6]);
  });

  it('classifies every row when batch.json says duplicates: classify_each', async () => {
    const w = world({
      [FILE_KEY]: sameProductCsv(),
      'inbox/lote/batch.json': JSON.stringify({ duplicates: 'classify_each' }),
    });

    await w.run();

    expect(w.rows().every((r) => r.status === 'queued' && r.follows === undefined)).toBe(true);
    expect(w.queue.sent).toHaveLength(6);
  });

  it('counts only the classified rows against the budget; a product left out leaves its copies out', async () => {
    const w = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', [
        `SKU-1;${DESCRIPTIONS[0]};BR;import`,
        `SKU-2;${DESCRIPTIONS[0]};BR;import`,
        `SKU-3;${DESCRIPTIONS[1]};BR;import`,
        `SKU-4;${DESCRIPTIONS[1]};BR;import`,
      ]),
      'inbox/lote/batch.json': JSON.stringify({ max_usd: 2 }),
    });

    await w.run();

    expect(w.rows().map((r) => [r.row, r.status, r.result?.reason ?? '', r.result?.cost_usd ?? ''])).toEqual([
      [1, 'queued', '', ''],
      [2, 'following', '', ''],
      [3, 'not_submitted', 'budget_exceeded', '0.00'],
      [4, 'not_submitted', 'budget_exceeded', '0.00'],
    ]);
    expect(w.rows()[3]!.result?.detail).toMatch(/^Same product as row 3 .*max_usd 2/);
  });

  it('reuses a verdict for every row of the product, by SKU or by fingerprint alone', async () => {
    const w = world({ [FILE_KEY]: sameProductCsv() });
    const fingerprint = productFingerprint(
      { operation: 'import', country: 'BR', description: DESCRIPTIONS[0]! },
      null,
    );
    await w.cache.put({
      // Left by a batch where another SKU of this product was classified.
      product_key: `h:${fingerprint}`,
      fingerprint,
      classification_id: 'cls_7KQ2M9XW4RTB',
      resolved_at: '2026-11-20T12:00:00.000Z',
      result: { status: 'resolved', ncm: '0901.21.00', cost_usd: '2.00' },
      pdf_key: null,
      batch_id: 'earlier',
    });

    await w.run();

    // A verdict kept before origins were shared names no origin: only its own origin reuses it.
    expect(w.rows().map((r) => [r.row, r.status, r.result?.current_ncm_matches ?? ''])).toEqual([
      [1, 'reused', 'yes'],
      [2, 'queued', ''],
      [3, 'reused', 'no'],
      [4, 'queued', ''],
      [5, 'reused', ''],
      [6, 'following', ''],
    ]);
  });

  it('reuses a verdict made for another origin, by SKU or by description without one, with the row’s own tariffs looked up once', async () => {
    const w = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', [
        `SKU-1;${DESCRIPTIONS[0]};BR;export`, // the SKU of the verdict, another operation
        `;${DESCRIPTIONS[0]};AR;import`, // no SKU: the same goods, another country
        `SKU-1;${DESCRIPTIONS[0]};BR;import`, // the verdict's own origin
        `;${DESCRIPTIONS[0]};AR;import`, // the same again: looked up once
      ]),
    });
    const made = productIdentity(
      { operation: 'import', country: 'BR', description: DESCRIPTIONS[0]!, sku: 'SKU-1' },
      null,
    );
    const verdict: CachedVerdict = {
      product_key: 'sku:SKU-1',
      fingerprint: made.fingerprint,
      product_fingerprint: made.product_fingerprint,
      origin: { operation: 'import', country: 'BR' },
      classification_id: 'cls_7KQ2M9XW4RTB',
      resolved_at: '2026-11-20T12:00:00.000Z',
      result: {
        status: 'resolved',
        classification_id: 'cls_7KQ2M9XW4RTB',
        ncm: '0901.21.00',
        sim_code: '0901.21.00.10',
        import_duty_applicable: '10',
        tariff_source: 'TEC',
        cost_usd: '2.00',
      },
      pdf_key: null,
      batch_id: 'earlier',
    };
    await w.cache.put(verdict);
    await w.cache.put({ ...verdict, product_key: `p:${made.product_fingerprint}` });
    const asked: string[] = [];
    w.ports.service.getTariffs = async (query) => {
      asked.push(`tariffs ${query.ncm} ${query.operation} ${query.country}`);
      return query.operation === 'export'
        ? {
            found: true,
            operation: 'export',
            export_duty: 0,
            export_refund: 3,
            source: 'TEC',
            queried_at: NOW_ISO,
          }
        : { found: false, reason: 'no_data', source: 'TEC', queried_at: NOW_ISO };
    };
    w.ports.service.getSimOpenings = async (query) => {
      asked.push(`sim ${query.ncm} ${query.operation}`);
      return {
        ncm: query.ncm,
        operation: query.operation,
        status: 'available',
        openings: [{ code: '0901210020', description: 'Outros' }],
        verified_at: NOW_ISO,
      };
    };

    await w.run();

    const rows = w.rows();
    expect(rows.map((r) => [r.row, r.status, r.result?.verdict_from ?? '', r.result?.cost_usd])).toEqual([
      [1, 'reused', 'cls_7KQ2M9XW4RTB (BR, import)', '0.00'],
      [2, 'reused', 'cls_7KQ2M9XW4RTB (BR, import)', '0.00'],
      [3, 'reused', '', '0.00'],
      [4, 'reused', 'cls_7KQ2M9XW4RTB (BR, import)', '0.00'],
    ]);
    expect(asked.sort()).toEqual([
      'sim 09012100 export',
      'tariffs 09012100 export BR',
      'tariffs 09012100 import AR',
    ]);
    // The export row: its own duties and SIM openings, none of the import's.
    expect(rows[0]!.result).toMatchObject({
      ncm: '0901.21.00',
      export_refund: '3',
      export_duty: '0',
      tariff_source: 'TEC',
    });
    expect(rows[0]!.result?.import_duty_applicable).toBeUndefined();
    expect(rows[0]!.result?.sim_code).toBeUndefined();
    expect(rows[0]!.result?.detail).toContain('SIM opening to be chosen among 0901.21.00.20');
    // The Argentine row: no tariffs found, said so; the verdict stands.
    expect(rows[1]!.result).toMatchObject({ ncm: '0901.21.00', tariff_source: 'TEC' });
    expect(rows[1]!.result?.import_duty_applicable).toBeUndefined();
    expect(rows[1]!.result?.detail).toContain('tariffs not found (no_data)');
    expect(rows[2]!.result).toMatchObject({ import_duty_applicable: '10', sim_code: '0901.21.00.10' });
    for (const row of rows) expect(row.result?.origin_lookups).toBeUndefined();
  });
});

describe('a plan-only batch', () => {
  const PLAN_CSV = csvOf('SKU;Descrição;País;Operação;Observação', [
    `SKU-1;${DESCRIPTIONS[0]};BR;import;a`,
    'SKU-2;curta;BR;import;b', // rejected
    `SKU-3;${DESCRIPTIONS[0]};BR;import;c`, // same product as row 1
    `SKU-4;Peças diversas de reposição para manutenção;BR;import;d`, // vague
    `SKU-5;${DESCRIPTIONS[1]};XX;import;e`, // rejected: unknown country
  ]);
  const outbox = (w: ReturnType<typeof world>, name: string) => {
    const stored = w.objects.objects.get(`outbox/${w.batchId}/${name}`);
    return stored ? Buffer.from(stored.bytes).toString('utf8') : undefined;
  };

  it('counts the classifications that rows of other origins save, before paying', async () => {
    const rows = [
      `SKU-1;${DESCRIPTIONS[0]};CN;import`,
      `SKU-1;${DESCRIPTIONS[0]};US;import`,
      `SKU-1;${DESCRIPTIONS[0]};BR;export`,
      `SKU-2;${DESCRIPTIONS[1]};CN;import`,
      `SKU-2;${DESCRIPTIONS[1]};CN;import`,
    ];
    const shared = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', rows),
      'inbox/lote/batch.json': '{"plan_only": true}',
    });
    await shared.run();
    const plan = JSON.parse(outbox(shared, 'plan.json')!);
    expect(plan.rows).toMatchObject({ classify: 2, same_product: 3 });
    expect(plan.estimate).toMatchObject({ max_usd: 4, saved_across_origins: 2, saved_across_origins_usd: 4 });

    const each = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', rows),
      'inbox/lote/batch.json': '{"plan_only": true, "verdict_per_country": true}',
    });
    await each.run();
    expect(JSON.parse(outbox(each, 'plan.json')!).estimate).toMatchObject({
      max_usd: 8,
      saved_across_origins: 0,
    });
  });

  it("says the workbooks would be in the language batch.json names, over the headers' language", async () => {
    const w = world({
      [FILE_KEY]: PLAN_CSV,
      'inbox/lote/batch.json': '{"plan_only": true, "language": "es"}',
    });
    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'planned' });
    expect(JSON.parse(outbox(w, 'plan.json')!).workbooks).toEqual({ language: 'es', from: 'batch.json' });
  });

  it('writes plan.json and plan.csv, and writes, queues and kicks nothing else', async () => {
    const w = world({ [FILE_KEY]: PLAN_CSV, 'inbox/lote/batch.json': '{"plan_only": true}' });

    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'planned' });

    expect(w.rows()).toEqual([]);
    expect(w.queue.sent).toEqual([]);
    expect(w.kick.reasons).toEqual([]);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({
      state: 'completed',
      rows_total: 5,
      rows_dispatched: 0,
    });
    const plan = JSON.parse(outbox(w, 'plan.json')!);
    expect(plan.rows).toEqual({
      total: 5,
      classify: 2,
      same_product: 1,
      reuse: 0,
      rejected: 2,
      over_budget: 0,
      no_earlier_verdict: 0,
      service_item: 0,
      reuse_to_check: 0,
    });
    expect(plan.rejected.map((r: { row: number; reason: string }) => [r.row, r.reason])).toEqual([
      [2, 'description_too_short'],
      [5, 'country_unknown'],
    ]);
    expect(plan.estimate).toMatchObject({
      classifications: 2,
      max_usd: 4,
      cap: 10,
      in_progress_now: 3,
      duration_seconds: 60,
      duration: 'about 1 min',
      // Three times the estimate is far under 72 h: the batch would wait 72 h for its last row.
      wait_seconds: MIN_WAIT_SECONDS,
      wait: 'about 3 d 0 h',
    });
    // Portuguese headers: the workbooks would be in Portuguese, and the plan says why.
    expect(plan.workbooks).toEqual({ language: 'pt', from: 'headers' });
    expect(
      plan.columns.map((c: { header: string; understood_as: string | null }) => [c.header, c.understood_as]),
    ).toEqual([
      ['SKU', 'sku'],
      ['Descrição', 'description'],
      ['País', 'country'],
      ['Operação', 'operation'],
      ['Observação', null],
    ]);
    // Each warning with its code for programs and its sentence in the batch's language (Portuguese headers).
    const warnings = plan.warnings as { code: string; text: string }[];
    expect(warnings.map((warning) => warning.code)).toContain('vague_descriptions');
    expect(warnings.map((warning) => warning.text).join(' ')).toContain(
      'Coluna "Descrição", linha 4: a descrição nomeia um grupo de coisas, não um produto',
    );
    // plan.csv in the input's own delimiter, one line per row.
    const lines = outbox(w, 'plan.csv')!
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('row;line;sku;description;plan;reason;detail;max_cost_usd;check');
    // The last two cells: the most it may cost, and no check (nothing reused).
    expect(
      lines.slice(1).map((line) => line.split(';').slice(0, 5).concat(line.split(';').slice(-2).join('|'))),
    ).toEqual([
      ['1', '2', 'SKU-1', DESCRIPTIONS[0], 'classify', '2.00|'],
      ['2', '3', 'SKU-2', 'curta', 'rejected', '0.00|'],
      ['3', '4', 'SKU-3', DESCRIPTIONS[0], 'same_product', '0.00|'],
      ['4', '5', 'SKU-4', 'Peças diversas de reposição para manutenção', 'classify', '2.00|'],
      ['5', '6', 'SKU-5', DESCRIPTIONS[1], 'rejected', '0.00|'],
    ]);
    expect(lines[3]).toContain('Same product as row 1');
    expect(lines[4]).toContain('Vague description: expect questions');
  });

  it('gives every real run the same warnings in its batch record (summary.json)', async () => {
    const w = world({ [FILE_KEY]: PLAN_CSV });
    await w.run();
    expect(english(w.batches.batches.get(w.batchId)!.warnings!).join(' ')).toContain(
      'row 4: the description names a group',
    );
  });
});

describe('budget', () => {
  it('in exposure order pays for the most exposed products, wherever they are in the file; in the file order for the first', async () => {
    const lines = [
      `SKU-1;${DESCRIPTIONS[0]};BR;import`,
      `SKU-2;${DESCRIPTIONS[1]};BR;import`,
      `SKU-3;${DESCRIPTIONS[1]};BR;import`,
      `SKU-4;${DESCRIPTIONS[1]};BR;import`,
      `SKU-5;${DESCRIPTIONS[2]};BR;import`,
    ];
    const statusesOf = async (options: object) => {
      const w = world({
        [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', lines),
        'inbox/lote/batch.json': JSON.stringify({ max_usd: 2, ...options }),
      });
      await w.run();
      const batch = w.batches.batches.get(w.batchId)!;
      return {
        rows: w.rows().map((r: RowRecord) => [r.row, r.status]),
        sent: w.queue.sent.map((sent) => sent.message.row),
        problems: english(batch.problems).join(' '),
      };
    };

    const exposure = await statusesOf({});
    const file = await statusesOf({ order: 'file' });
    const plan = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', lines),
      'inbox/lote/batch.json': JSON.stringify({ max_usd: 2, plan_only: true }),
    });
    await plan.run();

    expect(exposure.rows).toEqual([
      [1, 'not_submitted'],
      [2, 'queued'],
      [3, 'following'],
      [4, 'following'],
      [5, 'not_submitted'],
    ]);
    expect(exposure.sent).toEqual([2]);
    expect(exposure.problems).toContain('2 row(s) after them were not submitted');
    expect(file.rows).toEqual([
      [1, 'queued'],
      [2, 'not_submitted'],
      [3, 'not_submitted'],
      [4, 'not_submitted'],
      [5, 'not_submitted'],
    ]);
    expect(file.sent).toEqual([1]);
    // A plan leaves out what the run would.
    const planCsv = plan.objects.objects.get(`outbox/${plan.batchId}/plan.csv`)?.bytes ?? new Uint8Array();
    const planned = Buffer.from(planCsv)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(';')[4]);
    expect(planned).toEqual(['over_budget', 'classify', 'same_product', 'same_product', 'over_budget']);
  });

  it('dispatches floor(max_usd / 2) rows in input order; reused and rejected rows do not count', async () => {
    const w = world({
      [FILE_KEY]: csvOf('SKU;Descrição;País;Operação', [
        `SKU-1;${DESCRIPTIONS[0]};BR;import`, // reused
        'SKU-X;curta;BR;import', // rejected
        `SKU-2;${DESCRIPTIONS[1]};BR;import`,
        `SKU-3;${DESCRIPTIONS[2]};BR;import`,
        `SKU-4;${DESCRIPTIONS[3]};BR;import`,
        `SKU-5;${DESCRIPTIONS[4]};BR;import`,
      ]),
      'inbox/lote/batch.json': JSON.stringify({ max_usd: 5.99 }),
    });
    await w.cache.put({
      product_key: 'sku:SKU-1',
      fingerprint: productFingerprint(
        { operation: 'import', country: 'BR', description: DESCRIPTIONS[0]! },
        null,
      ),
      classification_id: 'cls_7KQ2M9XW4RTB',
      resolved_at: '2026-11-20T12:00:00.000Z',
      result: { status: 'resolved', ncm: '0901.21.00' },
      pdf_key: null,
      batch_id: 'earlier',
    });

    await w.run();

    expect(w.rows().map((r: RowRecord) => [r.row, r.status, r.result?.reason ?? ''])).toEqual([
      [1, 'reused', ''],
      [2, 'rejected', 'description_too_short'],
      [3, 'queued', ''],
      [4, 'queued', ''],
      [5, 'not_submitted', 'budget_exceeded'],
      [6, 'not_submitted', 'budget_exceeded'],
    ]);
    expect(w.rows()[4]!.result?.detail).toContain('max_usd 5.99');
    expect(w.queue.sent.map((s) => s.message.row)).toEqual([3, 4]);
    const batch = w.batches.batches.get(w.batchId)!;
    expect(batch.rows_dispatched).toBe(2);
    expect(english(batch.problems).join(' ')).toContain('2 row(s) after them were not submitted');
  });

  it('a zero budget submits nothing', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(2), 'inbox/lote/batch.json': '{"max_usd": 0}' });
    expect((await w.run()).next).toBe('finalize');
    expect(w.rows().map((r) => r.status)).toEqual(['not_submitted', 'not_submitted']);
  });
});

describe('the service refuses the key at Prepare', () => {
  it('stops the batch once: rows not_submitted with the problem type, nothing queued', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(2) });
    w.service.listCountries = async () => {
      throw new TcsProblemError({
        problem: 'plan-without-api',
        type: 'https://tcs.example/problems/plan-without-api',
        status: 403,
        title: 'Plan without API access',
        detail: 'The current plan does not include API access.',
        instance: '/v1/countries',
        requestId: 'req_1',
        errors: [],
        retryAfterMs: null,
      });
    };

    expect(await w.run()).toEqual({ batch_id: w.batchId, next: 'finalize' });

    const batch = w.batches.batches.get(w.batchId)!;
    expect(batch.state).toBe('failed');
    expect(batch.stop?.type).toBe('https://tcs.example/problems/plan-without-api');
    expect(w.rows().map((r) => [r.status, r.result?.reason])).toEqual([
      ['not_submitted', 'plan-without-api'],
      ['not_submitted', 'plan-without-api'],
    ]);
    expect(w.queue.sent).toHaveLength(0);
  });

  it('lets other failures throw, for the workflow’s Retry', async () => {
    const w = world({ [FILE_KEY]: simpleCsv(1) });
    w.service.listCountries = async () => {
      throw new Error('ECONNRESET');
    };
    await expect(w.run()).rejects.toThrow('ECONNRESET');
    expect(w.batches.batches.get(w.batchId)?.state).toBe('preparing');
  });
});
