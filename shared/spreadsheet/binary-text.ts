/**
 * Whether the bytes of a file named like text are text at all. A file that is something else (a
 * PDF, an image, an archive, a program's data) is refused in one line naming the file, the line
 * and the byte where it shows, and what it looks like. A text file with a few stray control
 * characters is read: each row holding one is rejected naming its column (cell-limits.ts).
 * UTF-16 without its BOM (Excel's "Unicode Text" once edited elsewhere) is told by its zero bytes.
 */
import { SpreadsheetError } from './errors.js';
import { capitalised, counted } from './sentence-parts.js';

/** What the first bytes of a file say it is, when it is not text. */
const SIGNATURES: readonly { bytes: readonly number[]; kind: string; looksLike: string }[] = [
  {
    bytes: [0x25, 0x50, 0x44, 0x46, 0x2d],
    kind: 'pdf',
    looksLike: 'a PDF document (it starts with "%PDF-")',
  },
  { bytes: [0x89, 0x50, 0x4e, 0x47], kind: 'png', looksLike: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], kind: 'jpeg', looksLike: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], kind: 'gif', looksLike: 'a GIF image' },
  { bytes: [0x1f, 0x8b], kind: 'gzip', looksLike: 'a gzip archive' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], kind: '7z', looksLike: 'a 7-Zip archive' },
  { bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], kind: 'rar', looksLike: 'a RAR archive' },
  {
    bytes: [0x7b, 0x5c, 0x72, 0x74, 0x66],
    kind: 'rtf',
    looksLike: 'an RTF document (it starts with "{\\rtf")',
  },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], kind: 'elf', looksLike: 'a program (ELF)' },
  { bytes: [...Buffer.from('SQLite format 3')], kind: 'sqlite', looksLike: 'an SQLite database' },
];

/** A web page saved under a spreadsheet's name ("export to Excel" of many web systems). */
const HTML_START = /^(?:\uFEFF)?\s*<(?:!doctype html|html)[\s>]/i;

/** How much of the file's start is looked at: enough to judge, one range read. */
export const SAMPLE_BYTES = 64 * 1024;

/**
 * The least share of control characters that makes bytes binary data rather than text with a
 * few stray ones (1 in 100, and at least 8): text never holds them, a program's data is full of them.
 * A run of one control character counts once: a fixed-width export pads a cell with NULs, dozens in
 * one row, while a program's data scatters them. Runs or not, a tenth of the characters is binary
 * data (a file of zeros, as a crashed export leaves one, is one run).
 */
const BINARY_SHARE = 0.01;
const BINARY_LEAST = 8;
const BINARY_RUN_SHARE = 0.1;

/** Whether `runs` runs of `count` control characters in `characters` make binary data. */
const looksBinary = (runs: number, count: number, characters: number): boolean =>
  (runs >= BINARY_LEAST && runs >= characters * BINARY_SHARE) ||
  (count >= BINARY_LEAST && count >= characters * BINARY_RUN_SHARE);

/**
 * C0 controls but tab, LF, VT, FF, CR and SUB (cell-limits.ts keeps the same list): ERPs write
 * VT or SUB for a line break inside a cell, as often as once a row, so neither tells binary data.
 */
const isControl = (unit: number): boolean => unit < 0x20 && (unit < 0x09 || unit > 0x0d) && unit !== 0x1a;

const UTF16_LEAST_UNITS = 4;
const UTF16_SHARE = 0.9;

/**
 * UTF-16, by its BOM or, without one, because most of the first units have one zero byte, always
 * on the same side (the high byte of Latin text). Null for anything else.
 */
const utf16Of = (head: Uint8Array): 'utf-16le' | 'utf-16be' | null => {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const units = Math.min(Math.floor(head.length / 2), 4096);
  if (units < UTF16_LEAST_UNITS) return null;
  let zeroHigh = 0;
  let zeroLow = 0;
  for (let unit = 0; unit < units; unit++) {
    const [first, second] = [head[2 * unit]!, head[2 * unit + 1]!];
    if (first !== 0 && second === 0) zeroHigh++;
    if (first === 0 && second !== 0) zeroLow++;
  }
  if (zeroHigh >= units * UTF16_SHARE) return 'utf-16le';
  if (zeroLow >= units * UTF16_SHARE) return 'utf-16be';
  return null;
};

/** Where binary data shows: its first control character, its line and byte, how many there are. */
type BinaryEvidence = { line: number; offset: number; unit: number; count: number; units: number };

/**
 * Control characters in `head`, read as units of the file's encoding (bytes, or 16-bit units for
 * UTF-16): evidence of binary data when they reach the share above, else null.
 */
const binaryEvidence = (head: Uint8Array, utf16: 'utf-16le' | 'utf-16be' | null): BinaryEvidence | null => {
  const width = utf16 ? 2 : 1;
  const units = Math.floor(head.length / width);
  const unitAt = (i: number): number =>
    width === 1
      ? head[i]!
      : utf16 === 'utf-16le'
        ? head[2 * i]! | (head[2 * i + 1]! << 8)
        : (head[2 * i]! << 8) | head[2 * i + 1]!;
  // The BOM (UTF-16 only; a UTF-8 BOM holds no control byte) is not text.
  const start = utf16 && unitAt(0) === 0xfeff ? 1 : 0;
  let count = 0;
  let runs = 0;
  let first = -1;
  let line = 1;
  let firstLine = 1;
  for (let i = start; i < units; i++) {
    const unit = unitAt(i);
    if (unit === 0x0a && (i === 0 || unitAt(i - 1) !== 0x0d)) line++;
    else if (unit === 0x0d) line++;
    else if (isControl(unit)) {
      count++;
      if (i === start || unitAt(i - 1) !== unit) runs++;
      if (first === -1) {
        first = i;
        firstLine = line;
      }
    }
  }
  if (!looksBinary(runs, count, units - start)) return null;
  return { line: firstLine, offset: first * width, unit: unitAt(first), count, units: units - start };
};

