/** Spec-shaped resources for client tests. Each builder returns a fresh object to mutate. */
import type { Timer } from '../../shared/tcs/retry.js';

export const CLS_ID = 'cls_7KQ2M9XW4RTB';
const NOW_ISO = '2026-11-21T12:00:00Z';

export const candidate = (overrides: Record<string, unknown> = {}) => ({
  rank: 1,
  ncm: '09012100',
  description: 'Não descafeinado',
  product_name: 'Café torrado em grãos',
  confidence: 92,
  confidence_band: 'high',
  is_provisional: false,
  hierarchy: {
    section: { code: 'II', description: 'Produtos do reino vegetal' },
    chapter: { code: '09', description: 'Café, chá, mate e especiarias.' },
    heading: { code: '0901', description: 'Café, mesmo torrado ou descafeinado' },
    subheading: { code: '090121', description: 'Não descafeinado' },
  },
  rationale: 'Café torrado, não descafeinado: posição 09.01, subposição 0901.21.',
  applied_rules: ['1', '6'],
  cited_notes: [{ id: 'Nota 1 do Capítulo 9', text: 'As misturas entre si…' }],
  discarded_alternatives: [
    { ncm: '09012200', description: 'Descafeinado', reason: 'O produto não é descafeinado.' },
  ],
  missing_data: [],
  sim: {
    status: 'auto_selected',
    code: '0901210010',
    options: [{ code: '0901210010', description: 'Em grão' }],
    verified_at: NOW_ISO,
  },
  ...overrides,
});

const base = (overrides: Record<string, unknown>) => ({
  id: CLS_ID,
  status: 'in_progress',
  stage: 'retrieval',
  failure_reason: null,
  title: null,
  operation: 'import',
  country: 'CO',
  description: 'Café torrado em grãos, não descafeinado, embalagem de 1 kg',
  external_reference: 'batch-1:row-1',
  source: 'api',
  has_file: false,
  file_has_text_layer: null,
  cost_credits: 0,
  candidates: [],
  candidates_are_provisional: false,
  chosen_ncm: null,
  chosen_sim_code: null,
  questions: [],
  answers: [],
  tariffs: null,
  reviewed: null,
  feedback: null,
  pdf_url: null,
  author: { type: 'api_key', key_label: 'batch' },
  created_at: '2026-11-21T11:59:00Z',
  resolved_at: null,
  deleted_at: null,
  ...overrides,
});

export const inProgressClassification = (overrides: Record<string, unknown> = {}) => base(overrides);

export const resolvedClassification = (overrides: Record<string, unknown> = {}) =>
  base({
    status: 'resolved',
    stage: null,
    title: 'Café torrado em grãos',
    candidates: [candidate()],
    chosen_ncm: '09012100',
    chosen_sim_code: '0901210010',
    tariffs: importTariff(),
    pdf_url: `https://api.example.test/v1/classifications/${CLS_ID}/pdf`,
    resolved_at: NOW_ISO,
    ...overrides,
  });

export const pendingClassification = (overrides: Record<string, unknown> = {}) =>
  base({
    status: 'pending_data',
    stage: null,
    questions: [
      { id: 'q1', text: 'O café é descafeinado?', options: ['Sim', 'Não'] },
      { id: 'q2', text: 'Qual a embalagem?', options: [] },
    ],
    candidates: [candidate({ is_provisional: true, confidence: 55, confidence_band: 'medium' })],
    candidates_are_provisional: true,
    ...overrides,
  });

export const failedClassification = (overrides: Record<string, unknown> = {}) =>
  base({ status: 'failed', stage: null, failure_reason: 'timed_out', ...overrides });

export const importTariff = () => ({
  found: true,
  operation: 'import',
  import_duty_intrazone: 0,
  import_duty_extrazone: 10,
  import_duty_applicable: 10,
  duty_kind: 'extrazone',
  statistical_rate: 0,
  aec: null,
  source: 'TEC',
  queried_at: NOW_ISO,
});

export const exportTariff = () => ({
  found: true,
  operation: 'export',
  export_duty: 0,
  export_refund: 0,
  source: 'TEC',
  queried_at: NOW_ISO,
});

export const tariffNotFound = () => ({ found: false, reason: 'no_data', source: 'TEC', queried_at: NOW_ISO });

export const accepted = (overrides: Record<string, unknown> = {}) => ({
  id: CLS_ID,
  status: 'in_progress',
  stage: 'extraction',
  app_url: `https://app.example.test/classifications/${CLS_ID}`,
  ...overrides,
});

/** A clock that only moves when the client sleeps; every requested wait is recorded. */
export const fakeTimer = (start = Date.parse(NOW_ISO)) => {
  const sleeps: number[] = [];
  let now = start;
  const timer: Timer = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => 0.5,
  };
  return {
    timer,
    sleeps,
    advance: (ms: number) => {
      now += ms;
    },
  };
};

/** Smallest well-formed PDF we need to exercise uploads (header, one empty page, trailer). */
export const tinyPdf = (): Uint8Array =>
  new TextEncoder().encode(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
      '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  );
