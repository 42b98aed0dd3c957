/**
 * What the reader's English sentences share (a refusal's message, a rejection's `detail`, which
 * results.csv keeps as written): numbers grouped as English writes them, a sentence's first letter.
 * The same sentences in every language come from `shared/wording/`.
 */

/** `400000` → `400,000`. */
export const counted = (n: number): string => n.toLocaleString('en-US');

export const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
