/**
 * How a cell's XML becomes the text the user sees in Excel: shared and inline strings, formula
 * results, booleans, ISO dates (numbers whose style is a date format), numbers without float noise.
 * The rules are read-excel-file's (9.3), the reader this project used before reading workbooks as
 * streams, so every cell reads as it did; where it refused a cell, the workbook is damaged.
 */
import { parseWholeXmlPart, quotedValue, type XlsxZip, type XmlPart } from './xlsx-zip.js';

/**
 * Excel shows and stores 15 significant digits, while the file may hold the binary
 * double's 17 (`0.30000000000000004`). Rounding to 15 gives back what the user typed;
 * integers such as a 7-digit NCM (`2071400`) come out unchanged.
 */
export const formatXlsxNumber = (value: number): string => {
  if (!Number.isFinite(value)) return String(value);
  const shown = Number(value.toPrecision(15));
  return Object.is(shown, -0) ? '0' : String(shown);
};

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/**
 * ISO `YYYY-MM-DD`; `YYYY-MM-DDTHH:MM:SS` when the cell also holds a time of day.
 * Dates are built in UTC from the serial number, so UTC fields are the cell's fields.
 */
const formatXlsxDate = (date: Date): string => {
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const hasTime = date.getUTCHours() + date.getUTCMinutes() + date.getUTCSeconds() > 0;
  return hasTime
    ? `${day}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
    : day;
};

/** Booleans as Excel displays them; empty cells as "". */
export const formatXlsxCell = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatXlsxNumber(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatXlsxDate(value);
  return String(value);
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** Serial of 1970-01-01: Excel counts from "1900-01-00" and believes in 1900-02-29 (Lotus's bug). */
const UNIX_EPOCH_SERIAL = 25569;
/** A 1904-based serial is this many days short of its 1900-based one. */
const DATE_1904_OFFSET_DAYS = 1462;

/** Serial day number (fraction = time of day) → UTC date, floored to the millisecond as before. */
const excelSerialDate = (serial: number, date1904: boolean): Date =>
  new Date(Math.floor((serial + (date1904 ? DATE_1904_OFFSET_DAYS : 0) - UNIX_EPOCH_SERIAL) * DAY_MS));

/** `_x000D_` → CR: how OOXML writes characters XML 1.0 cannot hold; `_x005F_` escapes a literal `_`. */
export const unescapeXlsxString = (text: string): string =>
  text.includes('_x')
    ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    : text;

/**
 * The text of a string item (`<si>` of sharedStrings.xml, `<is>` of a cell): a plain `<t>`, or
 * rich-text runs `<r><t>` concatenated; phonetic guides (`<rPh>`, furigana) are not the text.
 */
export class RichTextCollector {
  private text = '';
  private inT = false;
  private inRun = false;
  private inPhonetic = false;

  open(name: string): void {
    if (name === 't') {
      this.inT = true;
      // A `<t>` outside a run is the whole text (the last one wins, as in read-excel-file).
      if (!this.inRun && !this.inPhonetic) this.text = '';
    } else if (name === 'r') this.inRun = true;
    else if (name === 'rPh') this.inPhonetic = true;
  }

  close(name: string): void {
    if (name === 't') this.inT = false;
    else if (name === 'r') this.inRun = false;
    else if (name === 'rPh') this.inPhonetic = false;
  }

  append(text: string): void {
    if (this.inT && !this.inPhonetic) this.text += text;
  }

  /** Characters collected so far (before `_xHHHH_` escapes are undone): what a limit is checked on. */
  get length(): number {
    return this.text.length;
  }

  result(): string {
    return unescapeXlsxString(this.text);
  }
}

/** What cell values are read against. */
export interface CellContext {
  sharedStrings: readonly string[];
  /** Per cell style (`s`): whether its number format is a date format. */
  dateStyles: readonly boolean[];
  date1904: boolean;
}

/**
 * A cell read-excel-file refused (its VALUE_INVALID, FORMAT_INVALID, TYPE_INVALID): the workbook
 * is damaged. The message says what is wrong with the cell in plain words.
 */
export class InvalidCell extends Error {}

const notANumber = (value: string) => new InvalidCell(`its value ${quotedValue(value)} is not a number`);

export interface CellXml {
  /** `t`: s, str, inlineStr, b, e, d or n (the default). */
  type: string | undefined;
  /** `s`: index of the cell style. */
  style: string | undefined;
  /** `<v>`'s text; undefined when there is no `<v>`. */
  value: string | undefined;
  inline: string | undefined;
}

const numberCell = ({ style, value }: CellXml, context: CellContext): string => {
  if (!value) return '';
  if (style) {
    const isDate = context.dateStyles[Number(style)];
    if (isDate === undefined) {
      throw new InvalidCell(`its style ${quotedValue(style)} is not one of the workbook's cell styles`);
    }
    if (isDate) {
      const serial = Number(value);
      if (Number.isNaN(serial)) throw notANumber(value);
      return formatXlsxDate(excelSerialDate(serial, context.date1904));
    }
  }
  const number = Number(value);
  if (Number.isNaN(number)) throw notANumber(value);
  return formatXlsxNumber(number);
};

