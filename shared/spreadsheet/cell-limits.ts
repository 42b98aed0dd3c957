/**
 * How much text one row may hold, for CSV and XLSX alike (docs/options.md, "Limits"). A row is
 * written whole into one item of the batch table, which DynamoDB refuses over 400 KB, and back
 * into results.xlsx, whose cells Excel caps at 32,767 characters. A row over either limit, or
 * holding a control character that is not text, is kept with its cells cut or cleaned so it
 * still fits and still has its output row, and `CellFlaw`s say why it is rejected.
 */
import { columnLetter } from './column-letters.js';
import type { CellFlaw, ColumnMapping, PipelineColumn, RowIssue } from './schemas.js';
import { counted } from './sentence-parts.js';

/** The most characters an Excel cell holds: a longer cell cannot be written to results.xlsx. */
export const MAX_CELL_CHARACTERS = 32_767;

/**
 * The most bytes (UTF-8) a row's cells may hold in all: with the product, the results and the
 * bookkeeping the row record carries beside them, its item stays well under DynamoDB's 400 KB.
 */
export const MAX_ROW_BYTES = 256 * 1024;

/** The most characters a header cell holds: it names a column, in every row record's batch. */
export const MAX_HEADER_CHARACTERS = 1_000;

/**
 * The most bytes (UTF-8) a header's names may hold in all: the batch's record keeps them in one
 * DynamoDB item (400 KB) with the rest of the batch (a byte more a name, its problems and
 * warnings, a few tens of KB at most), and results.csv writes them back. 20,000 columns named
 * `Atributo 12345` take 280 KB.
 */
export const MAX_HEADER_BYTES = 300 * 1024;

/**
 * C0 control characters other than tab, line feed, vertical tab, form feed, carriage return and
 * SUB, which spreadsheets and ERPs use inside cells (VT or SUB for a line break): in a text file
 * the others are binary data, not text.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for
const CONTROL_CHARACTER = /[\u0000-\u0008\u000E-\u0019\u001B-\u001F]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters replaced
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000E-\u0019\u001B-\u001F]/g;

/** What a kept cell shows in place of a control character. */
const REPLACEMENT = '\uFFFD';

/** `text` with each control character shown as U+FFFD: what a header keeps of one (read-spreadsheet.ts). */
export const withoutControlCharacters = (text: string): string =>
  CONTROL_CHARACTER.test(text) ? text.replace(CONTROL_CHARACTERS, REPLACEMENT) : text;

/** The end of a cut cell: how long it was. */
const cutMark = (characters: number): string => `…[cut: ${characters} characters]`;

/** The largest cell of a row cannot take more than 3 UTF-8 bytes per UTF-16 unit. */
const MAX_BYTES_PER_UNIT = 3;

/**
 * What a cell's place in the row record costs beside its text: its quotes and comma as the item
 * is measured in JSON (DynamoDB's list spends a byte). A line of 150,000 delimiters holds no text,
 * yet its row record would not fit an item.
 */
const CELL_PLACE_BYTES = 3;

/** The most cells a row record keeps: their places alone take half of what a row may hold. */
const MAX_KEPT_CELLS = Math.floor(MAX_ROW_BYTES / 2 / CELL_PLACE_BYTES);

/** What a row's cells cost in its record: their UTF-8 text and their places. */
const rowCost = (cells: readonly string[]): number =>
  cells.reduce((sum, cell) => sum + utf8Length(cell) + CELL_PLACE_BYTES, 0);

/** Node's native count, when there is one (not in the console's page, which reaches this file). */
const nativeByteLength = (globalThis as { Buffer?: { byteLength(text: string, encoding: 'utf8'): number } })
  .Buffer?.byteLength;

/** UTF-8 bytes of `text`, counted without encoding it (a cell may be megabytes). */
const utf8Length = (text: string): number => {
  if (nativeByteLength) return nativeByteLength(text, 'utf8');
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
};

/** A fresh copy of a short string: a V8 slice would keep the whole string it was cut from alive. */
const copyOf = (text: string): string => {
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += 4096) {
    const units: number[] = [];
    for (let i = at; i < Math.min(at + 4096, text.length); i++) units.push(text.charCodeAt(i));
    parts.push(String.fromCharCode(...units));
  }
  return parts.join('');
};

