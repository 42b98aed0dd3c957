/**
 * XLSX → records of text cells, first sheet only. Every cell is turned into the text the user
 * sees in Excel, so the rest of the pipeline handles CSV and XLSX alike. The sheet is read as a
 * stream (xlsx-zip.ts, xlsx-sheet.ts), so a 100,000-row workbook in S3 costs the memory of its
 * shared strings, not of its rows; every part is refused as soon as it passes its limit. Cell rules are read-excel-file's (9.3), the reader used before, so values match.
 */
import { posix } from 'node:path';
import { type ByteSource, bytesSource } from './byte-source.js';
import { SpreadsheetError } from './errors.js';
import type { SpreadsheetProblem } from './schemas.js';
import { counted } from './sentence-parts.js';
import type { SourceRecord } from './table.js';
import { type CellContext, RichTextCollector, readDateStyles, unescapeXlsxString } from './xlsx-cells.js';
import { sheetRecords, XLSX_LIMITS, type XlsxLimits } from './xlsx-sheet.js';
import {
  damagedWorkbook,
  openZip,
  parseWholeXmlPart,
  quotedValue,
  workbookError,
  type XlsxZip,
  type XmlPart,
  XmlRunTooLong,
} from './xlsx-zip.js';

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

const sharedTextTooLarge = (fileName: string, part: string, item: number, limit: number): SpreadsheetError =>
  new SpreadsheetError(
    'xlsx_cell_too_large',
    fileName,
    `a cell text in ${part} (its item ${counted(item)}) holds more than ${counted(limit)} characters, far more ` +
      'than the 32,767 an Excel cell holds; it is refused before it is read whole: shorten that cell and save ' +
      'the workbook again',
    {},
    { details: { part, item, limit } },
  );

/** The shared-strings table: the only part held whole, as it grows with distinct strings, not rows. */
const readSharedStrings = async (zip: XlsxZip, path: string, limits: XlsxLimits): Promise<string[]> => {
  if (!zip.has(path)) return [];
  const part: XmlPart = {
    path,
    maxBytes: limits.sharedStringsBytes,
    maxRunCharacters: limits.cellCharacters,
  };
  const strings: string[] = [];
  let item: RichTextCollector | null = null;
  const tooLarge = () => sharedTextTooLarge(zip.fileName, path, strings.length + 1, limits.cellCharacters);
  try {
    await parseWholeXmlPart(zip, part, {
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
        if (item && item.length > limits.cellCharacters) throw tooLarge();
      },
    });
  } catch (error) {
    if (error instanceof XmlRunTooLong && item) throw tooLarge();
    throw workbookError(error, zip.fileName, {
      part: path,
      ...(item ? { at: `item ${strings.length + 1}` } : {}),
    });
  }
  return strings;
};

/** Fixed part names, as every XLSX writer uses them (and read-excel-file assumed). */
const WORKBOOK_PART = 'xl/workbook.xml';
const WORKBOOK_RELATIONSHIPS_PART = 'xl/_rels/workbook.xml.rels';

/** A part other than the sheet and its texts, read to its end; what stops it names the part. */
const readOtherPart = async (
  zip: XlsxZip,
  path: string,
  limits: XlsxLimits,
  handlers: Parameters<typeof parseWholeXmlPart>[2],
): Promise<void> => {
  try {
    await parseWholeXmlPart(zip, otherPart(path, limits), handlers);
  } catch (error) {
    throw workbookError(error, zip.fileName, { part: path });
  }
};

const otherPart = (path: string, limits: XlsxLimits): XmlPart => ({
  path,
  maxBytes: limits.otherPartBytes,
  maxRunCharacters: limits.cellCharacters,
});

const missingPart = (zip: XlsxZip, path: string, what: string) =>
  damagedWorkbook(zip.fileName, { part: path }, `the part is missing (${what})`);

interface WorkbookInfo {
  /** In tab order; `relationId` points into workbook.xml.rels. */
  sheets: { name: string; relationId: string | undefined }[];
  /** Serial dates count from 1904 (old Excel for Mac) instead of 1900. */
  date1904: boolean;
}

