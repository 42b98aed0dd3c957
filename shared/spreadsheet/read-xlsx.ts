/**
 * XLSX → records of text cells, first sheet only. Every cell is turned into the text the user
 * sees in Excel, so the rest of the pipeline handles CSV and XLSX alike. The sheet is read as a
 * stream (xlsx-zip.ts), so a 100,000-row workbook in S3 costs the memory of its shared strings,
 * not of its rows. Cell rules are read-excel-file's (9.3), the reader used before, so values match.
 */
import { posix } from 'node:path';
import { type ByteSource, bytesSource } from './byte-source.js';
import { SpreadsheetError } from './errors.js';
import type { SpreadsheetProblem } from './schemas.js';
import type { SourceRecord } from './table.js';
import {
  type CellContext,
  type CellXml,
  cellText,
  InvalidCell,
  RichTextCollector,
  readDateStyles,
  unescapeXlsxString,
} from './xlsx-cells.js';
import {
  damagedWorkbook,
  openZip,
  parseWholeXmlPart,
  parseXmlPart,
  workbookError,
  type XlsxZip,
} from './xlsx-zip.js';

export { formatXlsxCell, formatXlsxDate, formatXlsxNumber } from './xlsx-cells.js';

export interface XlsxRecords {
  records: SourceRecord[];
  problems: SpreadsheetProblem[];
  /** The names of the sheets after the first, which are not read. */
  otherSheets: string[];
}

export interface XlsxWorkbook {
  /** e.g. other_sheets_ignored. */
  problems: SpreadsheetProblem[];
  /** The names of the sheets after the first, which are not read. */
  otherSheets: string[];
  /** The first sheet's rows in order, streamed afresh on each call (may be called more than once). */
  records(): AsyncIterable<SourceRecord>;
}

/** The shared-strings table: the only part held whole, as it grows with distinct strings, not rows. */
/**
 * The most text a workbook's shared strings may hold, inflated: they are the one part held in
 * memory (every distinct cell text), and a 400,000-row catalogue needs well under this.
 */
export const MAX_SHARED_STRINGS_BYTES = 512 * 1024 * 1024;

const readSharedStrings = async (zip: XlsxZip, path: string, fileName: string): Promise<string[]> => {
  if (!zip.has(path)) return [];
  if (zip.inflatedSize(path) > MAX_SHARED_STRINGS_BYTES) {
    throw new SpreadsheetError(
      'file_too_large',
      fileName,
      `holds more than ${MAX_SHARED_STRINGS_BYTES / (1024 * 1024)} MB of cell text, more than one batch reads; ` +
        'split it into smaller workbooks, or save it as CSV UTF-8, which has no such limit',
    );
  }
  const strings: string[] = [];
  let item: RichTextCollector | null = null;
  await parseWholeXmlPart(zip, path, {
    open(name) {
      if (name === 'si') item = new RichTextCollector();
      else item?.open(name);
    },
    close(name) {
      if (name === 'si' && item) {
        strings.push(item.result());
        item = null;
      } else item?.close(name);
    },
    text(text) {
      item?.append(text);
    },
  });
  return strings;
};

/** Excel's last column, XFD: a reference beyond it is damage, not a reason to allocate. */
const MAX_COLUMN = 16_384;

/** `C5` → row 5, column 3 (1-based). */
const parseCellReference = (reference: string): { row: number; column: number } | null => {
  const match = /^\$?([A-Za-z]{1,3})\$?([0-9]+)$/.exec(reference);
  if (!match) return null;
  let column = 0;
  for (const letter of match[1]!.toUpperCase()) column = column * 26 + letter.charCodeAt(0) - 64;
  return column > MAX_COLUMN ? null : { row: Number(match[2]), column };
};

interface RowXml {
  /** From `<row r>`, else from its first cell's reference, else the previous row's + 1. */
  number: number | undefined;
  cells: string[];
  /** Column of the last `<c>` seen; a cell without `r` takes the next one. */
  lastColumn: number;
}

/**
 * SAX handlers for a worksheet part, and the records they complete: the caller drains
 * `completed` after every chunk, so only one chunk's rows are ever held.
 */
