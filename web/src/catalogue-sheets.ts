/**
 * The sheets a CSV catalogue names, read in the browser before anything is sent, so the page can
 * say which are not among the chosen files and send loose files under the path the catalogue
 * names (files.ts, `matchSheets`); in the same pass, the rows Prepare would reject
 * (rejections-preview.ts). Read as the pipeline reads it where it matters here: the
 * header is the first filled record, the sheet column is the header the pipeline's aliases name
 * so (`Ficha técnica`, `Technical sheet`…), rows are numbered without blank ones, and a path is
 * normalised as Prepare normalises it.
 *
 * Delimited text only (a .csv, or Excel's .txt and .tsv text saves, UTF-16 with or without its
 * byte order mark): an Excel workbook's sheet column is checked when the batch reads it, and NF-e
 * invoices (.xml, .zip) name none. The file
 * is read a slice at a time, so a catalogue of 200 MB is never held whole as text.
 */
import { columnForHeader, normaliseSheetPath } from '../../shared/console/web-contract.js';
import { type RejectionsPreview, rejectionsPreview } from './rejections-preview.js';

/** A sheet the catalogue names: its path inside the batch folder and the rows that name it. */
export type NamedSheet = {
  path: string;
  /** The first rows naming it (at most ROWS_KEPT), in order. */
  rows: number[];
  /** How many rows name it. */
  rowCount: number;
};

export type CatalogueSheets =
  | {
      read: true;
      column: string | null;
      sheets: NamedSheet[];
      /** The rows Prepare would reject (rejections-preview.ts); null when the header gives none to check. */
      rejections: RejectionsPreview | null;
    }
  | { read: false; why: 'xlsx' | 'unreadable' };

/** Rows kept per sheet to name them; the count says the rest. */
const ROWS_KEPT = 5;
const SLICE_BYTES = 1024 * 1024;

/** A cell's sheet path as Prepare takes it (the pipeline's own `normaliseSheetPath`); null when Prepare refuses it. */
export const sheetPathOf = (cell: string): string | null => {
  const normalised = normaliseSheetPath(cell);
  return 'path' in normalised ? normalised.path : null;
};

/** A CSV's records from its text, a chunk at a time: RFC 4180 quotes, any line ending. */
export const csvRecords = (delimiter: string) => {
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  let quoteInQuoted = false;
  let afterCr = false;
  let started = false;
  const out: string[][] = [];
  const endCell = () => {
    record.push(cell);
    cell = '';
    started = false;
  };
  const endRecord = () => {
    endCell();
    out.push(record);
    record = [];
  };
  const push = (text: string): string[][] => {
    for (const char of text) {
      if (quoted) {
        if (quoteInQuoted) {
          quoteInQuoted = false;
          if (char === '"') {
            cell += '"';
            continue;
          }
          quoted = false;
        } else if (char === '"') {
          quoteInQuoted = true;
          continue;
        } else {
          cell += char;
          continue;
        }
      }
      if (afterCr) {
        afterCr = false;
        if (char === '\n') continue;
      }
      if (char === '"' && !started) {
        quoted = true;
        started = true;
      } else if (char === delimiter) endCell();
      else if (char === '\r') {
        endRecord();
        afterCr = true;
      } else if (char === '\n') endRecord();
      else {
        cell += char;
        started = true;
      }
    }
    return out.splice(0);
  };
  const end = (): string[][] => {
    if (cell !== '' || record.length > 0 || started) endRecord();
    return out.splice(0);
  };
  return { push, end };
};

/** Excel's `sep=;` first line, which names the delimiter. */
const SEP_LINE = /^sep=(.)(\r\n|\r|\n)/i;
const DELIMITERS = [',', ';', '\t'] as const;

/** The delimiter: a `sep=` line's, else the one the first filled line holds most of, outside quotes. */
export const delimiterOf = (start: string): { delimiter: string; skip: number } => {
  const directive = SEP_LINE.exec(start);
  if (directive?.[1] && (DELIMITERS as readonly string[]).includes(directive[1]))
    return { delimiter: directive[1], skip: directive[0].length };
  const unquoted = start.replace(/"[^"]*"/g, '');
  const line = unquoted.split(/\r\n|\r|\n/).find((text) => text.trim() !== '') ?? '';
  const count = (delimiter: string) => line.split(delimiter).length - 1;
  const best = [...DELIMITERS].sort((a, b) => count(b) - count(a))[0] ?? ',';
  return { delimiter: count(best) > 0 ? best : ',', skip: 0 };
};

