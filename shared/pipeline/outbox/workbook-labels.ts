/**
 * The words of results.xlsx and review.xlsx in Portuguese, Spanish and English: column headers,
 * statuses, the summary sheet, the hints of the answer cells (review.xlsx's own columns are in
 * review-labels.ts). The CSVs keep their stable column names for machines; the workbooks are for
 * people, in the batch's language (workbook-language.ts).
 *
 * The statuses' words are the ones every reader shares (core/row-statuses.ts): a row is called
 * the same thing in the workbook, on the page and on the command line.
 */
import type { Language } from '../../spreadsheet/header-language.js';
import type { BATCH_STATES } from '../core/records.js';
import type { ResultColumn } from '../core/result-columns.js';
import { type RowStatus, STATUS_WORDS } from '../core/row-statuses.js';
import { CHECK_WORDS, type CheckWords, REVIEW_WORDS, type ReviewWords } from './review-labels.js';

/** The most columns a worksheet holds (`XFD`), in Excel and LibreOffice alike. */
export const WORKSHEET_COLUMNS = 16_384;

const LOCALES: Record<Language, string> = { pt: 'pt-BR', es: 'es-AR', en: 'en-US' };
/** A count as the language groups its digits (`3.640`, `3,640`). */
const grouped = (language: Language, n: number): string => new Intl.NumberFormat(LOCALES[language]).format(n);

/** Every word a results.xlsx or review.xlsx shows, in one language. */
export type WorkbookWords = {
  /** The language these words are in: the messages a workbook shows are worded in it too (shared/wording/). */
  language: Language;
  /** Dates and times as the language's readers write them (every time in a workbook is UTC). */
  dateFormat: string;
  sheets: { results: string; summary: string; review: string; options: string };
  results: Record<ResultColumn, string>;
  status: Readonly<Record<RowStatus, string>>;
  batchState: Record<(typeof BATCH_STATES)[number], string>;
  /** Cell values the service gives as codes: `yes`/`no`, confidence bands, duty kinds. */
  values: Record<string, string>;
  review: ReviewWords;
  /** review.xlsx's sheet of verdicts to check (check-sheet.ts). */
  check: CheckWords;
  summary: {
    item: string;
    value: string;
    batch: string;
    name: string;
    state: string;
    source: string;
    rowsTotal: string;
    billed: string;
    saved: string;
    /** Where the saving came from: earlier verdicts reused, identical rows classified once. */
    savedFrom: string;
    duplicates: string;
    mismatches: string;
    startedAt: string;
    finishedAt: string;
    revision: string;
    asOf: string;
    problems: string;
    warnings: string;
    none: string;
    /** The line of a file wider than a worksheet: its label, and how many columns after which one. */
    columnsLeftOut: string;
    columnsLeftOutNote: (leftOut: number, lastKept: string) => string;
  };
  hints: {
    answerTitle: string;
    pickOrType: string;
    typeFreely: string;
    notSuggestedTitle: string;
    notSuggested: string;
    tooLongTitle: string;
    tooLong: string;
    sheet: string;
  };
};