const createSheetReader = (context: CellContext, fileName: string) => {
  const completed: SourceRecord[] = [];
  let inSheetData = false;
  let lastRowNumber = 0;
  let row: RowXml | null = null;
  let cell: (CellXml & { reference: string | undefined; inValue: boolean }) | null = null;
  let inline: RichTextCollector | null = null;

  const damaged = (reason: string) => damagedWorkbook(fileName, reason);

  const openRow = (attributes: Readonly<Record<string, string>>): void => {
    const number = Number(attributes.r);
    row = { number: Number.isInteger(number) && number > 0 ? number : undefined, cells: [], lastColumn: 0 };
  };

  const closeRow = (current: RowXml): void => {
    const number = current.number ?? lastRowNumber + 1;
    if (number <= lastRowNumber) throw damaged(`row ${number} follows row ${lastRowNumber}`);
    lastRowNumber = number;
    if (current.cells.length > 0) completed.push({ line: number, cells: current.cells });
    row = null;
  };

  const closeCell = (current: RowXml, done: NonNullable<typeof cell>): void => {
    const reference = done.reference === undefined ? null : parseCellReference(done.reference);
    if (done.reference !== undefined && !reference) throw damaged(`bad cell reference "${done.reference}"`);
    const column = reference?.column ?? current.lastColumn + 1;
    current.number ??= reference?.row;
    const where = `<c/> at row ${current.number ?? lastRowNumber + 1}, col ${column}`;
    if (column <= current.lastColumn) throw damaged(`${where} follows col ${current.lastColumn}`);
    current.lastColumn = column;
    let text: string;
    try {
      text = cellText(done, context);
    } catch (error) {
      if (error instanceof InvalidCell) throw damaged(`${where}: ${error.message}`);
      throw error;
    }
    if (text === '') return;
    // Cells left out of the XML are empty: fill them so each value keeps its column.
    while (current.cells.length < column - 1) current.cells.push('');
    current.cells.push(text);
  };

  const openInCell = (current: NonNullable<typeof cell>, name: string): void => {
    if (name === 'v') {
      current.inValue = true;
      current.value = '';
    } else if (name === 'is') inline = new RichTextCollector();
    else inline?.open(name);
  };

  const closeInCell = (current: NonNullable<typeof cell>, name: string): void => {
    if (name === 'v') current.inValue = false;
    else if (name === 'is' && inline) {
      current.inline = inline.result();
      inline = null;
    } else inline?.close(name);
  };

  const handlers = {
    open(name: string, attributes: Readonly<Record<string, string>>): void {
      if (name === 'sheetData') inSheetData = true;
      else if (!inSheetData) return;
      else if (name === 'row') openRow(attributes);
      else if (name === 'c' && row) {
        const { r: reference, t: type, s: style } = attributes;
        cell = { reference, type, style, value: undefined, inline: undefined, inValue: false };
      } else if (cell) openInCell(cell, name);
    },
    close(name: string): void {
      if (name === 'sheetData') inSheetData = false;
      else if (name === 'row' && row) closeRow(row);
      else if (name === 'c' && row && cell) {
        closeCell(row, cell);
        cell = null;
      } else if (cell) closeInCell(cell, name);
    },
    text(text: string): void {
      if (!cell) return;
      if (cell.inValue) cell.value += text;
      else inline?.append(text);
    },
  };
  return { handlers, completed };
};

async function* sheetRecords(
  zip: XlsxZip,
  path: string,
  context: CellContext,
  fileName: string,
): AsyncGenerator<SourceRecord> {
  const reader = createSheetReader(context, fileName);
  try {
    for await (const _ of parseXmlPart(zip, path, reader.handlers)) {
      const rows = reader.completed.splice(0);
      for (const record of rows) yield record;
    }
  } catch (error) {
    throw workbookError(error, fileName);
  }
}

/** Fixed part names, as every XLSX writer uses them (and read-excel-file assumed). */
const WORKBOOK_PART = 'xl/workbook.xml';
const WORKBOOK_RELATIONSHIPS_PART = 'xl/_rels/workbook.xml.rels';

interface WorkbookInfo {
  /** In tab order; `relationId` points into workbook.xml.rels. */
  sheets: { name: string; relationId: string | undefined }[];
  /** Serial dates count from 1904 (old Excel for Mac) instead of 1900. */
  date1904: boolean;
}

