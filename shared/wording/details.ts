/**
 * What a row's detail says (results.csv's `detail`, results.xlsx, the console): a list of
 * messages, worded from the phrases a detail is made of only: a row's outcome (row-details.ts),
 * a rejected row's issues (rejections.ts), a sentence written before messages had codes. The
 * functions that finish a row word its detail in English as they record it, and hold these tables,
 * not every message's (index.ts). Browser-safe.
 */

import {
  type Message,
  messageOf,
  type PhraseParams,
  TEXT_PHRASES,
  textMessage,
  wordFrom,
} from './message.js';
import type { Language } from './phrasing.js';
import { REJECTION_PHRASES } from './rejections.js';
import { ROW_DETAIL_PHRASES } from './row-details.js';

/** Every phrase a row's detail is worded from, by code. */
export const DETAIL_PHRASES = { ...TEXT_PHRASES, ...REJECTION_PHRASES, ...ROW_DETAIL_PHRASES };
export type DetailCode = keyof typeof DETAIL_PHRASES;

/** A message of a row's detail, its parameters checked against its wording (`undefined` ones left out). */
export const detailMessage = <C extends DetailCode>(
  code: C,
  params: PhraseParams<(typeof DETAIL_PHRASES)[C]>,
): Message => messageOf(code, params);

/** A row's detail as messages: its own, else its sentence as written (a result from before codes). */
export const detailMessagesOf = (result: { detail?: string; detail_messages?: Message[] }): Message[] => {
  if (result.detail_messages && result.detail_messages.length > 0) return result.detail_messages;
  return result.detail ? [textMessage(result.detail)] : [];
};

/**
 * Sentences of a detail as one text: after a full sentence the next follows a space, after a
 * phrase (a verdict's notes, `not billed`) a semicolon, as results.csv always wrote them.
 */
const joinDetail = (sentences: readonly string[]): string =>
  sentences
    .filter((sentence) => sentence !== '')
    .reduce(
      (text, sentence) => (text === '' ? sentence : `${text}${/[.!?]$/.test(text) ? ' ' : '; '}${sentence}`),
      '',
    );

const wordAll = (said: readonly Message[], language: Language): string[] =>
  said.map((one) => wordFrom(DETAIL_PHRASES, one, language));

/** A row's detail in `language`: its messages worded, one after the other. */
export const wordDetail = (
  result: { detail?: string; detail_messages?: Message[] },
  language: Language,
): string => joinDetail(wordAll(detailMessagesOf(result), language));

/** A detail's messages and its English, as a result keeps them (results.csv's `detail`). */
export const detailOf = (said: readonly Message[]): { detail: string; detail_messages: Message[] } => ({
  detail: joinDetail(wordAll(said, 'en')),
  detail_messages: [...said],
});