const PT: WorkbookWords = {
  language: 'pt',
  dateFormat: 'dd/mm/yyyy hh:mm',
  sheets: { results: 'Resultados', summary: 'Resumo', review: 'Perguntas', options: 'Opções' },
  results: {
    row: 'Linha',
    status: 'Situação',
    reason: 'Motivo',
    detail: 'Detalhe',
    classification_id: 'ID da classificação',
    verdict_from: 'Parecer de outra origem',
    app_url: 'Link no app',
    title: 'Título',
    check: 'Conferência',
    approved_ncm: 'NCM aprovada',
    ncm: 'NCM',
    ncm_description: 'Descrição da NCM',
    approved_sim: 'SIM aprovado',
    sim_code: 'Código SIM',
    confidence: 'Confiança',
    confidence_band: 'Faixa de confiança',
    alternatives: 'Alternativas',
    import_duty_applicable: 'Imposto de importação aplicável',
    duty_kind: 'Tarifa aplicada',
    statistical_rate: 'Taxa de estatística',
    aec: 'TEC',
    export_duty: 'Imposto de exportação',
    export_refund: 'Reintegro na exportação',
    tariff_source: 'Fonte das tarifas',
    verdict_pdf: 'Parecer (PDF)',
    questions: 'Perguntas',
    decided_by: 'Decidido por',
    decided_at: 'Decidido em',
    decision_note: 'Nota da decisão',
    current_ncm_matches: 'NCM declarada confere',
    current_ncm_in_force: 'NCM declarada vigente',
    ncm_in_force: 'NCM vigente',
    cost_usd: 'Custo (USD)',
  },
  status: STATUS_WORDS.pt,
  batchState: {
    preparing: 'Preparando',
    running: 'Em andamento',
    finalizing: 'Finalizando',
    completed: 'Concluído',
    failed: 'Falhou',
  },
  values: {
    yes: 'Sim',
    to_check: 'A conferir',
    approved: 'Aprovada',
    no: 'Não',
    high: 'Alta',
    medium: 'Média',
    low: 'Baixa',
    intrazone: 'Intrazona (Mercosul)',
    extrazone: 'Extrazona',
  },
  review: REVIEW_WORDS.pt,
  check: CHECK_WORDS.pt,
  summary: {
    item: 'Item',
    value: 'Valor',
    batch: 'Lote',
    name: 'Nome',
    state: 'Estado',
    source: 'Arquivo enviado',
    rowsTotal: 'Linhas',
    billed: 'Cobrado (USD)',
    saved: 'Economizado (USD)',
    savedFrom: 'De onde veio a economia',
    duplicates: 'Linhas que aproveitaram a classificação de outra do mesmo produto',
    mismatches: 'Linhas cuja NCM declarada difere do parecer',
    startedAt: 'Início (UTC)',
    finishedAt: 'Fim (UTC)',
    revision: 'Revisão dos resultados',
    asOf: 'Situação em (UTC)',
    problems: 'Problemas',
    warnings: 'Avisos',
    none: 'Nenhum',
    columnsLeftOut: 'Colunas deixadas de fora',
    columnsLeftOutNote: (n, last) =>
      `As últimas ${grouped('pt', n)} colunas do arquivo (depois da coluna ${last}) não estão nesta pasta de trabalho: ` +
      `uma planilha comporta no máximo ${grouped('pt', WORKSHEET_COLUMNS)} colunas, contando as dos resultados. ` +
      'O results.csv tem todas as colunas.',
  },
  hints: {
    answerTitle: 'Resposta',
    pickOrType: 'Escolha uma das respostas sugeridas na lista ou escreva a sua (até 500 caracteres).',
    typeFreely: 'Escreva a resposta com suas palavras (até 500 caracteres).',
    notSuggestedTitle: 'Resposta fora da lista',
    notSuggested:
      'Esta resposta não está entre as sugeridas. Ela será enviada como você a escreveu. Continuar?',
    tooLongTitle: 'Resposta longa demais',
    tooLong: 'O serviço aceita respostas de até 500 caracteres.',
    sheet: 'Opcional: o caminho de uma nova ficha em PDF, enviada junto com esta planilha.',
  },
};

const ES: WorkbookWords = {
  language: 'es',
  dateFormat: 'dd/mm/yyyy hh:mm',
  sheets: { results: 'Resultados', summary: 'Resumen', review: 'Preguntas', options: 'Opciones' },
  results: {
    row: 'Fila',
    status: 'Estado',
    reason: 'Motivo',
    detail: 'Detalle',
    classification_id: 'ID de la clasificación',
    verdict_from: 'Dictamen de otro origen',
    app_url: 'Enlace en la app',
    title: 'Título',
    check: 'Revisión',
    approved_ncm: 'NCM aprobada',
    ncm: 'NCM',
    ncm_description: 'Descripción de la NCM',
    approved_sim: 'SIM aprobado',
    sim_code: 'Código SIM',
    confidence: 'Confianza',
    confidence_band: 'Nivel de confianza',
    alternatives: 'Alternativas',
    import_duty_applicable: 'Derecho de importación aplicable',
    duty_kind: 'Arancel aplicado',
    statistical_rate: 'Tasa de estadística',
    aec: 'AEC',
    export_duty: 'Derecho de exportación',
    export_refund: 'Reintegro de exportación',
    tariff_source: 'Fuente de los aranceles',
    verdict_pdf: 'Dictamen (PDF)',
    questions: 'Preguntas',
    decided_by: 'Decidido por',
    decided_at: 'Decidido el',
    decision_note: 'Nota de la decisión',
    current_ncm_matches: 'NCM declarada coincide',
    current_ncm_in_force: 'NCM declarada vigente',
    ncm_in_force: 'NCM vigente',
    cost_usd: 'Costo (USD)',
  },
  status: STATUS_WORDS.es,
  batchState: {
    preparing: 'Preparando',
    running: 'En curso',
    finalizing: 'Finalizando',
    completed: 'Completado',
    failed: 'Falló',
  },
  values: {
    yes: 'Sí',
    to_check: 'Por revisar',
    approved: 'Aprobada',
    no: 'No',
    high: 'Alta',
    medium: 'Media',
    low: 'Baja',
    intrazone: 'Intrazona (Mercosur)',
    extrazone: 'Extrazona',
  },
  review: REVIEW_WORDS.es,
  check: CHECK_WORDS.es,
  summary: {
    item: 'Dato',
    value: 'Valor',
    batch: 'Lote',
    name: 'Nombre',
    state: 'Estado',
    source: 'Archivo enviado',
    rowsTotal: 'Filas',
    billed: 'Facturado (USD)',
    saved: 'Ahorrado (USD)',
    savedFrom: 'De dónde vino el ahorro',
    duplicates: 'Filas que aprovecharon la clasificación de otra del mismo producto',
    mismatches: 'Filas cuya NCM declarada difiere del dictamen',
    startedAt: 'Inicio (UTC)',
    finishedAt: 'Fin (UTC)',
    revision: 'Revisión de los resultados',
    asOf: 'Estado al (UTC)',
    problems: 'Problemas',
    warnings: 'Avisos',
    none: 'Ninguno',
    columnsLeftOut: 'Columnas omitidas',
    columnsLeftOutNote: (n, last) =>
      `Las últimas ${grouped('es', n)} columnas del archivo (después de la columna ${last}) no están en este libro: ` +
      `una hoja admite como máximo ${grouped('es', WORKSHEET_COLUMNS)} columnas, contando las de los resultados. ` +
      'results.csv tiene todas las columnas.',
  },
  hints: {
    answerTitle: 'Respuesta',
    pickOrType: 'Elija una de las respuestas sugeridas de la lista o escriba la suya (hasta 500 caracteres).',
    typeFreely: 'Escriba la respuesta con sus palabras (hasta 500 caracteres).',
    notSuggestedTitle: 'Respuesta fuera de la lista',
    notSuggested: 'Esta respuesta no está entre las sugeridas. Se enviará tal como la escribió. ¿Continuar?',
    tooLongTitle: 'Respuesta demasiado larga',
    tooLong: 'El servicio acepta respuestas de hasta 500 caracteres.',
    sheet: 'Opcional: la ruta de una nueva ficha en PDF, enviada junto con esta planilla.',
  },
};

