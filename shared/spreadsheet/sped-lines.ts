/**
 * A SPED EFD file's text as physical lines, streamed (docs/architecture.md, §5 "Files of any
 * size"): its bytes through its closing register `9999`, decoded chunk by chunk, split at CR LF,
 * LF or CR. What follows `9999` is not read: the validator (PVA) appends its digital signature
 * there when it signs the file, a binary PKCS#7 block opening with `SBRCAAEPDR`, and a signed file
 * is the copy an accountant keeps. Read as text it would be refused as binary data.
 */
import { binaryWatcher } from './binary-text.js';
import type { ByteSource } from './byte-source.js';
import type { TextStreamDecoder } from './decode-text.js';
import { SpreadsheetError } from './errors.js';

const END_REGISTER = Buffer.from('|9999|', 'latin1');
const LF = 0x0a;
const CR = 0x0d;
const PIPE = 0x7c;

const endsLine = (byte: number | undefined): boolean => byte === LF || byte === CR;
/** What the `9999` register holds after its name: its line count (digits) and pipes. */
const inEndRegister = (byte: number): boolean => byte === PIPE || (byte >= 0x30 && byte <= 0x39);

/** Where a line opening with `|9999|` starts in `bytes`, or -1; `atLineStart`: whether `bytes[0]` starts a line. */
const endRegisterAt = (bytes: Buffer, atLineStart: boolean): number => {
  for (let at = bytes.indexOf(END_REGISTER); at !== -1; at = bytes.indexOf(END_REGISTER, at + 1)) {
    if (at === 0 ? atLineStart : endsLine(bytes[at - 1])) return at;
  }
  return -1;
};

/** The first index from `from` that is no longer part of the `9999` register, or -1 when the bytes end first. */
const endRegisterEnd = (bytes: Buffer, from: number): number => {
  for (let at = from; at < bytes.length; at++) if (!inEndRegister(bytes[at]!)) return at;
  return -1;
};

/**
 * The file's bytes, in chunks, through its `9999` register (all of them when it has none). The last
 * few bytes of a chunk wait for the next, for a `|9999|` cut by the chunk's end to be seen whole.
 */
async function* spedBytes(source: ByteSource): AsyncGenerator<Uint8Array> {
  let waiting: Buffer = Buffer.alloc(0);
  // Whether the byte before `waiting` ends a line; the file's start counts as one.
  let atLineStart = true;
  let inLastRegister = false;
  for await (const chunk of source.read(0, source.size)) {
    const bytes =
      waiting.length > 0
        ? Buffer.concat([waiting, chunk])
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const start = inLastRegister ? 0 : endRegisterAt(bytes, atLineStart);
    if (start !== -1) {
      const end = endRegisterEnd(bytes, inLastRegister ? 0 : start + END_REGISTER.length);
      if (end !== -1) {
        if (end > 0) yield bytes.subarray(0, end);
        return;
      }
      inLastRegister = true;
      waiting = Buffer.alloc(0);
      yield bytes;
      continue;
    }
    const kept = Math.min(bytes.length, END_REGISTER.length - 1);
    const ready = bytes.subarray(0, bytes.length - kept);
    waiting = bytes.subarray(bytes.length - kept);
    if (ready.length > 0) {
      atLineStart = endsLine(ready[ready.length - 1]);
      yield ready;
    }
  }
  if (waiting.length > 0) yield waiting;
}

/** The file's first `count` bytes up to its `9999` register: what the check for binary data looks at. */
export const spedHead = async (source: ByteSource, count: number): Promise<Uint8Array> => {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of spedBytes(source)) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= count) break;
  }
  return Buffer.concat(chunks).subarray(0, count);
};

/**
 * No register comes near it: a longer run of text without a line break is no SPED file (and is
 * not gathered into one string until memory runs out). A long field still reaches its row's own
 * limits (cell-limits.ts).
 */
const MAX_SPED_LINE_CHARACTERS = 1_000_000;

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * The file's lines, a chunk's worth at a time (one array per chunk: no promise per line), the
 * first being line 1. Throws the binary-data refusal where it shows, and `line_too_long`.
 */
export async function* spedLines(
  source: ByteSource,
  fileName: string,
  decoder: TextStreamDecoder,
): AsyncGenerator<string[]> {
  const binary = binaryWatcher(fileName);
  let pending = '';
  let line = 1;
  const flush = (text: string, last: boolean): string[] => {
    binary.feed(text);
    // A CR ending the text may be the first half of a CR LF: it waits for what follows.
    const heldCr = !last && text.endsWith('\r');
    const lines = (pending + (heldCr ? text.slice(0, -1) : text)).split(LINE_BREAK);
    pending = last ? '' : `${lines.pop()!}${heldCr ? '\r' : ''}`;
    if (pending.length > MAX_SPED_LINE_CHARACTERS) throw lineTooLong(fileName, line + lines.length);
    line += lines.length;
    // Lines with bytes that were not UTF-8 are not reported for SPED (read-sped.ts): not kept either.
    decoder.foreignLines.length = 0;
    return lines;
  };
  for await (const bytes of spedBytes(source)) {
    const text = decoder.decode(bytes);
    if (text) yield flush(text, false);
  }
  const lines = flush(decoder.decode(new Uint8Array(0), true), true);
  binary.end();
  if (lines.length > 0) yield lines;
}

const lineTooLong = (fileName: string, line: number) =>
  new SpreadsheetError(
    'line_too_long',
    fileName,
    `runs on for more than ${MAX_SPED_LINE_CHARACTERS.toLocaleString('en-US')} characters from here ` +
      'without a line break, which no SPED register holds; generate the SPED file again',
    { line },
    { details: { limit: MAX_SPED_LINE_CHARACTERS } },
  );
