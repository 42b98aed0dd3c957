/** Text normalisation shared by the catalogue matcher and the question logic. */

/** Lower-case, accents folded, anything but letters and digits turned into single spaces. */
export const normalize = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/**
 * A crude plural folding for pt/es/en, applied to the text and the keywords alike, so
 * "pneus"/"pneu", "motores"/"motor", "botões"/"botão", "tyres"/"tyre" and "papéis"/"papel"
 * meet. It only has to be consistent on both sides, not linguistically right.
 */
const singular = (word: string): string => {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.length > 5 && /[oa]es$/.test(word)) return `${word.slice(0, -3)}ao`;
  if (word.length > 4 && word.endsWith('eis')) return `${word.slice(0, -3)}el`;
  const withoutS = word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
  return withoutS.length > 3 && withoutS.endsWith('e') ? withoutS.slice(0, -1) : withoutS;
};

/** Normalised and plural-folded words of a text. */
export const tokens = (text: string): string[] => {
  const normalized = normalize(text);
  return normalized === '' ? [] : normalized.split(' ').map(singular);
};

/** A text prepared for phrase lookups: its folded words, space-padded. */
export type Searchable = { padded: string; tokens: readonly string[] };

export const searchable = (text: string): Searchable => {
  const folded = tokens(text);
  return { padded: ` ${folded.join(' ')} `, tokens: folded };
};

/** A phrase folded like a text, ready for `containsPhrase` (folding twice would fold further). */
export const foldPhrase = (phrase: string): string => tokens(phrase).join(' ');

/** True when the folded phrase occurs in `text` as whole words. */
export const containsPhrase = (text: Searchable, foldedPhrase: string): boolean =>
  foldedPhrase !== '' && text.padded.includes(` ${foldedPhrase} `);
