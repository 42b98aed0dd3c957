/**
 * The console's Lambda handlers on in-memory ports, as API Gateway calls them: what each route
 * answers from the pipeline's own records, and every refusal (no or bad token, a form outside
 * inbox/, a wrong type or size, an unknown batch or classification, answers to a row that is no
 * longer pending), each with nothing written.
 */
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../../functions/console-runtime.js';
import { CONSOLE_LIMITS, CONSOLE_ROUTES } from '../../../shared/console/api.js';
import { SHOWN_CELL_MAX } from '../../../shared/console/row-views.js';
import { readAnswersFile } from '../../../shared/pipeline/answers/answers-file.js';
import { roundReportFile } from '../../../shared/pipeline/core/bucket-layout.js';
import { consoleWorld } from '../../helpers/console-world.js';
import { seedCountedBatch } from '../../helpers/counted-batch.js';
import { batchRecord, classificationId, reviewItem, rowRecord } from '../../helpers/records.js';

// Each request logs a line; the tests read responses, not logs.
beforeAll(() => logger.setLogLevel('SILENT'));

const resolvedRow = (row: number, overrides: Record<string, unknown> = {}) =>
  rowRecord(row, {
    status: 'resolved',
    product: {
      row,
      description: row === 2 ? 'Café torrado em grãos' : `Parafuso ${row}`,
      operation: 'import',
      country: 'CN',
      sheet: null,
      external_reference: null,
      sku: `SKU-${row}`,
      current_ncm: null,
      flags: [],
    },
    result: {
      status: 'resolved',
      ncm: row === 2 ? '09012100' : '73181500',
      confidence: '0.93',
      cost_usd: '2.00',
      verdict_pdf: `pdfs/0000${row}-SKU-${row}.pdf`,
    },
    finished_at: `2026-11-21T12:0${row}:00.000Z`,
    ...overrides,
  });

/** A running batch as the pipeline leaves it, its counters included: 2 resolved, 1 pending, 1 queued. */
const runningBatch = async (world: ReturnType<typeof consoleWorld>) => {
  await seedCountedBatch(
    world.ports.batches,
    batchRecord({ state: 'running', rows_total: 4, started_at: '2026-11-21T12:00:00.000Z' }),
    [
      resolvedRow(1),
      resolvedRow(2),
      rowRecord(3, {
        status: 'pending_data',
        classification_id: classificationId(3),
        result: { status: 'pending_data' },
      }),
      rowRecord(4, { status: 'queued' }),
    ],
  );
};

describe('who may call', () => {
  it('refuses a request without the authorizer claims with 401, and one whose token is not a Cognito ID token', async () => {
    const world = consoleWorld();
    for (const claims of [
      null,
      {
        ...consoleWorld,
        sub: 'x',
        token_use: 'access',
        iss: 'https://cognito-idp.sa-east-1.amazonaws.com/p',
      },
      { sub: 'x', token_use: 'id', iss: 'https://evil.example/' },
      {},
    ]) {
      const response = await world.call('console-read', 'GET /batches', { claims: claims as never });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 'unauthorized' });
      expect(response.headers['content-type']).toBe('application/problem+json');
    }
  });

  it('answers only its own routes: a route of another function is a 404', async () => {
    const world = consoleWorld();
    const response = await world.call('console-read', 'POST /answers', { body: { rows: [] } });
    expect(response.status).toBe(404);
    expect(Object.values(CONSOLE_ROUTES)).toContain('console-answers');
  });

  it('says who is signed in, and the limits the page checks before sending', async () => {
    const response = await consoleWorld().call('console-read', 'GET /session');
    expect(response.body).toEqual({
      user: 'ana@example.com',
      where: 'aws',
      limits: expect.objectContaining({ sheet_bytes: 10 * 1024 * 1024 }),
    });
  });
});

