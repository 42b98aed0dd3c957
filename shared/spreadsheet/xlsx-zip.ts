/**
 * An XLSX as parts read on demand: the ZIP's central directory sits at its end, so yauzl finds it
 * with a few small range reads of the `ByteSource` (zip-source.ts), then each part is inflated and
 * SAX-parsed as its bytes arrive. Nothing here holds a whole part, so an S3 object of any size is read in bounded memory.
 */
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import type { Entry, ZipFile } from 'yauzl';
import type { ByteSource } from './byte-source.js';
import { SpreadsheetError } from './errors.js';
import { counted } from './sentence-parts.js';
import { openZipSource, SourceReadFailure } from './zip-source.js';

/** Where in a workbook damage was found: the part, and the cell or row when it is known. */
export interface PartPlace {
  part: string;
  /** `cell C5`, `row 12`: what the reader was reading when it stopped. */
  at?: string;
}

/** A value quoted from the file in a sentence: on one line, and short, whatever the file holds. */
export const quotedValue = (value: string): string => {
  const oneLine = value.replace(/\s+/g, ' ');
  return `"${oneLine.length > 40 ? `${oneLine.slice(0, 40)}…` : oneLine}"`;
};

const placeText = ({ part, at }: PartPlace): string => (at ? `${part}, ${at}` : part);

/**
 * The refusal of a workbook whose bytes are not what an XLSX holds. `reason`, when known, says
 * what is wrong in plain words and goes into the sentence after the part it was found in.
 */
const invalidWorkbook = (
  fileName: string,
  cause: unknown,
  found?: { place?: PartPlace; reason: string },
): SpreadsheetError => {
  const detail = found && (found.place ? `${placeText(found.place)}: ${found.reason}` : found.reason);
  return new SpreadsheetError(
    'xlsx_invalid',
    fileName,
    'is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx)' +
      (detail ? `: ${detail}` : '') +
      '; open it in Excel and save it again as .xlsx, or upload a CSV',
    {},
    {
      cause,
      details: detail ? { ...(found?.place ? { part: found.place.part } : {}), detail } : {},
    },
  );
};

/**
 * A part's XML that the parser refused (not well-formed): carries the parser's reason, so the
 * refusal can say it after the part and the cell or row where it was found.
 */
export class XmlNotWellFormed extends Error {}

/**
 * A run of characters with no markup in it (one cell's text, one attribute) longer than a part
 * may hold: thrown while the parser still buffers it, so the caller can name the cell it is in.
 */
