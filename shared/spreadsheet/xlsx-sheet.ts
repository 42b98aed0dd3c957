/**
 * A worksheet part → its rows as records, streamed (read-xlsx.ts opens the workbook around it).
 * What no workbook holds is refused as it is met, naming the part and the cell or row: a row out
 * of order or past row 1,048,576, a cell past column XFD or out of order, a value its type does
 * not allow, a cell or a row whose text passes the reader's limits (read-xlsx.ts, `XLSX_LIMITS`).
 */
import { columnLetter } from './column-letters.js';
import { SpreadsheetError } from './errors.js';
import { counted } from './sentence-parts.js';
import type { SourceRecord } from './table.js';
import { type CellContext, type CellXml, cellText, InvalidCell, RichTextCollector } from './xlsx-cells.js';
import {
  damagedWorkbook,
  parseXmlPart,
  quotedValue,
  workbookError,
  type XlsxZip,
  type XmlHandlers,
  XmlRunTooLong,
} from './xlsx-zip.js';

const MEGABYTE = 1024 * 1024;

/**
 * What the reader takes from a workbook (docs/options.md, "Limits"). Each part is refused as soon
 * as it inflates past its limit (xlsx-zip.ts), so a small file that unzips to gigabytes (a zip
 * bomb) costs what its limit costs, not what it would inflate to. Measured on a heavy catalogue of
 * 400,000 rows, the most a batch takes: 20 columns, about 700 characters of text no other row
 * repeats in each row, saved by ExcelJS. Its sheet inflates to 313 MB with the cell texts in shared
 * strings (as Excel and LibreOffice save), 628 MB with each text in its cell (as results.xlsx is
 * written); its shared strings to 345 MB; its workbook, relationships and styles to under 2 KB each.
 */
export const XLSX_LIMITS = {
  /**
   * The first sheet: three times the heaviest sheet measured. It is streamed, never held, so this
   * bounds the time a read takes (about a minute and a half), not memory.
   */
  worksheetBytes: 2048 * MEGABYTE,
  /** Every distinct cell text: the one part held in memory, half again the heaviest measured. */
  sharedStringsBytes: 512 * MEGABYTE,
  /**
   * workbook.xml, its relationships and styles.xml: kilobytes in a workbook Excel or LibreOffice
   * saves, a few megabytes in one whose styles or defined names piled up over years of editing.
   */
  otherPartBytes: 64 * MEGABYTE,
  /**
   * One cell's text. Excel holds 32,767 characters a cell; a longer one, as other programs write,
   * is read and its row rejected (cell-limits.ts). This only stops a cell that no program writes
   * from being read whole: it is refused while the parser still buffers it.
   */
  cellCharacters: 50_000_000,
  /** A row's cells together (16,384 of them may each point at one long shared text). */
  rowCharacters: 100_000_000,
};
export type XlsxLimits = typeof XLSX_LIMITS;

/** Excel's last row: a row numbered beyond it is damage, and the most rows a sheet can list. */
const MAX_ROW = 1_048_576;

/** Excel's last column, XFD: a reference beyond it is damage, not a reason to allocate. */
const MAX_COLUMN = 16_384;

/** `C5`, as the user sees a cell's name in Excel. */
const cellName = (column: number, row: number): string => `${columnLetter(column - 1)}${row}`;

/** `C5` → row 5, column 3 (1-based). */
const parseCellReference = (reference: string): { row: number; column: number } | null => {
  const match = /^\$?([A-Za-z]{1,3})\$?([0-9]+)$/.exec(reference);
  if (!match) return null;
  let column = 0;
  for (const letter of match[1]!.toUpperCase()) column = column * 26 + letter.charCodeAt(0) - 64;
  return column > MAX_COLUMN ? null : { row: Number(match[2]), column };
};

const cellTooLarge = (fileName: string, part: string, cell: string, limit: number): SpreadsheetError =>
  new SpreadsheetError(
    'xlsx_cell_too_large',
    fileName,
    `cell ${cell} (in ${part}) holds more than ${counted(limit)} characters, far more than the 32,767 ` +
      'an Excel cell holds; it is refused before it is read whole: shorten that cell and save the workbook again',
    {},
    { details: { part, cell, limit } },
  );

