/**
 * The ZIP writer whose state crosses Lambda invocations (shared/spreadsheet/zip-in-legs.ts): an
 * archive of a whole entry and a streamed entry written in several legs, its state passed as JSON
 * between them, read back by fflate, by Info-ZIP's `unzip -t` where the machine has it, and by a
 * reader that checks each entry's CRC, which catches a byte changed in the deflated data.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addWholeEntry,
  appendToEntry,
  closeEntry,
  dosDateTime,
  finishZip,
  openEntry,
  startZip,
  ZipProgress,
  type ZipStep,
} from '../../../shared/spreadsheet/zip-in-legs.js';

const AT = new Date('2026-11-21T12:59:30.000Z');
const SMALL = '<?xml version="1.0"?><small>a whole entry, its sizes in its local header</small>';

/** The streamed entry's text, in chunks: rows of a sheet, alike enough to compress. */
const CHUNKS = Array.from({ length: 9 }, (_, chunk) =>
  Array.from(
    { length: 400 },
    (_, i) =>
      `<row r="${chunk * 400 + i + 1}"><c t="inlineStr"><is><t>Parafuso M${i % 13} ç</t></is></c></row>`,
  ).join(''),
);

const work = mkdtempSync(join(tmpdir(), 'zip-in-legs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What a leg hands the next: JSON, read back through the schema. */
const handedOn = (zip: ZipProgress): ZipProgress => ZipProgress.parse(JSON.parse(JSON.stringify(zip)));

/**
 * The archive written in legs: the whole entry and the streamed entry's opening in the first, its
 * chunks split over the legs at `breaks` (chunk indexes), closed and finished in the last.
 */
const writtenInLegs = (breaks: readonly number[]): { bytes: Buffer; handed: string[] } => {
  const bytes: Buffer[] = [];
  const handed: string[] = [];
  const take = (step: ZipStep) => {
    bytes.push(step.bytes);
    return step.zip;
  };
  let zip = take(addWholeEntry(startZip(AT), 'small.xml', SMALL));
  zip = take(openEntry(zip, 'big.xml'));
  CHUNKS.forEach((chunk, i) => {
    if (breaks.includes(i)) {
      handed.push(JSON.stringify(zip));
      zip = handedOn(zip);
    }
    zip = take(appendToEntry(zip, chunk));
  });
  zip = take(closeEntry(zip));
  zip = take(addWholeEntry(zip, 'after.xml', new TextEncoder().encode('<after/>')));
  const end = finishZip(zip);
  const file = Buffer.concat([...bytes, end]);
  // The state counted every byte before the directory.
  expect(file.length).toBe(zip.offset + end.length);
  return { bytes: file, handed };
};

/** `unzip -t` on the bytes: its output, and whether it found every entry sound. */
const unzipTest = (bytes: Uint8Array): { ok: boolean; output: string } | null => {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const path = join(work, `test-${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(path, bytes);
  try {
    return { ok: true, output: execFileSync('unzip', ['-t', path], { encoding: 'utf8' }) };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
};

type DirectoryEntry = { name: string; crc: number; compressed: number; size: number; offset: number };

/** The central directory, read from the end record back, as a reader finds the entries. */
const directory = (bytes: Buffer): DirectoryEntry[] => {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = bytes.readUInt16LE(end + 10);
  const entries: DirectoryEntry[] = [];
  for (let at = bytes.readUInt32LE(end + 16), n = 0; n < count; n += 1) {
    expect(bytes.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = bytes.readUInt16LE(at + 28);
    entries.push({
      name: bytes.toString('utf8', at + 46, at + 46 + nameLength),
      crc: bytes.readUInt32LE(at + 16),
      compressed: bytes.readUInt32LE(at + 20),
      size: bytes.readUInt32LE(at + 24),
      offset: bytes.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
};

/** An entry's deflated data, found through its local header. */
const dataOf = (bytes: Buffer, entry: DirectoryEntry): Buffer => {
  const start =
    entry.offset + 30 + bytes.readUInt16LE(entry.offset + 26) + bytes.readUInt16LE(entry.offset + 28);
  return bytes.subarray(start, start + entry.compressed);
};

/** Each entry inflated and its CRC checked against the directory's, as a careful reader does. */
const checkedEntries = (bytes: Buffer): Map<string, string> =>
  new Map(
    directory(bytes).map((entry) => {
      const content = inflateRawSync(dataOf(bytes, entry));
      if (content.length !== entry.size)
        throw new Error(`${entry.name}: size ${content.length}, not ${entry.size}`);
      if (crc32(content) !== entry.crc) throw new Error(`${entry.name}: CRC mismatch`);
      return [entry.name, content.toString('utf8')];
    }),
  );

describe('a ZIP written in legs', () => {
  const once = writtenInLegs([]);
  const inLegs = writtenInLegs([2, 5, 8]);

  it('is unzipped by fflate to the entries written, the streamed one whole', () => {
    const files = unzipSync(inLegs.bytes);
    expect(Object.keys(files)).toEqual(['small.xml', 'big.xml', 'after.xml']);
    expect(strFromU8(files['small.xml']!)).toBe(SMALL);
    expect(strFromU8(files['big.xml']!)).toBe(CHUNKS.join(''));
    expect(strFromU8(files['after.xml']!)).toBe('<after/>');
  });

  it('is the same bytes as the archive written in one leg, and its state stays small', () => {
    expect(inLegs.bytes.equals(once.bytes)).toBe(true);
    expect(inLegs.handed).toHaveLength(3);
    for (const handed of inLegs.handed) expect(handed.length).toBeLessThan(512);
  });

  it('says in the directory what a careful reader checks: sizes, offsets and CRCs that match the data', () => {
    const entries = directory(inLegs.bytes);
    expect(entries.map((entry) => entry.name)).toEqual(['small.xml', 'big.xml', 'after.xml']);
    const big = entries[1]!;
    expect(big.size).toBe(Buffer.byteLength(CHUNKS.join('')));
    expect(big.crc).toBe(crc32(CHUNKS.join('')));
    // The streamed entry says its sizes come after its data (flag bit 3), in a data descriptor.
    expect(inLegs.bytes.readUInt16LE(big.offset + 6) & 0x0008).toBe(0x0008);
    expect(inLegs.bytes.readUInt32LE(big.offset + 14)).toBe(0);
    const descriptor = dataOf(inLegs.bytes, big).length + big.offset + 30 + 'big.xml'.length;
    expect(inLegs.bytes.readUInt32LE(descriptor)).toBe(0x08074b50);
    expect(inLegs.bytes.readUInt32LE(descriptor + 4)).toBe(big.crc);
    // The whole entries carry theirs in the local header.
    expect(inLegs.bytes.readUInt16LE(entries[0]!.offset + 6) & 0x0008).toBe(0);
    expect(inLegs.bytes.readUInt32LE(entries[0]!.offset + 14)).toBe(crc32(SMALL));
    expect(checkedEntries(inLegs.bytes).get('big.xml')).toBe(CHUNKS.join(''));
  });

  it('passes `unzip -t`', () => {
    const tested = unzipTest(inLegs.bytes);
    if (tested === null) return;
    expect(tested.output).toContain('No errors detected');
    expect(tested.ok).toBe(true);
  });

  it('has a changed byte in the deflated data caught by the CRC', () => {
    const big = directory(inLegs.bytes)[1]!;
    const data = dataOf(inLegs.bytes, big);
    const start = data.byteOffset - inLegs.bytes.byteOffset;
    // The first byte whose change still inflates, to other text: only the CRC can tell.
    let corrupted: Buffer | null = null;
    for (let i = 100; i < data.length - 2 && corrupted === null; i += 1) {
      const copy = Buffer.from(inLegs.bytes);
      copy[start + i]! ^= 0x10;
      try {
        const text = inflateRawSync(dataOf(copy, big));
        if (text.length === big.size && !text.equals(Buffer.from(CHUNKS.join('')))) corrupted = copy;
      } catch {
        // This change broke the deflate stream itself: not the case looked for.
      }
    }
    expect(corrupted).not.toBeNull();
    expect(() => checkedEntries(corrupted!)).toThrow('big.xml: CRC mismatch');
    const tested = unzipTest(corrupted!);
    if (tested === null) return;
    expect(tested.ok).toBe(false);
    expect(tested.output).toMatch(/bad CRC/i);
  });
});

describe('the ZIP writer’s state and limits', () => {
  it('dates every entry from the date given, in DOS form, so the same content and date are the same bytes', () => {
    expect(dosDateTime(AT)).toEqual({
      date: ((2026 - 1980) << 9) | (11 << 5) | 21,
      time: (12 << 11) | (59 << 5) | 15,
    });
    const archive = (at: Date) => {
      const step = addWholeEntry(startZip(at), 'a.xml', '<a/>');
      return Buffer.concat([step.bytes, finishZip(step.zip)]);
    };
    expect(archive(AT).equals(archive(new Date(AT)))).toBe(true);
    expect(archive(AT).equals(archive(new Date('2026-11-22T12:59:30.000Z')))).toBe(false);
    const [entry] = directory(archive(AT));
    expect(archive(AT).readUInt16LE(entry!.offset + 12)).toBe(dosDateTime(AT).date);
  });

  it('refuses an entry or an archive past 4 GiB, naming it, since it writes no ZIP64', () => {
    const opened = openEntry(startZip(AT), 'big.xml').zip;
    const nearlyFull = { ...opened, open: { ...opened.open!, size: 0xffff_fff0 } };
    expect(() => appendToEntry(nearlyFull, 'x'.repeat(100))).toThrow(/big\.xml passes 4 GiB.*ZIP64/);
    const farOn = { ...opened, offset: 0xffff_ffff };
    expect(() => appendToEntry(farOn, 'x'.repeat(100))).toThrow(/the archive passes 4 GiB/);
    expect(() =>
      ZipProgress.parse({ ...opened, entries: [{ ...opened.open!, flags: 0, size: 2 ** 32 }] }),
    ).toThrow();
  });

  it('refuses what the order of a ZIP does not allow', () => {
    const opened = openEntry(startZip(AT), 'big.xml').zip;
    expect(() => addWholeEntry(opened, 'small.xml', '<a/>')).toThrow(/big\.xml is still open/);
    expect(() => finishZip(opened)).toThrow(/big\.xml is still open/);
    expect(() => appendToEntry(startZip(AT), 'x')).toThrow(/no entry is open/);
    expect(() => closeEntry(startZip(AT))).toThrow(/no entry is open/);
    expect(appendToEntry(opened, '').bytes).toHaveLength(0);
  });
});
