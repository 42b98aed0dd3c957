/**
 * The one way a caught error becomes text we keep (a row's `detail`, a summary's problem): on
 * top of the client's `scrubText` (signed URLs lose their query, the key is cut out), this also
 * takes Lambda's JSON error apart and cuts bearer values, secret-looking fields and long opaque
 * runs (task tokens, keys). Nothing a person reads ever holds a secret.
 */
import { scrubText } from '../../tcs/errors.js';
import type { CaughtError } from './records.js';

/** Keys and tokens: a long run without `/` or `.`, or a very long base64 run (a task token). */
const LONG_TOKEN = /[A-Za-z0-9+/=_-]{80,}|[A-Za-z0-9+=_-]{32,}/g;
const SECRET_FIELD =
  /("?(?:api[_-]?key|apikey|authorization|x-api-key|task[_-]?token|token|secret|password)"?\s*[:=]\s*)("[^"]*"|[^\s,;}]+)/gi;

/** A Lambda error's `errorMessage` when the text is its JSON, else the text. */
const messageOf = (text: string): string => {
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      parsed &&
      typeof parsed === 'object' &&
      typeof (parsed as { errorMessage?: unknown }).errorMessage === 'string'
    ) {
      return (parsed as { errorMessage: string }).errorMessage;
    }
  } catch {
    // Not JSON: a plain message.
  }
  return text;
};

/**
 * A caught error's text, safe to store in a result row and publish in a CSV: its first line,
 * signed URLs without their query, bearer values, secret-looking fields and long tokens cut out.
 */
export const scrubErrorText = (text: string, maxLength = 400): string => {
  const firstLine = messageOf(text).split(/\r?\n/, 1)[0]?.trim() ?? '';
  const scrubbed = scrubText(firstLine, '')
    .replace(/(bearer\s+)\S+/gi, '$1[redacted]')
    .replace(SECRET_FIELD, '$1[redacted]')
    .replace(LONG_TOKEN, '[redacted]');
  return scrubbed.length > maxLength ? `${scrubbed.slice(0, maxLength - 1)}…` : scrubbed;
};

/**
 * Turns what a Step Functions Catch caught (`Error`, `Cause`) into one safe sentence, `Error:
 * cause`, secrets cut out.
 */
export const describeCaughtError = (caught: CaughtError): string => {
  const cause = caught.Cause ? scrubErrorText(caught.Cause) : '';
  return cause ? `${scrubErrorText(caught.Error)}: ${cause}` : scrubErrorText(caught.Error);
};
