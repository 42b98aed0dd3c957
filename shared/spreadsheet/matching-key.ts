/**
 * The form in which headers and enumerated cell values are compared: accents, case,
 * spaces and punctuation removed. `Descrição`, `DESCRICAO` and `descri-ção` all become
 * `descricao`; `País de origem` becomes `paisdeorigem`.
 *
 * Why NFD and not a lookup table: decomposition strips every accent of pt/es (ç, ñ, ã, é…)
 * in one rule, including the combining marks some Mac exports write as separate characters.
 */
export const matchingKey = (value: string): string =>
  value
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/**
 * Whitespace of any kind (tabs, newlines, no-break spaces) trimmed and collapsed to one space; SUB
 * too, which some ERPs write for a line break inside a cell (cell-limits.ts).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: SUB is the character looked for
export const collapseWhitespace = (value: string): string => value.replace(/[\s\u001A]+/g, ' ').trim();
