/**
 * A ZIP archive read from a `ByteSource` by yauzl, for a workbook (xlsx-zip.ts) and a ZIP of
 * invoices (nfe-zip.ts) alike. yauzl asks for many small ranges: the end-of-directory record, each
 * directory record, each entry's local header, then each entry's bytes. How they are read follows
 * what the archive holds:
 *
 *   'parts'    a workbook: a few parts, some huge. The tail (the directory) is kept; every other
 *              range is streamed exactly, pulled as yauzl consumes it, so nothing holds a part and
 *              no byte past a refused part is read.
 *   'entries'  a ZIP of invoices: thousands of small entries. Ranges are served from the two windows
 *              of `WINDOW_BYTES` read last (one following the directory, one the entries' data):
 *              against S3 a window is one GET where the small reads would be two GETs an entry.
 */
import { Readable } from 'node:stream';
import { fromRandomAccessReaderPromise, RandomAccessReader, type ZipFile } from 'yauzl';
import { type ByteSource, readBytes } from './byte-source.js';

/**
 * The source itself failed (S3 down, object gone), as opposed to its bytes being a bad archive:
 * carried through yauzl's and zlib's streams so it can be rethrown as it was, never as damage.
 */
export class SourceReadFailure extends Error {
  constructor(cause: unknown) {
    super('the archive bytes could not be read', { cause });
  }
}

/** Bytes read at once from the source when yauzl asks for a small range: 1 MiB (a directory of ~10,000 names). */
const WINDOW_BYTES = 1024 * 1024;

interface Window {
  start: number;
  end: number;
  bytes: Promise<Buffer>;
}

async function* sourceChunks(source: ByteSource, start: number, end: number): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of source.read(start, end)) {
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  } catch (error) {
    throw new SourceReadFailure(error);
  }
}

async function* windowSlice(window: Omit<Window, 'end'>, start: number, end: number): AsyncGenerator<Buffer> {
  const bytes = await window.bytes;
  yield bytes.subarray(start - window.start, end - window.start);
}

/**
 * yauzl first reads the file's tail (up to 64 KiB, where it looks for the end-of-directory record),
 * then each directory entry's few dozen bytes apart. The directory nearly always lies inside that
 * tail, so keeping it serves those reads from memory: against S3, one GET instead of one per entry.
 */
const TAIL_CACHE_MAX_BYTES = 70 * 1024;

const collect = async (chunks: AsyncIterable<Buffer>): Promise<Buffer> => {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
};

/** 'parts': the tail kept, every other range one streamed `source.read`. */
class StreamedReader extends RandomAccessReader {
  private tail: Omit<Window, 'end'> | null = null;

  constructor(private readonly source: ByteSource) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const { tail, source } = this;
    if (tail && start >= tail.start && end <= source.size) {
      return Readable.from(windowSlice(tail, start, end), { objectMode: false });
    }
    if (!tail && end === source.size && end - start <= TAIL_CACHE_MAX_BYTES) {
      this.tail = { start, bytes: collect(sourceChunks(source, start, end)) };
      return Readable.from(windowSlice(this.tail, start, end), { objectMode: false });
    }
    return Readable.from(sourceChunks(source, start, end), { objectMode: false });
  }
}

/** 'entries': yauzl's range reads served from the two windows read last; a range larger than a window is streamed. */
class WindowedReader extends RandomAccessReader {
  private windows: Window[] = [];

  constructor(private readonly source: ByteSource) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const hit = this.windows.findIndex((window) => start >= window.start && end <= window.end);
    if (hit >= 0) {
      const [window] = this.windows.splice(hit, 1) as [Window];
      this.windows.unshift(window);
      return Readable.from(windowSlice(window, start, end), { objectMode: false });
    }
    if (end - start > WINDOW_BYTES)
      return Readable.from(sourceChunks(this.source, start, end), { objectMode: false });
    const windowEnd = Math.min(this.source.size, Math.max(end, start + WINDOW_BYTES));
    const bytes = readBytes(this.source, start, windowEnd).then(
      (read) => Buffer.from(read.buffer, read.byteOffset, read.byteLength),
      (error: unknown) => {
        throw new SourceReadFailure(error);
      },
    );
    // A window that failed is awaited by whoever reads it; this keeps Node from calling it unhandled first.
    bytes.catch(() => {});
    const window = { start, end: windowEnd, bytes };
    this.windows = [window, ...this.windows].slice(0, 2);
    return Readable.from(windowSlice(window, start, end), { objectMode: false });
  }
}

/**
 * Opens the archive's directory (its end, a few small reads); throws what yauzl or the source threw.
 * autoClose off: an archive may be read again later, and a ByteSource holds no handle to leak. Entry
 * sizes are counted by the callers as the bytes come out, which also says why a read stops.
 */
export const openZipSource = async (source: ByteSource, reads: 'parts' | 'entries'): Promise<ZipFile> =>
  fromRandomAccessReaderPromise(
    reads === 'parts' ? new StreamedReader(source) : new WindowedReader(source),
    source.size,
    {
      autoClose: false,
      validateEntrySizes: false,
    },
  );