const readWorkbookInfo = async (zip: XlsxZip, limits: XlsxLimits): Promise<WorkbookInfo> => {
  if (!zip.has(WORKBOOK_PART)) throw missingPart(zip, WORKBOOK_PART, 'the list of sheets');
  const sheets: WorkbookInfo['sheets'] = [];
  let date1904: boolean | undefined;
  await readOtherPart(zip, WORKBOOK_PART, limits, {
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

const readWorkbookParts = async (zip: XlsxZip, limits: XlsxLimits): Promise<WorkbookParts> => {
  if (!zip.has(WORKBOOK_RELATIONSHIPS_PART)) {
    throw missingPart(zip, WORKBOOK_RELATIONSHIPS_PART, "where the workbook's sheets are");
  }
  const parts: WorkbookParts = {
    byId: new Map(),
    sharedStrings: 'xl/sharedStrings.xml',
    styles: 'xl/styles.xml',
  };
  await readOtherPart(zip, WORKBOOK_RELATIONSHIPS_PART, limits, {
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

const readStyles = async (zip: XlsxZip, path: string, limits: XlsxLimits): Promise<boolean[]> => {
  try {
    return await readDateStyles(zip, otherPart(path, limits));
  } catch (error) {
    throw workbookError(error, zip.fileName, { part: path });
  }
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
          said: {
            code: 'other_sheets_ignored',
            params: { file: fileName, first: first?.name ?? '', others: others.map((sheet) => sheet.name) },
          },
        },
      ];

/**
 * Opens a workbook from ranges of its bytes: the ZIP directory, workbook, relationships, styles
 * and shared strings are read now (any damage there rejects here); the first sheet is streamed
 * by `records()`, which throws what it finds damaged as it goes. Every refusal names the part it
 * was found in, and the cell or row when there is one (`limits`: tests make them small).
 */
export const openXlsx = async (
  source: ByteSource,
  fileName: string,
  limits: XlsxLimits = XLSX_LIMITS,
): Promise<XlsxWorkbook> => {
  const opened = await openXlsxSheet(source, fileName, limits, () => true);
  if (!opened) throw damagedWorkbook(fileName, { part: WORKBOOK_PART }, 'it lists no sheet');
  return opened;
};

/**
 * The first sheet whose name `wanted` accepts, opened as `openXlsx` opens the first (its
 * `otherSheets` and problems still about the first sheet); null when no sheet's name is accepted.
 */
const openXlsxSheet = async (
  source: ByteSource,
  fileName: string,
  limits: XlsxLimits,
  wanted: (name: string) => boolean,
): Promise<XlsxWorkbook | null> => {
  try {
    const zip = await openZip(source, fileName);
    const workbook = await readWorkbookInfo(zip, limits);
    const parts = await readWorkbookParts(zip, limits);
    const first = workbook.sheets.find((sheet) => wanted(sheet.name));
    if (!first) return null;
    const sheetPath = first.relationId === undefined ? undefined : parts.byId.get(first.relationId);
    if (sheetPath === undefined || !zip.has(sheetPath)) {
      throw damagedWorkbook(
        fileName,
        { part: sheetPath ?? WORKBOOK_RELATIONSHIPS_PART },
        `the part of the sheet ${quotedValue(first.name)} is missing`,
      );
    }
    const context: CellContext = {
      dateStyles: await readStyles(zip, parts.styles, limits),
      sharedStrings: await readSharedStrings(zip, parts.sharedStrings, limits),
      date1904: workbook.date1904,
    };
    return {
      problems: otherSheetsProblem(fileName, workbook.sheets),
      otherSheets: workbook.sheets.slice(1).map((sheet) => sheet.name),
      records: () => sheetRecords(zip, sheetPath, context, limits),
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

/** The records of the first sheet whose name `wanted` accepts; null when the workbook has none. */
export const readXlsxSheetRecords = async (
  bytes: Uint8Array,
  fileName: string,
  wanted: (name: string) => boolean,
): Promise<SourceRecord[] | null> => {
  const sheet = await openXlsxSheet(bytesSource(bytes), fileName, XLSX_LIMITS, wanted);
  if (!sheet) return null;
  const records: SourceRecord[] = [];
  for await (const record of sheet.records()) records.push(record);
  return records;
};
