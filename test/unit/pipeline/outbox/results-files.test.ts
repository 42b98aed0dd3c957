/** results.csv, review.csv and summary.json built from records. */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { BatchRecord, ReviewItem, RowRecord } from '../../../../shared/pipeline/core/records.js';
import { RESULT_COLUMNS } from '../../../../shared/pipeline/core/result-columns.js';
import { OUTPUT_STATUSES } from '../../../../shared/pipeline/core/row-statuses.js';
import { buildSummary } from '../../../../shared/pipeline/finalize/summary-tally.js';
import {
  BatchSummary,
  buildResultsCsv,
  buildReviewCsv,
  pendingReviewItems,
  pendingRowsOf,
} from '../../../../shared/pipeline/outbox/results-files.js';
import { message, wordMessage } from '../../../../shared/wording/index.js';
import { textMessage } from '../../../../shared/wording/message.js';
import { batchOptions } from '../../../helpers/records.js';

const AT = '2026-11-21T12:00:00.000Z';
const NOW = new Date('2026-11-21T13:00:00.000Z');

const parseCsv = (bytes: Buffer, delimiter: string): string[][] => {
  const text = bytes.toString('utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  return Papa.parse<string[]>(text.slice(1), { delimiter, newline: '\r\n', skipEmptyLines: true }).data;
};

const batch = (overrides: Partial<BatchRecord> = {}): BatchRecord => ({
  batch_id: 'lote-abc123',
  name: 'lote',
  source: {
    bucket: 'bucket',
    key: 'inbox/lote/produtos.csv',
    version_or_etag: 'etag-1',
    folder: 'inbox/lote/',
    file_name: 'produtos.csv',
  },
  execution_id: 'arn:exec:1',
  state: 'completed',
  header: ['Código', 'Descrição', 'NCM atual', 'Observação'],
  delimiter: ';',
  rows_total: 3,
  rows_dispatched: 2,
  shard_count: 1,
  complete_shards: [0],
  problems: [],
  started_at: AT,
  ...overrides,
});

const row = (
  n: number,
  cells: string[],
  result: RowRecord['result'],
  extra: Partial<RowRecord> = {},
): RowRecord => ({
  batch_id: 'lote-abc123',
  row: n,
  line: n + 1,
  cells,
  status: result?.status ?? 'queued',
  attempt: 1,
  dispatch: 1,
  ...(result ? { result } : {}),
  updated_at: AT,
  ...extra,
});

describe('buildResultsCsv', () => {
  const rows = [
    row(2, ['CAF-2', '=HYPERLINK("http://evil")', '', '-desconto'], {
      status: 'rejected',
      reason: 'description_too_short',
      detail: 'Column "Descrição" has 9 characters.',
    }),
    row(1, ['CAF-1', 'Frango congelado em pedaços', '02071400', 'ok'], {
      status: 'resolved',
      classification_id: 'cls_7KQ2M9XW4RTB',
      ncm: '02071400',
      sim_code: '0207140010',
      current_ncm_matches: 'yes',
      cost_usd: '2.00',
      verdict_pdf: 'pdfs/00001-CAF-1.pdf',
    }),
    row(3, ['CAF-3', 'Café torrado em grãos', '', 'x', 'extra cell'], {
      status: 'reused',
      ncm: '0901.21.00',
      cost_usd: '0.00',
    }),
  ];
  const records = parseCsv(buildResultsCsv(batch(), rows), ';');

  it('writes the input header, unnamed columns for extra cells, then the result columns', () => {
    expect(records[0]).toEqual(['Código', 'Descrição', 'NCM atual', 'Observação', '', ...RESULT_COLUMNS]);
  });

  it('writes one record per row, in row order, with the input cells first as they were', () => {
    expect(records).toHaveLength(4);
    expect(records.slice(1).map((record) => record[0])).toEqual(['CAF-1', 'CAF-2', 'CAF-3']);
    expect(records[1]!.slice(0, 5)).toEqual(['CAF-1', 'Frango congelado em pedaços', '02071400', 'ok', '']);
    expect(records[3]!.slice(0, 5)).toEqual(['CAF-3', 'Café torrado em grãos', '', 'x', 'extra cell']);
  });

  it('fills the result columns by name; row is the row number', () => {
    const header = records[0]!;
    const cell = (record: string[], column: string) => record[header.indexOf(column)];
    expect(cell(records[1]!, 'row')).toBe('1');
    expect(cell(records[1]!, 'status')).toBe('resolved');
    expect(cell(records[1]!, 'cost_usd')).toBe('2.00');
    expect(cell(records[2]!, 'row')).toBe('2');
    expect(cell(records[2]!, 'reason')).toBe('description_too_short');
    expect(cell(records[2]!, 'classification_id')).toBe('');
  });

  it('writes NCMs as dotted text that keeps the leading zero', () => {
    const header = records[0]!;
    expect(records[1]![header.indexOf('ncm')]).toBe('0207.14.00');
    expect(records[1]![header.indexOf('sim_code')]).toBe('0207.14.00.10');
    expect(records[3]![header.indexOf('ncm')]).toBe('0901.21.00');
  });

  it('neutralises formulas, in input cells too', () => {
    expect(records[2]![1]).toBe('\'=HYPERLINK("http://evil")');
    expect(records[2]![3]).toBe("'-desconto");
  });

  it('uses the batch’s delimiter', () => {
    const comma = buildResultsCsv(batch({ delimiter: ',' }), rows).toString('utf8');
    expect(comma.split('\r\n')[0]).toBe(
      '\uFEFFCódigo,Descrição,NCM atual,Observação,,row,status,reason,detail,classification_id,verdict_from,app_url,title,check,approved_ncm,ncm,ncm_description,approved_sim,sim_code,confidence,confidence_band,alternatives,import_duty_applicable,duty_kind,statistical_rate,aec,export_duty,export_refund,tariff_source,verdict_pdf,questions,decided_by,decided_at,decision_note,current_ncm_matches,current_ncm_in_force,ncm_in_force,cost_usd',
    );
  });

  it('keeps an input column named like a result column, before ours', () => {
    const again = parseCsv(
      buildResultsCsv(batch({ header: ['status', 'Descrição'] }), [
        row(1, ['mine', 'Café torrado em grãos'], { status: 'resolved' }),
      ]),
      ';',
    );
    expect(again[0]!.filter((cell) => cell === 'status')).toHaveLength(2);
    expect(again[1]!.slice(0, 2)).toEqual(['mine', 'Café torrado em grãos']);
    expect(again[1]![2 + RESULT_COLUMNS.indexOf('status')]).toBe('resolved');
  });
});

const reviewItem = (
  n: number,
  questions: ReviewItem['questions'],
  overrides: Partial<ReviewItem> = {},
): ReviewItem => ({
  classification_id: `cls_H3N8P2QVZ6M${'ABCDEFGH'[n]}`,
  batch_id: 'lote-abc123',
  row: n,
  sku: `SKU-${n}`,
  external_reference: null,
  description: 'Rolamento de esferas',
  questions,
  provisional_ncm: '84821010',
  provisional_confidence: 55,
  abandons_at: '2026-12-21T12:00:00Z',
  state: 'pending',
  created_at: AT,
  ...overrides,
});

describe('results.csv in the language the batch chose', () => {
  it("words each detail in batch.json's language, the reason code kept as it is; English without one", () => {
    const rejected = row(1, ['A-1', 'Ureia', '', ''], {
      status: 'rejected',
      reason: 'operation_missing',
      detail: 'Column "operation": empty.',
      detail_messages: [message('operation_missing', { header: 'Operação' })],
      cost_usd: '0.00',
    });
    const detailOf = (options?: BatchRecord['options']) => {
      const [header, line] = parseCsv(buildResultsCsv(batch(options ? { options } : {}), [rejected]), ';');
      const at = (name: string) => line?.[header!.indexOf(name)];
      return { reason: at('reason'), detail: at('detail') };
    };

    const pt = detailOf(batchOptions({ language: 'pt' }));
    const es = detailOf(batchOptions({ language: 'es' }));
    const none = detailOf();

    expect(pt.reason).toBe('operation_missing');
    expect(pt.detail).toBe(wordMessage(message('operation_missing', { header: 'Operação' }), 'pt'));
    expect(es.detail).toBe(wordMessage(message('operation_missing', { header: 'Operação' }), 'es'));
    expect(pt.detail).not.toBe(es.detail);
    expect(none).toEqual({ reason: 'operation_missing', detail: 'Column "operation": empty.' });
  });
});

describe('buildReviewCsv', () => {
  it('has the review file’s columns, one question group per question of the item with the most', () => {
    const items = [
      reviewItem(4, [{ id: 'q1', text: 'Qual o diâmetro?', options: [] }]),
      reviewItem(2, [
        { id: 'q1', text: 'É blindado?', options: ['Sim', 'Não'] },
        { id: 'q2', text: '=1+1 material?', options: ['Aço', 'Cerâmica', 'Outro'] },
      ]),
    ];
    const records = parseCsv(buildReviewCsv(items, ';', { sameProductRows: new Map([[2, [5, 9]]]) }), ';');

    expect(records[0]).toEqual([
      'row',
      'sku',
      'external_reference',
      'description',
      'classification_id',
      'provisional_ncm',
      'provisional_confidence',
      'question_1_id',
      'question_1_text',
      'question_1_options',
      'answer_1',
      'question_2_id',
      'question_2_text',
      'question_2_options',
      'answer_2',
      'sheet',
      'abandons_at',
      'same_product_rows',
    ]);
    expect(records[1]).toEqual([
      '2',
      'SKU-2',
      '',
      'Rolamento de esferas',
      'cls_H3N8P2QVZ6MC',
      '8482.10.10',
      '55',
      'q1',
      'É blindado?',
      'Sim|Não',
      '',
      'q2',
      "'=1+1 material?",
      'Aço|Cerâmica|Outro',
      '',
      '',
      '2026-12-21T12:00:00Z',
      '5 9',
    ]);
    expect(records[2]!.at(-1)).toBe('');
    expect(records[2]!.slice(7, 15)).toEqual(['q1', 'Qual o diâmetro?', '', '', '', '', '', '']);
  });

  it('is header-only when nothing is pending', () => {
    const records = parseCsv(buildReviewCsv([], ','), ',');
    expect(records).toEqual([
      [
        'row',
        'sku',
        'external_reference',
        'description',
        'classification_id',
        'provisional_ncm',
        'provisional_confidence',
        'sheet',
        'abandons_at',
        'same_product_rows',
      ],
    ]);
  });

  it('lists only pending items whose row is still pending_data', () => {
    const items = [reviewItem(1, []), reviewItem(2, [], { state: 'answered' }), reviewItem(3, [])];
    const rows = [
      row(1, [], { status: 'pending_data' }),
      row(2, [], { status: 'pending_data' }),
      row(3, [], { status: 'resolved' }),
    ];
    expect(pendingReviewItems(items, pendingRowsOf(rows)).map((item) => item.row)).toEqual([1]);
  });
});

describe('buildSummary', () => {
  const rows = [
    row(1, [], { status: 'resolved', cost_usd: '2.00', current_ncm_matches: 'no' }),
    row(2, [], { status: 'resolved', cost_usd: '2.00', current_ncm_matches: 'yes' }),
    row(3, [], { status: 'reused', cost_usd: '0.00', current_ncm_matches: 'no' }),
    row(4, [], { status: 'reused', cost_usd: '0.00' }),
    row(5, [], { status: 'rejected', reason: 'country_unknown' }),
    row(6, [], { status: 'pending_data', cost_usd: '0.00' }),
    row(7, [], { status: 'not_submitted', reason: 'budget_exceeded', cost_usd: '0.00' }),
  ];

  it('counts every status, zeros included, and the money billed and saved', () => {
    const summary = buildSummary(batch({ finished_at: NOW.toISOString() }), rows, NOW);

    expect(BatchSummary.parse(summary)).toEqual(summary);
    expect(Object.keys(summary.by_status).sort()).toEqual([...OUTPUT_STATUSES].sort());
    expect(summary.by_status).toMatchObject({
      resolved: 2,
      reused: 2,
      rejected: 1,
      pending_data: 1,
      not_submitted: 1,
      failed: 0,
      error: 0,
      abandoned: 0,
    });
    expect(summary.rows_total).toBe(7);
    expect(summary.billed_usd).toBe(4);
    expect(summary.saved_usd).toBe(4);
    expect(summary.current_ncm_mismatches).toBe(2);
    expect(summary.source).toEqual({
      bucket: 'bucket',
      key: 'inbox/lote/produtos.csv',
      version_or_etag: 'etag-1',
    });
    expect(summary.outputs).toEqual({
      results: 'results.csv',
      review: 'review.csv',
      summary: 'summary.json',
      pdfs: 'pdfs/',
      results_workbook: 'results.xlsx',
      review_workbook: 'review.xlsx',
      erp_update: 'erp-update.csv',
    });
  });

  it('never carries the task token, even when the batch record holds one', () => {
    const token = 'AQCEAAAAKgAAAAMAAAAAAAAAAf1ZsecretTokenValue';
    const summary = buildSummary(batch({ task_token: token }), rows, NOW);
    expect(JSON.stringify(summary)).not.toContain(token);
    expect(summary).not.toHaveProperty('task_token');
  });

  it('shows how each column was understood and the warnings Prepare kept; none for a batch without them', () => {
    // The record keeps the columns read as fields; the others follow from the header.
    const columns = [{ column: 'A', header: 'Código', understood_as: 'sku' as const }];
    const warnings = [
      textMessage(
        'Column "Planos" (column E) is not read, but its cells look like technical sheet file names',
      ),
    ];

    const summary = buildSummary(batch({ columns, warnings }), rows, NOW);

    expect(BatchSummary.parse(summary)).toEqual(summary);
    expect(summary.columns).toEqual([
      { column: 'A', header: 'Código', understood_as: 'sku' },
      { column: 'B', header: 'Descrição', understood_as: null },
      { column: 'C', header: 'NCM atual', understood_as: null },
      { column: 'D', header: 'Observação', understood_as: null },
    ]);
    // Each message with its sentence for people.
    expect(summary.warnings).toEqual(warnings.map((warning) => ({ ...warning, text: warning.params.text })));
    expect(buildSummary(batch(), rows, NOW)).toMatchObject({ columns: [], warnings: [] });
  });

  it('takes finished_at from the batch when it has one, else now', () => {
    expect(buildSummary(batch(), rows, NOW).finished_at).toBe(NOW.toISOString());
    expect(buildSummary(batch({ finished_at: AT }), rows, NOW).finished_at).toBe(AT);
  });
});
