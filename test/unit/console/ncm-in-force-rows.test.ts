/**
 * What the NCM table in force says of each shown row's codes, through the console's read function
 * on memory ports: the NCM the row declared (dotted, a 7-digit one given back its zero), whether it
 * and the verdict's NCM are in force, the search by the declared NCM, the "codes not in force"
 * filter a page at a time, and the table the page names: the carried one, a newer one dropped
 * into reference/ncm/, or, for a finished batch, the one its summary.json names; and the table
 * as the page writes it in each language.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../../functions/console-runtime.js';
import type { RowRecord } from '../../../shared/pipeline/core/records.js';
import { formatNcmTable } from '../../../web/src/format.js';
import { consoleWorld } from '../../helpers/console-world.js';
import { seedCountedBatch } from '../../helpers/counted-batch.js';
import { BATCH, batchRecord, classificationId, rowRecord } from '../../helpers/records.js';
import { siscomexEntry, siscomexTable } from '../../helpers/siscomex-table.js';

beforeAll(() => logger.setLogLevel('SILENT'));

const CARRIED = { as_of: '2026-07-05', act: 'Resolução Gecex nº 812/2025' };

const product = (row: number, declared: string | null) => ({
  row,
  description: `Produto ${row}`,
  operation: 'import' as const,
  country: 'CN',
  sheet: null,
  external_reference: null,
  sku: `SKU-${row}`,
  current_ncm: declared,
  flags: [],
});

const resolved = (row: number, declared: string | null, ncm: string, matches?: 'yes' | 'no'): RowRecord =>
  rowRecord(row, {
    status: 'resolved',
    product: product(row, declared),
    classification_id: classificationId(row),
    result: {
      status: 'resolved',
      ncm,
      cost_usd: '2.00',
      ...(matches ? { current_ncm_matches: matches } : {}),
    },
    finished_at: `2026-11-21T12:0${row}:00.000Z`,
  });

/**
 * Row 1 declares 1513.21.10 (ended in 2022) and is classified 1513.21.11; row 2 declares 9012100
 * (0901.21.00 with its zero dropped) and gets it; row 3 declares nothing and its verdict is
 * 8517.12.31, no longer in force; row 4 follows row 3; row 5 declares 8517.12.31 and waits for
 * answers; row 6 declares text that is no code.
 */
const ROWS: RowRecord[] = [
  resolved(1, '1513.21.10', '15132111', 'no'),
  resolved(2, '9012100', '09012100', 'yes'),
  resolved(3, null, '85171231'),
  rowRecord(4, { status: 'following', follows: 3, product: product(4, null) }),
  rowRecord(5, {
    status: 'pending_data',
    product: product(5, '85171231'),
    classification_id: classificationId(5),
    result: { status: 'pending_data' },
    finished_at: '2026-11-21T12:05:00.000Z',
  }),
  rowRecord(6, { status: 'queued', product: product(6, 'ver planilha') }),
];

const seeded = async () => {
  const world = consoleWorld();
  await seedCountedBatch(
    world.ports.batches,
    batchRecord({ state: 'running', rows_total: ROWS.length, started_at: '2026-11-21T12:00:00.000Z' }),
    ROWS,
  );
  const rows = async (query: Record<string, string> = {}) => {
    const response = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: BATCH },
      query,
    });
    expect(response.status).toBe(200);
    return response.body;
  };
  return { world, rows };
};

const numbers = (body: Record<string, unknown>) => (body.rows as { row: number }[]).map((row) => row.row);

/** A table as Siscomex publishes it, dated after the carried one. */
const entry = (code: string, description: string) =>
  siscomexEntry(code, description, { starts: '01/01/2027' });
const NEWER_TABLE = JSON.stringify(
  siscomexTable('01/01/2027', 'Resolução Gecex nº 900/2026', [
    entry('09.01', 'Café'),
    entry('1513.21.11', 'De coco mbocaya'),
    entry('1513.21.19', 'Outros'),
    entry('8517.13.00', '-- Telefones inteligentes (smartphones)'),
  ]),
);

