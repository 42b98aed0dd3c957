/**
 * What the pipeline tells people (pipeline/notices/): a batch finished, questions wait for
 * answers and how long before the service abandons them, a reminder while they still wait, and
 * verdicts that wait to be checked. Each is a subject (`…_subject`, short, for an email's subject
 * line) and a text that says what to do and where, in the batch's language.
 */

import { count, type Phrase, plural, rows } from './phrasing.js';

/** Where the batch's files and its page are: the console's link when the stack has one, else the outbox folder. */
type Where = { name: string; link: string };

/** How a batch ended, in counts. */
type Finished = Where & {
  rows_total: number;
  resolved: number;
  pending: number;
  to_check: number;
  /** Rows that ended without a verdict: rejected, failed, abandoned, errors, not submitted. */
  without: number;
  billed: string;
};

/** Questions waiting: how many rows, which (the first few), and the days left before the first is abandoned. */
type Waiting = Where & { count: number; rows: number[]; days_left: number; until: string };

const days = (n: number, one: string, many: string) => `${n} ${plural(n, one, many)}`;

export const NOTICE_PHRASES = {
  notice_batch_finished_subject: {
    pt: (p) => `Lote ${p.name} terminado`,
    es: (p) => `Lote ${p.name} finalizado`,
    en: (p) => `Batch ${p.name} finished`,
  } satisfies Phrase<Where>,
  notice_batch_finished: {
    pt: (p) =>
      `O lote ${p.name} terminou: ${count('pt', p.rows_total)} ${plural(p.rows_total, 'linha', 'linhas')}, ` +
      `${count('pt', p.resolved)} com NCM, ${count('pt', p.pending)} com perguntas, ` +
      `${count('pt', p.to_check)} a conferir, ${count('pt', p.without)} sem parecer. ` +
      `Cobrado: USD ${p.billed}. Resultados: ${p.link}`,
    es: (p) =>
      `El lote ${p.name} terminó: ${count('es', p.rows_total)} ${plural(p.rows_total, 'fila', 'filas')}, ` +
      `${count('es', p.resolved)} con NCM, ${count('es', p.pending)} con preguntas, ` +
      `${count('es', p.to_check)} por revisar, ${count('es', p.without)} sin dictamen. ` +
      `Cobrado: USD ${p.billed}. Resultados: ${p.link}`,
    en: (p) =>
      `Batch ${p.name} finished: ${p.rows_total} ${plural(p.rows_total, 'row', 'rows')}, ${p.resolved} with an NCM, ` +
      `${p.pending} with questions, ${p.to_check} to check, ${p.without} without a verdict. ` +
      `Billed: USD ${p.billed}. Results: ${p.link}`,
  } satisfies Phrase<Finished>,
  notice_questions_waiting_subject: {
    pt: (p) =>
      `Lote ${p.name}: ${p.count} ${plural(p.count, 'pergunta espera', 'perguntas esperam')} resposta`,
    es: (p) =>
      `Lote ${p.name}: ${p.count} ${plural(p.count, 'pregunta espera', 'preguntas esperan')} respuesta`,
    en: (p) =>
      `Batch ${p.name}: ${p.count} ${plural(p.count, 'question waits', 'questions wait')} for answers`,
  } satisfies Phrase<Waiting>,
  notice_questions_waiting: {
    pt: (p) =>
      `No lote ${p.name}, o classificador fez perguntas sobre ${rows('pt', p.rows, p.count)}. ` +
      `Sem respostas, o serviço as abandona em ${days(p.days_left, 'dia', 'dias')} (${p.until}), sem cobrar, ` +
      `e essas linhas ficam sem NCM. Responda em: ${p.link}`,
    es: (p) =>
      `En el lote ${p.name}, el clasificador hizo preguntas sobre ${rows('es', p.rows, p.count)}. ` +
      `Sin respuestas, el servicio las abandona en ${days(p.days_left, 'día', 'días')} (${p.until}), sin cobrar, ` +
      `y esas filas quedan sin NCM. Responda en: ${p.link}`,
    en: (p) =>
      `In batch ${p.name}, the classifier asked questions about ${rows('en', p.rows, p.count)}. ` +
      `Unanswered, the service abandons them in ${days(p.days_left, 'day', 'days')} (${p.until}), unbilled, ` +
      `and those rows get no NCM. Answer at: ${p.link}`,
  } satisfies Phrase<Waiting>,
  notice_questions_reminder_subject: {
    pt: (p) => `Lembrete: lote ${p.name}, perguntas abandonadas em ${days(p.days_left, 'dia', 'dias')}`,
    es: (p) => `Recordatorio: lote ${p.name}, preguntas abandonadas en ${days(p.days_left, 'día', 'días')}`,
    en: (p) => `Reminder: batch ${p.name}, questions abandoned in ${days(p.days_left, 'day', 'days')}`,
  } satisfies Phrase<Waiting>,
  notice_questions_reminder: {
    pt: (p) =>
      `Ainda sem resposta no lote ${p.name}: ${rows('pt', p.rows, p.count)}. ` +
      `Faltam ${days(p.days_left, 'dia', 'dias')} (${p.until}) para o serviço abandonar as perguntas; ` +
      `depois disso essas linhas ficam sem NCM. Responda em: ${p.link}`,
    es: (p) =>
      `Aún sin respuesta en el lote ${p.name}: ${rows('es', p.rows, p.count)}. ` +
      `Faltan ${days(p.days_left, 'día', 'días')} (${p.until}) para que el servicio abandone las preguntas; ` +
      `después esas filas quedan sin NCM. Responda en: ${p.link}`,
    en: (p) =>
      `Still unanswered in batch ${p.name}: ${rows('en', p.rows, p.count)}. ` +
      `${days(p.days_left, 'day', 'days')} left (${p.until}) before the service abandons the questions; ` +
      `after that those rows get no NCM. Answer at: ${p.link}`,
  } satisfies Phrase<Waiting>,
  notice_verdicts_to_check_subject: {
    pt: (p) => `Lote ${p.name}: ${p.count} ${plural(p.count, 'parecer a conferir', 'pareceres a conferir')}`,
    es: (p) =>
      `Lote ${p.name}: ${p.count} ${plural(p.count, 'dictamen por revisar', 'dictámenes por revisar')}`,
    en: (p) => `Batch ${p.name}: ${p.count} ${plural(p.count, 'verdict', 'verdicts')} to check`,
  } satisfies Phrase<Where & { count: number }>,
  notice_verdicts_to_check: {
    pt: (p) =>
      `No lote ${p.name}, ${count('pt', p.count)} ${plural(p.count, 'parecer espera', 'pareceres esperam')} ` +
      `a conferência de uma pessoa antes de ir para o ERP (erp-update.csv os deixa de fora até lá). Confira em: ${p.link}`,
    es: (p) =>
      `En el lote ${p.name}, ${count('es', p.count)} ${plural(p.count, 'dictamen espera', 'dictámenes esperan')} ` +
      `la revisión de una persona antes de ir al ERP (erp-update.csv los deja fuera hasta entonces). Revise en: ${p.link}`,
    en: (p) =>
      `In batch ${p.name}, ${p.count} ${plural(p.count, 'verdict waits', 'verdicts wait')} for a person's check ` +
      `before going to the ERP (erp-update.csv leaves them out until then). Check at: ${p.link}`,
  } satisfies Phrase<Where & { count: number }>,
};
