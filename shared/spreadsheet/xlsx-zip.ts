/**
 * An XLSX as parts read on demand: the ZIP's central directory sits at its end, so yauzl finds it
 * with a few small range reads of the `ByteSource`, then each part is inflated and SAX-parsed as its
 * bytes arrive. Nothing here holds a whole part, so an S3 object of any size is read in bounded memory.
 */
import { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { type Entry, fromRandomAccessReaderPromise, RandomAccessReader, type ZipFile } from 'yauzl';
import type { ByteSource } from './byte-source.js';
import { SpreadsheetError } from './errors.js';

/**
 * The source itself failed (S3 down, object gone), as opposed to its bytes being a bad workbook:
 * carried through yauzl's and zlib's streams so it can be rethrown as it was, not as `xlsx_invalid`.
 */
class SourceReadFailure extends Error {
  constructor(cause: unknown) {
    super('the workbook bytes could not be read', { cause });
  }
}

const invalidWorkbook = (fileName: string, cause: unknown): SpreadsheetError =>
  new SpreadsheetError(
    'xlsx_invalid',
    fileName,
    'is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx); ' +
      'open it in Excel and save it again as .xlsx, or upload a CSV',
    {},
    { cause },
  );

/**
 * What any failure while reading a workbook becomes: our own errors pass through, a failing source
 * is rethrown as it failed, and everything else (zip, inflate, XML, cell) means a damaged workbook.
 * Only the outermost catch calls it, so a source failure is unwrapped once and never mistaken later.
 */
export const workbookError = (error: unknown, fileName: string): unknown => {
  if (error instanceof SpreadsheetError) return error;
  if (error instanceof SourceReadFailure) return error.cause;
  return invalidWorkbook(fileName, error);
};

/** A damaged-workbook error with a reason for the logs (the user sees today's sentence). */
export const damagedWorkbook = (fileName: string, reason: string): SpreadsheetError =>
  invalidWorkbook(fileName, new Error(reason));

async function* sourceChunks(source: ByteSource, start: number, end: number): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of source.read(start, end)) {
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  } catch (error) {
    throw new SourceReadFailure(error);
  }
}

/**
 * yauzl first reads the file's tail (up to 64 KiB, where it looks for the end-of-directory record),
 * then each directory entry's few dozen bytes apart. The directory nearly always lies inside that
 * tail, so keeping it serves those reads from memory: against S3, one GET instead of one per entry.
 */
const TAIL_CACHE_MAX_BYTES = 70 * 1024;

interface CachedTail {
  start: number;
  bytes: Promise<Buffer>;
}

const collect = async (chunks: AsyncIterable<Buffer>): Promise<Buffer> => {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
};

async function* tailSlice(tail: CachedTail, start: number, end: number): AsyncGenerator<Buffer> {
  const bytes = await tail.bytes;
  yield bytes.subarray(start - tail.start, end - tail.start);
}

/** yauzl asks for byte ranges; each becomes one streamed `source.read`, pulled as yauzl consumes it. */
class ByteSourceReader extends RandomAccessReader {
  private tail: CachedTail | null = null;

  constructor(private readonly source: ByteSource) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const { tail, source } = this;
    if (tail && start >= tail.start && end <= source.size) {
      return Readable.from(tailSlice(tail, start, end), { objectMode: false });
    }
    if (!tail && end === source.size && end - start <= TAIL_CACHE_MAX_BYTES) {
      this.tail = { start, bytes: collect(sourceChunks(source, start, end)) };
      return Readable.from(tailSlice(this.tail, start, end), { objectMode: false });
    }
    return Readable.from(sourceChunks(source, start, end), { objectMode: false });
  }
}

/** A file the ZIP reader refused. (An `.xls` never gets here: `detectFormat` tells it by its first bytes.) */
const refusedArchive = (fileName: string, error: unknown): unknown =>
  error instanceof SourceReadFailure ? error : invalidWorkbook(fileName, error);