/**
 * `text`'s first characters, at most `units` UTF-16 units, never half a surrogate pair. A copy,
 * not a slice: V8's slice of a string keeps the whole string (a cell of megabytes) alive.
 */
const prefixOf = (text: string, units: number): string => {
  if (units <= 0) return '';
  const end = Math.min(units, text.length);
  const last = text.charCodeAt(end - 1);
  return copyOf(text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end));
};

/** `text`'s first characters that fit `bytes` of UTF-8 (the encoder stops at a whole character). */
const prefixInBytes = (text: string, bytes: number): string => {
  if (bytes <= 0) return '';
  const prefix = prefixOf(text, bytes);
  const { read } = new TextEncoder().encodeInto(prefix, new Uint8Array(bytes));
  return prefix.slice(0, read);
};

/** A cell cut to at most `MAX_CELL_CHARACTERS`, the mark included. */
const cutToCellLimit = (text: string): string => {
  const mark = cutMark(text.length);
  return prefixOf(text, MAX_CELL_CHARACTERS - mark.length) + mark;
};

/**
 * Cells cut so the row fits `MAX_ROW_BYTES`: the largest ones first, each down to one share so
 * the smaller cells (a SKU, a country) stay whole. `lengths` are the cells' lengths as read.
 */
const cutToRowLimit = (cells: string[], lengths: readonly number[]): string[] => {
  const bytes = cells.map(utf8Length);
  // Loops, not Math.max(...): a row may have hundreds of thousands of cells, past what a call's
  // arguments can hold.
  let markBytes = 0;
  for (const length of lengths) markBytes = Math.max(markBytes, utf8Length(cutMark(length)));
  const budget = MAX_ROW_BYTES - cells.length * CELL_PLACE_BYTES;
  const fits = (share: number): boolean =>
    bytes.reduce((sum, size) => sum + (size > share ? share : size), 0) <= budget;
  // The largest share every cell may keep (its mark included), by bisection.
  let low = 0;
  let high = 0;
  for (const size of bytes) high = Math.max(high, size);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  // A share too small for the mark (thousands of long cells) keeps an ellipsis only.
  return cells.map((cell, i) => {
    if (bytes[i]! <= low) return cell;
    return low < markBytes ? '…' : prefixInBytes(cell, low - markBytes) + cutMark(lengths[i]!);
  });
};

/**
 * A row's cells as they may be kept, and what was wrong with them; null when nothing was (the
 * common case, decided without encoding anything when the row is small).
 */
export const fitRow = (cells: readonly string[]): { cells: string[]; flaws: CellFlaw[] } | null => {
  let units = 0;
  let longest = 0;
  let control = false;
  for (const cell of cells) {
    units += cell.length;
    if (cell.length > longest) longest = cell.length;
    if (!control && CONTROL_CHARACTER.test(cell)) control = true;
  }
  const places = cells.length * CELL_PLACE_BYTES;
  if (!control && longest <= MAX_CELL_CHARACTERS && units * MAX_BYTES_PER_UNIT + places <= MAX_ROW_BYTES) {
    return null;
  }

  const flaws: CellFlaw[] = [];
  const lengths = cells.map((cell) => cell.length);
  let kept = cells.map((cell, index) => {
    const found = CONTROL_CHARACTER.exec(cell);
    if (!found) return cell;
    flaws.push({ kind: 'control_character', index, code: found[0].charCodeAt(0) });
    return withoutControlCharacters(cell);
  });
  let rowBytes = 0;
  let largest = 0;
  kept = kept.map((cell, index) => {
    rowBytes += utf8Length(cell);
    if (lengths[index]! > lengths[largest]!) largest = index;
    if (cell.length <= MAX_CELL_CHARACTERS) return cell;
    flaws.push({ kind: 'cell_too_long', index, characters: lengths[index]! });
    return cutToCellLimit(cell);
  });
  const tooLong = flaws.some((flaw) => flaw.kind === 'cell_too_long');
  if (!tooLong && rowBytes + places > MAX_ROW_BYTES) {
    // Said in bytes of text, unless the row is too large for the number of its cells rather than their text.
    const bytes = rowBytes > MAX_ROW_BYTES ? rowBytes : rowBytes + places;
    flaws.push({ kind: 'row_too_large', bytes, index: largest, characters: lengths[largest]! });
  }
  if (kept.length > MAX_KEPT_CELLS && rowCost(kept) > MAX_ROW_BYTES) {
    // The cells past those a record keeps go, one mark saying how many there were.
    const mark = `…[cut: ${cells.length} cells]`;
    kept = [...kept.slice(0, MAX_KEPT_CELLS - 1), mark];
    lengths.length = MAX_KEPT_CELLS;
    lengths[MAX_KEPT_CELLS - 1] = mark.length;
  }
  if (rowCost(kept) > MAX_ROW_BYTES) kept = cutToRowLimit(kept, lengths);
  if (flaws.length === 0) return null;
  flaws.sort((a, b) => a.index - b.index);
  return { cells: kept, flaws };
};