describe('batches', () => {
  it('lists batches newest first with rows by status and money billed; a finished one from its summary', async () => {
    const world = consoleWorld();
    await runningBatch(world);
    await world.ports.batches.createBatch(
      batchRecord({
        batch_id: 'older',
        name: 'older',
        state: 'completed',
        started_at: '2026-11-20T08:00:00.000Z',
        finished_at: '2026-11-20T08:05:00.000Z',
      }),
    );
    world.ports.objects.set(
      'outbox/older/summary.json',
      JSON.stringify({
        batch_id: 'older',
        name: 'older',
        source: null,
        state: 'completed',
        rows_total: 3,
        rows_dispatched: 3,
        by_status: {
          resolved: 2,
          pending_data: 0,
          failed: 0,
          abandoned: 0,
          rejected: 1,
          reused: 0,
          not_submitted: 0,
          error: 0,
        },
        billed_usd: 4,
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
      }),
    );
    const response = await world.call('console-read', 'GET /batches');
    expect(response.status).toBe(200);
    expect(response.body.batches.map((batch: { batch_id: string }) => batch.batch_id)).toEqual([
      'nightly-abc',
      'older',
    ]);
    expect(response.body.batches[0]).toMatchObject({
      stage: 'dispatching',
      rows_total: 4,
      by_status: { resolved: 2, pending_data: 1, queued: 1 },
      billed_usd: 4,
    });
    expect(response.body.batches[1]).toMatchObject({
      stage: 'completed',
      by_status: { resolved: 2, rejected: 1 },
      billed_usd: 4,
    });
  });

  it('shows a batch with its progress: rows done, slots in use of the cap, time left at the pace so far', async () => {
    const world = consoleWorld();
    await seedCountedBatch(
      world.ports.batches,
      batchRecord({ state: 'running', rows_total: 4, started_at: '2026-11-21T12:00:00.000Z' }),
      [resolvedRow(1), resolvedRow(2), resolvedRow(3), rowRecord(4, { status: 'queued' })],
    );
    await world.ports.leases.acquire({
      holder: 'nightly-abc#4#1',
      cap: 10,
      ttlMs: 60_000,
      now: world.ports.clock.now().getTime(),
    });
    world.ports.objects.set('outbox/nightly-abc/results.partial.csv', 'row\n');
    const response = await world.call('console-read', 'GET /batches/{batchId}', {
      params: { batchId: 'nightly-abc' },
    });
    expect(response.body).toMatchObject({
      rows_done: 3,
      slots: { in_use: 1, cap: 10 },
      billed_usd: 6,
      // 3 rows final in 3 minutes: the fourth in about one more.
      eta_seconds: 60,
      files: ['results.partial.csv'],
    });
  });

  it('answers 404 for a batch it does not know, for an answers round, and names the batch', async () => {
    const world = consoleWorld();
    await world.ports.batches.createBatch(batchRecord({ batch_id: 'round-1', round_of: 'nightly-abc' }));
    for (const batchId of ['nope', 'round-1']) {
      const response = await world.call('console-read', 'GET /batches/{batchId}', { params: { batchId } });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'batch_not_found', params: { batch_id: batchId } });
    }
  });
});

