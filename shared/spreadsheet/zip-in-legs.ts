/**
 * A ZIP archive written in legs: each call returns the bytes to append to the file and the
 * archive's state as a small JSON value (`ZipProgress`), so one Lambda invocation can stop and the
 * next carry on appending to the same upload. Pure: no I/O, nothing kept between calls but the state.
 *
 * Every entry is deflated (method 8). A whole entry (a small part, known at once) has its CRC and
 * sizes in its local header. One entry at a time may be streamed: its local header says "sizes
 * follow" (general-purpose flag bit 3), its text is deflated a chunk at a time, each chunk an
 * independent raw deflate stream ended by a sync flush (no final block, ending on a byte boundary),
 * so chunks deflated in different invocations join into one valid deflate stream; the entry ends
 * with an empty final block and a data descriptor with its CRC (kept running across chunks) and
 * sizes. The central directory comes last. No ZIP64: an archive or entry past 4 GiB is refused.
 *
 * The entries' DOS date and time come from the `at` given at the start (in UTC), never the clock:
 * the same entries and `at` make the same bytes.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';
import * as z from 'zod';

/** The largest size or offset a ZIP without ZIP64 holds. */
const ZIP32_MAX = 0xffff_ffff;
/** The most entries a ZIP without ZIP64 holds. */
const ENTRIES_MAX = 0xffff;

const Uint32 = z.number().int().min(0).max(ZIP32_MAX);

/** An entry written: what the central directory says of it. */
const ZipEntryWritten = z.object({
  name: z.string().min(1),
  /** Where its local header starts. */
  offset: Uint32,
  crc: Uint32,
  compressed_size: Uint32,
  size: Uint32,
  flags: z.number().int().min(0).max(0xffff),
});
type ZipEntryWritten = z.infer<typeof ZipEntryWritten>;

/** The streamed entry being written: its CRC and sizes so far. */
const ZipEntryOpen = ZipEntryWritten.omit({ flags: true });

export const ZipProgress = z.object({
  /** The entries' date and time. */
  at: z.iso.datetime(),
  /** Bytes of the archive written so far: where the next bytes go. */
  offset: z.number().int().min(0),
  entries: z.array(ZipEntryWritten).max(ENTRIES_MAX),
  open: ZipEntryOpen.nullable(),
});
export type ZipProgress = z.infer<typeof ZipProgress>;

/** What a step returns: the bytes to append, and the archive's state after them. */
export type ZipStep = { bytes: Buffer; zip: ZipProgress };

const METHOD_DEFLATE = 8;
/** 2.0: deflate. */
const VERSION = 20;
const FLAG_SIZES_AFTER = 0x0008;
const FLAG_UTF8_NAME = 0x0800;

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;

/** The final empty block that ends a deflate stream made of sync-flushed chunks. */
const FINAL_BLOCK = deflateRawSync(Buffer.alloc(0));

/** The DOS date and time of `at` (UTC, two-second steps, 1980 to 2107). */
export const dosDateTime = (at: Date): { date: number; time: number } => {
  const year = Math.min(2107, Math.max(1980, at.getUTCFullYear()));
  return {
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
  };
};

/** Refuses what a ZIP without ZIP64 cannot say, naming it. */
const within4GiB = (what: string, value: number): number => {
  if (value > ZIP32_MAX)
    throw new Error(`zip-in-legs: ${what} passes 4 GiB (${value} bytes); this writer does not write ZIP64`);
  return value;
};

const nameBytes = (name: string): { bytes: Buffer; flag: number } => {
  const bytes = Buffer.from(name, 'utf8');
  return { bytes, flag: bytes.length === name.length ? 0 : FLAG_UTF8_NAME };
};

const localHeader = (
  zip: ZipProgress,
  name: string,
  fields: { flags: number; crc: number; compressed: number; size: number },
): Buffer => {
  const { bytes, flag } = nameBytes(name);
  const { date, time } = dosDateTime(new Date(zip.at));
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(VERSION, 4);
  header.writeUInt16LE(fields.flags | flag, 6);
  header.writeUInt16LE(METHOD_DEFLATE, 8);
  header.writeUInt16LE(time, 10);
  header.writeUInt16LE(date, 12);
  header.writeUInt32LE(fields.crc, 14);
  header.writeUInt32LE(fields.compressed, 18);
  header.writeUInt32LE(fields.size, 22);
  header.writeUInt16LE(bytes.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, bytes]);
};

const asBytes = (data: string | Uint8Array): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : Buffer.from(data.buffer, data.byteOffset, data.length);

const closed = (zip: ZipProgress, doing: string): void => {
  if (zip.open) throw new Error(`zip-in-legs: cannot ${doing} while ${zip.open.name} is still open`);
};