const EN: WorkbookWords = {
  language: 'en',
  dateFormat: 'yyyy-mm-dd hh:mm',
  sheets: { results: 'Results', summary: 'Summary', review: 'Questions', options: 'Options' },
  results: {
    row: 'Row',
    status: 'Status',
    reason: 'Reason',
    detail: 'Detail',
    classification_id: 'Classification ID',
    verdict_from: 'Verdict from another origin',
    app_url: 'Link in the app',
    title: 'Title',
    check: 'Check',
    approved_ncm: 'Approved NCM',
    ncm: 'NCM',
    ncm_description: 'NCM description',
    approved_sim: 'Approved SIM',
    sim_code: 'SIM code',
    confidence: 'Confidence',
    confidence_band: 'Confidence band',
    alternatives: 'Alternatives',
    import_duty_applicable: 'Import duty applicable',
    duty_kind: 'Duty applied',
    statistical_rate: 'Statistical rate',
    aec: 'Common external tariff',
    export_duty: 'Export duty',
    export_refund: 'Export refund',
    tariff_source: 'Tariff source',
    verdict_pdf: 'Verdict (PDF)',
    questions: 'Questions',
    decided_by: 'Decided by',
    decided_at: 'Decided at',
    decision_note: 'Decision note',
    current_ncm_matches: 'Declared NCM matches',
    current_ncm_in_force: 'Declared NCM in force',
    ncm_in_force: 'NCM in force',
    cost_usd: 'Cost (USD)',
  },
  status: STATUS_WORDS.en,
  batchState: {
    preparing: 'Preparing',
    running: 'Running',
    finalizing: 'Finalizing',
    completed: 'Completed',
    failed: 'Failed',
  },
  values: {
    yes: 'Yes',
    to_check: 'To check',
    approved: 'Approved',
    no: 'No',
    high: 'High',
    medium: 'Medium',
    low: 'Low',
    intrazone: 'Intra-zone (Mercosur)',
    extrazone: 'Extra-zone',
  },
  review: REVIEW_WORDS.en,
  check: CHECK_WORDS.en,
  summary: {
    item: 'Item',
    value: 'Value',
    batch: 'Batch',
    name: 'Name',
    state: 'State',
    source: 'File sent',
    rowsTotal: 'Rows',
    billed: 'Billed (USD)',
    saved: 'Saved (USD)',
    savedFrom: 'Where the saving came from',
    duplicates: 'Rows that shared the classification of another row of the same product',
    mismatches: 'Rows whose declared NCM differs from the verdict',
    startedAt: 'Started (UTC)',
    finishedAt: 'Finished (UTC)',
    revision: 'Revision of the results',
    asOf: 'As of (UTC)',
    problems: 'Problems',
    warnings: 'Warnings',
    none: 'None',
    columnsLeftOut: 'Columns left out',
    columnsLeftOutNote: (n, last) =>
      `The last ${grouped('en', n)} columns of the file (after column ${last}) are not in this workbook: ` +
      `a worksheet holds at most ${grouped('en', WORKSHEET_COLUMNS)} columns, the results' included. ` +
      'results.csv has every column.',
  },
  hints: {
    answerTitle: 'Answer',
    pickOrType: 'Pick one of the suggested answers from the list, or type your own (up to 500 characters).',
    typeFreely: 'Type the answer in your own words (up to 500 characters).',
    notSuggestedTitle: 'Answer not in the list',
    notSuggested: 'This answer is not one of the suggested ones. It will be sent as you wrote it. Continue?',
    tooLongTitle: 'Answer too long',
    tooLong: 'The service takes answers of up to 500 characters.',
    sheet: 'Optional: the path of a new PDF technical sheet, sent along with this workbook.',
  },
};

/** The workbooks' words in Portuguese, Spanish and English, by language code. */
export const WORKBOOK_WORDS: Readonly<Record<Language, WorkbookWords>> = { pt: PT, es: ES, en: EN };
