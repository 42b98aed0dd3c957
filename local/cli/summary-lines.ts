/**
 * What the command line says of a finished batch from its summary.json: the problems and warnings
 * as sentences in the batch's language, and what was saved, named by where the saving came from.
 */
import { message, wordMessage } from '../../shared/wording/index.js';
import { ShownMessage } from '../../shared/wording/message.js';

/**
 * A summary's problems or warnings as sentences in the batch's language: each message's `text`
 * (a summary written before messages had codes holds the sentences themselves).
 */
export const sentencesOf = (list: unknown): string[] =>
  (Array.isArray(list) ? list : []).flatMap((item: unknown) => {
    const parsed = ShownMessage.safeParse(item);
    return parsed.success ? [parsed.data.text] : [];
  });

/**
 * What a reader says it read of a file that is not a table (a SPED EFD file's items and the registers it
 * skipped, the invoices of an NF-e upload): shown beside the plan and the summary, where the user looks.
 */
const READ_NOTICE_CODES = new Set(['sped_registers_skipped', 'nfe_documents_read']);

/** The sentences of those notices among a plan's or a summary's problems, in the batch's language. */
export const readNoticesOf = (list: unknown): string[] =>
  (Array.isArray(list) ? list : []).flatMap((item: unknown) => {
    const parsed = ShownMessage.safeParse(item);
    return parsed.success && READ_NOTICE_CODES.has(parsed.data.code) ? [parsed.data.text] : [];
  });

/** The codes of the problems that stop a batch: the file or batch.json refused, the service's refusal. */
const STOPPING_CODES = new Set([
  'file_refused',
  'input_missing',
  'options_invalid',
  'options_not_json',
  'service_refused_batch',
  'batch_stopped',
  'not_prepared',
  'never_prepared',
]);

/** The sentence of the problem that stopped the batch, in the batch's language; undefined when none says it. */
export const stoppingProblemOf = (list: unknown): string | undefined =>
  (Array.isArray(list) ? list : [])
    .map((item: unknown) => ShownMessage.safeParse(item))
    .find((parsed) => parsed.success && STOPPING_CODES.has(parsed.data.code))?.data?.text;

/**
 * What the NCM table in force says of the batch's codes, when any is not in force: the table (its
 * day and act), the rows whose declared NCM and those whose verdict is no code in force. The rows
 * are named in the warnings and flagged in the results (`current_ncm_in_force`, `ncm_in_force`).
 */
export const ncmTableLine = (summary: Record<string, unknown>): string | null => {
  const table = summary.ncm_table as { as_of?: string | null; act?: string } | undefined;
  const declared = Number(summary.declared_ncm_not_in_force ?? 0);
  const verdicts = Number(summary.ncm_not_in_force ?? 0);
  if (!table || (declared === 0 && verdicts === 0)) return null;
  const rows = (count: number) => `${count} ${count === 1 ? 'row' : 'rows'}`;
  return (
    `NCM table in force (${table.as_of ?? 'undated'}, ${table.act ?? ''}): ` +
    `declared NCM not in force on ${rows(declared)}, verdict's NCM not in force on ${rows(verdicts)} ` +
    '(results: current_ncm_in_force, ncm_in_force; results.xlsx: the NCM divergences sheet).'
  );
};

/**
 * What the batch did not spend, by where it came from (`saved $12.00 by reusing earlier verdicts`):
 * earlier verdicts reused, identical rows of the file classified once (summary.json's `duplicates`,
 * core/same-product.ts), or both, each with its share.
 */
export const savingLine = (summary: Record<string, unknown>): string => {
  const saved = Number(summary.saved_usd ?? 0);
  const duplicates = summary.duplicates as { saved_usd?: unknown } | undefined;
  const identical = Math.min(saved, Number(duplicates?.saved_usd ?? 0));
  const reused = Math.round((saved - identical) * 100) / 100;
  return wordMessage(message('saving', { reused_usd: reused, identical_usd: identical }), 'en');
};

/**
 * How many verdicts wait for a person's check (`check_below`) and where to decide them, with how
 * many a person approved; null when the batch checked none (summary.json's `checks`).
 */
export const checkLine = (summary: Record<string, unknown>, folder: string): string | null => {
  const checks = summary.checks as { to_check?: unknown; approved?: unknown } | undefined;
  const toCheck = Number(checks?.to_check ?? 0);
  const approved = Number(checks?.approved ?? 0);
  if (!(toCheck > 0 || approved > 0)) return null;
  return wordMessage(message('verdicts_to_check', { to_check: toCheck, approved, folder }), 'en');
};
