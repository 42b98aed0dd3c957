/**
 * Bytes → text for CSV files (spreadsheets.md, Encoding). Excel's plain "CSV" is
 * Windows-1252, "CSV UTF-8" is UTF-8 with a BOM, ERPs emit either or Latin-1, and Excel's
 * "Unicode text" is UTF-16LE with a BOM.
 *
 * Why strict UTF-8 first: Windows-1252 text with accents is almost never valid UTF-8
 * (an accented letter is a lone byte ≥ 0x80, never followed by the continuation bytes
 * UTF-8 needs), while UTF-8 read as Windows-1252 is exactly the mojibake users must never
 * see (`DescriÃ§Ã£o`). Latin-1 needs no case of its own: Windows-1252 is a superset of its
 * printable range.
 */
import type { TextEncoding } from './schemas.js';
import type { ForeignBytes, ForeignBytesAt } from './table.js';

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  /** True when the file started with a byte-order mark (removed from `text`). */
  hadBom: boolean;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;
const UTF16LE_BOM = [0xff, 0xfe] as const;
const UTF16BE_BOM = [0xfe, 0xff] as const;

const startsWith = (bytes: Uint8Array, prefix: readonly number[]): boolean =>
  bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);

// ignoreBOM: the BOM is removed here, once, so `hadBom` is reported truthfully. Never used to
// stream, so one of each serves every chunk: `fatal` for a chunk, the other for runs of valid UTF-8
// between foreign bytes (decodeMixed).
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A whole file's text: `TextStreamDecoder` given every byte at once. */
export const decodeText = (bytes: Uint8Array): DecodedText => {
  const decoder = new TextStreamDecoder();
  const text = decoder.decode(bytes, true);
  return { text, encoding: decoder.encoding, hadBom: decoder.hadBom };
};

/** Whether `bytes[at]` is in `[low, high]` (false past the end). */
const byteIn = (bytes: Uint8Array, at: number, low: number, high: number): boolean => {
  const byte = bytes[at];
  return byte !== undefined && byte >= low && byte <= high;
};

/**
 * Length of the valid UTF-8 multi-byte sequence starting at `i`, or 0 (RFC 3629 table:
 * no overlongs, no surrogates, nothing above U+10FFFF). No closure inside: it runs once per byte
 * of a Windows-1252 file, and the bundle's keepNames makes each closure cost a property definition.
 */
const utf8SequenceLength = (bytes: Uint8Array, i: number): number => {
  const lead = bytes[i]!;
  if (lead >= 0xc2 && lead <= 0xdf) return byteIn(bytes, i + 1, 0x80, 0xbf) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const low = lead === 0xe0 ? 0xa0 : 0x80;
    const high = lead === 0xed ? 0x9f : 0xbf;
    return byteIn(bytes, i + 1, low, high) && byteIn(bytes, i + 2, 0x80, 0xbf) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return byteIn(bytes, i + 1, low, high) &&
      byteIn(bytes, i + 2, 0x80, 0xbf) &&
      byteIn(bytes, i + 3, 0x80, 0xbf)
      ? 4
      : 0;
  }
  return 0;
};

/** The surrogate a 3-byte sequence `ED A0..BF 80..BF` encodes, or 0 when it is none. */
const encodedSurrogate = (bytes: Uint8Array, i: number): number => {
  const [b0, b1, b2] = [bytes[i], bytes[i + 1], bytes[i + 2]];
  if (b0 !== 0xed || b1 === undefined || b2 === undefined) return 0;
  if (b1 < 0xa0 || b1 > 0xbf || b2 < 0x80 || b2 > 0xbf) return 0;
  return 0xd000 | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
};
const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** How many bytes the UTF-8 sequence a lead byte starts should have (1 for a byte no sequence starts with). */
const utf8ExpectedLength = (lead: number): number =>
  lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 1;

/**
 * Where a chunk's bytes stop being safe to decode alone: the start of a multi-byte sequence
 * cut by the chunk's end, whose other bytes are in the next chunk.
 */
const completeLength = (bytes: Uint8Array): number => {
  let end = bytes.length;
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const byte = bytes[i]!;
    if (byte < 0x80) break;
    if (byte >= 0xc0) {
      if (i + utf8ExpectedLength(byte) > bytes.length) end = i;
      break;
    }
  }
  // An encoded high surrogate waits too: its low half may be in the next chunk (CESU-8).
  return end >= 3 && isHighSurrogate(encodedSurrogate(bytes, end - 3)) ? end - 3 : end;
};

const HIGH_CHARACTER = /[\u0080-\u{10ffff}]/u;