const hex = (unit: number, width: number): string =>
  `0x${unit
    .toString(16)
    .toUpperCase()
    .padStart(width * 2, '0')}`;

const UPLOAD = 'upload the catalogue as CSV, tab-delimited text (.txt, .tsv) or XLSX';

/**
 * Refuses `head` (the file's first bytes) when it is not text: a known signature, or control
 * characters as binary data holds them. Returns the UTF-16 encoding of a file without BOM, or null.
 */
export const checkTextStart = (head: Uint8Array, fileName: string): 'utf-16le' | 'utf-16be' | null => {
  const signature = SIGNATURES.find(({ bytes }) => bytes.every((byte, i) => head[i] === byte));
  if (signature) {
    throw new SpreadsheetError(
      'not_a_text_file',
      fileName,
      `is not a text file: it is ${signature.looksLike}; ${UPLOAD}`,
      { line: 1 },
      { details: { looks_like: signature.kind } },
    );
  }
  if (HTML_START.test(Buffer.from(head.subarray(0, 256)).toString('latin1'))) {
    throw new SpreadsheetError(
      'not_a_text_file',
      fileName,
      `is a web page (HTML), not a table of text; open it in Excel and save it as CSV, or ${UPLOAD}`,
      { line: 1 },
      { details: { looks_like: 'html' } },
    );
  }
  const utf16 = utf16Of(head);
  const evidence = binaryEvidence(head, utf16);
  if (evidence) throw binaryData(fileName, evidence, utf16 ? 2 : 1, head.length);
  return utf16;
};

const binaryData = (fileName: string, evidence: BinaryEvidence, width: number, sampled: number) =>
  new SpreadsheetError(
    'not_a_text_file',
    fileName,
    `is not a text file: ${counted(evidence.count)} of its first ${counted(sampled)} bytes are control ` +
      `characters that text never holds, the first ${evidence.unit === 0 ? 'a NUL' : hex(evidence.unit, width)} ` +
      `at byte ${counted(evidence.offset)}; it looks like a program's binary data. ${capitalised(UPLOAD)}`,
    { line: evidence.line },
    {
      details: {
        looks_like: 'binary',
        count: evidence.count,
        sampled,
        first_byte: evidence.unit === 0 ? 'NUL' : hex(evidence.unit, width),
        offset: evidence.offset,
      },
    },
  );

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters looked for
const ANY_CONTROL = /[\u0000-\u0008\u000E-\u0019\u001B-\u001F]/;
const LINE_BREAKS = /\r\n|\r|\n/g;

/** The span of text judged at once past the file's start: the same blocks however it is read. */
const BLOCK_CHARACTERS = 4096;

/**
 * The same judgement on the text of the whole file, read a chunk at a time, in blocks of
 * `BLOCK_CHARACTERS` whatever the chunks: `feed` each chunk's text, then `end`. Either throws the
 * refusal naming the line where the block's first control character is.
 */
export const binaryWatcher = (fileName: string) => {
  let line = 1;
  let afterCr = false;
  let inBlock = 0;
  let controls = 0;
  let runs = 0;
  let previous = -1;
  let firstLine = 1;
  const judge = (characters: number): void => {
    if (looksBinary(runs, controls, characters)) {
      throw new SpreadsheetError(
        'not_a_text_file',
        fileName,
        `holds binary data from here on: ${counted(controls)} of ${counted(characters)} characters are ` +
          "control characters that text never holds; it looks like a program's data was written into " +
          `the file. ${capitalised(UPLOAD)}`,
        { line: firstLine },
        { details: { looks_like: 'binary_further', count: controls, characters } },
      );
    }
    inBlock = 0;
    controls = 0;
    runs = 0;
  };
  return {
    feed(text: string): void {
      if (!ANY_CONTROL.test(text)) {
        // Most text holds none: its lines counted natively, its blocks passed over whole.
        line += (text.match(LINE_BREAKS)?.length ?? 0) - (afterCr && text.startsWith('\n') ? 1 : 0);
        if (text.length > 0) {
          afterCr = text.endsWith('\r');
          previous = -1;
        }
        const through = inBlock + text.length;
        if (through >= BLOCK_CHARACTERS) judge(BLOCK_CHARACTERS);
        inBlock = through >= BLOCK_CHARACTERS ? through % BLOCK_CHARACTERS : through;
        return;
      }
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        if (unit === 0x0a) {
          if (!afterCr) line++;
          afterCr = false;
        } else if (unit === 0x0d) {
          line++;
          afterCr = true;
        } else {
          afterCr = false;
          if (isControl(unit)) {
            if (controls === 0) firstLine = line;
            controls++;
            if (unit !== previous) runs++;
          }
        }
        previous = unit;
        if (++inBlock === BLOCK_CHARACTERS) judge(BLOCK_CHARACTERS);
      }
    },
    end(): void {
      judge(inBlock);
    },
  };
};
