/**
 * The layout of a workbook the project writes (results.xlsx in legs, review.xlsx streamed by
 * write-xlsx.ts, both from the XML of xlsx-parts.ts): text made safe for a cell, column widths that
 * fit their text, the rows' heights, the one font. Kept apart from the writer, so a function that
 * only lays out or names a workbook does not carry the writer in its bundle.
 */

/** The media type of an XLSX workbook, as S3 serves it and a browser saves it. */
export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The font of every cell a layout styles: one the three programs show alike (LibreOffice: Carlito). */
export const BODY_FONT = { name: 'Calibri', size: 11 } as const;

/** What one cell of Excel holds at most; the rest of a longer text is cut, with an ellipsis. */
const MAX_CELL_CHARACTERS = 32_767;

const NOT_IN_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as a string cell takes it: characters XML 1.0 cannot carry (controls, a lone surrogate,
 * U+FFFE/U+FFFF) dropped, since one of them makes the whole file unreadable, and cut to what a
 * cell holds.
 */
export const xlsxText = (text: string): string => {
  const clean = text.replace(NOT_IN_XML, '');
  return clean.length <= MAX_CELL_CHARACTERS ? clean : `${clean.slice(0, MAX_CELL_CHARACTERS - 1)}…`;
};

/**
 * A column width (in characters) that fits the longest text of the column, header included,
 * within bounds: wider than 60 is wrapped or read in the cell, not on screen.
 */
export const fittingWidth = (lengths: Iterable<number>, bounds = { min: 6, max: 60 }): number => {
  let longest = 0;
  for (const length of lengths) if (length > longest) longest = length;
  return Math.min(bounds.max, Math.max(bounds.min, longest + 2));
};

/** The longest line of a cell's text: what its width must fit. */
export const textWidth = (text: string): number =>
  text.includes('\n') ? Math.max(...text.split('\n').map((line) => line.length)) : text.length;

/** The default row height, in points, of one line of `BODY_FONT`. */
export const LINE_HEIGHT = 15;

/**
 * How many lines a wrapped text takes in a column `width` characters wide: a row's height is
 * written, since neither program makes a row taller for wrapped text of a file it opens.
 */
export const wrappedLines = (text: string, width: number): number =>
  text
    .split('\n')
    .reduce((lines, line) => lines + Math.max(1, Math.ceil(line.length / Math.max(1, width - 2))), 0);
