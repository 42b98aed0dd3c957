/** Finalize: rows → results.csv, review.csv, summary.json, reused PDFs, the completion event. */
import { unzipSync } from 'fflate';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { OUTPUT_STATUSES } from '../../../../shared/pipeline/core/row-statuses.js';
import { awaitRows } from '../../../../shared/pipeline/finalize/await-rows.js';
import { finalizeBatch, TIMED_OUT_DETAIL } from '../../../../shared/pipeline/finalize/finalize-batch.js';
import { ROWS_PER_PAGE } from '../../../../shared/pipeline/finalize/standing-rows.js';
import { BatchSummary } from '../../../../shared/pipeline/outbox/results-files.js';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import { productFingerprint } from '../../../../shared/pipeline/reuse/reuse.js';
import { memoryPipelinePorts } from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { sheetCells, workbookSheets } from '../../../helpers/xlsx-xml.js';
import { ACCEPTED_COUNTRIES, crlf, utf8 } from '../../spreadsheet/fixtures.js';

const BUCKET = 'catalogue-bucket';
const FILE_KEY = 'inbox/lote/produtos.csv';
const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAf1Zsecret-task-token-value==';
const CLS = ['cls_7KQ2M9XW4RTB', 'cls_H3N8P2QVZ6MA', 'cls_H3N8P2QVZ6MB'] as const;

const objectCreated = (key = FILE_KEY) => objectCreatedEvent(BUCKET, key);

const INPUT = utf8(
  crlf(
    'SKU;Descrição;País;Operação;NCM atual;Nota',
    'SKU-1;Frango congelado em pedaços, sem osso;BR;import;2071400;=1+1',
    'SKU-2;Café;BR;import;;curta',
    'SKU-3;Rolamento de esferas de aço, diâmetro 22 mm;BR;import;84821010;',
    'SKU-4;Café torrado em grãos, não descafeinado;BR;import;09012100;reusado',
  ),
);

const world = (
  files: Record<string, Uint8Array | string> = { [FILE_KEY]: INPUT },
  { minPartBytes }: { minPartBytes?: number } = {},
) => {
  const ports = memoryPipelinePorts(files, ACCEPTED_COUNTRIES, { minPartBytes });
  const { clock } = ports;
  const batchId = batchSourceFromEvent(objectCreated())!.batchId;
  // Decoded by hand: TextDecoder would drop the BOM the tests check for.
  const text = (name: string) => {
    const stored = ports.objects.objects.get(`outbox/${batchId}/${name}`);
    return stored ? Buffer.from(stored.bytes).toString('utf8') : undefined;
  };
  const csv = (name: string) =>
    Papa.parse<string[]>(text(name)!.slice(1), { delimiter: ';', newline: '\r\n', skipEmptyLines: true })
      .data;
  const summary = () => BatchSummary.parse(JSON.parse(text('summary.json')!));
  return { ...ports, ports, clock, batchId, text, csv, summary };
};

type World = ReturnType<typeof world>;

/** Row 4 reuses a verdict resolved by an earlier batch, whose PDF is in that batch's outbox. */
const seedReusedVerdict = async (w: World, { pdfStored = true } = {}) => {
  const pdfKey = 'outbox/earlier-x/pdfs/00007-SKU-4.pdf';
  if (pdfStored) w.objects.set(pdfKey, '%PDF-1.7 verdict');
  await w.cache.put({
    product_key: 'sku:SKU-4',
    fingerprint: productFingerprint(
      { operation: 'import', country: 'BR', description: 'Café torrado em grãos, não descafeinado' },
      null,
    ),
    classification_id: CLS[2],
    resolved_at: '2026-11-20T12:00:00.000Z',
    result: {
      status: 'resolved',
      classification_id: CLS[2],
      ncm: '0901.21.00',
      title: 'Café torrado em grãos',
      cost_usd: '2.00',
      verdict_pdf: 'pdfs/00007-SKU-4.pdf',
    },
    pdf_key: pdfKey,
    batch_id: 'earlier-x',
  });
};

const prepare = async (w: World) => {
  const prepared = await prepareBatch(w.ports, { event: objectCreated(), execution_id: 'exec-1' });
  return { ...objectCreated(), prepare: prepared };
};

