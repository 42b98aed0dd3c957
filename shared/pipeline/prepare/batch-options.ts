/**
 * `inbox/<name>/batch.json`, the batch's options: read, validated, and every problem with it
 * said in one sentence for the person who wrote the file.
 */
import type * as z from 'zod';
import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { BatchOptions } from '../core/batch-options-schema.js';
import type { ObjectStore } from '../core/ports.js';

/**
 * What reading batch.json gives: the options, or the problem with the file as a sentence and as a
 * message.
 */
export type OptionsRead = { options: BatchOptions } | { problem: string; said: Message };

const ACCEPTED_OPTION_FIELDS = Object.keys(BatchOptions.shape).join(', ');

/** Every issue in one sentence, naming each field, so one fix of the file is enough. */
const describeOptionIssues = (key: string, error: z.ZodError): string => {
  const parts = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const fields = issue.keys.map((field) => `"${field}"`).join(', ');
      return `unknown field ${fields} (accepted fields: ${ACCEPTED_OPTION_FIELDS})`;
    }
    if (issue.path.length === 0) return `must be a JSON object of options: ${issue.message}`;
    return `field "${issue.path.join('.')}": ${issue.message}`;
  });
  return `${key} is invalid: ${parts.join('; ')}.`;
};

/** The fields the issues are about (an unknown field by its name), each once. */
const optionIssueFields = (error: z.ZodError): string[] => [
  ...new Set(
    error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys : issue.path.length > 0 ? [issue.path.join('.')] : [],
    ),
  ),
];

/**
 * Reads `batch.json` in the batch's folder: absent, the default options; unparsable or invalid, the
 * problem in one sentence naming every field at fault, so one fix of the file is enough.
 */
export const readBatchOptions = async (
  objects: Pick<ObjectStore, 'getBytes'>,
  folder: string,
): Promise<OptionsRead> => {
  const key = `${folder}batch.json`;
  const bytes = await objects.getBytes(key);
  if (bytes === null) return { options: BatchOptions.parse({}) };
  const text = new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = text.trim() === '' ? 'the file is empty' : (error as Error).message;
    return {
      problem: `${key} is not valid JSON (${reason}); write an object such as {"country": "BR"}.`,
      said: message('options_not_json', { key, reason, empty: text.trim() === '' || undefined }),
    };
  }
  const parsed = BatchOptions.safeParse(json);
  if (parsed.success) return { options: parsed.data };
  const problem = describeOptionIssues(key, parsed.error);
  const fields = optionIssueFields(parsed.error);
  return {
    problem,
    said: message('options_invalid', {
      key,
      fields,
      accepted: Object.keys(BatchOptions.shape),
      text: problem,
    }),
  };
};
