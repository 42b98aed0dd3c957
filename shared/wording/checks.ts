/**
 * What the command line says of the verdicts a person checks (`check_below`, docs/architecture.md
 * §12): after a batch, how many wait and where to decide them; in a plan, what the threshold will
 * ask. The decisions' own sentences are in decisions.ts.
 */

import type { Language } from '../spreadsheet/header-language.js';
import { count, type Phrase, plural } from './phrasing.js';

/** `to_check`: rows still waiting; `approved`: rows a person approved; `folder`: where the batch's files are. */
type VerdictsToCheck = { to_check: number; approved: number; folder: string };

const approvedTail = (language: Language, approved: number): string => {
  if (approved === 0) return '';
  return {
    pt: `; ${count('pt', approved)} ${plural(approved, 'parecer já aprovado', 'pareceres já aprovados')} por uma pessoa`,
    es: `; ${count('es', approved)} ${plural(approved, 'dictamen ya aprobado', 'dictámenes ya aprobados')} por una persona`,
    en: `; ${approved} ${plural(approved, 'verdict', 'verdicts')} already approved by a person`,
  }[language];
};

/** `check_below`: the batch's threshold; `reused`: reused verdicts that will wait for a check. */
type PlanChecks = { check_below: number; reused: number };

export const CHECK_PHRASES = {
  verdicts_to_check: {
    pt: (p) =>
      (p.to_check === 0
        ? 'Nenhum parecer aguarda conferência'
        : `${count('pt', p.to_check)} ${plural(p.to_check, 'parecer aguarda', 'pareceres aguardam')} a conferência ` +
          'de uma pessoa (confiança abaixo de check_below ou abertura SIM a escolher): decida na aba "Conferir" ' +
          `de review.xlsx ou em to-check.csv, em ${p.folder}/, e devolva o arquivo com npm run answer`) +
      `${approvedTail('pt', p.approved)}.`,
    es: (p) =>
      (p.to_check === 0
        ? 'Ningún dictamen espera revisión'
        : `${count('es', p.to_check)} ${plural(p.to_check, 'dictamen espera', 'dictámenes esperan')} la revisión ` +
          'de una persona (confianza por debajo de check_below o apertura SIM por elegir): decida en la hoja ' +
          `"Revisar" de review.xlsx o en to-check.csv, en ${p.folder}/, y devuelva el archivo con npm run answer`) +
      `${approvedTail('es', p.approved)}.`,
    en: (p) =>
      (p.to_check === 0
        ? 'No verdict waits for a check'
        : `${p.to_check} ${plural(p.to_check, 'verdict waits', 'verdicts wait')} for a person's check ` +
          '(confidence under check_below, or a SIM opening to choose): decide them in the "To check" sheet of ' +
          `review.xlsx or in to-check.csv, in ${p.folder}/, and send the file back with npm run answer`) +
      `${approvedTail('en', p.approved)}.`,
  } satisfies Phrase<VerdictsToCheck>,
  plan_checks: {
    pt: (p) =>
      `check_below ${p.check_below}%: cada parecer com confiança abaixo disso, ou com abertura SIM a escolher, ` +
      `aguardará a conferência de uma pessoa; dos pareceres reaproveitados, ${count('pt', p.reused)} ` +
      `${plural(p.reused, 'aguardará', 'aguardarão')}.`,
    es: (p) =>
      `check_below ${p.check_below}%: cada dictamen con confianza por debajo, o con apertura SIM por elegir, ` +
      `esperará la revisión de una persona; de los dictámenes reutilizados, ${count('es', p.reused)} ` +
      `${plural(p.reused, 'esperará', 'esperarán')}.`,
    en: (p) =>
      `check_below ${p.check_below}%: every verdict under that confidence, or with a SIM opening to choose, ` +
      `will wait for a person's check; of the reused verdicts, ${p.reused} will.`,
  } satisfies Phrase<PlanChecks>,
};