/**
 * The file's text encoding: by its byte order mark; UTF-16 without one when every other byte of its
 * start is zero, as Excel's "Unicode Text" (.txt) may be; UTF-8 otherwise (Windows-1252 if it is not).
 */
const encodingOf = (head: Uint8Array): string => {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const pairs = Math.floor(head.length / 2);
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (head[i] === 0) evenZeros += 1;
    if (head[i + 1] === 0) oddZeros += 1;
  }
  if (pairs >= 2 && oddZeros >= pairs * 0.8 && evenZeros === 0) return 'utf-16le';
  if (pairs >= 2 && evenZeros >= pairs * 0.8 && oddZeros === 0) return 'utf-16be';
  return 'utf-8';
};

/** The header's sheet column: the one the pipeline's aliases name so, a strong name before a weak one. */
const sheetColumnOf = (header: readonly string[]): number | null => {
  const matches = header
    .map((text, index) => ({ index, match: columnForHeader(text) }))
    .filter(({ match }) => match?.column === 'sheet');
  const strong = matches.filter(({ match }) => !match?.weak);
  const chosen = strong.length > 0 ? strong : matches;
  // Two columns both meaning "sheet": Prepare refuses the file and says so.
  return chosen.length === 1 ? (chosen[0]?.index ?? null) : null;
};

/** What one reading of the file found; a reading that meets bytes that are not UTF-8 is started again. */
const readWith = async (file: File, encoding: string): Promise<CatalogueSheets & { read: true }> => {
  const decoder = new TextDecoder(encoding, { fatal: encoding === 'utf-8' });
  const named = new Map<string, NamedSheet>();
  let header: string[] | null = null;
  let column: number | null = null;
  let row = 0;
  let records: ReturnType<typeof csvRecords> | null = null;
  const preview = rejectionsPreview(file.name);
  const take = (found: readonly string[][]) => {
    for (const cells of found) {
      if (cells.every((cell) => cell.trim() === '')) continue;
      if (header === null) {
        header = cells;
        column = sheetColumnOf(cells);
        preview.header(cells);
        continue;
      }
      row += 1;
      preview.row(row, row, [...cells]);
      const path = column === null ? null : sheetPathOf(cells[column] ?? '');
      if (path === null) continue;
      const sheet = named.get(path) ?? { path, rows: [], rowCount: 0 };
      if (sheet.rows.length < ROWS_KEPT) sheet.rows.push(row);
      sheet.rowCount += 1;
      named.set(path, sheet);
    }
  };
  const push = (text: string) => {
    if (records !== null) return take(records.push(text));
    const start = text.replace(/^\uFEFF/, '');
    const { delimiter, skip } = delimiterOf(start);
    records = csvRecords(delimiter);
    take(records.push(start.slice(skip)));
  };
  for (let at = 0; at < file.size; at += SLICE_BYTES) {
    push(
      decoder.decode(new Uint8Array(await file.slice(at, at + SLICE_BYTES).arrayBuffer()), { stream: true }),
    );
  }
  push(decoder.decode());
  if (records) take((records as ReturnType<typeof csvRecords>).end());
  const found: string[] | null = header;
  return {
    read: true,
    column: found !== null && column !== null ? (found[column] ?? null) : null,
    sheets: [...named.values()],
    rejections: preview.result(),
  };
};

/** The sheets a catalogue names, each with its rows, in the order the file first names them. */
export const readCatalogueSheets = async (file: File): Promise<CatalogueSheets> => {
  if (file.name.toLowerCase().endsWith('.xlsx')) return { read: false, why: 'xlsx' };
  // NF-e invoices (an XML, or a ZIP of them) name no technical sheets.
  if (/\.(xml|zip)$/i.test(file.name)) return { read: true, column: null, sheets: [], rejections: null };
  const encoding = encodingOf(new Uint8Array(await file.slice(0, 4096).arrayBuffer()));
  for (const label of encoding === 'utf-8' ? ['utf-8', 'windows-1252'] : [encoding]) {
    try {
      return await readWith(file, label);
    } catch (error) {
      // Not UTF-8 (a fatal decoder throws a TypeError): read again as Windows-1252, as Prepare does.
      if (!(error instanceof TypeError) || label !== 'utf-8') return { read: false, why: 'unreadable' };
    }
  }
  return { read: false, why: 'unreadable' };
};