/** An empty archive whose entries will be dated `at`. */
export const startZip = (at: Date): ZipProgress => ({
  at: at.toISOString(),
  offset: 0,
  entries: [],
  open: null,
});

/** A whole entry, deflated at once, its CRC and sizes in its local header. */
export const addWholeEntry = (zip: ZipProgress, name: string, data: string | Uint8Array): ZipStep => {
  closed(zip, `add ${name}`);
  const content = asBytes(data);
  const deflated = deflateRawSync(content);
  const entry = {
    name,
    offset: zip.offset,
    crc: crc32(content),
    compressed_size: within4GiB(`${name} compressed`, deflated.length),
    size: within4GiB(name, content.length),
    flags: 0,
  };
  const header = localHeader(zip, name, {
    flags: 0,
    crc: entry.crc,
    compressed: entry.compressed_size,
    size: entry.size,
  });
  const bytes = Buffer.concat([header, deflated]);
  return {
    bytes,
    zip: {
      ...zip,
      offset: within4GiB('the archive', zip.offset + bytes.length),
      entries: [...zip.entries, entry],
    },
  };
};

/** Opens the streamed entry: its local header, with "CRC and sizes in a data descriptor after the data". */
export const openEntry = (zip: ZipProgress, name: string): ZipStep => {
  closed(zip, `open ${name}`);
  const bytes = localHeader(zip, name, { flags: FLAG_SIZES_AFTER, crc: 0, compressed: 0, size: 0 });
  return {
    bytes,
    zip: {
      ...zip,
      offset: zip.offset + bytes.length,
      open: { name, offset: zip.offset, crc: 0, compressed_size: 0, size: 0 },
    },
  };
};

/** The next chunk of the open entry, deflated on its own and ended on a byte boundary. */
export const appendToEntry = (zip: ZipProgress, data: string | Uint8Array): ZipStep => {
  const open = zip.open;
  if (!open) throw new Error('zip-in-legs: no entry is open to append to');
  const content = asBytes(data);
  if (content.length === 0) return { bytes: Buffer.alloc(0), zip };
  const bytes = deflateRawSync(content, { finishFlush: constants.Z_SYNC_FLUSH });
  return {
    bytes,
    zip: {
      ...zip,
      offset: within4GiB('the archive', zip.offset + bytes.length),
      open: {
        ...open,
        crc: crc32(content, open.crc),
        compressed_size: within4GiB(`${open.name} compressed`, open.compressed_size + bytes.length),
        size: within4GiB(open.name, open.size + content.length),
      },
    },
  };
};

/** Ends the open entry: the final empty block, then the data descriptor with its CRC and sizes. */
export const closeEntry = (zip: ZipProgress): ZipStep => {
  const open = zip.open;
  if (!open) throw new Error('zip-in-legs: no entry is open to close');
  const compressed = within4GiB(`${open.name} compressed`, open.compressed_size + FINAL_BLOCK.length);
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
  descriptor.writeUInt32LE(open.crc, 4);
  descriptor.writeUInt32LE(compressed, 8);
  descriptor.writeUInt32LE(open.size, 12);
  const bytes = Buffer.concat([FINAL_BLOCK, descriptor]);
  const entry = { ...open, compressed_size: compressed, flags: FLAG_SIZES_AFTER };
  return {
    bytes,
    zip: { ...zip, offset: zip.offset + bytes.length, entries: [...zip.entries, entry], open: null },
  };
};

const centralHeader = (zip: ZipProgress, entry: ZipEntryWritten): Buffer => {
  const { bytes, flag } = nameBytes(entry.name);
  const { date, time } = dosDateTime(new Date(zip.at));
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(VERSION, 4);
  header.writeUInt16LE(VERSION, 6);
  header.writeUInt16LE(entry.flags | flag, 8);
  header.writeUInt16LE(METHOD_DEFLATE, 10);
  header.writeUInt16LE(time, 12);
  header.writeUInt16LE(date, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.compressed_size, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(bytes.length, 28);
  // Extra field, comment, disk, internal and external attributes: none.
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, bytes]);
};

/** The central directory and its end record: the archive's last bytes. */
export const finishZip = (zip: ZipProgress): Buffer => {
  closed(zip, 'finish the archive');
  const directory = Buffer.concat(zip.entries.map((entry) => centralHeader(zip, entry)));
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_DIRECTORY, 0);
  end.writeUInt16LE(zip.entries.length, 8);
  end.writeUInt16LE(zip.entries.length, 10);
  end.writeUInt32LE(within4GiB('the central directory', directory.length), 12);
  end.writeUInt32LE(within4GiB('the archive', zip.offset), 16);
  within4GiB('the archive', zip.offset + directory.length + end.length);
  return Buffer.concat([directory, end]);
};