const readWorkbookInfo = async (zip: XlsxZip, fileName: string): Promise<WorkbookInfo> => {
  if (!zip.has(WORKBOOK_PART)) throw damagedWorkbook(fileName, `"${WORKBOOK_PART}" is missing`);
  const sheets: WorkbookInfo['sheets'] = [];
  let date1904: boolean | undefined;
  await parseWholeXmlPart(zip, WORKBOOK_PART, {
    open(name, attributes) {
      // Only the first <workbookPr> counts; some writers repeat it. Excel writes 1/0, LibreOffice true/false.
      if (name === 'workbookPr' && date1904 === undefined) {
        date1904 = attributes.date1904 === '1' || attributes.date1904 === 'true';
      } else if (name === 'sheet' && attributes.name) {
        sheets.push({ name: unescapeXlsxString(attributes.name), relationId: attributes.id });
      }
    },
  });
  return { sheets, date1904: date1904 ?? false };
};

/** A relationship target is relative to `xl/`, or absolute from the archive root (`/xl/...`). */
const partPath = (target: string): string =>
  target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join('xl', target));

interface WorkbookParts {
  /** Part path by relationship id. */
  byId: Map<string, string>;
  sharedStrings: string;
  styles: string;
}

const readWorkbookParts = async (zip: XlsxZip, fileName: string): Promise<WorkbookParts> => {
  if (!zip.has(WORKBOOK_RELATIONSHIPS_PART)) {
    throw damagedWorkbook(fileName, `"${WORKBOOK_RELATIONSHIPS_PART}" is missing`);
  }
  const parts: WorkbookParts = {
    byId: new Map(),
    sharedStrings: 'xl/sharedStrings.xml',
    styles: 'xl/styles.xml',
  };
  await parseWholeXmlPart(zip, WORKBOOK_RELATIONSHIPS_PART, {
    open(name, { Id: id, Type: type, Target: target, TargetMode: mode }) {
      if (name !== 'Relationship' || !id || !target || mode === 'External') return;
      const path = partPath(target);
      parts.byId.set(id, path);
      // Transitional and strict OOXML name the types under different URLs, with the same last segment.
      if (type?.endsWith('/sharedStrings')) parts.sharedStrings = path;
      else if (type?.endsWith('/styles')) parts.styles = path;
    },
  });
  return parts;
};

const otherSheetsProblem = (fileName: string, [first, ...others]: WorkbookInfo['sheets']) =>
  others.length === 0
    ? []
    : [
        {
          code: 'other_sheets_ignored' as const,
          message:
            `${fileName}: only the first sheet "${first?.name ?? ''}" was read; ` +
            `ignored: ${others.map((sheet) => `"${sheet.name}"`).join(', ')}`,
        },
      ];

/**
 * Opens a workbook from ranges of its bytes: the ZIP directory, workbook, relationships, styles
 * and shared strings are read now (any damage there rejects here); the first sheet is streamed
 * by `records()`, which throws what it finds damaged as it goes.
 */
export const openXlsx = async (source: ByteSource, fileName: string): Promise<XlsxWorkbook> => {
  try {
    const zip = await openZip(source, fileName);
    const workbook = await readWorkbookInfo(zip, fileName);
    const parts = await readWorkbookParts(zip, fileName);
    const [first] = workbook.sheets;
    if (!first) throw damagedWorkbook(fileName, 'the workbook lists no sheet');
    const sheetPath = first.relationId === undefined ? undefined : parts.byId.get(first.relationId);
    if (sheetPath === undefined || !zip.has(sheetPath)) {
      throw damagedWorkbook(fileName, `the part of sheet "${first.name}" is missing`);
    }
    const context: CellContext = {
      dateStyles: await readDateStyles(zip, parts.styles),
      sharedStrings: await readSharedStrings(zip, parts.sharedStrings, fileName),
      date1904: workbook.date1904,
    };
    return {
      problems: otherSheetsProblem(fileName, workbook.sheets),
      otherSheets: workbook.sheets.slice(1).map((sheet) => sheet.name),
      records: () => sheetRecords(zip, sheetPath, context, fileName),
    };
  } catch (error) {
    throw workbookError(error, fileName);
  }
};

/** Whole-bytes convenience kept for existing callers: collects openXlsx's records. */
export const readXlsxRecords = async (bytes: Uint8Array, fileName: string): Promise<XlsxRecords> => {
  const workbook = await openXlsx(bytesSource(bytes), fileName);
  const records: SourceRecord[] = [];
  for await (const record of workbook.records()) records.push(record);
  return { records, problems: workbook.problems, otherSheets: workbook.otherSheets };
};