/**
 * The one decoder, for a file read in chunks (docs/architecture.md, §5 "Files of any size") or
 * whole (`decodeText`): chunk by chunk, the same text as if whole, and the encoding once the last
 * chunk is in. No sequence is split across chunks: an unfinished one waits for the next. A chunk
 * of valid UTF-8 decodes the same strictly or byte by byte, so a chunk is decoded byte by byte
 * only when it holds an invalid byte, and nothing is decoded again when one turns up late.
 */
export class TextStreamDecoder {
  private head: Uint8Array | null = new Uint8Array(0);
  private carry: Uint8Array = new Uint8Array(0);
  private utf16: { decode(input: Uint8Array, options?: { stream?: boolean }): string } | null = null;
  private utf16Encoding: 'utf-16le' | 'utf-16be' | null = null;
  private sawUtf8Sequence = false;
  /** Bytes decoded so far (the BOM included), and the physical line they end on. */
  private offset = 0;
  private line = 1;
  private afterCr = false;
  hadBom = false;
  /** The first bytes of each kind that were not UTF-8. */
  readonly firstForeign: Partial<Record<ForeignBytes, ForeignBytesAt>> = {};
  /**
   * Physical lines holding bytes that were not UTF-8, in order, each once per kind: the reader
   * takes them off as its records pass (read-csv.ts), so this holds a chunk's lines at most.
   */
  readonly foreignLines: { line: number; kind: ForeignBytes }[] = [];

  /** `utf16`: the file is UTF-16 without a BOM (read-csv.ts tells it from the first bytes). */
  constructor(options: { utf16?: 'utf-16le' | 'utf-16be' } = {}) {
    if (options.utf16) {
      this.utf16Encoding = options.utf16;
      this.utf16 = new TextDecoder(options.utf16, { ignoreBOM: true });
    }
  }

  /** The text of `chunk` that is complete so far; `last` flushes what waits. */
  decode(chunk: Uint8Array, last = false): string {
    if (this.head) {
      // The byte-order mark needs the first three bytes, whatever the chunk sizes.
      const head = concatBytes(this.head, chunk);
      if (head.length < UTF8_BOM.length && !last) {
        this.head = head;
        return '';
      }
      this.head = null;
      return this.decodeFirst(head, last);
    }
    if (this.utf16) return this.utf16.decode(chunk, { stream: !last });
    return this.decodeUtf8OrWindows1252(concatBytes(this.carry, chunk), last);
  }

  get encoding(): TextEncoding {
    if (this.utf16Encoding) return this.utf16Encoding;
    if (this.firstForeign['windows-1252'])
      return this.sawUtf8Sequence ? 'utf-8+windows-1252' : 'windows-1252';
    return this.firstForeign['cesu-8'] ? 'cesu-8' : 'utf-8';
  }

  private decodeFirst(bytes: Uint8Array, last: boolean): string {
    if (this.utf16 && !startsWith(bytes, UTF16LE_BOM) && !startsWith(bytes, UTF16BE_BOM)) {
      return this.utf16.decode(bytes, { stream: !last });
    }
    for (const [bom, encoding] of [
      [UTF16LE_BOM, 'utf-16le'],
      [UTF16BE_BOM, 'utf-16be'],
    ] as const) {
      if (startsWith(bytes, bom)) {
        this.hadBom = true;
        this.utf16Encoding = encoding;
        this.utf16 = new TextDecoder(encoding, { ignoreBOM: true });
        return this.utf16.decode(bytes.subarray(bom.length), { stream: !last });
      }
    }
    if (startsWith(bytes, UTF8_BOM)) {
      // A BOM says UTF-8, but files get edited after the fact: still check every byte.
      this.hadBom = true;
      this.offset = UTF8_BOM.length;
      return this.decodeUtf8OrWindows1252(bytes.subarray(UTF8_BOM.length), last);
    }
    return this.decodeUtf8OrWindows1252(bytes, last);
  }

  private decodeUtf8OrWindows1252(bytes: Uint8Array, last: boolean): string {
    const end = last ? bytes.length : completeLength(bytes);
    const ready = bytes.subarray(0, end);
    this.carry = bytes.slice(end);
    let text: string;
    try {
      text = UTF8_STRICT.decode(ready);
      if (!this.sawUtf8Sequence && HIGH_CHARACTER.test(text)) this.sawUtf8Sequence = true;
      this.countChunkLines(ready);
    } catch {
      text = this.decodeMixed(ready);
    }
    this.offset += ready.length;
    return text;
  }

