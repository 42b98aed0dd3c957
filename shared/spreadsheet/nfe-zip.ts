/**
 * A ZIP of invoices read one entry at a time (read-nfe.ts): its directory walked entry by entry,
 * never kept, and each entry's bytes read only when asked for, so an archive of 50,000 invoices is
 * read in the memory of one. The bytes come through zip-source.ts, as a workbook's do.
 */
import type { Readable } from 'node:stream';
import type { Entry, ZipFile } from 'yauzl';
import type { ByteSource } from './byte-source.js';
import { openZipSource } from './zip-source.js';

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

/** Opens the archive's directory through the shared windows (zip-source.ts). */
export const openArchive = (source: ByteSource): Promise<ZipFile> => openZipSource(source, 'entries');

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
