/**
 * i18next with the three languages. The first language is the stored choice, else the
 * browser's first that the page speaks, else English; the switch stores its choice.
 */
import i18next, { type TFunction } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { type ConsoleProblem, RowView } from '../../shared/console/web-contract.js';
import { ApiError } from './client.js';
import { formatBytes, formatDate, formatNumber, formatOr } from './format.js';
import { isLanguage, LANGUAGES, type Language, pickLanguage } from './lang.js';
import { MESSAGES } from './locales/index.js';

const STORED = 'ncm-console.language';

const storedLanguage = (): string | null => {
  try {
    return localStorage.getItem(STORED);
  } catch {
    return null;
  }
};

export const initI18n = async (): Promise<void> => {
  const language = pickLanguage(navigator.languages ?? [navigator.language], storedLanguage());
  document.documentElement.lang = language;
  await i18next.use(initReactI18next).init({
    lng: language,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    resources: Object.fromEntries(LANGUAGES.map((lang) => [lang, { translation: MESSAGES[lang] }])),
    interpolation: { escapeValue: false },
    returnNull: false,
  });
};

export const setLanguage = (language: Language): void => {
  try {
    localStorage.setItem(STORED, language);
  } catch {
    // Private windows may refuse; the choice then lasts this page only.
  }
  document.documentElement.lang = language;
  void i18next.changeLanguage(language);
};

export const currentLanguage = (value: string | undefined): Language =>
  isLanguage(value) ? value : pickLanguage([value ?? 'en']);

const RowStatus = RowView.shape.status;

type PluralKey =
  | 'nav.pending'
  | 'nav.checking'
  | 'rows.matching'
  | 'rows.found'
  | 'rows.foundAll'
  | 'upload.sheetCount'
  | 'upload.rejections.title'
  | 'upload.rejections.rows'
  | 'questions.group'
  | 'questions.daysLeft'
  | 'questions.sent'
  | 'checks.coversRows'
  | 'checks.coversBatches'
  | 'checks.decide'
  | 'checks.bulk.products';

/** `key_one` for exactly 1, else `key_other`; `n` is passed formatted. */
export const plural = (
  t: TFunction,
  key: PluralKey,
  count: number,
  formatted: string,
  values: Record<string, string> = {},
): string => t(`${key}_${count === 1 ? 'one' : 'other'}`, { ...values, n: formatted });

/** Params as the page shows them: byte sizes and counts formatted, a row status worded. */
const wordedParams = (t: TFunction, problem: ConsoleProblem): Record<string, string> => {
  const language = currentLanguage(i18next.resolvedLanguage ?? i18next.language);
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(problem.params)) {
    if (
      (problem.code === 'file_too_large' || problem.code === 'bundle_too_large') &&
      (name === 'max' || name === 'size') &&
      typeof value === 'number'
    ) {
      params[name] = formatBytes(language, value);
    } else if (name === 'as_of' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
      params[name] = formatDate(language, value);
    } else if (name === 'allowed' && typeof value === 'string') {
      params[name] = formatOr(language, value.split(/,\s*/));
    } else if ((name === 'max' || name === 'count') && typeof value === 'number') {
      params[name] = formatNumber(language, value);
    } else if (name === 'status' && typeof value === 'string' && RowStatus.safeParse(value).success) {
      params[name] = t(`status.${value}`);
    } else {
      params[name] = String(value);
    }
  }
  return params;
};

/**
 * A refusal in the reader's language: its code's message with its params; the English detail
 * when a param the message needs is missing.
 */
export const errorMessage = (t: TFunction, error: unknown): string => {
  if (error instanceof ApiError) {
    const problem = error.problem;
    if (problem) {
      if (problem.code === 'file_too_large' && problem.params.size === 0) {
        return t('fileChecks.file_empty', { name: String(problem.params.file ?? '') });
      }
      const message = t(`errors.${problem.code}`, wordedParams(t, problem));
      return message.includes('{{') ? problem.detail : message;
    }
    if (error.status === 0) return t('errors.network', { detail: error.message });
    if (error.status === 401) return t('errors.unauthorized');
    return t('errors.http', { status: String(error.status) });
  }
  return t('errors.unexpected', { detail: error instanceof Error ? error.message : String(error) });
};

/**
 * What another system said behind a message (S3's own error, an HTTP status), for the "Details"
 * disclosure; null for a refusal of the API, whose message already says all of it in the
 * reader's language (its English detail is for the logs, not for the page).
 */
export const errorDetail = (error: unknown): string | null => {
  if (error instanceof ApiError) return error.problem ? null : error.status > 0 ? error.message : null;
  return null;
};
