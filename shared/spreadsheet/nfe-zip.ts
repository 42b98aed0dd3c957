/**
 * A ZIP of invoices read one entry at a time (read-nfe.ts): its directory walked entry by entry,
 * never kept, and each entry's bytes read only when asked for, so an archive of 50,000 invoices is
 * read in the memory of one. The `ByteSource` is read through two windows of `WINDOW_BYTES` (one
 * following the directory, one the entries' data): against S3 a window is one GET, where yauzl's
 * small reads of each directory record and local header would be two GETs an entry.
 */
import { Readable } from 'node:stream';
import { type Entry, fromRandomAccessReaderPromise, RandomAccessReader, type ZipFile } from 'yauzl';
import { type ByteSource, readBytes } from './byte-source.js';

/** The source itself failed (S3 down, object gone): rethrown as it was, never as a damaged ZIP. */
export class ArchiveSourceFailure extends Error {
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
    throw new ArchiveSourceFailure(error);
  }
}

async function* windowSlice(window: Window, start: number, end: number): AsyncGenerator<Buffer> {
  const bytes = await window.bytes;
  yield bytes.subarray(start - window.start, end - window.start);
}

/** yauzl's range reads, served from the two windows read last; a range larger than a window is streamed. */
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
        throw new ArchiveSourceFailure(error);
      },
    );
    // A window that failed is awaited by whoever reads it; this keeps Node from calling it unhandled first.
    bytes.catch(() => {});
    const window = { start, end: windowEnd, bytes };
    this.windows = [window, ...this.windows].slice(0, 2);
    return Readable.from(windowSlice(window, start, end), { objectMode: false });
  }
}

/** One entry of the archive: its name, sizes as the directory says, and its inflated bytes on demand. */
export interface ArchiveEntry {
  name: string;
  /** The inflated size the directory declares. */
  size: number;
  /** The stored size the directory declares. */
  compressedSize: number;
  /** Deflated (method 8), as nearly every entry is; else stored as is (0), or a method yauzl refuses. */
  deflated: boolean;
  isDirectory: boolean;
  /** The inflated bytes, as they come out of the inflater; leaving the loop stops the read. */
  open(): Promise<Readable>;
  /** The bytes as stored, not inflated: a small entry is inflated at once, without a stream's round trips. */
  openStored(): Promise<Readable>;
}

/** Opens the archive's directory (its end, a few small reads); throws what yauzl or the source threw. */
export const openArchive = async (source: ByteSource): Promise<ZipFile> =>
  fromRandomAccessReaderPromise(new WindowedReader(source), source.size, {
    autoClose: false,
    // Sizes are counted as the bytes come out (read-nfe.ts), which also says why a read stops.
    validateEntrySizes: false,
  });

/** The archive's entries in directory order, one at a time; nothing is kept between them. */
export async function* archiveEntries(zip: ZipFile): AsyncGenerator<ArchiveEntry> {
  for await (const entry of zip.eachEntry()) yield entryOf(zip, entry);
}

const entryOf = (zip: ZipFile, entry: Entry): ArchiveEntry => ({
  name: entry.fileName,
  size: entry.uncompressedSize,
  compressedSize: entry.compressedSize,
  deflated: entry.compressionMethod === 8,
  isDirectory: entry.fileName.endsWith('/'),
  open: () => zip.openReadStreamPromise(entry),
  openStored: () => zip.openReadStreamPromise(entry, { decompress: false }),
});
