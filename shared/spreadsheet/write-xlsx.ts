/**
 * Writing an XLSX workbook people open in Excel and LibreOffice (docs/architecture.md, section 10)
 * as a stream of bytes, without a library (review.xlsx; results.xlsx, which is written across
 * invocations, keeps its own state in outbox/results-workbook-writer.ts): each sheet's XML is made
 * a piece at a time from the parts in xlsx-parts.ts and deflated into the ZIP (zip-in-legs.ts)
 * about 256 KB of text at a time. The stream makes its bytes only as its reader takes them, so a
 * workbook of 100,000 rows never sits whole in memory, and an S3 upload reads it as it is made.
 *
 * Every text is an inline string, with no shared-strings table, which would hold every distinct
 * text until the end; a description that starts with `=` is shown, never evaluated (OWASP "CSV
 * Injection", CWE-1236). The only formulas in a workbook are the ones its layout writes itself.
 */
import { Readable } from 'node:stream';
import {
  appPropertiesXml,
  type CellStyle,
  contentTypesXml,
  corePropertiesXml,
  rootRelationshipsXml,
  sheetPath,
  stylesXml,
  type WorkbookSheet,
  workbookRelationshipsXml,
  workbookXml,
} from './xlsx-parts.js';
import { THEME_XML } from './xlsx-theme.js';
import {
  addWholeEntry,
  appendToEntry,
  closeEntry,
  finishZip,
  openEntry,
  startZip,
  type ZipStep,
} from './zip-in-legs.js';

/** A cell style's index in the workbook's styles.xml (a cell's `s`), given the first time it is asked. */
export type StyleIndex = (style: CellStyle) => number;

/** A sheet of a streamed workbook: how workbook.xml names it, and its XML, head to tail, in pieces. */
export type StreamedSheet = WorkbookSheet & {
  /** Made as the stream is read; each cell's style from `style`. */
  xml: (style: StyleIndex) => Iterable<string>;
};

/** About how much sheet text waits before it is deflated: large chunks compress as well as one stream. */
const CHUNK_CHARACTERS = 256 * 1024;

/** Styles in the order they are first asked for, the unstyled one first (index 0, a cell without `s`). */
const styleList = () => {
  const styles: CellStyle[] = [{}];
  const indexes = new Map<string, number>([[JSON.stringify({}), 0]]);
  const index: StyleIndex = (style) => {
    const key = JSON.stringify(style);
    let at = indexes.get(key);
    if (at === undefined) {
      at = styles.push(style) - 1;
      indexes.set(key, at);
    }
    return at;
  };
  return { index, styles };
};

async function* workbookBytes(layout: () => readonly StreamedSheet[], at: Date): AsyncGenerator<Uint8Array> {
  const sheets = layout();
  let zip = startZip(at);
  const step = ({ bytes, zip: next }: ZipStep): Uint8Array => {
    zip = next;
    return bytes;
  };
  // The content types first, where programs that sniff a file's kind look for them.
  yield step(addWholeEntry(zip, '[Content_Types].xml', contentTypesXml(sheets.length)));
  const { index, styles } = styleList();
  for (const [position, sheet] of sheets.entries()) {
    yield step(openEntry(zip, sheetPath(position)));
    let gathered: string[] = [];
    let length = 0;
    for (const piece of sheet.xml(index)) {
      gathered.push(piece);
      length += piece.length;
      if (length < CHUNK_CHARACTERS) continue;
      yield step(appendToEntry(zip, gathered.join('')));
      gathered = [];
      length = 0;
    }
    if (length > 0) yield step(appendToEntry(zip, gathered.join('')));
    yield step(closeEntry(zip));
  }
  // After the sheets: every style they asked for is known, and workbook.xml names their filters.
  const names = sheets.map((sheet) => sheet.name);
  const parts: [string, string][] = [
    ['xl/workbook.xml', workbookXml(sheets)],
    ['xl/_rels/workbook.xml.rels', workbookRelationshipsXml(sheets.length)],
    ['xl/styles.xml', stylesXml(styles)],
    ['xl/theme/theme1.xml', THEME_XML],
    ['_rels/.rels', rootRelationshipsXml()],
    ['docProps/app.xml', appPropertiesXml(names)],
    ['docProps/core.xml', corePropertiesXml(at)],
  ];
  for (const [name, xml] of parts) yield step(addWholeEntry(zip, name, xml));
  yield finishZip(zip);
}

/**
 * A workbook as a stream of bytes, made as it is read from the sheets `layout` gives (called once,
 * when reading starts): pass it to an upload as its body. A failure while laying out or writing
 * fails the stream, and with it the upload.
 *
 * `at` dates the workbook (its properties and every ZIP entry) instead of the clock, so the same
 * content at the same `at` is the same bytes: a step run twice writes the same file.
 */
export const streamWorkbook = (layout: () => readonly StreamedSheet[], at: Date = new Date()): Readable =>
  Readable.from(workbookBytes(layout, at), { objectMode: false });