  /**
   * The same count over a whole chunk, by the native search for CR and LF rather than a look at
   * every byte: a plain UTF-8 file spends most of its decoding here.
   */
  private countChunkLines(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let breaks = 0;
    for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, at + 1)) {
      // An LF after a CR ends the CR's line, not one of its own.
      if (at === 0 ? !this.afterCr : buffer[at - 1] !== 0x0d) breaks++;
    }
    for (let at = buffer.indexOf(0x0d); at !== -1; at = buffer.indexOf(0x0d, at + 1)) breaks++;
    this.line += breaks;
    this.afterCr = buffer[buffer.length - 1] === 0x0d;
  }

  /** Line breaks in `bytes[from, to)`: CR LF, LF or CR each end a line, as the CSV reader counts them. */
  private countLines(bytes: Uint8Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const byte = bytes[i]!;
      if (byte === 0x0a) {
        if (!this.afterCr) this.line++;
        this.afterCr = false;
      } else if (byte === 0x0d) {
        this.line++;
        this.afterCr = true;
      } else this.afterCr = false;
    }
  }

  private sawForeign(kind: ForeignBytes, bytes: Uint8Array, at: number, length: number): void {
    this.firstForeign[kind] ??= {
      line: this.line,
      offset: this.offset + at,
      bytes: [...bytes.subarray(at, at + length)],
    };
    const lastSeen = this.foreignLines.findLast((seen) => seen.kind === kind);
    if (lastSeen?.line !== this.line) this.foreignLines.push({ line: this.line, kind });
  }

  /**
   * Bytes that are not all valid UTF-8: every valid UTF-8 sequence stays UTF-8, an encoded
   * surrogate is read as CESU-8, and every other byte as Windows-1252. A pure Windows-1252 file
   * comes out as plain Windows-1252; a file mixing both (rows appended from another tool, a hand
   * edit in another editor) keeps its UTF-8 rows readable instead of turning every accent into `Ã§`.
   */
  private decodeMixed(bytes: Uint8Array): string {
    const parts: string[] = [];
    let runStart = 0;
    let i = 0;
    // One decoder and a table, not one of each per byte: a Windows-1252 file of Portuguese text
    // has a foreign byte in every few.
    const take = (text: string, length: number): void => {
      if (i > runStart) parts.push(UTF8.decode(bytes.subarray(runStart, i)));
      parts.push(text);
      i += length;
      runStart = i;
    };
    while (i < bytes.length) {
      const byte = bytes[i]!;
      if (byte < 0x80) {
        this.countLines(bytes, i, i + 1);
        i++;
        continue;
      }
      this.afterCr = false;
      const length = utf8SequenceLength(bytes, i);
      if (length > 0) {
        this.sawUtf8Sequence = true;
        i += length;
        continue;
      }
      const high = encodedSurrogate(bytes, i);
      if (high !== 0) {
        const low = encodedSurrogate(bytes, i + 3);
        const paired = isHighSurrogate(high) && isLowSurrogate(low);
        this.sawForeign('cesu-8', bytes, i, paired ? 6 : 3);
        take(paired ? String.fromCharCode(high, low) : '\uFFFD', paired ? 6 : 3);
        continue;
      }
      this.sawForeign('windows-1252', bytes, i, 1);
      take(WINDOWS_1252_HIGH_HALF[byte - 0x80]!, 1);
    }
    parts.push(UTF8.decode(bytes.subarray(runStart)));
    return parts.join('');
  }
}

const concatBytes = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
};

/**
 * What Windows-1252 puts at 0x80–0x9F (WHATWG index-windows-1252); everywhere else it is
 * Latin-1. Five bytes are unassigned and map to the C1 control of the same number.
 */
const WINDOWS_1252_HIGH_CONTROLS =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F' +
  '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

/**
 * Our own table rather than `new TextDecoder('windows-1252')`: Node 20.18.3+ (and 22.13+)
 * decode that label as Latin-1, turning `€`, `“ ”` and `–` into invisible C1 controls
 * (nodejs/node#56542, #60888). Latin-1 via Buffer, then the 32 bytes that differ.
 */
export const decodeWindows1252 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\u0080-\u009F]/g, (char) => WINDOWS_1252_HIGH_CONTROLS[char.charCodeAt(0) - 0x80]!);

/** The characters Windows-1252 gives bytes 0x80–0xFF, by byte less 0x80. */
const WINDOWS_1252_HIGH_HALF = [...decodeWindows1252(Uint8Array.from({ length: 0x80 }, (_, i) => 0x80 + i))];

/**
 * UTF-8 that was already decoded as Windows-1252 once and saved again (`Descrição` →
 * `DescriÃ§Ã£o`) is valid UTF-8, so decoding cannot undo it; we can only tell the user.
 * `Ã`/`Â` followed by a character of the Latin-1 upper half never happens in pt/es text.
 */
const DOUBLE_ENCODED = /[ÃÂ][\u0080-\u00BF]/;
export const looksDoubleEncoded = (text: string): boolean => DOUBLE_ENCODED.test(text);
