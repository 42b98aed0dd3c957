/**
 * Rows sent again from the console (POST /resends), through the console function's handler as API
 * Gateway calls it: one resend file written into answers/<batch-id>/ as the signed-in person, with
 * only the cells that change; refusals that write nothing (a row not rejected or failed, a follower,
 * a sheet not uploaded, a row twice); and the rows table offering the cells a row would go with.
 */
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../../functions/console-runtime.js';
import { COGNITO_CLAIMS, consoleWorld } from '../../helpers/console-world.js';
import { batchRecord, rowRecord } from '../../helpers/records.js';

beforeAll(() => logger.setLogLevel('SILENT'));

const BATCH = 'products-1';
const HEADER = ['SKU', 'Descrição', 'Operação', 'País', 'Ficha'];
const FIELDS = ['sku', 'description', 'operation', 'country', 'sheet'] as const;

const seed = async () => {
  const world = consoleWorld();
  await world.ports.batches.createBatch(
    batchRecord({
      batch_id: BATCH,
      name: 'products',
      state: 'completed',
      header: HEADER,
      columns: HEADER.map((header, index) => ({
        column: 'ABCDE'[index]!,
        header,
        understood_as: FIELDS[index]!,
      })),
      rows_total: 4,
    }),
  );
  const product = {
    description: null,
    operation: 'import' as const,
    country: 'IT',
    sheet: 'sheets/scan.pdf',
    external_reference: null,
    sku: 'VAL-ESF',
    current_ncm: null,
    flags: [],
  };
  await world.ports.batches.putRows([
    rowRecord(1, {
      batch_id: BATCH,
      cells: ['PAS-TRA', 'Pastilha de freio traseira', 'Devolução', 'UY', ''],
      status: 'rejected',
      result: { status: 'rejected', reason: 'operation_invalid', cost_usd: '0.00' },
    }),
    rowRecord(2, {
      batch_id: BATCH,
      cells: ['VAL-ESF', '', 'Importação', 'IT', 'sheets/scan.pdf'],
      product: { ...product, row: 2 },
      status: 'failed',
      result: { status: 'failed', reason: 'unreadable_pdf', cost_usd: '0.00' },
    }),
    rowRecord(3, {
      batch_id: BATCH,
      cells: ['VAL-ESF', '', 'Importação', 'IT', 'sheets/scan.pdf'],
      product: { ...product, row: 3 },
      status: 'following',
      follows: 2,
    }),
    rowRecord(4, {
      batch_id: BATCH,
      cells: ['CAF-1', 'Café torrado em grãos', 'Exportação', 'US', ''],
      status: 'resolved',
      result: { status: 'resolved', ncm: '09012100', cost_usd: '2.00' },
    }),
  ]);
  return world;
};

const answersKeys = (world: ReturnType<typeof consoleWorld>) =>
  [...world.ports.objects.objects.keys()].filter((key) => key.startsWith('answers/') && key.endsWith('.csv'));

describe('rows sent again from the console', () => {
  it('writes one resend file, as the signed-in person, holding only the cells that change', async () => {
    const world = await seed();
    world.ports.objects.set(`answers/${BATCH}/sheets/valvula.pdf`, '%PDF-1.4');

    const response = await world.call('console-answers', 'POST /resends', {
      body: {
        batch_id: BATCH,
        rows: [
          { row: 1, operation: 'export' },
          { row: 2, sheet: 'sheets/valvula.pdf' },
        ],
      },
    });

    expect(response.status).toBe(201);
    const [key] = answersKeys(world);
    expect(response.body.files).toEqual([{ batch_id: BATCH, key, rows: [1, 2] }]);
    const csv = Papa.parse<Record<string, string>>(
      (world.ports.objects.text(key!) ?? '').replace(/^\uFEFF/, ''),
      {
        header: true,
        skipEmptyLines: true,
      },
    );
    expect(csv.data).toEqual([
      { resend_row: '1', description: '', operation: 'export', country: '', sheet: '' },
      { resend_row: '2', description: '', operation: '', country: '', sheet: 'sheets/valvula.pdf' },
    ]);
    const head = await world.ports.objects.head(key!);
    const writers = await world.ports.writers.find({
      key: key!,
      etag: head!.etag.replace(/"/g, ''),
      versionId: null,
    });
    expect(writers.map((record) => record.person.id)).toEqual([COGNITO_CLAIMS.sub]);
  });

  it('refuses, writing nothing, a resolved row, a follower, a sheet not uploaded and a row given twice', async () => {
    const world = await seed();
    const send = (rows: unknown[]) =>
      world.call('console-answers', 'POST /resends', { body: { batch_id: BATCH, rows } });

    expect(await send([{ row: 1 }, { row: 4 }])).toMatchObject({
      status: 409,
      body: { code: 'not_resendable', params: { row: 4, batch_name: 'products' } },
    });
    expect(await send([{ row: 3 }])).toMatchObject({
      status: 409,
      body: { code: 'not_resendable', params: { row: 3 } },
    });
    expect(await send([{ row: 2, sheet: 'sheets/nova.pdf' }])).toMatchObject({
      status: 400,
      body: { code: 'sheet_not_uploaded', params: { row: 2 } },
    });
    expect(await send([{ row: 2, sheet: '../inbox/x.pdf' }])).toMatchObject({ status: 400 });
    expect(await send([{ row: 1 }, { row: 1 }])).toMatchObject({
      status: 400,
      body: { code: 'invalid_request' },
    });
    expect(await send([{ row: 99 }])).toMatchObject({ status: 409, body: { code: 'not_resendable' } });
    expect(answersKeys(world)).toEqual([]);
  });

  it('offers on the rows table the cells a rejected or failed row would go with, and nothing on the others', async () => {
    const world = await seed();

    const response = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: BATCH },
    });

    expect(response.status).toBe(200);
    const resend = Object.fromEntries(
      (response.body.rows as { row: number; resend: unknown }[]).map((row) => [row.row, row.resend]),
    );
    expect(resend).toEqual({
      1: { description: 'Pastilha de freio traseira', operation: 'Devolução', country: 'UY', sheet: '' },
      2: { description: '', operation: 'import', country: 'IT', sheet: 'sheets/scan.pdf' },
      3: null,
      4: null,
    });
  });
});