/** How a count reads in a detail: `512,000`. */

/** `Column "Notes" (column E)`, or `Column E` for a column without a header. */
const cellColumn = (index: number, columns: ColumnMapping | undefined): string => {
  const refs = columns ? [...Object.values(columns.fields), ...columns.passthrough] : [];
  const header = refs.find((ref) => ref.index === index)?.header.trim();
  return header ? `Column "${header}" (column ${columnLetter(index)})` : `Column ${columnLetter(index)}`;
};

/** The pipeline column a cell is read as, or null when it is passed through. */
const pipelineColumnAt = (index: number, columns: ColumnMapping | undefined): PipelineColumn | null => {
  const found = Object.entries(columns?.fields ?? {}).find(([, ref]) => ref.index === index);
  return found ? (found[0] as PipelineColumn) : null;
};

const controlName = (code: number): string =>
  code === 0
    ? 'a NUL character (byte 0)'
    : `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why a row is rejected for a flaw of its cells, naming the column as the file wrote it and the limit. */
export const flawIssue = (flaw: CellFlaw, columns?: ColumnMapping): RowIssue => {
  const issue = flawIssueInEnglish(flaw, columns);
  return { ...issue, params: flawParams(flaw, columns) };
};

/** What a flaw's message names (shared/wording/rejections.ts words it in each language). */
const flawParams = (flaw: CellFlaw, columns: ColumnMapping | undefined) => {
  const refs = columns ? [...Object.values(columns.fields), ...columns.passthrough] : [];
  const at = {
    header: refs.find((ref) => ref.index === flaw.index)?.header.trim() ?? '',
    letter: columnLetter(flaw.index),
  };
  switch (flaw.kind) {
    case 'cell_too_long':
      return { ...at, length: flaw.characters, limit: MAX_CELL_CHARACTERS };
    case 'row_too_large':
      return { ...at, length: flaw.characters, size_bytes: flaw.bytes, limit_bytes: MAX_ROW_BYTES };
    case 'control_character':
      return { ...at, code_point: flaw.code };
  }
};

const flawIssueInEnglish = (flaw: CellFlaw, columns?: ColumnMapping): RowIssue => {
  const column = pipelineColumnAt(flaw.index, columns);
  const where = cellColumn(flaw.index, columns);
  switch (flaw.kind) {
    case 'cell_too_long':
      return {
        reason: 'cell_too_long',
        column,
        detail:
          `${where} holds ${counted(flaw.characters)} characters; ` +
          `a cell may hold at most ${counted(MAX_CELL_CHARACTERS)}.`,
      };
    case 'row_too_large':
      return {
        reason: 'row_too_large',
        column,
        detail:
          `The row's cells hold ${counted(flaw.bytes)} bytes of text in all; a row may hold at most ` +
          `${counted(MAX_ROW_BYTES)} (256 KiB). The largest is ${where.charAt(0).toLowerCase()}${where.slice(1)}, ` +
          `with ${counted(flaw.characters)} characters.`,
      };
    case 'control_character':
      return {
        reason: 'control_character',
        column,
        detail: `${where} holds ${controlName(flaw.code)}, which is not text; remove it.`,
      };
  }
};