describe('rows', () => {
  it('filters by status and searches SKU, description (accents ignored) and NCM with or without dots', async () => {
    const world = consoleWorld();
    await runningBatch(world);
    const rows = (query: Record<string, string>) =>
      world.call('console-read', 'GET /batches/{batchId}/rows', {
        params: { batchId: 'nightly-abc' },
        query,
      });
    expect((await rows({ status: 'resolved' })).body.rows.map((row: { row: number }) => row.row)).toEqual([
      1, 2,
    ]);
    expect((await rows({ status: 'pending_data,queued' })).body.matching).toBe(2);
    expect((await rows({ q: 'CAFE' })).body.rows).toMatchObject([
      { row: 2, ncm: '0901.21.00', sku: 'SKU-2', has_verdict_pdf: true },
    ]);
    expect((await rows({ q: '0901.21' })).body.rows.map((row: { row: number }) => row.row)).toEqual([2]);
    expect((await rows({ q: '09012100' })).body.rows.map((row: { row: number }) => row.row)).toEqual([2]);
    const first = await rows({ limit: '3' });
    expect(first.body).toMatchObject({ next: 3, matching: 4 });
    expect((await rows({ limit: '3', after: '3' })).body).toMatchObject({ rows: [{ row: 4 }], next: null });
  });

  it("shows a rejected row's own SKU, description and reference cells, cut to what a table shows, and finds it by them", async () => {
    const world = consoleWorld();
    const long = `Motor ${'elétrico '.repeat(100)}`;
    const rejected = (row: number, cells: string[]) =>
      rowRecord(row, {
        status: 'rejected',
        cells,
        rejection: {
          row,
          reason: 'description_too_short',
          column: 'description',
          detail: 'column "Descrição" has 4 characters; at least 10 are needed.',
          issues: [{ reason: 'description_too_short', column: 'description', detail: 'short' }],
        },
        result: { status: 'rejected', reason: 'description_too_short' },
      });
    await seedCountedBatch(
      world.ports.batches,
      batchRecord({
        state: 'running',
        rows_total: 3,
        header: ['Referência', 'SKU', 'Descrição'],
        columns: [
          { column: 'A', header: 'Referência', understood_as: 'external_reference' },
          { column: 'B', header: 'SKU', understood_as: 'sku' },
          { column: 'C', header: 'Descrição', understood_as: 'description' },
        ],
      }),
      [rejected(1, ['PO-77', ' BOM-0207 ', 'Cabo']), rejected(2, ['', '', long]), resolvedRow(3)],
    );
    const rows = (query: Record<string, string> = {}) =>
      world.call('console-read', 'GET /batches/{batchId}/rows', {
        params: { batchId: 'nightly-abc' },
        query,
      });
    const [first, second, third] = (await rows()).body.rows;
    expect(first).toMatchObject({
      row: 1,
      status: 'rejected',
      sku: 'BOM-0207',
      description: 'Cabo',
      external_reference: 'PO-77',
    });
    expect(second).toMatchObject({ sku: null, external_reference: null });
    expect([...second.description]).toHaveLength(SHOWN_CELL_MAX + 1);
    expect(second.description.endsWith('…')).toBe(true);
    expect(long.startsWith(second.description.slice(0, -1))).toBe(true);
    // A valid row still shows its product as Prepare read it, not its cells.
    expect(third).toMatchObject({ sku: 'SKU-3', description: 'Parafuso 3' });
    expect((await rows({ q: 'bom-0207' })).body.rows.map((row: { row: number }) => row.row)).toEqual([1]);
  });

  it("reads a rejected row's cells by its header's names when the batch kept no column uses", async () => {
    const world = consoleWorld();
    await seedCountedBatch(
      world.ports.batches,
      batchRecord({ state: 'running', rows_total: 1, header: ['Código', 'Descripción'] }),
      [
        rowRecord(1, {
          status: 'rejected',
          cells: ['ROD-6205', 'x'],
          result: { status: 'rejected', reason: 'description_too_short' },
        }),
      ],
    );
    const response = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: 'nightly-abc' },
    });
    expect(response.body.rows[0]).toMatchObject({ sku: 'ROD-6205', description: 'x' });
  });

  it('refuses badly encoded input with 400 naming the field, never a 5xx', async () => {
    const world = consoleWorld();
    await runningBatch(world);
    const cursor = await world.call('console-read', 'GET /batches', { query: { after: '\uFFFD\uFFFDA' } });
    expect(cursor.status).toBe(400);
    expect(cursor.body).toMatchObject({ code: 'invalid_request', params: { field: 'after' } });
    const path = await world.call('console-read', 'GET /batches/{batchId}', {
      params: { batchId: '%E0%A4%A' },
    });
    expect(path.status).toBe(400);
    expect(path.body).toMatchObject({ code: 'invalid_request', params: { field: 'batchId' } });
  });

  it('refuses an unknown status filter with 400 naming the field', async () => {
    const world = consoleWorld();
    await runningBatch(world);
    const response = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: 'nightly-abc' },
      query: { status: 'done' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', params: { field: 'status.0' } });
  });
});

