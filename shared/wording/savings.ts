/**
 * What a batch did not spend, named by where it came from: verdicts of earlier batches reused, and
 * rows of the same product in the file classified once (pipeline/core/same-product.ts). The
 * command line's summary line, the console and the workbook's summary say it the same way.
 */
import type { Language } from '../spreadsheet/header-language.js';
import type { Phrase } from './phrasing.js';

const LOCALE: Record<Language, string> = { pt: 'pt-BR', es: 'es-AR', en: 'en-US' };

/** US dollars as the language writes them: `US$ 150.698,00`, `$150,698.00`. */
const usd = (language: Language, amount: number): string =>
  new Intl.NumberFormat(LOCALE[language], {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
  }).format(amount);

/** `reused_usd`: earlier verdicts reused; `identical_usd`: identical rows classified once. */
type Saving = { reused_usd: number; identical_usd: number };

const REUSED: Record<Language, string> = {
  pt: 'reaproveitando pareceres anteriores',
  es: 'reutilizando dictámenes anteriores',
  en: 'by reusing earlier verdicts',
};
const IDENTICAL: Record<Language, string> = {
  pt: 'classificando uma só vez as linhas idênticas',
  es: 'clasificando una sola vez las filas idénticas',
  en: 'by classifying identical rows once',
};
const SAVED: Record<Language, string> = { pt: 'economizou', es: 'ahorró', en: 'saved' };
const AND: Record<Language, string> = { pt: 'e', es: 'y', en: 'and' };

/** `saved $X by reusing earlier verdicts`, `… by classifying identical rows once`, or both with each share. */
const saving =
  (language: Language) =>
  ({ reused_usd, identical_usd }: Saving): string => {
    const saved = SAVED[language];
    const total = usd(language, reused_usd + identical_usd);
    if (reused_usd > 0 && identical_usd > 0) {
      return (
        `${saved} ${total}: ${usd(language, reused_usd)} ${REUSED[language]} ${AND[language]} ` +
        `${usd(language, identical_usd)} ${IDENTICAL[language]}`
      );
    }
    if (reused_usd > 0) return `${saved} ${total} ${REUSED[language]}`;
    if (identical_usd > 0) return `${saved} ${total} ${IDENTICAL[language]}`;
    return `${saved} ${total}`;
  };

/** Where a saving came from, each source with its share: `$6.00 by reusing earlier verdicts and …`. */
const sources =
  (language: Language) =>
  ({ reused_usd, identical_usd }: Saving): string => {
    const parts = [
      ...(reused_usd > 0 ? [`${usd(language, reused_usd)} ${REUSED[language]}`] : []),
      ...(identical_usd > 0 ? [`${usd(language, identical_usd)} ${IDENTICAL[language]}`] : []),
    ];
    if (parts.length === 0)
      return { pt: 'nada economizado', es: 'nada ahorrado', en: 'nothing saved' }[language];
    return parts.join(` ${AND[language]} `);
  };

export const SAVING_PHRASES = {
  saving: { pt: saving('pt'), es: saving('es'), en: saving('en') } satisfies Phrase<Saving>,
  saving_sources: { pt: sources('pt'), es: sources('es'), en: sources('en') } satisfies Phrase<Saving>,
};
