/**
 * Every sentence a person reads about a batch, from one table, in Portuguese, Spanish and
 * English: rejections, warnings, problems and row details are kept as messages (a code and its
 * parameters, message.ts) and worded where they are shown: the workbooks and the command line in
 * the batch's language, the console's page in its viewer's. Browser-safe: the page imports it
 * through shared/console/web-contract.ts.
 *
 * Adding a sentence: an entry in the table of its area (each gives pt, es and en), then
 * `message('its_code', params)` where it is made.
 */
import type { Language } from '../spreadsheet/header-language.js';
import { ANSWERS_REPORT_PHRASES } from './answers-report.js';
import { CHECK_PHRASES } from './checks.js';
import { DECISION_PHRASES } from './decisions.js';
import { detailMessagesOf, joinDetail } from './details.js';
import {
  type Message,
  type MessageParams,
  messageOf,
  type PhraseParams,
  TEXT_PHRASES,
  wordFrom,
} from './message.js';
import { NOTICE_PHRASES } from './notices.js';
import type { Phrase } from './phrasing.js';
import { PROBLEM_PHRASES } from './problems.js';
import { REJECTION_PHRASES } from './rejections.js';
import { ROW_DETAIL_PHRASES } from './row-details.js';

export { reasonName } from './reason-names.js';

import { SAVING_PHRASES } from './savings.js';
import { WARNING_PHRASES } from './warnings.js';

/**
 * A problem an answers round (or the daily sweep) adds to its batch's: the round's file, then the
 * problem itself, whose code and parameters are this message's own (`round_code`, the rest).
 */
type RoundProblem = { round_code: string; round_file?: string } & MessageParams;
const inner = (p: RoundProblem, language: Language): string => {
  const { round_code, round_file: _file, ...params } = p;
  return wordMessage({ code: round_code, params }, language);
};
const ROUND_PHRASES = {
  round_problem: {
    pt: (p) =>
      `${p.round_file ? `Respostas ${p.round_file}` : 'Desde que o lote terminou'}: ${inner(p, 'pt')}`,
    es: (p) =>
      `${p.round_file ? `Respuestas ${p.round_file}` : 'Desde que terminó el lote'}: ${inner(p, 'es')}`,
    en: (p) => `${p.round_file ? `Answers ${p.round_file}` : 'Since the batch finished'}: ${inner(p, 'en')}`,
  } satisfies Phrase<RoundProblem>,
};

/** A round's problem as its batch says it (`round_problem`). */
export const roundProblem = (said: Message, roundFile: string | null): Message => ({
  code: 'round_problem',
  params: { ...said.params, round_code: said.code, ...(roundFile ? { round_file: roundFile } : {}) },
});

/** Every message's wording, by code. Each area's codes are its own (a test checks none repeats). */
export const PHRASES = {
  ...TEXT_PHRASES,
  ...REJECTION_PHRASES,
  ...WARNING_PHRASES,
  ...PROBLEM_PHRASES,
  ...ROW_DETAIL_PHRASES,
  ...ROUND_PHRASES,
  ...SAVING_PHRASES,
  ...DECISION_PHRASES,
  ...ANSWERS_REPORT_PHRASES,
  ...CHECK_PHRASES,
  ...NOTICE_PHRASES,
};
export type MessageCode = keyof typeof PHRASES;

/** The parameters a code's wording takes. */
export type ParamsOf<C extends MessageCode> = PhraseParams<(typeof PHRASES)[C]>;

/** The areas' tables, for the test that every code is worded in every language. */
export const PHRASE_TABLES = {
  text: TEXT_PHRASES,
  rejections: REJECTION_PHRASES,
  warnings: WARNING_PHRASES,
  problems: PROBLEM_PHRASES,
  row_details: ROW_DETAIL_PHRASES,
  rounds: ROUND_PHRASES,
  savings: SAVING_PHRASES,
  decisions: DECISION_PHRASES,
  answers_report: ANSWERS_REPORT_PHRASES,
  checks: CHECK_PHRASES,
  notices: NOTICE_PHRASES,
} as const;

/** A message of a known code, its parameters checked against its wording (`undefined` ones left out). */
export const message = <C extends MessageCode>(code: C, params: ParamsOf<C>): Message =>
  messageOf(code, params);

/**
 * A message as a sentence in `language`. A code this table does not know (a record written by a
 * newer version) or parameters its wording cannot use show the parameters' `text` when there is
 * one, else the code itself: a reader is never without a sentence.
 */
export const wordMessage = (said: Message, language: Language): string => wordFrom(PHRASES, said, language);

/** Each message as a sentence in `language`. */
export const wordMessages = (said: readonly Message[], language: Language): string[] =>
  said.map((one) => wordMessage(one, language));

/**
 * Takes a row's result and gives its detail in `language`: its messages worded, one after the
 * other, a rejected row's issues as any other outcome (details.ts records the English only).
 */
export const wordDetail = (
  result: { detail?: string; detail_messages?: Message[] },
  language: Language,
): string => joinDetail(wordMessages(detailMessagesOf(result), language));

/** Messages as a summary.json shows them: code and parameters for programs, `text` for people. */
export const shownMessages = (said: readonly Message[], language: Language): (Message & { text: string })[] =>
  said.map((one) => ({ ...one, text: wordMessage(one, language) }));

/** The same message twice (same code, same parameters): a list says it once. */
export const sameMessage = (a: Message, b: Message): boolean =>
  a.code === b.code && JSON.stringify(a.params) === JSON.stringify(b.params);

/** The messages, each said once, in their first order. */
export const uniqueMessages = (said: readonly Message[]): Message[] =>
  said.filter((one, index) => said.findIndex((other) => sameMessage(one, other)) === index);
