/**
 * The words of results.xlsx's divergence sheet in Portuguese, Spanish and English: its name, its
 * note, its column headers, what diverges on a row, and the summary's lines about it. The columns
 * it shares with the results sheet (row, status, duties, verdict PDF) take that sheet's words
 * (workbook-labels.ts), so a column is called the same thing on both sheets.
 */
import type { Language } from '../../spreadsheet/header-language.js';

/** The divergence sheet's own columns; the others are result columns, worded as on the results sheet. */
export type DivergenceOwnColumn =
  | 'sku'
  | 'description'
  | 'declared_ncm'
  | 'declared_description'
  | 'declared_in_force'
  | 'declared_alternative'
  | 'ncm'
  | 'ncm_description'
  | 'ncm_in_force'
  | 'divergence';

/** The table a workbook's codes were checked against, as its note and summary name it. */
type TableNamed = { asOf: string | null; act: string };

/** Every word the divergence sheet and its summary lines need, in one language. */
export type DivergenceWords = {
  sheet: string;
  columns: Record<DivergenceOwnColumn, string>;
  /** What diverges on a row: its declared code differs from the verdict's, is not in force, or both. */
  differs: string;
  notInForce: string;
  /** The sheet's first line: which rows it lists, where the descriptions come from, why no duties for the declared code. */
  note: (table: TableNamed | null) => string;
  summary: {
    /** How many rows the divergence sheet lists. */
    listed: string;
    /** The NCM table the codes were checked against. */
    table: string;
    tableValue: (table: TableNamed) => string;
  };
};

/** `2026-07-05` as the language writes a date. */
const dayOf = (language: Language, iso: string): string => {
  const [year, month, day] = iso.split('-');
  return language === 'en' ? iso : `${day}/${month}/${year}`;
};

/** `vigente em 05/07/2026 ` with the word before the date, or nothing when the table names no day. */
const onDay = (language: Language, before: string, table: TableNamed): string =>
  table.asOf === null ? '' : `${before} ${dayOf(language, table.asOf)} `;

const PT: DivergenceWords = {
  sheet: 'Divergências de NCM',
  columns: {
    sku: 'SKU',
    description: 'Descrição do produto',
    declared_ncm: 'NCM declarada',
    declared_description: 'Descrição da NCM declarada',
    declared_in_force: 'NCM declarada vigente',
    declared_alternative: 'Confiança da NCM declarada como alternativa',
    ncm: 'NCM do parecer',
    ncm_description: 'Descrição da NCM do parecer',
    ncm_in_force: 'NCM do parecer vigente',
    divergence: 'Divergência',
  },
  differs: 'Difere do parecer',
  notInForce: 'Declarada não vigente',
  note: (table) =>
    (table
      ? 'Linhas cuja NCM declarada difere da NCM do parecer ou não está vigente na Tabela NCM ' +
        `${onDay('pt', 'vigente em', table)}(${table.act}), de onde vêm as descrições. `
      : 'Linhas cuja NCM declarada difere da NCM do parecer. ') +
    'Os impostos são os da NCM do parecer: o serviço não informa os impostos da NCM declarada; ' +
    'quando ela está entre as alternativas do parecer, a confiança que o serviço lhe deu aparece na sua coluna.',
  summary: {
    listed: 'Linhas na aba Divergências de NCM',
    table: 'Tabela NCM usada na verificação',
    tableValue: (table) => `${onDay('pt', 'Vigente em', table)}(${table.act})`,
  },
};

const ES: DivergenceWords = {
  sheet: 'Divergencias de NCM',
  columns: {
    sku: 'SKU',
    description: 'Descripción del producto',
    declared_ncm: 'NCM declarada',
    declared_description: 'Descripción de la NCM declarada',
    declared_in_force: 'NCM declarada vigente',
    declared_alternative: 'Confianza de la NCM declarada como alternativa',
    ncm: 'NCM del dictamen',
    ncm_description: 'Descripción de la NCM del dictamen',
    ncm_in_force: 'NCM del dictamen vigente',
    divergence: 'Divergencia',
  },
  differs: 'Difiere del dictamen',
  notInForce: 'Declarada no vigente',
  note: (table) =>
    (table
      ? 'Filas cuya NCM declarada difiere de la NCM del dictamen o no está vigente en la Tabla NCM ' +
        `${onDay('es', 'vigente al', table)}(${table.act}), de la que vienen las descripciones (en portugués). `
      : 'Filas cuya NCM declarada difiere de la NCM del dictamen. ') +
    'Los derechos son los de la NCM del dictamen: el servicio no informa los de la NCM declarada; ' +
    'cuando está entre las alternativas del dictamen, la confianza que el servicio le dio aparece en su columna.',
  summary: {
    listed: 'Filas en la hoja Divergencias de NCM',
    table: 'Tabla NCM usada en la verificación',
    tableValue: (table) => `${onDay('es', 'Vigente al', table)}(${table.act})`,
  },
};

const EN: DivergenceWords = {
  sheet: 'NCM divergences',
  columns: {
    sku: 'SKU',
    description: 'Product description',
    declared_ncm: 'Declared NCM',
    declared_description: 'Declared NCM description',
    declared_in_force: 'Declared NCM in force',
    declared_alternative: 'Declared NCM’s confidence as an alternative',
    ncm: 'Verdict NCM',
    ncm_description: 'Verdict NCM description',
    ncm_in_force: 'Verdict NCM in force',
    divergence: 'Divergence',
  },
  differs: 'Differs from the verdict',
  notInForce: 'Declared code not in force',
  note: (table) =>
    (table
      ? "Rows whose declared NCM differs from the verdict's or is not in force in the NCM table " +
        `${onDay('en', 'in force on', table)}(${table.act}), which gives the descriptions (in Portuguese). `
      : "Rows whose declared NCM differs from the verdict's. ") +
    "The duties are the verdict NCM's: the service gives none for the declared NCM; " +
    'when it is one of the verdict’s alternatives, the confidence the service gave it is in its column.',
  summary: {
    listed: 'Rows on the NCM divergences sheet',
    table: 'NCM table the codes were checked against',
    tableValue: (table) => `${onDay('en', 'In force on', table)}(${table.act})`,
  },
};

/** The divergence sheet's words in Portuguese, Spanish and English, by language code. */
export const DIVERGENCE_WORDS: Readonly<Record<Language, DivergenceWords>> = { pt: PT, es: ES, en: EN };