describe('uploads', () => {
  const upload = (body: unknown) => {
    const world = consoleWorld();
    return { world, response: world.call('console-files', 'POST /uploads', { body }) };
  };
  const catalogue = { name: 'produtos.csv', size: 2_000, type: 'text/csv' };

  it('writes batch.json naming the signed-in person who sent the batch, whatever the form says', async () => {
    const { world, response } = upload({
      catalogue,
      options: { country: 'BR', requested_by: 'someone else' },
    });
    expect((await response).status).toBe(201);
    expect(JSON.parse(world.ports.objects.text('inbox/produtos/batch.json') ?? '')).toEqual({
      country: 'BR',
      requested_by: 'ana@example.com',
    });
  });

  it('writes batch.json and gives one form per file under inbox/<name>/, the sheets first and the catalogue last', async () => {
    const { world, response } = upload({
      catalogue,
      sheets: [{ name: 'sheets/bomba.pdf', size: 40_000, type: 'application/pdf' }],
      options: { country: 'BR', max_usd: 20 },
    });
    const plan = (await response).body;
    expect((await response).status).toBe(201);
    expect(plan.batch_name).toBe('produtos');
    expect(plan.forms.map((form: { key: string }) => form.key)).toEqual([
      'inbox/produtos/sheets/bomba.pdf',
      'inbox/produtos/produtos.csv',
    ]);
    expect(JSON.parse(world.ports.objects.text('inbox/produtos/batch.json') ?? '')).toEqual({
      country: 'BR',
      max_usd: 20,
      requested_by: 'ana@example.com',
    });
    expect(world.ports.links.forms).toEqual([
      {
        key: 'inbox/produtos/sheets/bomba.pdf',
        contentType: 'application/pdf',
        maxBytes: CONSOLE_LIMITS.sheetBytes,
        expiresSeconds: 600,
      },
      {
        key: 'inbox/produtos/produtos.csv',
        contentType: 'text/csv',
        maxBytes: CONSOLE_LIMITS.catalogueBytes,
        expiresSeconds: 600,
      },
    ]);
  });

  it.each([
    ['Texto Unicode.txt', 'text/plain'],
    ['produtos.TSV', 'text/tab-separated-values'],
  ])("takes Excel's text save %s as a catalogue, its form declaring %s", async (name, contentType) => {
    const { world, response } = upload({ catalogue: { name, size: 2_000, type: '' } });
    expect((await response).status).toBe(201);
    expect(world.ports.links.forms).toMatchObject([
      { key: `inbox/${name.replace(/\.\w+$/, '')}/${name}`, contentType },
    ]);
  });

  it.each([
    [
      'a batch name that climbs out of inbox/',
      { catalogue, batch_name: '../outbox' },
      400,
      'invalid_batch_name',
    ],
    [
      'a sheet path that climbs out of the batch folder',
      { catalogue, sheets: [{ name: '../../outbox/x.pdf', size: 9 }] },
      400,
      'invalid_file_name',
    ],
    [
      'a catalogue given as a path',
      { catalogue: { ...catalogue, name: 'answers/b/review.csv' } },
      400,
      'invalid_file_name',
    ],
    [
      'a catalogue that is not CSV, text or XLSX',
      { catalogue: { ...catalogue, name: 'produtos.xls' } },
      415,
      'wrong_file_type',
    ],
    [
      'a sheet that is not a PDF',
      { catalogue, sheets: [{ name: 'ficha.docx', size: 9 }] },
      415,
      'wrong_file_type',
    ],
    [
      'a sheet over the service limit of 10 MB',
      { catalogue, sheets: [{ name: 'ficha.pdf', size: 10 * 1024 * 1024 + 1 }] },
      413,
      'file_too_large',
    ],
    [
      'a catalogue over the stated limit',
      { catalogue: { ...catalogue, size: CONSOLE_LIMITS.catalogueBytes + 1 } },
      413,
      'file_too_large',
    ],
    ['an empty catalogue', { catalogue: { ...catalogue, size: 0 } }, 413, 'file_too_large'],
    ['an option batch.json does not know', { catalogue, options: { budget: 20 } }, 400, 'invalid_options'],
    ['a body that is not JSON', '{not json', 400, 'invalid_request'],
  ])('refuses %s, writing nothing and making no form', async (_what, body, status, code) => {
    const { world, response } = upload(body);
    expect((await response).status).toBe(status);
    expect((await response).body.code).toBe(code);
    expect(world.ports.objects.objects.size).toBe(0);
    expect(world.ports.links.forms).toEqual([]);
  });

  it('names the unknown option in the refusal', async () => {
    const { response } = upload({ catalogue, options: { budget: 20 } });
    expect((await response).body.detail).toContain('budget');
  });

  it('gives a form for a new sheet sent with answers, under answers/<batch-id>/sheets/', async () => {
    const world = consoleWorld();
    await runningBatch(world);
    const response = await world.call('console-files', 'POST /answer-sheets', {
      body: { batch_id: 'nightly-abc', sheet: { name: 'nova ficha.pdf', size: 1000 } },
    });
    expect(response.body).toMatchObject({
      sheet: 'sheets/nova ficha.pdf',
      form: { key: 'answers/nightly-abc/sheets/nova ficha.pdf' },
    });
    const unknown = await world.call('console-files', 'POST /answer-sheets', {
      body: { batch_id: 'nope', sheet: { name: 'a.pdf', size: 1000 } },
    });
    expect(unknown.status).toBe(404);
  });
});

