/**
 * A message for a person, kept as a code and its parameters rather than as a sentence, so each
 * reader words it in its own language: the workbooks and the command line in the batch's, the
 * console's page in its viewer's (`wordMessage`, index.ts). Browser-safe: zod only.
 */
import * as z from 'zod';

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
export const TEXT_CODE = 'text';

export const textMessage = (text: string): Message => ({ code: TEXT_CODE, params: { text } });

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
