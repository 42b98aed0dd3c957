/**
 * review.xlsx's column headers in Portuguese, Spanish and English: the questions sheet's, and the
 * sheet of verdicts to check (`CHECK_WORDS`, outbox/check-sheet.ts). Beside workbook-labels.ts,
 * which holds the rest of the workbooks' words and takes the questions' as `review`.
 */
import type { Language } from '../../spreadsheet/header-language.js';

/** The columns of review.xlsx's questions sheet that are not a question group. */
type ReviewColumn =
  | 'row'
  | 'sku'
  | 'external_reference'
  | 'description'
  | 'classification_id'
  | 'provisional_ncm'
  | 'provisional_confidence'
  | 'sheet'
  | 'abandons_at'
  | 'days_left'
  | 'same_product_rows';

/** The questions sheet's headers in one language, a question group's numbered by `n`. */
export type ReviewWords = Record<ReviewColumn, string> & {
  questionId: (n: number) => string;
  question: (n: number) => string;
  answer: (n: number) => string;
};

const PT: ReviewWords = {
  row: 'Linha',
  sku: 'SKU',
  external_reference: 'Referência externa',
  description: 'Descrição',
  classification_id: 'ID da classificação',
  provisional_ncm: 'NCM provisória',
  provisional_confidence: 'Confiança provisória',
  sheet: 'Nova ficha técnica (PDF)',
  abandons_at: 'Abandonada em (UTC)',
  days_left: 'Dias restantes',
  same_product_rows: 'Linhas do mesmo produto',
  questionId: (n) => `ID da pergunta ${n}`,
  question: (n) => `Pergunta ${n}`,
  answer: (n) => `Resposta ${n}`,
};

const ES: ReviewWords = {
  row: 'Fila',
  sku: 'SKU',
  external_reference: 'Referencia externa',
  description: 'Descripción',
  classification_id: 'ID de la clasificación',
  provisional_ncm: 'NCM provisoria',
  provisional_confidence: 'Confianza provisoria',
  sheet: 'Nueva ficha técnica (PDF)',
  abandons_at: 'Se abandona el (UTC)',
  days_left: 'Días restantes',
  same_product_rows: 'Filas del mismo producto',
  questionId: (n) => `ID de la pregunta ${n}`,
  question: (n) => `Pregunta ${n}`,
  answer: (n) => `Respuesta ${n}`,
};

const EN: ReviewWords = {
  row: 'Row',
  sku: 'SKU',
  external_reference: 'External reference',
  description: 'Description',
  classification_id: 'Classification ID',
  provisional_ncm: 'Provisional NCM',
  provisional_confidence: 'Provisional confidence',
  sheet: 'New technical sheet (PDF)',
  abandons_at: 'Abandoned on (UTC)',
  days_left: 'Days left',
  same_product_rows: 'Rows of the same product',
  questionId: (n) => `Question ${n} ID`,
  question: (n) => `Question ${n}`,
  answer: (n) => `Answer ${n}`,
};

/** The questions sheet's headers in Portuguese, Spanish and English, by language code. */
export const REVIEW_WORDS: Readonly<Record<Language, ReviewWords>> = { pt: PT, es: ES, en: EN };

/**
 * The sheet of verdicts to check (outbox/check-sheet.ts): its name, its headers (to-check.csv's
 * columns by their stable names, outbox/to-check-files.ts) and the hints of its decision cells.
 */
type CheckColumn =
  | 'row'
  | 'sku'
  | 'description'
  | 'title'
  | 'classification_id'
  | 'reasons'
  | 'ncm'
  | 'confidence'
  | 'sim_options'
  | 'verdict_pdf'
  | 'same_product_rows'
  | 'decision_ncm'
  | 'decision_sim'
  | 'decision_note';

/** The four columns each candidate NCM of a verdict to check takes. */
type CandidateColumn = 'ncm' | 'description' | 'confidence' | 'rationale';

/** The sheet of verdicts to check in one language: its name, headers, reasons and decision hints. */
export type CheckWords = Record<CheckColumn, string> & {
  sheet: string;
  candidate: (n: number, column: CandidateColumn) => string;
  /** `reasons`' values in words. */
  reason: { low_confidence: (below: number | null) => string; sim_pending_choice: string };
  hints: { ncmTitle: string; ncm: string; simTitle: string; sim: string; note: string };
};

