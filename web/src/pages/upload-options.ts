/**
 * The upload form's options and the batch.json they make: plain data, no browser, so the unit
 * tests check what the form writes against the pipeline's own BatchOptions.
 */

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
  ...(options.operation ? { operation: options.operation } : {}),
  ...(options.country.trim() ? { country: options.country.trim().toUpperCase() } : {}),
  ...(options.budget.trim() ? { max_usd: Number(options.budget) } : {}),
  ...(options.checkBelow.trim() ? { check_below: Number(options.checkBelow) } : {}),
  reclassify: options.reclassify,
  duplicates: options.duplicates,
  plan_only: options.planOnly,
  ...(options.language ? { language: options.language } : {}),
});