export interface XlsxZip {
  /** Whether the archive holds this part (OPC part names are case-insensitive). */
  has(path: string): boolean;
  /** The part's size once inflated, in bytes (0 when absent). */
  inflatedSize(path: string): number;
  /** The part's inflated bytes, as they arrive; stopping early stops the range read. */
  open(path: string): Promise<Readable>;
}

/** Reads the central directory (a few small ranges at the end of the source) and keeps its entries. */
export const openZip = async (source: ByteSource, fileName: string): Promise<XlsxZip> => {
  let zip: ZipFile;
  const entries = new Map<string, Entry>();
  try {
    // autoClose off: records() may be called again later, and a ByteSource holds no handle to leak.
    zip = await fromRandomAccessReaderPromise(new ByteSourceReader(source), source.size, {
      autoClose: false,
    });
    for await (const entry of zip.eachEntry()) entries.set(entry.fileName.toLowerCase(), entry);
  } catch (error) {
    throw refusedArchive(fileName, error);
  }
  return {
    has: (path) => entries.has(path.toLowerCase()),
    inflatedSize: (path) => entries.get(path.toLowerCase())?.uncompressedSize ?? 0,
    open: async (path) => {
      const entry = entries.get(path.toLowerCase());
      if (!entry) throw damagedWorkbook(fileName, `"${path}" is not in the archive`);
      return zip.openReadStreamPromise(entry);
    },
  };
};

/** SAX callbacks with element and attribute names stripped of their prefix (`x:c` → `c`), as in strict OOXML. */
export interface XmlHandlers {
  open?(name: string, attributes: Readonly<Record<string, string>>): void;
  close?(name: string): void;
  text?(text: string): void;
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

const createParser = (handlers: XmlHandlers): SaxesParser => {
  const parser = new SaxesParser();
  const { open, close, text } = handlers;
  if (open) {
    parser.on('opentag', (tag) => {
      // Sheet cells (`c`, `row`) carry unprefixed attributes; copying them for every cell is waste.
      const hasPrefixed = Object.keys(tag.attributes).some((name) => name.includes(':'));
      open(localName(tag.name), hasPrefixed ? localAttributes(tag.attributes) : tag.attributes);
    });
  }
  if (close) parser.on('closetag', (tag) => close(localName(tag.name)));
  if (text) {
    parser.on('text', text);
    parser.on('cdata', text);
  }
  return parser;
};

/**
 * Streams one part through a SAX parser, yielding after each chunk so the caller can hand on what
 * its handlers collected: the caller's pace pulls the next chunk (back-pressure), and at most one
 * inflated chunk's worth of parsed content waits in between. Damage found in a chunk (bad XML, or
 * a handler's own error) is thrown after that yield, so what came before it is handed on first.
 */
export async function* parseXmlPart(zip: XlsxZip, path: string, handlers: XmlHandlers): AsyncGenerator<void> {
  const stream = await zip.open(path);
  const parser = createParser(handlers);
  const decoder = new TextDecoder('utf-8');
  const feed = (text: string, last: boolean): unknown => {
    try {
      parser.write(text);
      if (last) parser.close();
      return null;
    } catch (error) {
      return error ?? new Error('XML parser failed');
    }
  };
  try {
    for await (const chunk of stream) {
      const failure = feed(decoder.decode(chunk as Buffer, { stream: true }), false);
      yield;
      if (failure) throw failure;
    }
    const failure = feed(decoder.decode(), true);
    yield;
    if (failure) throw failure;
  } finally {
    stream.destroy();
  }
}

/** A small part (workbook, relationships, styles, shared strings) parsed to the end. */
export const parseWholeXmlPart = async (zip: XlsxZip, path: string, handlers: XmlHandlers): Promise<void> => {
  for await (const _ of parseXmlPart(zip, path, handlers)) {
    // the handlers collect; nothing to hand on between chunks
  }
};
