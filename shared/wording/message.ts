/**
 * A message for a person, kept as a code and its parameters rather than as a sentence, so each
 * reader words it in its own language: the workbooks and the command line in the batch's, the
 * console's page in its viewer's (`wordMessage`, index.ts). Also how a message is made and worded
 * from a table of phrases, whichever table (every message's, index.ts; a row's detail's,
 * details.ts). Browser-safe: zod only.
 */
import * as z from 'zod';
import type { Language, Phrase } from './phrasing.js';

/** What a message names: a column's header and letter, row numbers, counts, file names, limits. */
const MessageParam = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string(), z.number()])),
]);

export const MessageParams = z.record(z.string(), MessageParam);
export type MessageParams = z.infer<typeof MessageParams>;

export const Message = z.object({ code: z.string().min(1), params: MessageParams.default({}) });
export type Message = z.infer<typeof Message>;

/** The code of a sentence written before messages had codes: it is shown as it was written. */
const TEXT_CODE = 'text';

export const textMessage = (text: string): Message => ({ code: TEXT_CODE, params: { text } });

/** A sentence written before messages had codes, shown as it was written, in every language. */
export const TEXT_PHRASES = {
  [TEXT_CODE]: { pt: (p) => p.text, es: (p) => p.text, en: (p) => p.text } satisfies Phrase<{ text: string }>,
};

/** The parameters the wording of a phrase takes. */
export type PhraseParams<P extends { en: (...args: never[]) => string }> =
  Parameters<P['en']> extends [infer A, ...unknown[]] ? A : Record<string, never>;

/** A message of `code`, its parameters as given less the `undefined` ones. */
export const messageOf = (code: string, params: unknown): Message => ({
  code,
  params: Object.fromEntries(
    Object.entries(params as Record<string, unknown>).filter(([, value]) => value !== undefined),
  ) as MessageParams,
});

/**
 * A message as a sentence in `language`, from a table of phrases by code. A code the table does
 * not know (a record written by a newer version) or parameters its wording cannot use show the
 * parameters' `text` when there is one, else the code itself: a reader is never without a sentence.
 */
export const wordFrom = (
  phrases: Readonly<Record<string, Phrase<never>>>,
  said: Message,
  language: Language,
): string => {
  const fallback = typeof said.params.text === 'string' ? said.params.text : said.code;
  if (!Object.hasOwn(phrases, said.code)) return fallback;
  const phrase = phrases[said.code]![language] as (params: MessageParams) => string;
  try {
    return phrase(said.params);
  } catch {
    return fallback;
  }
};

/**
 * A message as records keep it. A record written before messages had codes holds a sentence:
 * it reads as a `text` message, worded as it was written.
 */
export const StoredMessage = z.preprocess(
  (value) => (typeof value === 'string' ? textMessage(value) : value),
  Message,
);

/**
 * A message as summary.json shows it: its code and parameters for programs, and `text`, the
 * sentence in the batch's language for people. A summary written before messages had codes
 * holds a sentence: it reads as a `text` message with that sentence.
 */
export const ShownMessage = z.preprocess(
  (value) => (typeof value === 'string' ? { ...textMessage(value), text: value } : value),
  Message.extend({ text: z.string() }),
);
export type ShownMessage = z.infer<typeof ShownMessage>;
