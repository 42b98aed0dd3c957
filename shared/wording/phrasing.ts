/**
 * The small pieces every table's sentences are made of, in each language: lists, row numbers,
 * columns, counts. Browser-safe (Intl only).
 */
import type { Language } from '../spreadsheet/header-language.js';

export type { Language };

/**
 * A message's wording in each language, from its parameters. Portuguese as written in Brazil,
 * Spanish as neutral Latin-American Spanish, English as the output contract's own language.
 */
export type Phrase<P> = { readonly [L in Language]: (params: P) => string };

const LOCALE: Record<Language, string> = { pt: 'pt-BR', es: 'es-AR', en: 'en-US' };
const AND: Record<Language, string> = { pt: 'e', es: 'y', en: 'and' };

/**
 * A count or a limit as the language writes it (`400.000` in pt and es, `400,000` in en).
 * Numbers under 10,000 are written without a separator in every language, as the
 * English sentences always were (`5001 characters`).
 */
export const count = (language: Language, value: number): string =>
  Math.abs(value) < 10_000 ? String(value) : new Intl.NumberFormat(LOCALE[language]).format(value);

/** `a, b and c` / `a, b e c` / `a, b y c`. */
export const list = (language: Language, items: readonly (string | number)[]): string => {
  const shown = items.map(String);
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} ${AND[language]} ${shown.at(-1)}`;
};

/** `"x"`: a value the file holds, quoted as written. */
export const quoted = (text: string | number): string => `"${text}"`;

/** `"x", "y" and "z"`. */
export const quotedList = (language: Language, items: readonly (string | number)[]): string =>
  list(
    language,
    items.map((item) => quoted(item)),
  );

const ROW_WORD: Record<Language, [string, string]> = {
  pt: ['linha', 'linhas'],
  es: ['fila', 'filas'],
  en: ['row', 'rows'],
};

/**
 * `row 3`, `rows 3, 7 and 12`, `rows 1, 2, … 10 and 5 more`: the first rows a message names, and
 * how many there are in all (`total`, when more than those named).
 */
export const rows = (language: Language, named: readonly number[], total = named.length): string => {
  const [one, many] = ROW_WORD[language];
  const more = total - named.length;
  if (more > 0) {
    const tail = {
      pt: `e mais ${count('pt', more)}`,
      es: `y ${count('es', more)} más`,
      en: `and ${more} more`,
    };
    return `${many} ${named.join(', ')} ${tail[language]}`;
  }
  if (named.length === 1) return `${one} ${named[0]}`;
  return `${many} ${list(language, named)}`;
};

const COLUMN_WORD: Record<Language, string> = { pt: 'coluna', es: 'columna', en: 'column' };

/** `column "País"`, as the file wrote its header. */
export const column = (language: Language, header: string): string =>
  `${COLUMN_WORD[language]} ${quoted(header)}`;

/** `"País" (column F)`: a header and the letter a spreadsheet program shows. */
export const columnAt = (language: Language, header: string, letter: string): string =>
  `${quoted(header)} (${COLUMN_WORD[language]} ${letter})`;

/** The sentence's first letter in capitals, for a phrase that starts one. */
export const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** One word for one, another for many: `plural(n, 'linha', 'linhas')`. */
export const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);
