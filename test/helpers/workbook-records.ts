/**
 * The records results.xlsx and review.xlsx are written from in the workbook tests
 * (workbooks.test.ts, workbooks-libreoffice.test.ts): a finished batch with Portuguese headers, one
 * row of every output status (formula-looking descriptions, a control character, a row longer than
 * the header), and the products waiting for answers, whose deadlines each test sets.
 */

import type { BatchRecord, ReviewItem, RowRecord } from '../../shared/pipeline/core/records.js';
import type { RowResult } from '../../shared/pipeline/core/result-columns.js';
import type { WorkbookWords } from '../../shared/pipeline/outbox/workbook-labels.js';
import { textMessage } from '../../shared/wording/message.js';
import { batchRecord, classificationId, reviewItem, rowRecord } from './records.js';

/** The moment the workbooks are written at. */
export const NOW = new Date('2026-11-21T13:00:00.000Z');
export const HEADER_PT = ['SKU', 'Descrição', 'Operação', 'País', 'NCM atual', 'Observações'];

/** A completed batch of 8 rows with Portuguese headers and one warning, with the fields a case wants to change. */
export const workbookBatch = (overrides: Partial<BatchRecord> = {}): BatchRecord =>
  batchRecord({
    header: HEADER_PT,
    delimiter: ';',
    state: 'completed',
    rows_total: 8,
    rows_dispatched: 6,
    finished_at: '2026-11-21T12:59:00.000Z',
    warnings: [textMessage('A coluna "Observações" não foi lida')],
    ...overrides,
  });

const done = (n: number, cells: string[], result: RowResult): RowRecord =>
  rowRecord(n, { cells, status: result.status, result });

/** One row of every output status, rows 1 to 8 (2 first). */
export const ROWS: RowRecord[] = [
  // Out of order on purpose: both files list rows by number.
  done(2, ['CAF-2', '=SUM(A1:A9)', 'importação', 'BR', '02071400', ''], {
    status: 'reused',
    classification_id: classificationId(2),
    title: 'Frango congelado',
    ncm: '0207.14.00',
    confidence: '88',
    confidence_band: 'medium',
    export_duty: '5',
    export_refund: '3.25',
    verdict_pdf: 'pdfs/00002-CAF-2.pdf',
    current_ncm_matches: 'no',
    cost_usd: '0.00',
  }),
  done(1, ['CAF-1', 'Café torrado em grãos, pacote de 1 kg', 'importação', 'BR', '09012100', 'ok'], {
    status: 'resolved',
    classification_id: classificationId(1),
    app_url: `https://app.example.com/classifications/${classificationId(1)}`,
    title: 'Café torrado',
    ncm: '0901.21.00',
    ncm_description: 'Café torrado, não descafeinado, em grão',
    sim_code: '0901.21.00.10',
    confidence: '97',
    confidence_band: 'high',
    alternatives: '0901.22.00 (12%); 2101.11.10 (4%)',
    import_duty_applicable: '10',
    duty_kind: 'extrazone',
    statistical_rate: '0.5',
    aec: '12.6',
    tariff_source: 'TEC (Resolução Gecex 272/2021)',
    verdict_pdf: 'pdfs/00001-CAF-1.pdf',
    current_ncm_matches: 'yes',
    cost_usd: '2.00',
  }),
  done(3, ['ROL-3', '+55 caixa de rolamentos sortidos', 'importação', 'BR', '', ''], {
    status: 'pending_data',
    detail:
      'awaiting answers to 2 questions (see review.csv); provisional proposal 8482.10.10 (41%), not a verdict',
    classification_id: classificationId(3),
    app_url: `https://app.example.com/classifications/${classificationId(3)}`,
    questions: 'Qual é o produto? (Rolamento / Junta) | De que material é feito?',
    cost_usd: '0.00',
  }),
  done(4, ['PAR-4', '-desconto especial no parafuso', 'exportação', 'AR', '', ''], {
    status: 'failed',
    reason: 'insufficient_information',
    detail: 'the service could not classify the product: "insufficient_information"; not billed',
    classification_id: classificationId(4),
    cost_usd: '0.00',
  }),
  done(5, ['@cmd', '@cmd|calc', '', '', '', ''], {
    status: 'rejected',
    reason: 'description_too_short',
    detail: 'Column "Descrição" has 9 characters.',
  }),
  done(6, ['PAR-6', 'Parafuso\u0007 sextavado M8 de aço inox', 'importação', 'BR', '', ''], {
    status: 'not_submitted',
    reason: 'budget_exceeded',
    detail: 'the batch budget of US$ 10.00 was reached before this row',
  }),
  // A row longer than the header: its extra cell gets an unnamed column.
  done(7, ['PAR-7', 'Porca sextavada M8', 'importação', 'BR', '', '', 'célula extra'], {
    status: 'error',
    reason: 'internal_error',
    detail: '-1: the row could not be processed',
  }),
  done(8, ['ROL-8', 'Rolamento de esferas blindado 6204', 'importação', 'BR', '84821010', ''], {
    status: 'abandoned',
    classification_id: classificationId(8),
    // Not a link anyone should be able to click: shown as text.
    app_url: 'javascript:alert(1)',
    detail: 'the questions were not answered within 30 days; not billed',
    cost_usd: '0.00',
  }),
];