/** A cell as the user sees it; a missing value, an error (`#N/A`) or an empty string is "". */
export const cellText = (cell: CellXml, context: CellContext): string => {
  const { type, value } = cell;
  switch (type || 'n') {
    case 's': {
      if (!value) return '';
      const text = context.sharedStrings[Number(value)];
      if (text === undefined) {
        throw new InvalidCell(
          `it points at shared text ${quotedValue(value)}, which is not in the workbook's ${context.sharedStrings.length} shared texts`,
        );
      }
      return text;
    }
    case 'str':
      // A formula's cached text result; no `<v>` means it was never computed.
      return value ? unescapeXlsxString(value) : '';
    case 'inlineStr':
      return cell.inline ?? '';
    case 'b':
      if (!value) return '';
      if (value === '1' || value === '0') return value === '1' ? 'TRUE' : 'FALSE';
      throw new InvalidCell(`its value ${quotedValue(value)} is not a boolean (1 or 0)`);
    case 'e':
      // A formula error (#DIV/0!, #N/A): read-excel-file read it as an empty cell.
      return '';
    case 'd': {
      if (!value) return '';
      const date = new Date(value);
      if (Number.isNaN(date.getTime()))
        throw new InvalidCell(`its value ${quotedValue(value)} is not a date`);
      return formatXlsxDate(date);
    }
    case 'n':
      return numberCell(cell, context);
    default:
      throw new InvalidCell(`its type ${quotedValue(type ?? '')} is not one a spreadsheet program writes`);
  }
};

// Date styles: XLSX stores dates as serial numbers, and only the cell's number format tells
// `45356` (a count) from `45356` (2024-03-05).

/**
 * Built-in number formats (no `<numFmt>` in styles.xml) that show dates or times: the
 * locale-independent ones, then the Chinese, Japanese/Korean and Thai locales' date formats.
 */
const BUILT_IN_DATE_FORMAT_IDS: ReadonlySet<number> = new Set([
  ...[14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47],
  ...[27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58],
  ...[71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81],
]);

/** Every token a date/time format may hold; one other token (`0`, `#`, `%`, a word) makes it a number format. */
const DATE_FORMAT_TOKENS: ReadonlySet<string> = new Set(
  's ss m mm mmm mmmm mmmmm h hh am pm a p d dd ddd dddd aaa aaaa aaaaa y yy yyyy e ee eeee'.split(' '),
);

/** One `;` section of a format: quoted text, fractions of seconds, elapsed-time and locale brackets removed. */
const isDateSection = (section: string): boolean => {
  const tokens = section
    .replace(/"[^"]*"/g, ' ')
    .replace(/(\[?[smhd]{1,2}\]?)[.,]00?0?/g, '$1')
    .replace(/\[([smhd]{1,2})\]/g, '$1')
    .replace(/\[[^\]]*\]/g, '')
    .split(/[^a-z0#?%]+/)
    .filter((token) => token !== '');
  return tokens.length > 0 && tokens.every((token) => DATE_FORMAT_TOKENS.has(token));
};

/** `dd/mm/yyyy`, `[$-409]mmmm\ yyyy;@`, `h:mm AM/PM` are dates; `0.00`, `#,##0 "kg"` are not. */
const isDateFormatCode = (code: string): boolean =>
  code.toLowerCase().replace(/;@$/, '').replace(/\\./g, ' ').split(';').some(isDateSection);

interface NumberFormat {
  id: number;
  /** Only formats numbered 100 and up carry their own code, as read-excel-file took them. */
  code?: string;
}

const isDateFormat = (format: NumberFormat | undefined): boolean =>
  format !== undefined &&
  (BUILT_IN_DATE_FORMAT_IDS.has(format.id) || (format.code !== undefined && isDateFormatCode(format.code)));

/**
 * For each cell style (`<c s="3">` → index 3 of `cellXfs`), whether it shows a date. An index
 * past the end means a damaged workbook, which the caller reports. No styles part: no styles.
 */
export const readDateStyles = async (zip: XlsxZip, part: XmlPart): Promise<boolean[]> => {
  if (!zip.has(part.path)) return [];
  const formats = new Map<number, NumberFormat>();
  /** `cellStyleXfs`: the base styles a cell style may inherit its number format from. */
  const baseFormats: (NumberFormat | undefined)[] = [];
  const cellFormats: (NumberFormat | undefined)[] = [];
  let list: 'base' | 'cell' | null = null;
  await parseWholeXmlPart(zip, part, {
    open(name, attributes) {
      if (name === 'numFmt') {
        const id = Number(attributes.numFmtId);
        formats.set(
          id,
          id >= 100 && attributes.formatCode !== undefined ? { id, code: attributes.formatCode } : { id },
        );
      } else if (name === 'cellStyleXfs') {
        list = 'base';
      } else if (name === 'cellXfs') {
        list = 'cell';
      } else if (name === 'xf' && list === 'base') {
        // A base style's format is taken by its id only, custom code or not (read-excel-file's rule).
        baseFormats.push(attributes.numFmtId ? { id: Number(attributes.numFmtId) } : undefined);
      } else if (name === 'xf' && list === 'cell') {
        const id = attributes.numFmtId ? Number(attributes.numFmtId) : undefined;
        const own = id === undefined ? undefined : (formats.get(id) ?? { id });
        // Base style 0 is never inherited from (read-excel-file tests the id for truthiness).
        const xfId = Number(attributes.xfId);
        const base = xfId ? baseFormats[xfId] : undefined;
        cellFormats.push(own ?? base);
      }
    },
    close(name) {
      if (name === 'cellStyleXfs' || name === 'cellXfs') list = null;
    },
  });
  return cellFormats.map(isDateFormat);
};
