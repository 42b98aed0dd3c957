/**
 * The upload form's options and the batch.json they make: plain data, no browser, so the unit
 * tests check what the form writes against the pipeline's own BatchOptions. A batch.json the
 * person chooses fills the form (`optionsFromFile`); its options the form has no field for are
 * sent as the file says them.
 */
import { BatchOptions } from '../../../shared/console/web-contract.js';

export type UploadOptions = {
  operation: '' | 'import' | 'export';
  country: string;
  budget: string;
  /** A percentage, 1 to 100: verdicts less sure than it wait for a person's check; '' is off. */
  checkBelow: string;
  reclassify: 'changed' | 'all' | 'ended_codes';
  duplicates: 'classify_once' | 'classify_each';
  planOnly: boolean;
  /** The workbooks' language; '' leaves it to the file's headers. */
  language: '' | 'pt' | 'es' | 'en';
  /** Options a chosen batch.json gave that the form has no field for, sent as they are. */
  kept: Record<string, unknown>;
};

export const DEFAULT_OPTIONS: UploadOptions = {
  operation: '',
  country: '',
  budget: '',
  checkBelow: '',
  reclassify: 'changed',
  duplicates: 'classify_once',
  planOnly: false,
  language: '',
  kept: {},
};

export const countryProblem = (country: string): boolean =>
  country.trim() !== '' && !/^[A-Za-z]{2}$/.test(country.trim());

export const budgetProblem = (budget: string): boolean => {
  if (budget.trim() === '') return false;
  const value = Number(budget);
  return !Number.isFinite(value) || value < 0;
};

export const checkBelowProblem = (checkBelow: string): boolean => {
  if (checkBelow.trim() === '') return false;
  const value = Number(checkBelow);
  return !Number.isInteger(value) || value < 1 || value > 100;
};

/** batch.json as the form says it; empty fields left out (the file or the defaults decide). */
export const optionsOf = (options: UploadOptions): Record<string, unknown> => ({
  ...options.kept,
  ...(options.operation ? { operation: options.operation } : {}),
  ...(options.country.trim() ? { country: options.country.trim().toUpperCase() } : {}),
  ...(options.budget.trim() ? { max_usd: Number(options.budget) } : {}),
  ...(options.checkBelow.trim() ? { check_below: Number(options.checkBelow) } : {}),
  reclassify: options.reclassify,
  duplicates: options.duplicates,
  plan_only: options.planOnly,
  ...(options.language ? { language: options.language } : {}),
});

/** The options the form has a field for, by their batch.json names. */
const FORM_KEYS = new Set([
  'operation',
  'country',
  'max_usd',
  'check_below',
  'reclassify',
  'duplicates',
  'plan_only',
  'language',
]);

/** What a chosen batch.json gives the form: its options, what it keeps as said, and what it cannot take. */
export type OptionsFile =
  | { ok: true; options: UploadOptions; filled: string[]; kept: string[]; unknown: string[] }
  | { ok: false; problem: 'not_json' | 'not_object' | 'invalid'; fields: string[] };

/**
 * Takes a batch.json's text and gives the upload form's options as it says them (checked by the
 * pipeline's own BatchOptions, as Prepare checks it), the options it filled, those it keeps as
 * they are (no field for them), and the keys no batch takes, which are not sent; or why it cannot.
 */
export const optionsFromFile = (text: string): OptionsFile => {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { ok: false, problem: 'not_json', fields: [] };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { ok: false, problem: 'not_object', fields: [] };
  const known = Object.keys(BatchOptions.shape);
  const given = Object.entries(json as Record<string, unknown>);
  const unknown = given.map(([key]) => key).filter((key) => !known.includes(key));
  const parsed = BatchOptions.safeParse(Object.fromEntries(given.filter(([key]) => known.includes(key))));
  if (!parsed.success)
    return {
      ok: false,
      problem: 'invalid',
      fields: [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')))],
    };
  const said = json as Record<string, unknown>;
  const options = parsed.data;
  const kept = Object.fromEntries(given.filter(([key]) => known.includes(key) && !FORM_KEYS.has(key)));
  return {
    ok: true,
    options: {
      operation: options.operation ?? '',
      country: options.country ?? '',
      budget: options.max_usd === undefined ? '' : String(options.max_usd),
      checkBelow: options.check_below === undefined ? '' : String(options.check_below),
      reclassify: options.reclassify,
      duplicates: options.duplicates,
      planOnly: options.plan_only,
      language: options.language ?? '',
      kept,
    },
    filled: Object.keys(said).filter((key) => FORM_KEYS.has(key)),
    kept: Object.keys(kept),
    unknown,
  };
};
