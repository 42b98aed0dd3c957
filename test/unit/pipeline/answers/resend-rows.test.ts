/**
 * Rows sent again (resend-rows.ts) through PrepareAnswers, over memory ports and the sandbox's
 * countries over HTTP: which rows of a resend file go back to work (a rejected or failed row whose
 * corrected cells pass Prepare's checks), which do not and why, and what a row sent again carries.
 */
import Papa from 'papaparse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../../local/sandbox/sandbox.js';
import { answersSourceFromEvent } from '../../../../shared/pipeline/answers/answers-source.js';
import { prepareAnswers } from '../../../../shared/pipeline/answers/prepare-answers.js';
import { readResendLines } from '../../../../shared/pipeline/answers/resend-file.js';
import { BatchRecord } from '../../../../shared/pipeline/core/records.js';
import { BATCH, BUCKET, byCli, drop, makeAnswersWorld, rowOf } from '../../../helpers/answers-batch.js';
import { batchOptions, rowRecord } from '../../../helpers/records.js';
import { tinyPdf } from '../../../helpers/tcs-fixtures.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    timeScale: 1,
    seed: 'resend-rows',
    log: 'silent',
    creationDelayMs: 0,
  });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const HEADER = ['SKU', 'Descrição', 'Operação', 'País', 'Ficha'];
const product = (row: number, sheet: string | null = null) => ({
  row,
  description: 'Válvula de esfera de latão 1/2 polegada',
  operation: 'import' as const,
  country: 'IT',
  sheet,
  external_reference: null,
  sku: `SKU-${row}`,
  current_ncm: null,
  flags: [],
});

/** A finished batch of four rows: 1 rejected (operation "Devolução"), 2 failed, 3 following 2, 4 resolved. */
const seed = async (options?: { language: 'pt' }) => {
  const w = makeAnswersWorld(sandbox);
  await w.batches.createBatch(
    BatchRecord.parse({
      batch_id: BATCH,
      name: 'lote',
      source: {
        bucket: BUCKET,
        key: 'inbox/lote/p.csv',
        version_or_etag: 'e1',
        folder: 'inbox/lote/',
        file_name: 'p.csv',
      },
      execution_id: 'batch-exec',
      state: 'completed',
      header: HEADER,
      columns: HEADER.map((header, index) => ({
        column: 'ABCDE'[index]!,
        header,
        understood_as: (['sku', 'description', 'operation', 'country', 'sheet'] as const)[index]!,
      })),
      rows_total: 4,
      ...(options ? { options: batchOptions(options) } : {}),
      started_at: '2026-12-01T10:00:00.000Z',
    }),
  );
  const cells = (row: number, operation: string, sheet = '') => [
    `SKU-${row}`,
    'Válvula de esfera de latão 1/2 polegada',
    operation,
    'IT',
    sheet,
  ];
  await w.batches.putRows([
    rowRecord(1, {
      batch_id: BATCH,
      cells: cells(1, 'Devolução'),
      status: 'rejected',
      rejection: {
        row: 1,
        reason: 'operation_invalid',
        column: 'operation',
        detail: 'x',
        issues: [{ reason: 'operation_invalid', column: 'operation', detail: 'x' }],
      },
      result: { status: 'rejected', reason: 'operation_invalid', cost_usd: '0.00' },
      finished_at: '2026-12-01T10:00:00.000Z',
    }),
    rowRecord(2, {
      batch_id: BATCH,
      cells: cells(2, 'Importação', 'scan.pdf'),
      product: product(2, 'scan.pdf'),
      status: 'failed',
      attempt: 1,
      classification_id: 'cls_22222222222A',
      result: { status: 'failed', reason: 'unreadable_pdf', cost_usd: '0.00' },
      finished_at: '2026-12-01T10:00:00.000Z',
    }),
    rowRecord(3, {
      batch_id: BATCH,
      cells: cells(3, 'Importação'),
      product: product(3),
      status: 'following',
      follows: 2,
    }),
    rowRecord(4, {
      batch_id: BATCH,
      cells: cells(4, 'Importação'),
      product: product(4),
      status: 'resolved',
      result: { status: 'resolved', ncm: '84818095', cost_usd: '2.00' },
    }),
  ]);
  return w;
};

const reportOf = (w: ReturnType<typeof makeAnswersWorld>) =>
  Papa.parse<Record<string, string>>(
    w.objects.text(`outbox/${BATCH}/answers-report.csv`)!.replace(/^\uFEFF/, ''),
    {
      header: true,
      skipEmptyLines: true,
    },
  ).data;