/**
 * The three products waiting for answers (rows 3, 9 and 12: questions with options, with quotes and
 * `&` in them, and without; a formula-looking description), abandoned at the given moments.
 */
export const waitingItems = (abandonsAt: readonly [string, string, string]): ReviewItem[] => [
  reviewItem(3, {
    sku: 'ROL-3',
    description: '+55 caixa de rolamentos sortidos',
    questions: [
      {
        id: 'q1',
        text: 'Qual é o produto?',
        options: ['Rolamento de esferas', 'Junta, "O-ring"', 'Outro & similar'],
      },
      { id: 'q2', text: 'De que material é feito?', options: [] },
    ],
    provisional_ncm: '84821010',
    provisional_confidence: 41,
    abandons_at: abandonsAt[0],
  }),
  reviewItem(9, {
    sku: 'VAL-9',
    external_reference: 'PED-2026/117',
    description: '=HYPERLINK("http://evil.example")',
    questions: [
      { id: 'mat', text: 'Material do corpo?', options: ['Aço', 'Latão'] },
      { id: 'ros', text: 'É roscada?', options: ['Sim', 'Não'] },
      { id: 'uso', text: 'Para que serve?', options: [] },
    ],
    provisional_ncm: null,
    provisional_confidence: null,
    abandons_at: abandonsAt[1],
  }),
  reviewItem(12, {
    sku: 'JUN-12',
    description: 'Junta de vedação',
    questions: [{ id: 'q1', text: 'Qual a aplicação?', options: ['Automotiva', 'Industrial'] }],
    provisional_confidence: 60,
    abandons_at: abandonsAt[2],
  }),
];

/** Row 3 leads rows 5 and 7, the same product: review.xlsx names them beside it. */
export const SAME_PRODUCT = new Map<number, readonly number[]>([[3, [5, 7]]]);

/** The questions sheet's header, in a language: what readAnswersFile must find its columns in. */
export const reviewHeader = (words: WorkbookWords, groups: number): string[] => {
  const r = words.review;
  return [
    r.row,
    r.sku,
    r.external_reference,
    r.description,
    r.classification_id,
    r.provisional_ncm,
    r.provisional_confidence,
    ...Array.from({ length: groups }, (_, i) => [
      r.questionId(i + 1),
      r.question(i + 1),
      r.answer(i + 1),
    ]).flat(),
    r.sheet,
    r.abandons_at,
    r.days_left,
    r.same_product_rows,
  ];
};

/** Everything a workbook stream writes, as bytes. */
export const streamBytes = async (stream: NodeJS.ReadableStream): Promise<Uint8Array> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
};