export class XmlRunTooLong extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} characters with no tag between them`);
  }
}

/** Plain words for what a part's reading stopped on, when it is not one of our own refusals. */
const reasonOf = (error: unknown): string => {
  if (error instanceof XmlNotWellFormed) return `its XML is not well-formed (${error.message})`;
  if (error instanceof XmlRunTooLong) {
    return `it holds more than ${counted(error.limit)} characters with no tag between them, which no workbook holds`;
  }
  if (isZlibError(error)) return 'its compressed bytes do not inflate (they are damaged)';
  return 'it cannot be read';
};

/** zlib's errors carry a `Z_…` code (`Z_DATA_ERROR`: the deflated bytes are damaged). */
const isZlibError = (error: unknown): boolean => {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('Z_');
};

/**
 * What any failure while reading a workbook becomes: our own errors pass through, a failing source
 * is rethrown as it failed, and everything else (zip, inflate, XML, cell) means a damaged workbook,
 * said with the part (and the cell or row) it was found in when the caller knows it.
 * Only the outermost catch calls it, so a source failure is unwrapped once and never mistaken later.
 */
export const workbookError = (error: unknown, fileName: string, place?: PartPlace): unknown => {
  if (error instanceof SpreadsheetError) return error;
  if (error instanceof SourceReadFailure) return error.cause;
  return invalidWorkbook(fileName, error, place ? { place, reason: reasonOf(error) } : undefined);
};

/** A damaged-workbook error saying what is wrong and in which part (and cell or row). */
export const damagedWorkbook = (fileName: string, place: PartPlace, reason: string): SpreadsheetError =>
  invalidWorkbook(fileName, new Error(reason), { place, reason });

/** A count as the sentences write it: `50,000,000`. */

const MEGABYTE = 1024 * 1024;

/**
 * A part that inflates past what the reader takes from it (read-xlsx.ts, `XLSX_PART_LIMITS`):
 * refused from its declared size before it is inflated, or as soon as its bytes pass the limit.
 */
const partTooLarge = (fileName: string, part: string, maxBytes: number): SpreadsheetError =>
  new SpreadsheetError(
    'xlsx_part_too_large',
    fileName,
    `the part ${part} inflates past ${counted(maxBytes / MEGABYTE)} MB once unzipped, more than one batch ` +
      'reads from a workbook; split it into smaller workbooks, or save it as CSV UTF-8',
    {},
    { details: { part, limit_mb: maxBytes / MEGABYTE } },
  );

/**
 * A part that declares an XML entity. Nothing in it is expanded or fetched: the parser never
 * reads a DTD, and the part is refused as soon as its declaration has been parsed.
 */
const entityDeclared = (fileName: string, part: string): SpreadsheetError =>
  new SpreadsheetError(
    'xlsx_entity_declared',
    fileName,
    `the part ${part} declares an XML entity (<!DOCTYPE …>), which a workbook saved by Excel or LibreOffice ` +
      'never holds; it is refused so no entity is ever expanded or fetched',
    {},
    { details: { part } },
  );

/** A file the ZIP reader refused. (An `.xls` never gets here: `detectFormat` tells it by its first bytes.) */
const refusedArchive = (fileName: string, error: unknown): unknown =>
  error instanceof SourceReadFailure
    ? error
    : invalidWorkbook(fileName, error, {
        reason: 'its ZIP directory cannot be read (the file is cut short, or it is not a ZIP archive)',
      });

export interface XlsxZip {
  /** The file's name as the user knows it, which every refusal starts with. */
  readonly fileName: string;
  /** Whether the archive holds this part (OPC part names are case-insensitive). */
  has(path: string): boolean;
  /**
   * The part's inflated bytes, as they come out of the inflater; stopping early stops the range
   * read. Past `maxBytes`, or past the size the archive declares for it, the part is refused at
   * once: an honest declared size over the limit before a byte is inflated, a lying one as soon
   * as the inflater passes it.
   */
  open(path: string, maxBytes: number): AsyncIterable<Buffer>;
}

/**
 * A part's bytes counted as they come out of the inflater. yauzl's own count is switched off
 * (`validateEntrySizes`) so that this one, which also applies the part's limit, says why it stops.
 */
async function* countedBytes(
  inflated: Readable,
  part: { path: string; declared: number; maxBytes: number; fileName: string },
): AsyncGenerator<Buffer> {
  const { path, declared, maxBytes, fileName } = part;
  let total = 0;
  try {
    for await (const chunk of inflated) {
      total += (chunk as Buffer).byteLength;
      if (total > maxBytes) throw partTooLarge(fileName, path, maxBytes);
      if (total > declared) {
        throw damagedWorkbook(
          fileName,
          { part: path },
          `it inflates past the ${counted(declared)} bytes the archive's directory says it holds`,
        );
      }
      yield chunk as Buffer;
    }
    if (total < declared) {
      throw damagedWorkbook(
        fileName,
        { part: path },
        `it inflates to ${counted(total)} bytes where the archive's directory says ${counted(declared)}: it is cut short`,
      );
    }
  } finally {
    inflated.destroy();
  }
}

/** Reads the central directory (a few small ranges at the end of the source) and keeps its entries. */
export const openZip = async (source: ByteSource, fileName: string): Promise<XlsxZip> => {
  let zip: ZipFile;
  const entries = new Map<string, Entry>();
  try {
    // records() may be called again later: the archive stays open (zip-source.ts).
    zip = await openZipSource(source, 'parts');
    for await (const entry of zip.eachEntry()) entries.set(entry.fileName.toLowerCase(), entry);
  } catch (error) {
    throw refusedArchive(fileName, error);
  }
  return {
    fileName,
    has: (path) => entries.has(path.toLowerCase()),
    open: async function* (path, maxBytes) {
      const entry = entries.get(path.toLowerCase());
      if (!entry) throw damagedWorkbook(fileName, { part: path }, 'the part is not in the archive');
      const declared = entry.uncompressedSize;
      if (declared > maxBytes) throw partTooLarge(fileName, path, maxBytes);
      yield* countedBytes(await zip.openReadStreamPromise(entry), { path, declared, maxBytes, fileName });
    },
  };
};

/** SAX callbacks with element and attribute names stripped of their prefix (`x:c` → `c`), as in strict OOXML. */
export interface XmlHandlers {
  /** `line`: the 1-based line of the document the tag ends on (an NF-e item's place in its XML). */
  open?(name: string, attributes: Readonly<Record<string, string>>, line: number): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** A part to read and what it may hold (read-xlsx.ts, `XLSX_PART_LIMITS`). */
export interface XmlPart {
  path: string;
  /** Inflated bytes. */
  maxBytes: number;
  /** Characters with no tag between them: one cell's text, one attribute's value. */
  maxRunCharacters: number;
}

const localName = (name: string): string => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

/** `r:id` → `id`; namespace declarations (`xmlns:r`) are not attributes. */
const localAttributes = (attributes: Record<string, string>): Record<string, string> => {
  const local: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (!name.startsWith('xmlns')) local[localName(name)] = value;
  }
  return local;
};

