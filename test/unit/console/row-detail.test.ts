/**
 * One row opened (GET /batches/{batchId}/rows/{row}) and the rows table's supplier, through the
 * console function's handler as API Gateway calls it: every cell under its header, the declared
 * NCM's description from the table in force, the answers given in the service's words, a person's
 * decision with its note, who sent it again; the supplier shown and found by the search.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../../functions/console-runtime.js';
import { consoleWorld } from '../../helpers/console-world.js';
import { batchRecord, classificationId, reviewItem, rowRecord } from '../../helpers/records.js';

beforeAll(() => logger.setLogLevel('SILENT'));

const BATCH = 'products-1';
const HEADER = ['SKU', 'Descrição', 'NCM', 'Referência', 'Fornecedor'];
const USES = ['sku', 'description', 'current_ncm', 'external_reference', null] as const;

const product = (row: number, description: string) => ({
  row,
  description,
  operation: 'import' as const,
  country: 'TW',
  sheet: null,
  external_reference: 'PO-2026-0409',
  sku: `SKU-${row}`,
  current_ncm: '73181600',
  flags: [],
});

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
        understood_as: USES[index]!,
      })),
      rows_total: 2,
    }),
  );
  await world.ports.batches.putRows([
    rowRecord(1, {
      batch_id: BATCH,
      cells: [
        'SKU-1',
        'Parafuso sextavado M10 com porca',
        '73181600',
        'PO-2026-0409',
        'Chen Fasteners Co., Ltd.',
      ],
      product: product(1, 'Parafuso sextavado M10 com porca'),
      status: 'resolved',
      classification_id: classificationId(1),
      submitted_at: '2026-12-01T10:00:00.000Z',
      finished_at: '2026-12-01T10:01:00.000Z',
      result: {
        status: 'resolved',
        ncm: '73181500',
        ncm_description: 'Outros parafusos e pinos ou pernos, roscados',
        confidence: '84',
        cost_usd: '2.00',
        check: 'approved',
        approved_ncm: '73181500',
        decided_by: 'Ana',
        classification_id: classificationId(1),
      },
    }),
    rowRecord(2, {
      batch_id: BATCH,
      cells: ['SKU-2', 'Peças diversas', '', 'PO-2026-0430', 'Hansa Industrieteile GmbH'],
      product: { ...product(2, 'Peças diversas'), current_ncm: null },
      status: 'pending_data',
      classification_id: classificationId(2),
      result: { status: 'pending_data', cost_usd: '0.00' },
    }),
  ]);
  await world.ports.reviews.put(
    reviewItem(2, {
      batch_id: BATCH,
      row: 2,
      questions: [{ id: 'q1', text: 'Que peças são?', options: [] }],
      state: 'answered',
      answers: [{ question_id: 'q1', answer: 'Rolamentos de esferas' }],
      answered_by: 'Bia',
      answered_at: '2026-12-02T09:00:00.000Z',
    }),
  );
  return world;
};

describe('one row opened', () => {
  it('gives every cell under its header, the NCM descriptions and the answers in the service’s words', async () => {
    const world = await seed();

    const response = await world.call('console-read', 'GET /batches/{batchId}/rows/{row}', {
      params: { batchId: BATCH, row: '2' },
    });

    expect(response.status).toBe(200);
    expect(response.body.cells).toEqual([
      { header: 'SKU', value: 'SKU-2' },
      { header: 'Descrição', value: 'Peças diversas' },
      { header: 'NCM', value: '' },
      { header: 'Referência', value: 'PO-2026-0430' },
      { header: 'Fornecedor', value: 'Hansa Industrieteile GmbH' },
    ]);
    expect(response.body.answers).toEqual({
      by: 'Bia',
      at: '2026-12-02T09:00:00.000Z',
      given: [{ question: 'Que peças são?', answer: 'Rolamentos de esferas' }],
    });
    expect(response.body.view).toMatchObject({
      row: 2,
      status: 'pending_data',
      supplier: 'Hansa Industrieteile GmbH',
    });
  });

  it('names the declared NCM from the table in force, the decision with its note, and when the row ran', async () => {
    const world = await seed();
    await world.ports.checks.create({
      batch_id: BATCH,
      row: 1,
      classification_id: classificationId(1),
      product_key: 'sku:SKU-1',
      fingerprint: 'fp-1',
      sku: 'SKU-1',
      description: 'Parafuso sextavado M10 com porca',
      title: null,
      operation: 'import',
      country: 'TW',
      reasons: ['low_confidence'],
      check_below: 90,
      ncm: '73181500',
      confidence: 84,
      candidates: [],
      sim_options: [],
      verdict_pdf: null,
      followers: 0,
      state: 'to_check',
      created_at: '2026-12-01T10:01:00.000Z',
    });
    await world.ports.checks.decide(BATCH, 1, {
      ncm: '73181500',
      sim: null,
      note: 'Conferido com o desenho',
      by: 'Ana',
      at: '2026-12-02T10:00:00.000Z',
      round_id: `${BATCH}~d`,
    });

    const response = await world.call('console-read', 'GET /batches/{batchId}/rows/{row}', {
      params: { batchId: BATCH, row: '1' },
    });

    expect(response.body).toMatchObject({
      declared_ncm_description: expect.stringMatching(/\S/),
      decision: { ncm: '7318.15.00', note: 'Conferido com o desenho', by: 'Ana' },
      submitted_at: '2026-12-01T10:00:00.000Z',
      finished_at: '2026-12-01T10:01:00.000Z',
      classification_id: classificationId(1),
      resent: null,
    });
    expect(response.body.view).toMatchObject({
      ncm: '7318.15.00',
      declared_ncm: '7318.16.00',
      declared_ncm_matches: null,
    });
    const missing = await world.call('console-read', 'GET /batches/{batchId}/rows/{row}', {
      params: { batchId: BATCH, row: '9' },
    });
    expect(missing).toMatchObject({ status: 404, body: { code: 'row_not_found', params: { row: '9' } } });
  });
});

describe('the rows table and the supplier', () => {
  it('shows each row’s supplier and finds rows by it, accents and case aside', async () => {
    const world = await seed();

    const found = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: BATCH },
      query: { q: 'HANSA industrie' },
    });

    expect(found.body.rows.map((row: { row: number; supplier: string }) => [row.row, row.supplier])).toEqual([
      [2, 'Hansa Industrieteile GmbH'],
    ]);
  });
});