describe('rows checked against the NCM table in force', () => {
  it('shows each row its declared NCM and whether it and the verdict are codes in force', async () => {
    // Prepare
    const { rows } = await seeded();

    // Act
    const page = await rows();

    // Assess
    expect(page.ncm_table).toEqual(CARRIED);
    const shown = page.rows.map(
      (row: Record<string, unknown>) =>
        [row.row, row.declared_ncm, row.declared_ncm_in_force, row.ncm, row.ncm_in_force] as const,
    );
    expect(shown).toEqual([
      [1, '1513.21.10', false, '1513.21.11', true],
      [2, '0901.21.00', true, '0901.21.00', true],
      [3, null, null, '8517.12.31', false],
      // A follower shows its leader's verdict, and what the table says of it.
      [4, null, null, '8517.12.31', false],
      // No verdict yet: only the declared code is checked.
      [5, '8517.12.31', false, null, null],
      // Text that is no code is shown as written, and is no code in force.
      [6, 'ver planilha', false, null, null],
    ]);
  });

  it("marks the row whose declared NCM is not the verdict's, and keeps only those when asked, uncounted", async () => {
    const { rows } = await seeded();
    const page = await rows();
    expect(
      page.rows.map((row: { row: number; declared_ncm_matches: boolean | null }) => [
        row.row,
        row.declared_ncm_matches,
      ]),
    ).toEqual([
      [1, false],
      [2, true],
      [3, null],
      [4, null],
      [5, null],
      [6, null],
    ]);
    const divergent = await rows({ divergent: '1' });
    expect(numbers(divergent)).toEqual([1]);
    expect(divergent.matching).toBeNull();
    expect(numbers(await rows({ divergent: '1', status: 'pending_data' }))).toEqual([]);
  });

  it('finds a row by the NCM it declared, with or without dots', async () => {
    const { rows } = await seeded();
    expect(numbers(await rows({ q: '1513.21.10' }))).toEqual([1]);
    expect(numbers(await rows({ q: '15132110' }))).toEqual([1]);
    // 0901.21.00 is row 2's declared NCM and its verdict's: found once.
    expect(numbers(await rows({ q: '090121' }))).toEqual([2]);
    expect(numbers(await rows({ q: '85171231' }))).toEqual([3, 4, 5]);
  });

  it('keeps only the rows with a code not in force, uncounted, a page at a time, with a status filter too', async () => {
    // Prepare
    const { rows } = await seeded();

    // Act
    const all = await rows({ not_in_force: '1' });
    const resolvedOnly = await rows({ not_in_force: '1', status: 'resolved' });
    const first = await rows({ not_in_force: '1', limit: '2' });
    const rest = await rows({ not_in_force: '1', limit: '2', after: String(first.next) });
    const off = await rows({ not_in_force: '0' });

    // Assess
    expect(numbers(all)).toEqual([1, 3, 4, 5, 6]);
    expect(all.matching).toBeNull();
    // Row 4 stands as its leader does: resolved.
    expect(numbers(resolvedOnly)).toEqual([1, 3, 4]);
    expect(numbers(first)).toEqual([1, 3]);
    expect(first.next).toBe(3);
    expect(numbers(rest)).toEqual([4, 5]);
    expect(off.matching).toBe(ROWS.length);
    expect(numbers(off)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('refuses a not_in_force that is neither 0 nor 1, naming the field', async () => {
    const { world } = await seeded();
    const response = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: BATCH },
      query: { not_in_force: 'yes' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', params: { field: 'not_in_force' } });
  });

  it('checks against a newer table dropped into reference/ncm/ from the next request on, and names it', async () => {
    // Prepare
    const { world, rows } = await seeded();
    const before = await rows();

    // Act
    world.ports.objects.set('reference/ncm/Tabela_NCM_Vigente_20270101.json', NEWER_TABLE);
    const after = await rows();
    const batch = await world.call('console-read', 'GET /batches/{batchId}', { params: { batchId: BATCH } });

    // Assess
    const newer = { as_of: '2027-01-01', act: 'Resolução Gecex nº 900/2026' };
    expect(before.ncm_table).toEqual(CARRIED);
    expect(after.ncm_table).toEqual(newer);
    expect(batch.body.ncm_table).toEqual(newer);
    // 0901.21.00 is in the newer table no more (it holds only the heading 09.01).
    expect(after.rows[1]).toMatchObject({ row: 2, declared_ncm_in_force: false, ncm_in_force: false });
    expect(after.rows[0]).toMatchObject({ row: 1, declared_ncm_in_force: false, ncm_in_force: true });
  });
});

describe('the table a batch names', () => {
  it('is the table in force for a running batch, and the one its summary.json names once finished', async () => {
    // Prepare
    const { world } = await seeded();
    await world.ports.batches.createBatch(
      batchRecord({
        batch_id: 'done-1',
        state: 'completed',
        rows_total: 1,
        finished_at: '2026-11-20T08:05:00.000Z',
      }),
    );
    const summary = (ncmTable: object | null) =>
      JSON.stringify({
        batch_id: 'done-1',
        name: 'done-1',
        source: null,
        state: 'completed',
        rows_total: 1,
        rows_dispatched: 1,
        by_status: {
          resolved: 1,
          pending_data: 0,
          failed: 0,
          abandoned: 0,
          rejected: 0,
          reused: 0,
          not_submitted: 0,
          error: 0,
        },
        billed_usd: 2,
        saved_usd: 0,
        duplicates: { rows: 0, saved_usd: 0 },
        current_ncm_mismatches: 0,
        ...(ncmTable ? { ncm_table: ncmTable } : {}),
        started_at: null,
        finished_at: '2026-11-20T08:05:00.000Z',
        problems: [],
        warnings: [],
        columns: [],
        stop: null,
        options: null,
        outputs: { results: 'results.csv', review: 'review.csv', summary: 'summary.json', pdfs: 'pdfs/' },
      });
    const view = async (batchId: string) =>
      (await world.call('console-read', 'GET /batches/{batchId}', { params: { batchId } })).body;

    // Act
    const running = await view(BATCH);
    world.ports.objects.set('outbox/done-1/summary.json', summary(null));
    const finishedBefore = await view('done-1');
    world.ports.objects.set(
      'outbox/done-1/summary.json',
      summary({ as_of: '2026-01-01', act: 'Resolução Gecex nº 700/2025', source: 'reference/ncm/t.json' }),
    );
    const finished = await view('done-1');

    // Assess
    expect(running.ncm_table).toEqual(CARRIED);
    // A summary written before summaries named their table: the table in force.
    expect(finishedBefore.ncm_table).toEqual(CARRIED);
    expect(finishedBefore.by_status).toEqual({ resolved: 1 });
    expect(finished.ncm_table).toEqual({ as_of: '2026-01-01', act: 'Resolução Gecex nº 700/2025' });
  });
});

describe('the table as the page names it', () => {
  it('writes its day out in the reader’s language, then its act; the act alone when it has no day', () => {
    expect(formatNcmTable('pt', CARRIED)).toBe('5 de julho de 2026, Resolução Gecex nº 812/2025');
    expect(formatNcmTable('es', CARRIED)).toBe('5 de julio de 2026, Resolução Gecex nº 812/2025');
    expect(formatNcmTable('en', CARRIED)).toBe('July 5, 2026, Resolução Gecex nº 812/2025');
    expect(formatNcmTable('pt', { as_of: null, act: 'Resolução Gecex nº 812/2025' })).toBe(
      'Resolução Gecex nº 812/2025',
    );
  });
});