describe('downloads', () => {
  it('links an outbox file as an attachment named after the batch, and refuses a file not in the list or not there', async () => {
    const world = consoleWorld();
    await runningBatch(world);
    world.ports.objects.set('outbox/nightly-abc/results.csv', 'row\n');
    world.ports.objects.set('outbox/nightly-abc/secret.txt', 'x');
    const ok = await world.call('console-files', 'GET /batches/{batchId}/files/{file}', {
      params: { batchId: 'nightly-abc', file: 'results.csv' },
    });
    expect(ok.body).toMatchObject({ file_name: 'nightly-results.csv' });
    expect(world.ports.links.downloads[0]).toMatchObject({
      key: 'outbox/nightly-abc/results.csv',
      disposition: 'attachment',
    });
    for (const file of ['review.csv', 'secret.txt', '..%2Fsummary.json']) {
      const refused = await world.call('console-files', 'GET /batches/{batchId}/files/{file}', {
        params: { batchId: 'nightly-abc', file },
      });
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe('file_not_found');
    }
  });

  it("lists every answers round's own report, oldest first, and links each; answers-report.csv keeps the latest", async () => {
    const world = consoleWorld();
    await runningBatch(world);
    const older = roundReportFile({ batch_id: 'nightly-abc~r1', started_at: '2026-11-22T09:05:07.123Z' });
    const newer = roundReportFile({ batch_id: 'nightly-abc~r2', started_at: '2026-11-23T10:00:00.000Z' });
    expect(older).toBe('answers-report-20261122T090507Z-r1.csv');
    for (const file of ['answers-report.csv', newer, older])
      world.ports.objects.set(`outbox/nightly-abc/${file}`, 'row;classification_id;outcome;detail\r\n');

    const view = await world.call('console-read', 'GET /batches/{batchId}', {
      params: { batchId: 'nightly-abc' },
    });

    expect(view.body.round_reports).toEqual([
      { file: older, at: '2026-11-22T09:05:07Z' },
      { file: newer, at: '2026-11-23T10:00:00Z' },
    ]);
    const linked = await world.call('console-files', 'GET /batches/{batchId}/files/{file}', {
      params: { batchId: 'nightly-abc', file: older },
    });
    expect(linked.body).toMatchObject({ file_name: `nightly-${older}` });
    const other = await world.call('console-files', 'GET /batches/{batchId}/files/{file}', {
      params: { batchId: 'nightly-abc', file: 'answers-report-x.csv' },
    });
    expect(other.status).toBe(404);
  });

  it('bundles results.xlsx with its verdict PDFs beside it as one ZIP, made once per workbook and again when it changes', async () => {
    const world = consoleWorld();
    await runningBatch(world);
    const ask = () =>
      world.call('console-files', 'GET /batches/{batchId}/files/{file}', {
        params: { batchId: 'nightly-abc', file: 'results-with-pdfs.zip' },
      });
    // No workbook yet: nothing to bundle.
    expect((await ask()).body).toMatchObject({ code: 'file_not_found' });
    world.ports.objects.set('outbox/nightly-abc/results.xlsx', 'workbook one');
    world.ports.objects.set('outbox/nightly-abc/pdfs/00001-SKU-1.pdf', '%PDF-1.7 one');
    world.ports.objects.set('outbox/nightly-abc/pdfs/00003-SKU-3.pdf', '%PDF-1.7 three');

    const first = await ask();

    expect(first.body).toMatchObject({ file_name: 'nightly-results.zip' });
    expect(world.ports.links.downloads.at(-1)).toMatchObject({
      key: 'outbox/nightly-abc/downloads/results-with-pdfs.zip',
      disposition: 'attachment',
      contentType: 'application/zip',
    });
    const entries = () => {
      const files = unzipSync(
        world.ports.objects.objects.get('outbox/nightly-abc/downloads/results-with-pdfs.zip')!.bytes,
      );
      return Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, strFromU8(bytes)]));
    };
    // The workbook's links (`pdfs/<file>.pdf`) open where it is unpacked.
    expect(entries()).toEqual({
      'results.xlsx': 'workbook one',
      'pdfs/00001-SKU-1.pdf': '%PDF-1.7 one',
      'pdfs/00003-SKU-3.pdf': '%PDF-1.7 three',
    });
    // Asked again, the same workbook: the bundle kept is linked, not made again.
    world.ports.objects.set('outbox/nightly-abc/pdfs/00004-SKU-4.pdf', '%PDF-1.7 four');
    await ask();
    expect(Object.keys(entries())).toHaveLength(3);
    // An answers round revised the workbook: the next request makes it again.
    world.ports.objects.set('outbox/nightly-abc/results.xlsx', 'workbook two');
    await ask();
    expect(entries()).toMatchObject({
      'results.xlsx': 'workbook two',
      'pdfs/00004-SKU-4.pdf': '%PDF-1.7 four',
    });
  });

  it("links a row's verdict PDF inline, and answers 404 for a row without one or a row that does not exist", async () => {
    const world = consoleWorld();
    await runningBatch(world);
    world.ports.objects.set('outbox/nightly-abc/pdfs/00001-SKU-1.pdf', '%PDF-1.7');
    const verdict = (row: string) =>
      world.call('console-files', 'GET /batches/{batchId}/rows/{row}/verdict', {
        params: { batchId: 'nightly-abc', row },
      });
    expect((await verdict('1')).body).toMatchObject({ file_name: '00001-SKU-1.pdf' });
    expect(world.ports.links.downloads[0]).toMatchObject({
      disposition: 'inline',
      contentType: 'application/pdf',
    });
    expect((await verdict('4')).body).toMatchObject({ code: 'verdict_not_found' });
    expect((await verdict('99')).body).toMatchObject({ code: 'row_not_found' });
    expect((await verdict('1e3')).status).toBe(404);
  });

  it("links a reused row's verdict in the earlier batch's outbox until Finalize copies it", async () => {
    const world = consoleWorld();
    await runningBatch(world);
    const earlier = 'outbox/nightly-old/pdfs/00007-SKU-1.pdf';
    world.ports.objects.set(earlier, '%PDF-1.7');
    await world.ports.batches.putRows([
      rowRecord(1, {
        status: 'reused',
        result: { ...resolvedRow(1).result, status: 'reused', cost_usd: '0.00', verdict_pdf: earlier },
      }),
    ]);
    const response = await world.call('console-files', 'GET /batches/{batchId}/rows/{row}/verdict', {
      params: { batchId: 'nightly-abc', row: '1' },
    });
    expect(response.body).toMatchObject({ file_name: '00007-SKU-1.pdf' });
    expect(world.ports.links.downloads[0]).toMatchObject({ key: earlier, disposition: 'inline' });
  });
});