describe('readResendLines', () => {
  it('reads the row and the cells that change, headers in any spelling; an empty cell keeps the row’s', () => {
    const lines = readResendLines({
      header: ['Resend row', 'SHEET', 'operation', 'notes'],
      rows: [
        { row: 1, line: 2, cells: ['20', 'nova.pdf', '', 'x'] },
        { row: 2, line: 3, cells: ['3,0', '', "'=import", ''] },
        { row: 3, line: 4, cells: ['vinte', '', '', ''] },
      ],
    });
    expect(lines).toEqual([
      { line: 2, row: 20, description: '', operation: '', country: '', sheet: 'nova.pdf' },
      { line: 3, row: 3, description: '', operation: '=import', country: '', sheet: '' },
      { line: 4, row: null, description: '', operation: '', country: '', sheet: '' },
    ]);
  });
});

describe('a resend round', () => {
  it('sends back only rejected or failed rows whose corrected cells pass, and says why for each other line', async () => {
    const w = await seed();
    const csv = [
      'resend_row,description,operation,country,sheet',
      '1,,import,,',
      '2,,,,nova.pdf',
      '2,,,,',
      '3,,,,',
      '4,,,,',
      '99,,,,',
      'x,,,,',
    ].join('\r\n');
    const event = byCli(drop(w, csv, 'r1', 'resend.csv'), 'bia');
    const roundId = answersSourceFromEvent(event)!.roundId;

    const result = await prepareAnswers(w.ports, { event, execution_id: 'answers-exec-1' });

    expect(result).toMatchObject({ next: 'wait', round_id: roundId });
    expect(reportOf(w).map((line) => [line.row, line.outcome])).toEqual([
      ['1', 'resent'],
      ['2', 'still_rejected'],
      ['2', 'duplicate'],
      ['3', 'not_resendable'],
      ['4', 'not_resendable'],
      ['99', 'unknown_row'],
      ['', 'unknown_row'],
    ]);
    const report = reportOf(w);
    expect(report[1]?.detail).toMatch(/still cannot be sent; nothing was sent:.*nova\.pdf/);
    expect(report[3]?.detail).toContain('send row 2 again instead');
    // Row 1 goes with its operation corrected, under a new attempt, in the name of who sent it.
    expect(rowOf(w, 1)).toMatchObject({
      status: 'queued',
      attempt: 2,
      dispatch: 1,
      cells: ['SKU-1', 'Válvula de esfera de latão 1/2 polegada', 'import', 'IT', ''],
      product: { operation: 'import', country: 'IT', sku: 'SKU-1' },
      product_key: 'sku:SKU-1',
      round: { round_id: roundId, kind: 'resend', answered_by: 'bia', known_by: 'cli' },
    });
    expect(rowOf(w, 1)).not.toHaveProperty('result');
    expect(rowOf(w, 1)).not.toHaveProperty('rejection');
    expect(w.queue.sent.map((sent) => sent.message)).toEqual([
      { batch_id: BATCH, row: 1, attempt: 2, dispatch: 1, round_id: roundId },
    ]);
    // Nothing else moved.
    expect([2, 3, 4].map((row) => rowOf(w, row).status)).toEqual(['failed', 'following', 'resolved']);
    expect(w.audit.all(BATCH).filter((event) => event.event === 'resent')).toEqual([
      expect.objectContaining({
        row: 1,
        who: 'bia',
        known_by: 'cli',
        detail: `operation import, round ${roundId}`,
      }),
    ]);
  });

  it('sends a failed row with its new sheet, taken from the answers folder', async () => {
    const w = await seed();
    w.objects.set(`answers/${BATCH}/nova.pdf`, tinyPdf());
    const event = drop(w, 'resend_row,sheet\r\n2,nova.pdf\r\n', 'r2', 'resend.csv');

    await prepareAnswers(w.ports, { event, execution_id: 'answers-exec-2' });

    expect(reportOf(w).map((line) => line.outcome)).toEqual(['resent']);
    expect(rowOf(w, 2)).toMatchObject({
      status: 'queued',
      attempt: 2,
      sheet: { key: `answers/${BATCH}/nova.pdf`, file_name: 'nova.pdf' },
      product: { sheet: 'nova.pdf' },
      cells: ['SKU-2', 'Válvula de esfera de latão 1/2 polegada', 'Importação', 'IT', 'nova.pdf'],
    });
    expect(rowOf(w, 2)).not.toHaveProperty('classification_id');
  });

  it('words answers-report.csv in the language the batch chose, the outcome code kept for machines', async () => {
    const w = await seed({ language: 'pt' });
    const event = drop(w, 'resend_row,operation\r\n1,import\r\n4,\r\n', 'r3', 'resend.csv');

    await prepareAnswers(w.ports, { event, execution_id: 'answers-exec-3' });

    expect(reportOf(w).map((line) => [line.outcome, line.detail])).toEqual([
      ['resent', 'Linha 1 reenviada (operação: importação): uma nova classificação, cobrada só se resolver.'],
      [
        'not_resendable',
        'Linha 4 está resolvida: só uma linha rejeitada ou com falha é reenviada; nada foi enviado.',
      ],
    ]);
  });
});