const rowTooLarge = (fileName: string, part: string, row: number, limit: number): SpreadsheetError =>
  new SpreadsheetError(
    'xlsx_cell_too_large',
    fileName,
    `row ${row} (in ${part}) holds more than ${counted(limit)} characters in its cells, which no catalogue ` +
      'row needs; it is refused before it is read whole: shorten its cells and save the workbook again',
    {},
    { details: { part, row, limit } },
  );

interface RowXml {
  /** From `<row r>`, else from its first cell's reference, else the previous row's + 1. */
  number: number | undefined;
  cells: string[];
  /** Column of the last `<c>` seen; a cell without `r` takes the next one. */
  lastColumn: number;
  /** Characters in its cells so far. */
  characters: number;
}

type CellInProgress = CellXml & { reference: string | undefined; inValue: boolean };

/**
 * SAX handlers for a worksheet part, and the records they complete: the caller drains
 * `completed` after every chunk, so only one chunk's rows are ever held.
 */
class SheetReader {
  readonly completed: SourceRecord[] = [];
  private inSheetData = false;
  private lastRowNumber = 0;
  private row: RowXml | null = null;
  private cell: CellInProgress | null = null;
  private inline: RichTextCollector | null = null;

  constructor(
    private readonly context: CellContext,
    private readonly fileName: string,
    private readonly path: string,
    private readonly limits: XlsxLimits,
  ) {}

  readonly handlers: XmlHandlers = {
    open: (name, attributes) => {
      if (name === 'sheetData') this.inSheetData = true;
      else if (!this.inSheetData) return;
      else if (name === 'row') this.openRow(attributes);
      else if (name === 'c' && this.row) {
        const { r: reference, t: type, s: style } = attributes;
        this.cell = { reference, type, style, value: undefined, inline: undefined, inValue: false };
      } else if (this.cell) this.openInCell(this.cell, name);
    },
    close: (name) => {
      if (name === 'sheetData') this.inSheetData = false;
      else if (name === 'row' && this.row) this.closeRow(this.row);
      else if (name === 'c' && this.row && this.cell) {
        this.closeCell(this.row, this.cell);
        this.cell = null;
      } else if (this.cell) this.closeInCell(this.cell, name);
    },
    text: (text) => {
      const { cell, inline } = this;
      if (!cell) return;
      if (cell.inValue) cell.value += text;
      else inline?.append(text);
      if (Math.max(cell.value?.length ?? 0, inline?.length ?? 0) > this.limits.cellCharacters) {
        throw this.cellTooLong() ?? this.damaged('a cell holds more text than a sheet may');
      }
    },
  };

  /** What stopped the sheet, as the user reads it: a run of text past the limit is the cell it is in. */
  refusal(error: unknown): unknown {
    const tooLong = error instanceof XmlRunTooLong ? this.cellTooLong() : null;
    if (tooLong) return tooLong;
    const at = this.where();
    return workbookError(error, this.fileName, { part: this.path, ...(at ? { at } : {}) });
  }

  private rowNumber(): number {
    return this.row?.number ?? this.lastRowNumber + 1;
  }

  /** The cell being read, as Excel names it; null when its reference is not one. */
  private currentCell(): string | null {
    const { row, cell } = this;
    if (!row || !cell) return null;
    const reference = cell.reference === undefined ? null : parseCellReference(cell.reference);
    if (cell.reference !== undefined && !reference) return null;
    return cellName(
      reference?.column ?? row.lastColumn + 1,
      row.number ?? reference?.row ?? this.rowNumber(),
    );
  }

  /** `cell C5`, `row 12`: what was being read, for a refusal found while reading it. */
  private where(): string | undefined {
    const name = this.currentCell();
    if (name) return `cell ${name}`;
    if (this.row) return `row ${this.rowNumber()}`;
    return this.lastRowNumber > 0 ? `after row ${this.lastRowNumber}` : undefined;
  }

  private damaged(reason: string, at = this.where()): SpreadsheetError {
    return damagedWorkbook(this.fileName, { part: this.path, ...(at ? { at } : {}) }, reason);
  }