/** What the row side does when a row ends: its result on the row, the row counted done. */
const finishRow = async (w: World, row: number, result: RowResult) => {
  w.batches.placeRow(w.batchId, row, { status: result.status, result });
  return w.batches.markRowDone(w.batchId, row, {
    status: result.status,
    billed_cents: 0,
    at: w.clock.now().toISOString(),
  });
};

describe('a batch whose rows all finished', () => {
  const run = async () => {
    const w = world();
    await seedReusedVerdict(w);
    const state = await prepare(w);
    await awaitRows(w.ports, { batch_id: w.batchId, task_token: TOKEN });
    await finishRow(w, 1, {
      status: 'resolved',
      classification_id: CLS[0],
      ncm: '0207.14.00',
      current_ncm_matches: 'yes',
      verdict_pdf: 'pdfs/00001-SKU-1.pdf',
      cost_usd: '2.00',
    });
    await finishRow(w, 3, {
      status: 'pending_data',
      classification_id: CLS[1],
      questions: 'É blindado? (Sim / Não)',
      cost_usd: '0.00',
    });
    await w.reviews.put({
      classification_id: CLS[1],
      batch_id: w.batchId,
      row: 3,
      sku: 'SKU-3',
      external_reference: null,
      description: 'Rolamento de esferas de aço, diâmetro 22 mm',
      questions: [{ id: 'q1', text: 'É blindado?', options: ['Sim', 'Não'] }],
      provisional_ncm: '84821010',
      provisional_confidence: 48,
      abandons_at: '2026-12-21T12:00:00Z',
      state: 'pending',
      created_at: '2026-11-21T12:01:00.000Z',
    });
    w.clock.advance(10 * 60_000);
    const result = await finalizeBatch(w.ports, state);
    return { w, state, result };
  };

  it('writes results.csv: every input row in order, its cells intact, then the result columns', async () => {
    const { w } = await run();
    const records = w.csv('results.csv');
    const header = records[0]!;

    expect(w.text('results.csv')!.startsWith('\uFEFF')).toBe(true);
    expect(header.slice(0, 7)).toEqual(['SKU', 'Descrição', 'País', 'Operação', 'NCM atual', 'Nota', 'row']);
    expect(
      records.slice(1).map((r) => [r[0], r[header.indexOf('row')], r[header.indexOf('status')]]),
    ).toEqual([
      ['SKU-1', '1', 'resolved'],
      ['SKU-2', '2', 'rejected'],
      ['SKU-3', '3', 'pending_data'],
      ['SKU-4', '4', 'reused'],
    ]);
    expect(records[1]!.slice(0, 6)).toEqual([
      'SKU-1',
      'Frango congelado em pedaços, sem osso',
      'BR',
      'import',
      '2071400',
      "'=1+1",
    ]);
    expect(records[1]![header.indexOf('ncm')]).toBe('0207.14.00');
    expect(records[2]![header.indexOf('reason')]).toBe('description_too_short');
    expect(records[2]![header.indexOf('detail')]).toContain('Column "Descrição"');
  });

  it('copies the reused verdict’s PDF into this batch, under the batch that made it and its name there', async () => {
    const { w } = await run();
    const header = w.csv('results.csv')[0]!;
    const reused = w.csv('results.csv')[4]!;

    expect(reused[header.indexOf('verdict_pdf')]).toBe('pdfs/earlier-x/00007-SKU-4.pdf');
    expect(reused[header.indexOf('cost_usd')]).toBe('0.00');
    expect(reused[header.indexOf('current_ncm_matches')]).toBe('yes');
    expect(w.objects.text(`outbox/${w.batchId}/pdfs/earlier-x/00007-SKU-4.pdf`)).toBe('%PDF-1.7 verdict');
    // results.xlsx links the copy too, one folder down in pdfs/.
    const workbook = unzipSync(w.objects.objects.get(`outbox/${w.batchId}/results.xlsx`)!.bytes);
    const [resultsSheet] = workbookSheets(workbook);
    const formulas = [...sheetCells(workbook, resultsSheet!.name).values()].flatMap((cell) =>
      cell.formula ? [cell.formula] : [],
    );
    expect(formulas).toContain(
      'HYPERLINK("pdfs/earlier-x/00007-SKU-4.pdf","pdfs/earlier-x/00007-SKU-4.pdf")',
    );
    expect(w.objects.text('outbox/earlier-x/pdfs/00007-SKU-4.pdf')).toBe('%PDF-1.7 verdict');
    // The row keeps where the verdict was kept: results files link the copy, no row is rewritten.
    expect((await w.batches.getRow(w.batchId, 4))?.result?.verdict_pdf).toBe(
      'outbox/earlier-x/pdfs/00007-SKU-4.pdf',
    );
  });

  it('copies a verdict PDF reused by many rows once, every row linking the one copy', async () => {
    const rows = Array.from(
      { length: 6 },
      (_, i) => `SKU-${10 + i};Café torrado em grãos, não descafeinado;BR;import;09012100;`,
    );
    const w = world({ [FILE_KEY]: utf8(crlf('SKU;Descrição;País;Operação;NCM atual;Nota', ...rows)) });
    await seedReusedVerdict(w);
    // Kept under the product's fingerprint too, as Complete keeps it: every variant's SKU finds it.
    const cached = (await w.cache.getMany(['sku:SKU-4'])).get('sku:SKU-4')!;
    await w.cache.put({ ...cached, product_key: `h:${cached.fingerprint}` });
    const copies: string[] = [];
    const { copy, copyIfUnchanged } = w.objects;
    w.objects.copy = async (from, to) => {
      copies.push(to);
      return copy(from, to);
    };
    w.objects.copyIfUnchanged = async (from, to, expected) => {
      copies.push(to);
      return copyIfUnchanged(from, to, expected);
    };
    const state = await prepare(w);

    await finalizeBatch(w.ports, state);

    const [header, ...records] = w.csv('results.csv');
    expect(records.map((record) => record[header!.indexOf('status')])).toEqual(Array(6).fill('reused'));
    expect(new Set(records.map((record) => record[header!.indexOf('verdict_pdf')]))).toEqual(
      new Set(['pdfs/earlier-x/00007-SKU-4.pdf']),
    );
    // The PDF once (and audit.csv, a copy of its first write).
    expect(copies).toEqual([
      `outbox/${w.batchId}/pdfs/earlier-x/00007-SKU-4.pdf`,
      `outbox/${w.batchId}/audit.csv`,
    ]);
  });

  it('writes review.csv with the pending row’s questions', async () => {
    const { w } = await run();
    const records = w.csv('review.csv');
    expect(records).toHaveLength(2);
    expect(records[1]!.slice(0, 11)).toEqual([
      '3',
      'SKU-3',
      '',
      'Rolamento de esferas de aço, diâmetro 22 mm',
      CLS[1],
      '8482.10.10',
      '48',
      'q1',
      'É blindado?',
      'Sim|Não',
      '',
    ]);
  });

  it('writes summary.json, publishes it, completes the batch and answers with the counts', async () => {
    const { w, result } = await run();
    const summary = w.summary();

    expect(summary).toMatchObject({
      batch_id: w.batchId,
      state: 'completed',
      rows_total: 4,
      billed_usd: 2,
      saved_usd: 2,
      started_at: '2026-11-21T12:00:00.000Z',
      finished_at: '2026-11-21T12:10:00.000Z',
      source: { bucket: BUCKET, key: FILE_KEY, version_or_etag: 'etag-1' },
      outputs: { results: 'results.csv', review: 'review.csv', summary: 'summary.json', pdfs: 'pdfs/' },
    });
    expect(summary.by_status).toEqual({
      ...Object.fromEntries(OUTPUT_STATUSES.map((s) => [s, 0])),
      resolved: 1,
      rejected: 1,
      pending_data: 1,
      reused: 1,
    });
    expect(w.events.published).toEqual([JSON.parse(w.text('summary.json')!)]);
    expect(w.batches.batches.get(w.batchId)).toMatchObject({
      state: 'completed',
      finished_at: '2026-11-21T12:10:00.000Z',
    });
    expect(result).toEqual({
      batch_id: w.batchId,
      state: 'completed',
      rows_total: 4,
      by_status: summary.by_status,
      next: 'done',
    });
  });

  it('never writes the task token anywhere', async () => {
    const { w, result } = await run();
    expect(w.batches.batches.get(w.batchId)?.task_token).toBe(TOKEN);
    for (const [key, stored] of w.objects.objects) {
      expect(Buffer.from(stored.bytes).toString('utf8'), key).not.toContain(TOKEN);
    }
    expect(JSON.stringify(w.events.published)).not.toContain(TOKEN);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('is idempotent: a second run writes the same files and publishes nothing more', async () => {
    const { w, state } = await run();
    const before = ['results.csv', 'review.csv', 'summary.json'].map(w.text);
    w.clock.advance(60 * 60_000);

    await finalizeBatch(w.ports, state);

    expect(['results.csv', 'review.csv', 'summary.json'].map(w.text)).toEqual(before);
    expect(w.events.published).toHaveLength(1);
  });
});

describe('a batch that timed out waiting', () => {
  it('marks the unfinished rows error and says why', async () => {
    const w = world();
    const state = await prepare(w);
    await finishRow(w, 1, { status: 'resolved', ncm: '0207.14.00', cost_usd: '2.00' });
    w.batches.placeRow(w.batchId, 3, { status: 'in_progress', classification_id: CLS[1] });

    const result = await finalizeBatch(w.ports, {
      ...state,
      wait_error: { Error: 'States.Timeout', Cause: 'The task timed out.' },
    });

    expect(result.state).toBe('completed');
    const row3 = await w.batches.getRow(w.batchId, 3);
    expect(row3).toMatchObject({ status: 'error', result: { status: 'error', detail: TIMED_OUT_DETAIL } });
    expect(w.summary().by_status).toMatchObject({ resolved: 1, rejected: 1, error: 2 });
    // The problem's code and what it names for programs; its sentence in the batch's language (Portuguese).
    expect(w.summary().problems).toContainEqual(
      expect.objectContaining({ code: 'wait_stopped', params: { error: 'States.Timeout' } }),
    );
    expect(
      w
        .summary()
        .problems.map((problem) => problem.text)
        .join(' '),
    ).toContain('O lote parou de esperar pelas suas linhas (States.Timeout)');
    const records = w.csv('results.csv');
    expect(records[3]![records[0]!.indexOf('detail')]).toBe(TIMED_OUT_DETAIL);
  });

  it('a row finishing at that very moment keeps its own result', async () => {
    const w = world();
    const state = await prepare(w);
    const moveRow = w.batches.moveRow;
    // Row 1 finishes between Finalize's read and its write.
    w.batches.moveRow = async (batchId, row, move) => {
      if (row === 1 && move.move === 'finished') {
        await moveRow(batchId, 1, {
          move: 'finished',
          result: { status: 'resolved', cost_usd: '2.00' },
          at: move.at,
        });
      }
      return moveRow(batchId, row, move);
    };

    await finalizeBatch(w.ports, { ...state, wait_error: { Error: 'States.Timeout' } });

    expect((await w.batches.getRow(w.batchId, 1))?.status).toBe('resolved');
    expect(w.summary().by_status).toMatchObject({ resolved: 1, rejected: 1, error: 2 });
  });

  it('leaves queued rows of a stopped batch not_submitted with the stop’s type', async () => {
    const w = world();
    const state = await prepare(w);
    await w.batches.recordStop(w.batchId, {
      type: 'https://tcs.example/problems/subscription-inactive',
      title: 'Subscription inactive',
      detail: 'The subscription is not active.',
      at: '2026-11-21T12:01:00.000Z',
    });

    await finalizeBatch(w.ports, { ...state, wait_error: { Error: 'States.Timeout' } });

    expect(await w.batches.getRow(w.batchId, 1)).toMatchObject({
      status: 'not_submitted',
      result: { reason: 'subscription-inactive' },
    });
    const summary = w.summary();
    expect(summary.stop?.type).toBe('https://tcs.example/problems/subscription-inactive');
    expect(summary.problems.filter((p) => p.text.includes('The subscription is not active.'))).toHaveLength(
      1,
    );
  });
});

describe('rows of the same product', () => {
  /** Row 3 is the same product as row 1 (same operation, country, description). */
  const SAME = utf8(
    crlf(
      'SKU;Descrição;País;Operação;NCM atual',
      'SKU-1;Frango congelado em pedaços, sem osso;BR;import;2071400',
      'SKU-2;Rolamento de esferas de aço, diâmetro 22 mm;BR;import;',
      'SKU-3;Frango congelado em pedaços, sem osso;BR;import;2071400',
    ),
  );

  it('take their leader’s outcome at no cost, and the summary counts what that saved', async () => {
    const w = world({ [FILE_KEY]: SAME });
    const state = await prepare(w);
    expect((await w.batches.getRow(w.batchId, 3))?.status).toBe('following');
    await finishRow(w, 1, {
      status: 'resolved',
      ncm: '0207.14.00',
      cost_usd: '2.00',
      classification_id: CLS[0],
    });
    await finishRow(w, 2, { status: 'resolved', ncm: '8482.10.10', cost_usd: '2.00' });

    await finalizeBatch(w.ports, state);

    // Shown with its leader's outcome in the files; the follower itself is never written.
    const [header, ...records] = w.csv('results.csv');
    const row3 = Object.fromEntries(header!.map((column, i) => [column, records[2]![i]]));
    expect(row3).toMatchObject({
      status: 'resolved',
      ncm: '0207.14.00',
      cost_usd: '0.00',
      classification_id: CLS[0],
    });
    expect(row3.detail).toMatch(/^Same product as row 1 /);
    expect((await w.batches.getRow(w.batchId, 3))?.status).toBe('following');
    expect(w.summary()).toMatchObject({ billed_usd: 4, duplicates: { rows: 1, saved_usd: 2 }, saved_usd: 2 });
  });

  it('end with their leader when the batch timed out waiting for it', async () => {
    const w = world({ [FILE_KEY]: SAME });
    const state = await prepare(w);
    await finishRow(w, 2, { status: 'resolved', cost_usd: '2.00' });

    await finalizeBatch(w.ports, { ...state, wait_error: { Error: 'States.Timeout' } });

    const [header, ...records] = w.csv('results.csv');
    const column = (name: string) => header!.indexOf(name);
    expect(
      [1, 3].map((row) => [records[row - 1]![column('status')], records[row - 1]![column('cost_usd')]]),
    ).toEqual([
      ['error', '0.00'],
      ['error', '0.00'],
    ]);
    expect(records[2]![column('detail')]).toContain(TIMED_OUT_DETAIL);
    // One row timed out; its copy is not a second one.
    expect(
      w
        .summary()
        .problems.map((problem) => problem.text)
        .join(' '),
    ).not.toContain('2 row(s)');
    expect(w.summary().duplicates).toEqual({ rows: 1, saved_usd: 0 });
  });
});

describe('a batch that failed at Prepare', () => {
  it('lists every row as not_submitted with the invalid options, and fails the batch', async () => {
    const w = world({ [FILE_KEY]: INPUT, 'inbox/lote/batch.json': '{"max_usd": "dez"}' });
    const state = await prepare(w);

    const result = await finalizeBatch(w.ports, state);

    expect(result.state).toBe('failed');
    expect(result.by_status.not_submitted).toBe(4);
    const summary = w.summary();
    expect(summary.state).toBe('failed');
    expect(summary.stop?.type).toBe('invalid_options');
    expect(summary.problems[0]).toMatchObject({ code: 'options_invalid', params: { fields: ['max_usd'] } });
    expect(summary.problems[0]?.text).toContain(
      'inbox/lote/batch.json não é válido: confira o campo "max_usd"',
    );
    expect(w.csv('results.csv')).toHaveLength(5);
    expect(w.batches.batches.get(w.batchId)?.state).toBe('failed');
  });

  it('still writes summary.json when Prepare crashed before the batch existed, with the cause scrubbed', async () => {
    const w = world();
    const cause = JSON.stringify({
      errorType: 'Error',
      errorMessage: 'GET https://tcs.example/v1/countries?signature=abc123secret failed',
      stackTrace: ['at x'],
    });

    const result = await finalizeBatch(w.ports, {
      ...objectCreated(),
      error: { Error: 'Error', Cause: cause },
    });

    expect(result).toMatchObject({ batch_id: w.batchId, state: 'failed', rows_total: 0 });
    const summary = w.summary();
    expect(summary.problems[0]?.text).toBe(
      'The batch could not be prepared: Error: GET https://tcs.example/v1/countries?… failed',
    );
    expect(w.text('summary.json')).not.toContain('abc123secret');
    expect(w.text('results.csv')).toBeDefined();
    expect(w.events.published).toHaveLength(1);
  });

  it('fails a batch whose Prepare crashed half-way, ending its rows', async () => {
    const w = world();
    const state = await prepare(w);
    await w.batches.updateBatch(w.batchId, { state: 'preparing' });

    const result = await finalizeBatch(w.ports, {
      ...state,
      prepare: undefined,
      error: { Error: 'Lambda.Timeout', Cause: 'Task timed out after 900.00 seconds' },
    });

    expect(result.state).toBe('failed');
    expect(result.by_status.error).toBe(3);
  });
});

describe('a batch larger than a page', () => {
  it('is read a page at a time, never whole, and every row still ends in one output row', async () => {
    const lines = Array.from(
      { length: 1_234 },
      (_, i) => `SKU-${i + 1};Parafuso sextavado M${10 + (i % 7)} com porca;BR;import;;`,
    );
    const w = world({ [FILE_KEY]: utf8(crlf('SKU;Descrição;País;Operação;NCM atual;Nota', ...lines)) });
    const state = await prepare(w);
    const pages: number[] = [];
    const { rowsPage } = w.batches;
    w.batches.listRows = () => {
      throw new Error('Finalize read the whole batch');
    };
    w.batches.rowsPage = async (batchId, page) => {
      const read = await rowsPage(batchId, page);
      pages.push(read.rows.length);
      return read;
    };

    const result = await finalizeBatch(w.ports, { ...state, wait_error: { Error: 'States.Timeout' } });

    expect(Math.max(...pages)).toBeLessThanOrEqual(ROWS_PER_PAGE);
    // Three passes: settled and added up at once, then results.csv and .xlsx written together,
    // then audit.csv's first lines, told from the rows.
    expect(pages.reduce((sum, rows) => sum + rows, 0)).toBe(3 * 1_234);
    expect(result.rows_total).toBe(1_234);
    const [header, ...records] = w.csv('results.csv');
    expect(records.map((record) => Number(record[header!.indexOf('row')]))).toEqual(
      Array.from({ length: 1_234 }, (_, i) => i + 1),
    );
  });
});

describe('a batch whose Finalize does not fit one invocation', () => {
  const LINES = Array.from(
    { length: 2_234 },
    (_, i) => `SKU-${i + 1};Parafuso sextavado M${10 + (i % 7)} com porca, aço zincado, ${i};BR;import;;`,
  );
  const FILES = { [FILE_KEY]: utf8(crlf('SKU;Descrição;País;Operação;NCM atual;Nota', ...LINES)) };
  // Parts of 32 KiB: the files cross many part boundaries, as a large batch's do at 8 MiB.
  const PART_BYTES = 32 * 1024;
  const finalizedInLegs = async () => {
    const w = world(FILES, { minPartBytes: PART_BYTES });
    const state = await prepare(w);
    const input = { ...state, wait_error: { Error: 'States.Timeout' } };
    // Each page read takes the leg's whole time: a leg settles or writes what it reads, then hands on.
    const { rowsPage } = w.batches;
    w.batches.rowsPage = async (batchId, page) => {
      w.clock.advance(60_000);
      return rowsPage(batchId, page);
    };
    const settings = { legMs: 60_000, pageSize: 500, partBytes: PART_BYTES };
    const legs = [await finalizeBatch(w.ports, input, settings)];
    // Nothing is in the outbox before the last leg: no summary yet, the batch still running.
    expect(w.text('summary.json')).toBeUndefined();
    expect(legs[0]!.state).toBe('running');
    while (legs.at(-1)!.next === 'again') {
      // What a leg hands on goes through the workflow's state: JSON, and small.
      const handed = JSON.stringify(legs.at(-1));
      expect(handed.length).toBeLessThan(4_096);
      legs.push(await finalizeBatch(w.ports, { ...input, finalized: JSON.parse(handed) }, settings));
    }
    return { w, legs };
  };
  const finalizedAtOnce = async () => {
    const w = world(FILES);
    const state = await prepare(w);
    await finalizeBatch(w.ports, { ...state, wait_error: { Error: 'States.Timeout' } });
    return w;
  };

  it('settles, then writes the results files, in legs, each going on where the last stopped', async () => {
    const { w, legs } = await finalizedInLegs();

    const settling = legs.filter((leg) => leg.next === 'again' && !leg.writing && !leg.audit);
    const writing = legs.filter((leg) => leg.writing);
    expect(settling.map((leg) => leg.settling?.settled_through)).toEqual([1_000, 2_000]);
    expect(writing.length).toBeGreaterThanOrEqual(2);
    const through = writing.map((leg) => leg.writing!.written_through);
    expect(through).toEqual([...through].sort((a, b) => a - b));
    expect(new Set(through).size).toBe(through.length);
    expect(legs.at(-1)).toMatchObject({ state: 'completed', next: 'done' });
    // Every leg dates the batch alike: the summary says when the first leg saw it finish.
    expect(new Set(legs.slice(0, -1).map((leg) => leg.finished_at)).size).toBe(1);
    expect(w.summary().finished_at).toBe(legs[0]!.finished_at);
    const summary = w.summary();
    expect(summary.rows_total).toBe(2_234);
    expect(summary.by_status.error).toBe(2_234);
    // Each file was an upload in parts, put together once, none left open: the results, then
    // audit.csv's first write and its keys (audit.csv is a copy of it).
    expect(w.objects.completed).toEqual([
      `outbox/${w.batchId}/results.csv`,
      `outbox/${w.batchId}/results.xlsx`,
      expect.stringMatching(new RegExp(`^outbox/${w.batchId}/\\.audit/keys-1-\\d+\\.txt$`)),
      expect.stringMatching(new RegExp(`^outbox/${w.batchId}/\\.audit/audit-1-\\d+\\.csv$`)),
    ]);
    expect(w.objects.uploads.size).toBe(0);
    // erp-update.csv never filled a part (every row ended in error): put whole, one request.
    expect(
      Buffer.from(w.objects.objects.get(`outbox/${w.batchId}/erp-update.csv`)!.bytes).toString('utf8'),
    ).toBe('sku;declared_ncm;ncm;ex_tipi;cest;classification_id;approved_by;approved_at\r\n');
    const [header, ...records] = w.csv('results.csv');
    expect(records.map((record) => Number(record[header!.indexOf('row')]))).toEqual(
      Array.from({ length: 2_234 }, (_, i) => i + 1),
    );
  });

  it('writes the same bytes as a Finalize that fits one invocation', async () => {
    const { w } = await finalizedInLegs();
    const once = await finalizedAtOnce();

    for (const name of ['results.csv', 'results.xlsx', 'review.csv', 'summary.json']) {
      const inLegs = w.objects.objects.get(`outbox/${w.batchId}/${name}`)?.bytes;
      const atOnce = once.objects.objects.get(`outbox/${once.batchId}/${name}`)?.bytes;
      expect(inLegs, name).toBeDefined();
      expect(Buffer.from(inLegs!).equals(Buffer.from(atOnce!)), name).toBe(true);
    }
    // The workbook opens to every row, in order.
    const workbook = unzipSync(w.objects.objects.get(`outbox/${w.batchId}/results.xlsx`)!.bytes);
    const [resultsSheet] = workbookSheets(workbook);
    const rowNumbers = [...sheetCells(workbook, resultsSheet!.name).keys()].map((at) =>
      Number(/\d+$/.exec(at)![0]),
    );
    expect(Math.max(...rowNumbers)).toBe(2_235);
    expect(new Set(rowNumbers).size).toBe(2_235);
  });
});

describe('reused PDFs no longer stored', () => {
  it('leaves verdict_pdf empty and says so, without failing', async () => {
    const w = world();
    await seedReusedVerdict(w, { pdfStored: false });
    const state = await prepare(w);
    for (const row of [1, 3]) await finishRow(w, row, { status: 'failed', reason: 'no_valid_candidates' });

    await finalizeBatch(w.ports, state);

    const [header, ...records] = w.csv('results.csv');
    const row4 = records[3]!;
    expect(row4[header!.indexOf('verdict_pdf')]).toBe('');
    expect(row4[header!.indexOf('detail')]).toContain('no longer stored');
  });
});

describe('not this execution’s batch', () => {
  it('does nothing for a duplicate delivery', async () => {
    const w = world();
    const result = await finalizeBatch(w.ports, {
      ...objectCreated(),
      prepare: { batch_id: w.batchId, next: 'skip' },
    });
    expect(result).toMatchObject({ batch_id: w.batchId, state: 'skipped' });
    expect(w.objects.objects.size).toBe(1);
    expect(w.events.published).toHaveLength(0);
  });
});
