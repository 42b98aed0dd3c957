/**
 * What an answers round says of each decision on a verdict to check (pipeline/answers/plan-decisions.ts):
 * answers-report.csv's detail of each decision line, and the round's messages in summary.json and
 * on the console. Each sentence names the row (or the file's line when the row cell is unreadable)
 * and, when a decision is refused, why and what to do.
 */

import type { Language } from '../spreadsheet/header-language.js';
import { count, type Phrase, plural, quoted, quotedList } from './phrasing.js';

/** Where a decision line is: its row, else its line in the file. */
type At = { row: number | null; line: number };

const where = (language: Language, p: At): string => {
  if (p.row !== null) return { pt: `Linha ${p.row}`, es: `Fila ${p.row}`, en: `Row ${p.row}` }[language];
  return {
    pt: `Linha ${p.line} do arquivo`,
    es: `Línea ${p.line} del archivo`,
    en: `Line ${p.line} of the file`,
  }[language];
};

/** ` (SIM 8471.30.12.00)` when a SIM opening was chosen. */
const withSim = (sim: string): string => (sim === '' ? '' : ` (SIM ${sim})`);

export const DECISION_PHRASES = {
  decision_applied: {
    pt: (p) =>
      `${where('pt', p)}: NCM ${p.ncm}${withSim(p.sim)} aprovada por ${p.by}` +
      `${p.followers > 0 ? `; vale também para ${count('pt', p.followers)} ${plural(p.followers, 'linha', 'linhas')} do mesmo produto` : ''}. ` +
      'Nada foi enviado ao serviço nem cobrado.',
    es: (p) =>
      `${where('es', p)}: NCM ${p.ncm}${withSim(p.sim)} aprobada por ${p.by}` +
      `${p.followers > 0 ? `; vale también para ${count('es', p.followers)} ${plural(p.followers, 'fila', 'filas')} del mismo producto` : ''}. ` +
      'No se envió nada al servicio ni se cobró.',
    en: (p) =>
      `${where('en', p)}: NCM ${p.ncm}${withSim(p.sim)} approved by ${p.by}` +
      `${p.followers > 0 ? `; it holds for ${p.followers} ${plural(p.followers, 'row', 'rows')} of the same product too` : ''}. ` +
      'Nothing was sent to the service or billed.',
  } satisfies Phrase<At & { ncm: string; sim: string; by: string; followers: number }>,
  decision_undecided: {
    pt: (p) => `${where('pt', p)}: sem decisão (NCM vazia); o parecer continua aguardando conferência.`,
    es: (p) => `${where('es', p)}: sin decisión (NCM vacía); el dictamen sigue esperando revisión.`,
    en: (p) => `${where('en', p)}: no decision (the NCM is empty); the verdict still waits to be checked.`,
  } satisfies Phrase<At>,
  decision_already_made: {
    pt: (p) =>
      `${where('pt', p)}: este parecer já foi decidido por ${p.by} em ${p.at} (NCM ${p.ncm}); ` +
      'não é decidido de novo.',
    es: (p) =>
      `${where('es', p)}: este dictamen ya lo decidió ${p.by} el ${p.at} (NCM ${p.ncm}); no se decide de nuevo.`,
    en: (p) =>
      `${where('en', p)}: this verdict was already decided by ${p.by} on ${p.at} (NCM ${p.ncm}); ` +
      'it is not decided again.',
  } satisfies Phrase<At & { by: string; at: string; ncm: string }>,
  decision_not_to_check: {
    pt: (p) =>
      `${where('pt', p)}: esta linha não tem parecer aguardando conferência neste lote; ` +
      'a linha foi copiada de outro lote?',
    es: (p) =>
      `${where('es', p)}: esta fila no tiene un dictamen esperando revisión en este lote; ` +
      '¿se copió la fila de otro lote?',
    en: (p) =>
      `${where('en', p)}: this row has no verdict waiting to be checked in this batch; ` +
      'was the line copied from another batch?',
  } satisfies Phrase<At>,
  decision_wrong_classification: {
    pt: (p) =>
      `${where('pt', p)}: o ID da classificação ${quoted(p.given)} não é o do parecer desta linha (${p.expected}); ` +
      'nada foi decidido. A linha foi movida ou editada?',
    es: (p) =>
      `${where('es', p)}: el ID de la clasificación ${quoted(p.given)} no es el del dictamen de esta fila (${p.expected}); ` +
      'no se decidió nada. ¿Se movió o editó la fila?',
    en: (p) =>
      `${where('en', p)}: the classification id ${quoted(p.given)} is not this row's verdict (${p.expected}); ` +
      'nothing was decided. Was the line moved or edited?',
  } satisfies Phrase<At & { given: string; expected: string }>,
  decision_ncm_not_a_code: {
    pt: (p) =>
      `${where('pt', p)}: ${quoted(p.text)} na coluna da NCM decidida não é uma NCM: são 8 dígitos, ` +
      'como 8471.30.12. Nada foi decidido.',
    es: (p) =>
      `${where('es', p)}: ${quoted(p.text)} en la columna de la NCM decidida no es una NCM: son 8 dígitos, ` +
      'como 8471.30.12. No se decidió nada.',
    en: (p) =>
      `${where('en', p)}: ${quoted(p.text)} in the decided NCM column is not an NCM: it takes 8 digits, ` +
      'like 8471.30.12. Nothing was decided.',
  } satisfies Phrase<At & { text: string }>,
  decision_ncm_not_in_force: {
    pt: (p) =>
      `${where('pt', p)}: a NCM ${p.ncm} não está em vigor na tabela NCM de ${p.table}; ` +
      'escolha um dos candidatos ou digite uma NCM em vigor. Nada foi decidido.',
    es: (p) =>
      `${where('es', p)}: la NCM ${p.ncm} no está vigente en la tabla NCM del ${p.table}; ` +
      'elija uno de los candidatos o escriba una NCM vigente. No se decidió nada.',
    en: (p) =>
      `${where('en', p)}: NCM ${p.ncm} is not in force in the NCM table of ${p.table}; ` +
      'choose one of the candidates or type a code in force. Nothing was decided.',
  } satisfies Phrase<At & { ncm: string; table: string }>,
  decision_sim_not_a_code: {
    pt: (p) =>
      `${where('pt', p)}: ${quoted(p.text)} na coluna do destaque SIM não é um código SIM: são 10 dígitos, ` +
      'como 8471.30.12.00. Nada foi decidido.',
    es: (p) =>
      `${where('es', p)}: ${quoted(p.text)} en la columna de la apertura SIM no es un código SIM: son 10 dígitos, ` +
      'como 8471.30.12.00. No se decidió nada.',
    en: (p) =>
      `${where('en', p)}: ${quoted(p.text)} in the SIM opening column is not a SIM code: it takes 10 digits, ` +
      'like 8471.30.12.00. Nothing was decided.',
  } satisfies Phrase<At & { text: string }>,
  decision_sim_not_an_option: {
    pt: (p) =>
      `${where('pt', p)}: o destaque SIM ${p.sim} não é um dos oferecidos para esta linha ` +
      `(${quotedList('pt', p.options)}); escolha um deles. Nada foi decidido.`,
    es: (p) =>
      `${where('es', p)}: la apertura SIM ${p.sim} no es una de las ofrecidas para esta fila ` +
      `(${quotedList('es', p.options)}); elija una de ellas. No se decidió nada.`,
    en: (p) =>
      `${where('en', p)}: SIM opening ${p.sim} is not one of those offered for this row ` +
      `(${quotedList('en', p.options)}); choose one of them. Nothing was decided.`,
  } satisfies Phrase<At & { sim: string; options: string[] }>,
  decision_sim_not_of_ncm: {
    pt: (p) =>
      `${where('pt', p)}: o destaque SIM ${p.sim} não é um desdobramento da NCM ${p.ncm} decidida; ` +
      'escolha um destaque dessa NCM ou deixe a coluna vazia. Nada foi decidido.',
    es: (p) =>
      `${where('es', p)}: la apertura SIM ${p.sim} no pertenece a la NCM ${p.ncm} decidida; ` +
      'elija una apertura de esa NCM o deje la columna vacía. No se decidió nada.',
    en: (p) =>
      `${where('en', p)}: SIM opening ${p.sim} is not an opening of the decided NCM ${p.ncm}; ` +
      'choose one of that NCM or leave the column empty. Nothing was decided.',
  } satisfies Phrase<At & { sim: string; ncm: string }>,
  decision_duplicate: {
    pt: (p) =>
      `${where('pt', p)}: a linha ${p.row ?? ''} já aparece neste arquivo (linha ${p.first_line} do arquivo); ` +
      'só a primeira é usada.',
    es: (p) =>
      `${where('es', p)}: la fila ${p.row ?? ''} ya aparece en este archivo (línea ${p.first_line} del archivo); ` +
      'solo se usa la primera.',
    en: (p) =>
      `${where('en', p)}: row ${p.row ?? ''} appears again in this file (first on line ${p.first_line}); ` +
      'only that first line is used.',
  } satisfies Phrase<At & { first_line: number }>,
  decisions_applied: {
    pt: (p) =>
      `${count('pt', p.decided)} de ${count('pt', p.of)} ${plural(p.of, 'parecer a conferir', 'pareceres a conferir')} ` +
      `de ${p.file} ${plural(p.decided, 'foi decidido', 'foram decididos')}, sem cobrança.`,
    es: (p) =>
      `${count('es', p.decided)} de ${count('es', p.of)} ${plural(p.of, 'dictamen a revisar', 'dictámenes a revisar')} ` +
      `de ${p.file} ${plural(p.decided, 'se decidió', 'se decidieron')}, sin cargo.`,
    en: (p) =>
      `${p.decided} of ${p.of} verdict(s) to check in ${p.file} ${plural(p.decided, 'was', 'were')} decided, not billed.`,
  } satisfies Phrase<{ decided: number; of: number; file: string }>,
  decisions_columns_missing: {
    pt: (p) =>
      `${p.file}: o arquivo de decisões não tem ${plural(p.missing.length, 'a coluna', 'as colunas')} ` +
      `${quotedList('pt', p.missing)}; devolva o to-check.csv ou o review.xlsx que o lote escreveu.`,
    es: (p) =>
      `${p.file}: el archivo de decisiones no tiene ${plural(p.missing.length, 'la columna', 'las columnas')} ` +
      `${quotedList('es', p.missing)}; devuelva el to-check.csv o el review.xlsx que escribió el lote.`,
    en: (p) =>
      `${p.file}: the decisions file has no ${quotedList('en', p.missing)} ${plural(p.missing.length, 'column', 'columns')}; ` +
      'send back the to-check.csv or review.xlsx the batch wrote.',
  } satisfies Phrase<{ file: string; missing: string[] }>,
};
