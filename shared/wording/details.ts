/**
 * A row's detail as it is recorded (results.csv's `detail`, results.xlsx, the console): a list of
 * messages and their English, worded from the phrases the pipeline adds to a row after Prepare
 * only: its outcome (row-details.ts) and a sentence written before messages had codes. A rejected
 * row's detail is its issues', written at Prepare (rejections.ts), never through here. The
 * functions that finish a row word its detail in English as they record it, and hold this table,
 * not every message's: a detail is read in another language through index.ts (`wordDetail`).
 * Browser-safe.
 */

import {
  type Message,
  messageOf,
  type PhraseParams,
  TEXT_PHRASES,
  textMessage,
  wordFrom,
} from './message.js';
import { ROW_DETAIL_PHRASES } from './row-details.js';

/** Every phrase the pipeline adds to a row's detail, by code. */
const DETAIL_PHRASES = { ...TEXT_PHRASES, ...ROW_DETAIL_PHRASES };
type DetailCode = keyof typeof DETAIL_PHRASES;

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
 * Takes a detail's sentences and gives them as one text: after a full sentence the next follows a
 * space, after a phrase (a verdict's notes, `not billed`) a semicolon, as results.csv always wrote
 * them; empty sentences are left out.
 */
export const joinDetail = (sentences: readonly string[]): string =>
  sentences
    .filter((sentence) => sentence !== '')
    .reduce(
      (text, sentence) => (text === '' ? sentence : `${text}${/[.!?]$/.test(text) ? ' ' : '; '}${sentence}`),
      '',
    );

/** A detail's messages and its English, as a result keeps them (results.csv's `detail`). */
export const detailOf = (said: readonly Message[]): { detail: string; detail_messages: Message[] } => ({
  detail: joinDetail(said.map((one) => wordFrom(DETAIL_PHRASES, one, 'en'))),
  detail_messages: [...said],
});