describe('questions and answers', () => {
  const pendingWorld = async () => {
    const world = consoleWorld();
    await world.ports.batches.createBatch(batchRecord({ state: 'completed' }));
    await world.ports.batches.putRows(
      [3, 5, 7].map((row) =>
        rowRecord(row, { status: 'pending_data', classification_id: classificationId(row) }),
      ),
    );
    await world.ports.batches.putRows([rowRecord(8, { status: 'following', follows: 5 })]);
    for (const row of [3, 5]) await world.ports.reviews.put(reviewItem(row));
    await world.ports.reviews.put(
      reviewItem(7, {
        questions: [{ id: 'q9', text: 'Uso?', options: [] }],
        abandons_at: '2026-11-23T13:00:00.000Z',
      }),
    );
    return world;
  };

  it('groups rows asked the same questions, soonest abandoned first, with the days left and same-product rows', async () => {
    const world = await pendingWorld();
    const inbox = (await world.call('console-read', 'GET /questions')).body;
    expect(inbox.rows).toBe(3);
    expect(inbox.groups).toHaveLength(2);
    expect(inbox.groups[0]).toMatchObject({
      questions: [{ text: 'Uso?', options: [] }],
      rows: [{ row: 7, days_left: 2 }],
    });
    expect(inbox.groups[1]).toMatchObject({
      questions: [{ text: 'Material?', options: ['aço', 'latão'] }],
      rows: [
        { row: 3, question_ids: ['q1'] },
        { row: 5, same_product_rows: [8], days_left: 30 },
      ],
    });
  });

  it('drops the answers as a review file the answers round reads, into answers/<batch-id>/', async () => {
    const world = await pendingWorld();
    const response = await world.call('console-answers', 'POST /answers', {
      body: {
        rows: [3, 5].map((row) => ({
          batch_id: 'nightly-abc',
          classification_id: classificationId(row),
          answers: [{ question_id: 'q1', answer: ' aço ' }],
        })),
      },
    });
    expect(response.status).toBe(201);
    const [file] = response.body.files;
    expect(file).toMatchObject({ batch_id: 'nightly-abc', rows: [3, 5] });
    expect(file.key).toMatch(/^answers\/nightly-abc\/console-[0-9a-f]{16}\.csv$/);
    const read = await readAnswersFile(world.ports.objects.objects.get(file.key)!.bytes, 'x.csv');
    expect(
      read.rows.map((row) => [row.row, row.classification_id, row.answers.map((a) => a.answer)]),
    ).toEqual([
      [3, classificationId(3), ['aço']],
      [5, classificationId(5), ['aço']],
    ]);
    // Who answered travels with the file: the signed-in person, not the function's role.
    expect((await world.ports.objects.head(file.key))?.metadata).toEqual({
      'answered-by': encodeURIComponent('ana@example.com'),
    });
  });

  it('takes answers given from a later batch whose row joined the classification, for the batch that asked', async () => {
    const world = await pendingWorld();
    const joined = await world.ports.reviews.join(
      classificationId(3),
      [{ batch_id: 'nightly-def', row: 12 }],
      '2026-11-21T12:00:00.000Z',
    );
    expect(joined).toBe(true);
    const response = await world.call('console-answers', 'POST /answers', {
      body: {
        rows: [
          {
            batch_id: 'nightly-def',
            classification_id: classificationId(3),
            answers: [{ question_id: 'q1', answer: 'aço' }],
          },
        ],
      },
    });
    expect(response.status).toBe(201);
    // One round, in the batch that asked: it settles the joined row of nightly-def too.
    expect(response.body.files).toEqual([expect.objectContaining({ batch_id: 'nightly-abc', rows: [3] })]);
  });

  it('the same answers sent twice land on the same file', async () => {
    const world = await pendingWorld();
    const body = {
      rows: [
        {
          batch_id: 'nightly-abc',
          classification_id: classificationId(3),
          answers: [{ question_id: 'q1', answer: 'aço' }],
        },
      ],
    };
    const first = await world.call('console-answers', 'POST /answers', { body });
    const second = await world.call('console-answers', 'POST /answers', { body });
    expect(second.body.files[0].key).toBe(first.body.files[0].key);
  });

  it('refuses answers to a row that is no longer pending with 409 and a clear message, writing nothing', async () => {
    const world = await pendingWorld();
    await world.ports.reviews.update(classificationId(3), {
      state: 'answered',
      answered_at: '2026-11-21T11:00:00.000Z',
    });
    world.ports.batches.placeRow('nightly-abc', 3, { status: 'in_progress' });
    const response = await world.call('console-answers', 'POST /answers', {
      body: {
        rows: [5, 3].map((row) => ({
          batch_id: 'nightly-abc',
          classification_id: classificationId(row),
          answers: [{ question_id: 'q1', answer: 'aço' }],
        })),
      },
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      code: 'not_pending',
      params: { row: 3, batch_name: 'nightly', status: 'in_progress' },
    });
    expect(response.body.detail).toBe(
      'Row 3 of batch nightly is not waiting for answers: it was answered on 2026-11-21T11:00:00.000Z, and it is in_progress now. Nothing was sent.',
    );
    expect([...world.ports.objects.objects.keys()]).toEqual([]);
  });

  it.each([
    [
      'an unknown classification',
      { classification_id: classificationId(99) },
      404,
      'classification_not_found',
    ],
    ['a classification of another batch', { batch_id: 'other' }, 404, 'classification_not_found'],
    ['a question left unanswered', { answers: [{ question_id: 'q1', answer: '  ' }] }, 400, 'answer_missing'],
    [
      'a question it was not asked',
      { answers: [{ question_id: 'q2', answer: 'x' }] },
      400,
      'unknown_question',
    ],
    [
      'an answer over 500 characters',
      { answers: [{ question_id: 'q1', answer: 'é'.repeat(501) }] },
      400,
      'answer_too_long',
    ],
    ['a new sheet that was not uploaded', { sheet: 'sheets/nova.pdf' }, 400, 'sheet_not_uploaded'],
  ])('refuses %s, writing nothing', async (_what, change, status, code) => {
    const world = await pendingWorld();
    const response = await world.call('console-answers', 'POST /answers', {
      body: {
        rows: [
          {
            batch_id: 'nightly-abc',
            classification_id: classificationId(3),
            answers: [{ question_id: 'q1', answer: 'aço' }],
            ...change,
          },
        ],
      },
    });
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
    expect(world.ports.objects.objects.size).toBe(0);
  });
});
