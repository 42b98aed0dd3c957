/**
 * Writing XLSX workbooks people open in Excel and LibreOffice (docs/architecture.md, section 10),
 * through ExcelJS's streaming writer (review.xlsx; results.xlsx is written as text by xlsx-parts.ts
 * into zip-in-legs.ts, so that it can be written across invocations; both size and clean their
 * cells with xlsx-layout.ts): rows are compressed into the ZIP as they are committed
 * (`addRows` waits for it every few hundred rows), so a workbook of 100,000 rows never sits whole
 * in memory, and an S3 upload reads it as it is made.
 *
 * Strings are written in their cells (`t="str"`), with no shared-strings table, which would hold
 * every distinct text until the end. Every text cell is a string cell: a description that starts
 * with `=` is shown, never evaluated (OWASP "CSV Injection", CWE-1236). The only formulas in a
 * workbook are the ones its layout writes itself.
 */
import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { columnLetter } from './columns.js';
import { BODY_FONT } from './xlsx-layout.js';

export type WorkbookWriter = ExcelJS.stream.xlsx.WorkbookWriter;
export type WorksheetWriter = ExcelJS.Worksheet;
export type CellValue = ExcelJS.CellValue;

/** Printed across the page, the header row repeated on every page. */
export const PRINT_SETUP = { orientation: 'landscape', printTitlesRow: '1:1' } as const;

/** The header row of every sheet: white on dark blue, bold. */
const HEADER_STYLE = {
  font: { ...BODY_FONT, bold: true, color: { argb: 'FFFFFFFF' } },
  fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FF1F4E78' } },
  alignment: { vertical: 'middle' },
} as const;

export const styleHeader = (row: ExcelJS.Row): void => {
  row.eachCell((cell) => {
    Object.assign(cell, HEADER_STYLE);
  });
};

/** ExcelJS's writer, with the ZIP archive it appends each part to and its sheets (not in its types). */
type ZipAppend = (source: unknown, data: { name: string; date?: Date }) => unknown;
type FilterCorner = { row: number; column: number };
type WriterWithZip = WorkbookWriter & {
  zip: { append: ZipAppend };
  _worksheets: ({ name: string; autoFilter?: { from: FilterCorner; to: FilterCorner } | null } | undefined)[];
};

const xmlEscape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * workbook.xml with a hidden `_xlnm._FilterDatabase` name per sheet that has a filter, as Excel
 * writes it: LibreOffice shows a sheet's filter only when that name says where it is, and ExcelJS
 * writes only the sheet's `<autoFilter>` (its defined names cannot be local to a sheet).
 */
const withFilterNames = (xml: string, sheets: WriterWithZip['_worksheets']): string => {
  const names = sheets
    .filter((sheet) => sheet !== undefined)
    .map((sheet, position) => {
      const filter = sheet.autoFilter;
      if (!filter) return '';
      const corner = ({ row, column }: FilterCorner) => `$${columnLetter(column - 1)}$${row}`;
      const range = `'${sheet.name.replace(/'/g, "''")}'!${corner(filter.from)}:${corner(filter.to)}`;
      return `<definedName name="_xlnm._FilterDatabase" localSheetId="${position}" hidden="1">${xmlEscape(range)}</definedName>`;
    })
    .join('');
  if (names === '') return xml;
  return xml.includes('<definedNames>')
    ? xml.replace('<definedNames>', `<definedNames>${names}`)
    : xml.replace('</sheets>', `</sheets><definedNames>${names}</definedNames>`);
};

/** A sheet's data validations in ExcelJS's streaming writer (there, not in its types). */
type SheetValidations = { dataValidations: { add(range: string, rule: ExcelJS.DataValidation): void } };

/** A rule over a range of cells (`J2:J40`, or one cell as `J10:J10`). */
export const addValidation = (sheet: WorksheetWriter, range: string, rule: ExcelJS.DataValidation): void =>
  (sheet as unknown as SheetValidations).dataValidations.add(range, rule);