const CANDIDATE_PT: Record<CandidateColumn, string> = {
  ncm: 'NCM',
  description: 'descrição',
  confidence: 'confiança',
  rationale: 'justificativa',
};
const CANDIDATE_ES: Record<CandidateColumn, string> = {
  ncm: 'NCM',
  description: 'descripción',
  confidence: 'confianza',
  rationale: 'justificación',
};

const CHECK_PT: CheckWords = {
  sheet: 'Conferir',
  row: 'Linha',
  sku: 'SKU',
  description: 'Descrição',
  title: 'Título',
  classification_id: 'ID da classificação',
  reasons: 'Por que conferir',
  ncm: 'NCM do serviço',
  confidence: 'Confiança do serviço',
  sim_options: 'Destaques SIM',
  verdict_pdf: 'Parecer (PDF)',
  same_product_rows: 'Linhas do mesmo produto',
  decision_ncm: 'NCM decidida',
  decision_sim: 'Destaque SIM decidido',
  decision_note: 'Observação da decisão',
  candidate: (n, column) => `Candidato ${n}: ${CANDIDATE_PT[column]}`,
  reason: {
    low_confidence: (below) => (below === null ? 'Confiança baixa' : `Confiança abaixo de ${below}%`),
    sim_pending_choice: 'Destaque SIM a escolher',
  },
  hints: {
    ncmTitle: 'NCM decidida',
    ncm: 'Escolha um candidato na lista ou digite uma NCM em vigor (8 dígitos).',
    simTitle: 'Destaque SIM',
    sim: 'Escolha um destaque SIM da lista, ou deixe vazio.',
    note: 'Por que esta NCM (opcional).',
  },
};

const CHECK_ES: CheckWords = {
  sheet: 'Revisar',
  row: 'Fila',
  sku: 'SKU',
  description: 'Descripción',
  title: 'Título',
  classification_id: 'ID de la clasificación',
  reasons: 'Por qué revisar',
  ncm: 'NCM del servicio',
  confidence: 'Confianza del servicio',
  sim_options: 'Aperturas SIM',
  verdict_pdf: 'Dictamen (PDF)',
  same_product_rows: 'Filas del mismo producto',
  decision_ncm: 'NCM decidida',
  decision_sim: 'Apertura SIM decidida',
  decision_note: 'Nota de la decisión',
  candidate: (n, column) => `Candidato ${n}: ${CANDIDATE_ES[column]}`,
  reason: {
    low_confidence: (below) => (below === null ? 'Confianza baja' : `Confianza por debajo de ${below}%`),
    sim_pending_choice: 'Apertura SIM por elegir',
  },
  hints: {
    ncmTitle: 'NCM decidida',
    ncm: 'Elija un candidato de la lista o escriba una NCM vigente (8 dígitos).',
    simTitle: 'Apertura SIM',
    sim: 'Elija una apertura SIM de la lista, o déjela vacía.',
    note: 'Por qué esta NCM (opcional).',
  },
};

const CHECK_EN: CheckWords = {
  sheet: 'To check',
  row: 'Row',
  sku: 'SKU',
  description: 'Description',
  title: 'Title',
  classification_id: 'Classification ID',
  reasons: 'Why check',
  ncm: "Service's NCM",
  confidence: "Service's confidence",
  sim_options: 'SIM openings',
  verdict_pdf: 'Verdict (PDF)',
  same_product_rows: 'Rows of the same product',
  decision_ncm: 'Decided NCM',
  decision_sim: 'Decided SIM opening',
  decision_note: 'Decision note',
  candidate: (n, column) => `Candidate ${n} ${column === 'ncm' ? 'NCM' : column}`,
  reason: {
    low_confidence: (below) => (below === null ? 'Low confidence' : `Confidence under ${below}%`),
    sim_pending_choice: 'SIM opening to choose',
  },
  hints: {
    ncmTitle: 'Decided NCM',
    ncm: 'Choose a candidate from the list or type an NCM in force (8 digits).',
    simTitle: 'SIM opening',
    sim: 'Choose a SIM opening from the list, or leave it empty.',
    note: 'Why this NCM (optional).',
  },
};

/** The sheet of verdicts to check in Portuguese, Spanish and English, by language code. */
export const CHECK_WORDS: Readonly<Record<Language, CheckWords>> = {
  pt: CHECK_PT,
  es: CHECK_ES,
  en: CHECK_EN,
};