  /** A cell's text that passes the limit, named as Excel names the cell. */
  private cellTooLong(): SpreadsheetError | null {
    const name = this.currentCell();
    return name ? cellTooLarge(this.fileName, this.path, name, this.limits.cellCharacters) : null;
  }

  private openRow(attributes: Readonly<Record<string, string>>): void {
    const number = Number(attributes.r);
    this.row = {
      number: Number.isInteger(number) && number > 0 ? number : undefined,
      cells: [],
      lastColumn: 0,
      characters: 0,
    };
  }

  private closeRow(current: RowXml): void {
    const number = current.number ?? this.lastRowNumber + 1;
    if (number <= this.lastRowNumber) {
      throw this.damaged(`it comes after row ${this.lastRowNumber}, out of order`, `row ${number}`);
    }
    if (number > MAX_ROW) {
      throw this.damaged(
        `it is past row ${counted(MAX_ROW)}, the last row a sheet has`,
        `row ${counted(number)}`,
      );
    }
    this.lastRowNumber = number;
    if (current.cells.length > 0) this.completed.push({ line: number, cells: current.cells });
    this.row = null;
  }

  /** The cell's column, checked against the sheet's bounds and the row's order. */
  private cellColumn(current: RowXml, done: CellInProgress): number {
    const reference = done.reference === undefined ? null : parseCellReference(done.reference);
    const row = `row ${this.rowNumber()}`;
    if (done.reference !== undefined && !reference) {
      const named = quotedValue(done.reference);
      throw this.damaged(`a cell is named ${named}, which is not a cell of a sheet (A1 to XFD1048576)`, row);
    }
    const column = reference?.column ?? current.lastColumn + 1;
    current.number ??= reference?.row;
    if (column > MAX_COLUMN) throw this.damaged('a cell lies past column XFD, the last a sheet has', row);
    if (column <= current.lastColumn) {
      const previous = cellName(current.lastColumn, this.rowNumber());
      throw this.damaged(
        `it comes after cell ${previous}, out of order`,
        `cell ${cellName(column, this.rowNumber())}`,
      );
    }
    return column;
  }

  private closeCell(current: RowXml, done: CellInProgress): void {
    const column = this.cellColumn(current, done);
    current.lastColumn = column;
    let text: string;
    try {
      text = cellText(done, this.context);
    } catch (error) {
      if (error instanceof InvalidCell)
        throw this.damaged(error.message, `cell ${cellName(column, this.rowNumber())}`);
      throw error;
    }
    if (text === '') return;
    current.characters += text.length;
    if (current.characters > this.limits.rowCharacters) {
      throw rowTooLarge(this.fileName, this.path, this.rowNumber(), this.limits.rowCharacters);
    }
    // Cells left out of the XML are empty: fill them so each value keeps its column.
    while (current.cells.length < column - 1) current.cells.push('');
    current.cells.push(text);
  }

  private openInCell(current: CellInProgress, name: string): void {
    if (name === 'v') {
      current.inValue = true;
      current.value = '';
    } else if (name === 'is') this.inline = new RichTextCollector();
    else this.inline?.open(name);
  }

  private closeInCell(current: CellInProgress, name: string): void {
    if (name === 'v') current.inValue = false;
    else if (name === 'is' && this.inline) {
      current.inline = this.inline.result();
      this.inline = null;
    } else this.inline?.close(name);
  }
}

/** The sheet's rows in order, a chunk's worth at a time; what stops the read names its part and cell. */
export async function* sheetRecords(
  zip: XlsxZip,
  path: string,
  context: CellContext,
  limits: XlsxLimits,
): AsyncGenerator<SourceRecord> {
  const reader = new SheetReader(context, zip.fileName, path, limits);
  const part = { path, maxBytes: limits.worksheetBytes, maxRunCharacters: limits.cellCharacters };
  try {
    for await (const _ of parseXmlPart(zip, part, reader.handlers)) {
      const rows = reader.completed.splice(0);
      for (const record of rows) yield record;
    }
  } catch (error) {
    throw reader.refusal(error);
  }
}
