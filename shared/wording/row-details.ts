/**
 * What results.xlsx's and the console's `detail` say about a row that did not end resolved or
 * rejected, and the notes beside a verdict, in each language. results.csv keeps the English.
 */
import { count, type Phrase, plural } from './phrasing.js';

export const ROW_DETAIL_PHRASES = {
  failed: {
    pt: (p) =>
      `o serviço não conseguiu classificar o produto (${p.reason ?? 'sem motivo informado'}); sem cobrança`,
    es: (p) =>
      `el servicio no pudo clasificar el producto (${p.reason ?? 'sin motivo informado'}); sin cargo`,
    en: (p) => `the service could not classify the product (${p.reason ?? 'no reason given'}); not billed`,
  } satisfies Phrase<{ reason?: string }>,
  abandoned: {
    pt: () => 'as perguntas não foram respondidas em 30 dias; sem cobrança',
    es: () => 'las preguntas no se respondieron en 30 días; sin cargo',
    en: () => 'the questions were not answered within 30 days; not billed',
  } satisfies Phrase<Record<string, never>>,
  awaiting_answers: {
    pt: (p) =>
      `aguardando respostas a ${count('pt', p.questions)} ${plural(p.questions, 'pergunta', 'perguntas')} ` +
      '(veja review.csv)' +
      (p.provisional ? `; proposta provisória ${p.provisional}, não é um parecer` : ''),
    es: (p) =>
      `esperando respuestas a ${count('es', p.questions)} ${plural(p.questions, 'pregunta', 'preguntas')} ` +
      '(ver review.csv)' +
      (p.provisional ? `; propuesta provisoria ${p.provisional}, no es un dictamen` : ''),
    en: (p) =>
      `awaiting answers to ${p.questions} question${p.questions === 1 ? '' : 's'} (see review.csv)` +
      (p.provisional ? `; provisional proposal ${p.provisional}, not a verdict` : ''),
  } satisfies Phrase<{ questions: number; provisional?: string }>,
};
