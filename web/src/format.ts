/**
 * Numbers, money, percentages, dates and durations in the reader's language, with Intl. No DOM
 * here (the unit tests run these under Node).
 */
import { type Language, LOCALE_OF } from './lang.js';

const cache = new Map<string, Intl.NumberFormat>();
const numberFormat = (language: Language, options: Intl.NumberFormatOptions): Intl.NumberFormat => {
  const key = `${language}|${JSON.stringify(options)}`;
  let format = cache.get(key);
  if (!format) {
    format = new Intl.NumberFormat(LOCALE_OF[language], options);
    cache.set(key, format);
  }
  return format;
};

export const formatNumber = (language: Language, value: number): string =>
  numberFormat(language, { maximumFractionDigits: 0 }).format(value);

/** US dollars: cents, or four decimals below one dollar (a row costs a few cents or less). */
export const formatMoney = (language: Language, usd: number): string => {
  const small = usd !== 0 && Math.abs(usd) < 1;
  return numberFormat(language, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: small ? 4 : 2,
  }).format(usd);
};

/** A confidence as the service gives it, 0 to 100. */
export const formatPercent = (language: Language, confidence: number): string =>
  numberFormat(language, { style: 'percent', maximumFractionDigits: 0 }).format(confidence / 100);

/** An ISO timestamp as a short date and time in the reader's time zone (or `timeZone`, for tests). */
export const formatDateTime = (language: Language, iso: string, timeZone?: string): string => {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(LOCALE_OF[language], {
    dateStyle: 'medium',
    timeStyle: 'short',
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
};

/** A day (ISO `2026-07-05`) written out: `July 5, 2026`, `5 de julho de 2026`, `5 de julio de 2026`. */
export const formatDate = (language: Language, isoDate: string): string => {
  const date = new Date(`${isoDate.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return isoDate;
  return new Intl.DateTimeFormat(LOCALE_OF[language], { dateStyle: 'long', timeZone: 'UTC' }).format(date);
};

/** An NCM table as a sentence names it: its day and its act (`5 de julho de 2026, Resolução Gecex nº 812/2025`). */
export const formatNcmTable = (language: Language, table: { as_of: string | null; act: string }): string =>
  table.as_of === null ? table.act : `${formatDate(language, table.as_of)}, ${table.act}`;

/** For tables: day, month and time, the year only when it is not this year (`Nov 24, 10:02 AM`). */
export const formatShortDateTime = (
  language: Language,
  iso: string,
  now = new Date(),
  timeZone?: string,
): string => {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const yearOf = (when: Date) =>
    new Intl.DateTimeFormat('en-US', { year: 'numeric', ...(timeZone ? { timeZone } : {}) }).format(when);
  return new Intl.DateTimeFormat(LOCALE_OF[language], {
    day: 'numeric',
    month: 'short',
    ...(yearOf(date) === yearOf(now) ? {} : { year: 'numeric' }),
    hour: 'numeric',
    minute: '2-digit',
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
};

/** A time left, humanised: `45 s`, `12 min`, `3 h 20 min`, `2 d 4 h`. */
export const formatDuration = (language: Language, seconds: number): string => {
  const unit = (value: number, name: 'second' | 'minute' | 'hour' | 'day'): string =>
    numberFormat(language, { style: 'unit', unit: name, unitDisplay: 'short' }).format(value);
  const total = Math.max(0, Math.round(seconds));
  if (total < 60) return unit(total, 'second');
  const minutes = Math.round(total / 60);
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24)
    return minutes % 60 === 0
      ? unit(hours, 'hour')
      : `${unit(hours, 'hour')} ${unit(minutes % 60, 'minute')}`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? unit(days, 'day') : `${unit(days, 'day')} ${unit(hours % 24, 'hour')}`;
};

/** A file size: `820 KB`, `12.5 MB` (decimal separators per language). */
export const formatBytes = (language: Language, bytes: number): string => {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
  let value = bytes;
  let index = 0;
  while (value >= 1024 && index < units.length - 1) {
    value /= 1024;
    index += 1;
  }
  return numberFormat(language, {
    style: 'unit',
    unit: units[index],
    // Bytes written out (1 byte, 10 bytes), larger units short (820 kB, 1.5 MB). Portuguese counts
    // 0 as singular ("0 byte"); its short form says "0 bytes".
    unitDisplay: index > 0 || (bytes === 0 && language === 'pt') ? 'short' : 'long',
    maximumFractionDigits: value < 10 && index > 0 ? 1 : 0,
  }).format(value);
};

/** Alternatives, as the language lists them: `.csv or .xlsx`, `.csv ou .xlsx`, `.csv o .xlsx`. */
export const formatOr = (language: Language, items: readonly string[]): string =>
  new Intl.ListFormat(LOCALE_OF[language], { type: 'disjunction' }).format(items);

/** A list, as the language writes it: `2, 5 and 9`, `2, 5 e 9`, `2, 5 y 9`. */
export const formatList = (language: Language, items: readonly string[]): string =>
  new Intl.ListFormat(LOCALE_OF[language], { type: 'conjunction' }).format(items);

/** An NCM code dotted as the tariff writes it (84713012 → 8471.30.12); anything else unchanged. */
export const formatNcm = (code: string | null): string => {
  if (code === null) return '';
  const digits = code.trim();
  if (/^[0-9]{8}$/.test(digits)) return `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6)}`;
  return digits;
};

/** A SIM opening dotted as the tariff writes it (7318150010 → 7318.15.00.10); anything else unchanged. */
export const formatSim = (code: string | null): string => {
  if (code === null) return '';
  const digits = code.trim().replace(/[.\s-]/g, '');
  if (/^[0-9]{10}$/.test(digits)) return `${formatNcm(digits.slice(0, 8))}.${digits.slice(8)}`;
  return code.trim();
};