/**
 * saxes never reads a DTD: it expands only XML's five predefined entities and refuses any other
 * reference, so no declared entity is ever expanded and no external one ever fetched. A DOCTYPE
 * is refused as soon as it is parsed, with a sentence saying why. `progressed` is called on every
 * event, so the caller can tell a part that still says something from one that piles up text.
 */
const createParser = (
  handlers: XmlHandlers,
  refuseDoctype: () => never,
  progressed: () => void,
): SaxesParser => {
  const parser = new SaxesParser();
  const { open, close, text } = handlers;
  parser.on('doctype', refuseDoctype);
  parser.on('opentag', (tag) => {
    progressed();
    // Sheet cells (`c`, `row`) carry unprefixed attributes; copying them for every cell is waste.
    if (!open) return;
    const hasPrefixed = Object.keys(tag.attributes).some((name) => name.includes(':'));
    open(localName(tag.name), hasPrefixed ? localAttributes(tag.attributes) : tag.attributes, parser.line);
  });
  parser.on('closetag', (tag) => {
    progressed();
    close?.(localName(tag.name));
  });
  const onText = (value: string): void => {
    progressed();
    text?.(value);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('comment', progressed);
  parser.on('processinginstruction', progressed);
  return parser;
};

/** saxes reports what is not well-formed as a plain `Error` whose message starts `line:column: `. */
const parserFailure = (error: unknown): unknown =>
  error instanceof Error && error.constructor === Error
    ? new XmlNotWellFormed(error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, ''), { cause: error })
    : error;

/**
 * Streams one part through a SAX parser, yielding after each chunk so the caller can hand on what
 * its handlers collected: the caller's pace pulls the next chunk (back-pressure), and at most one
 * inflated chunk's worth of parsed content waits in between. Damage found in a chunk (bad XML, or
 * a handler's own error) is thrown after that yield, so what came before it is handed on first.
 * A run of text the parser would have to buffer past `maxRunCharacters` stops it (`XmlRunTooLong`)
 * within one chunk of the limit, before the parser holds it whole.
 */
export async function* parseXmlPart(
  zip: XlsxZip,
  part: XmlPart,
  handlers: XmlHandlers,
): AsyncGenerator<void> {
  let eventSeen = false;
  let run = 0;
  const parser = createParser(
    handlers,
    () => {
      throw entityDeclared(zip.fileName, part.path);
    },
    () => {
      eventSeen = true;
    },
  );
  const decoder = new TextDecoder('utf-8');
  const feed = (text: string, last: boolean): unknown => {
    try {
      eventSeen = false;
      parser.write(text);
      if (last) parser.close();
      // Characters since the last event, counted from the start of the chunk that had one.
      run = eventSeen ? 0 : run + text.length;
      return run > part.maxRunCharacters ? new XmlRunTooLong(part.maxRunCharacters) : null;
    } catch (error) {
      return parserFailure(error ?? new Error('XML parser failed'));
    }
  };
  for await (const chunk of zip.open(part.path, part.maxBytes)) {
    const failure = feed(decoder.decode(chunk, { stream: true }), false);
    yield;
    if (failure) throw failure;
  }
  const failure = feed(decoder.decode(), true);
  yield;
  if (failure) throw failure;
}

/**
 * A whole small XML document already decoded (an NF-e) parsed by the same parser as a workbook's
 * parts: no DTD read, no entity but XML's five expanded, a DOCTYPE refused by `refuseDoctype` as
 * soon as it is parsed. What is not well-formed throws `XmlNotWellFormed`; the handlers' own errors
 * pass through as they were thrown.
 */
export const parseXmlText = (text: string, handlers: XmlHandlers, refuseDoctype: () => never): void => {
  const parser = createParser(handlers, refuseDoctype, () => {});
  try {
    parser.write(text);
    parser.close();
  } catch (error) {
    throw parserFailure(error ?? new Error('XML parser failed'));
  }
};

/** A small part (workbook, relationships, styles, shared strings) parsed to the end. */
export const parseWholeXmlPart = async (
  zip: XlsxZip,
  part: XmlPart,
  handlers: XmlHandlers,
): Promise<void> => {
  for await (const _ of parseXmlPart(zip, part, handlers)) {
    // the handlers collect; nothing to hand on between chunks
  }
};
