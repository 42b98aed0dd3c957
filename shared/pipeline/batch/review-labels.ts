/**
 * review.xlsx's column headers in Portuguese, Spanish and English: the questions sheet's. Beside
 * workbook-labels.ts, which holds the rest of the workbooks' words and takes these as `review`.
 */
import type { Language } from '../../spreadsheet/header-language.js';

export type ReviewColumn =
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

export const REVIEW_WORDS: Readonly<Record<Language, ReviewWords>> = { pt: PT, es: ES, en: EN };