/** Rows between two waits for the ZIP to take what a sheet has written. */
const ROWS_PER_WAIT = 500;

/** A writable of Node's or of the `readable-stream` package (archiver's), which lacks `writableNeedDrain`. */
type AnyWritable = NodeJS.WritableStream & {
  writableNeedDrain?: boolean;
  _writableState?: { needDrain?: boolean };
};

/** The sheet's stream inside ExcelJS 4.4.0 (pinned in package.json) and the ZIP entry it feeds. */
type SheetStream = { pipes?: AnyWritable[] };

/**
 * ExcelJS's streaming sheet keeps every formula cell it wrote (`_formulae`, by address) for
 * formulas shared with later cells, which no layout here writes: emptied after each row, a sheet
 * with a formula a row (a verdict PDF's link, review.xlsx's days left) holds none of them.
 */
type SheetFormulas = { _formulae?: Record<string, unknown> };

/** Resolves when `target` can take more, or can take nothing any more (closed, failed). */
const drainOf = (target: AnyWritable): Promise<void> =>
  (target.writableNeedDrain ?? target._writableState?.needDrain)
    ? new Promise((resolve) => {
        const done = () => {
          for (const event of ['drain', 'close', 'error']) target.off(event, done);
          resolve();
        };
        for (const event of ['drain', 'close', 'error']) target.once(event, done);
      })
    : Promise.resolve();

/**
 * Adds rows to a sheet, committing each, and every few hundred rows waits until the ZIP has
 * compressed what the sheet wrote. ExcelJS's writer never waits by itself: a loop that adds rows
 * without a pause holds the whole sheet's XML (about 1 KB a row) before any of it is compressed.
 * Waiting here also passes on the upload's pace: a slow reader of the workbook slows the writing,
 * instead of the writing piling up in memory.
 */
export const addRows = async <T>(
  sheet: WorksheetWriter,
  items: Iterable<T> | AsyncIterable<T>,
  addRow: (item: T, line: number) => ExcelJS.Row,
): Promise<number> => {
  let line = 1;
  for await (const item of items) {
    line += 1;
    addRow(item, line).commit();
    const formulas = sheet as unknown as SheetFormulas;
    if (formulas._formulae) formulas._formulae = {};
    if (line % ROWS_PER_WAIT === 0) {
      const { pipes = [] } = (sheet as unknown as { stream: SheetStream }).stream;
      // No entry yet while the ZIP still writes an earlier part: let it run, the rows wait in the sheet.
      await (pipes.length > 0 ? Promise.all(pipes.map(drainOf)) : new Promise(setImmediate));
    }
  }
  return line - 1;
};

/**
 * A workbook as a stream of bytes, produced while `write` adds its sheets and rows: pass it to an
 * upload as its body. A failure while writing fails the stream, and with it the upload.
 *
 * `at` dates the workbook (its properties and every ZIP entry) instead of the clock, so the same
 * content at the same `at` is the same bytes: a step run twice writes the same file.
 */
export const streamWorkbook = (
  write: (workbook: WorkbookWriter) => Promise<void> | void,
  at: Date = new Date(),
): Readable => {
  const body = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: body,
    useStyles: true,
    useSharedStrings: false,
    created: at,
    modified: at,
  } as Partial<ExcelJS.stream.xlsx.WorkbookStreamWriterOptions>) as WriterWithZip;
  const append = workbook.zip.append.bind(workbook.zip);
  workbook.zip.append = (source, data) =>
    append(
      // workbook.xml is the last part written, once every sheet is committed with its filter.
      typeof source === 'string' && data.name.endsWith('xl/workbook.xml')
        ? withFilterNames(source, workbook._worksheets)
        : source,
      { ...data, date: at },
    );
  (async () => {
    await write(workbook);
    await workbook.commit();
  })().catch((error: unknown) => body.destroy(error instanceof Error ? error : new Error(String(error))));
  return body;
};
