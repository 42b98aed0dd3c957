/** The page's languages, and which locale each formats numbers and dates in. No DOM here. */

export const LANGUAGES = ['pt', 'es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Portuguese as written in Brazil, Spanish as in Argentina (Mercosur), English as in the US. */
export const LOCALE_OF: Record<Language, string> = { pt: 'pt-BR', es: 'es-AR', en: 'en-US' };

/** Each language's name in itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { pt: 'Português', es: 'Español', en: 'English' };

export const isLanguage = (value: unknown): value is Language =>
  typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);

/** The first of the browser's languages the page speaks (pt-BR → pt, es-419 → es), else English. */
export const pickLanguage = (preferred: readonly string[], stored?: string | null): Language => {
  if (isLanguage(stored)) return stored;
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLanguage(primary)) return primary;
  }
  return 'en';
};
