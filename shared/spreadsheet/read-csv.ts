/**
 * CSV text → records with their physical line numbers. Delimiter detection is ours (quote-
 * aware, header-first); the parsing itself is papaparse's (quoted delimiters and newlines,
 * `""` escapes, CRLF/LF/CR).
 */
import Papa from 'papaparse';
import { binaryWatcher, checkTextStart, SAMPLE_BYTES } from './binary-text.js';
import { type ByteSource, bytesSource, readBytes } from './byte-source.js';
import { csvRowEnds, type Newline } from './csv-row-ends.js';
import { looksDoubleEncoded, TextStreamDecoder } from './decode-text.js';
import { SpreadsheetError } from './errors.js';
import { DELIMITERS, type Delimiter, type SpreadsheetProblem, type TextEncoding } from './schemas.js';
import { type ForeignBytes, type ForeignBytesAt, isBlank, type SourceRecord } from './table.js';

export interface CsvRecords {
  encoding: TextEncoding;
  delimiter: Delimiter;
  records: SourceRecord[];
  problems: SpreadsheetProblem[];
}

/** Enough records to see a pattern, few enough to stay cheap on a 400k-row file. */
const DELIMITER_SAMPLE_RECORDS = 30;
/** When the header names a single column, `;` first: what pt-BR/es-AR Excel writes. */
const DELIMITER_PREFERENCE: readonly Delimiter[] = [';', ',', '\t'];

interface RecordDelimiterCounts {
  counts: Record<Delimiter, number>;
  /** The record holds something other than delimiters and spaces. */
  hasContent: boolean;
}

const isDelimiter = (char: string): char is Delimiter => (DELIMITERS as readonly string[]).includes(char);

/** Counts each candidate delimiter per record, outside quotes, over the first records. */
const sampleDelimiterCounts = (text: string): RecordDelimiterCounts[] => {
  const records: RecordDelimiterCounts[] = [];
  const fresh = (): RecordDelimiterCounts => ({ counts: { ',': 0, ';': 0, '\t': 0 }, hasContent: false });
  let current = fresh();
  let inQuotes = false;
  for (let i = 0; i < text.length && records.length < DELIMITER_SAMPLE_RECORDS; i++) {
    const char = text[i]!;
    // `""` inside quotes toggles twice, which is exactly right for counting purposes.
    if (char === '"') {
      inQuotes = !inQuotes;
      current.hasContent = true;
    } else if (inQuotes) {
      // Delimiters and newlines inside quotes are data.
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      records.push(current);
      current = fresh();
    } else if (isDelimiter(char)) {
      current.counts[char]++;
    } else if (char.trim() !== '') {
      current.hasContent = true;
    }
  }
  if (records.length < DELIMITER_SAMPLE_RECORDS) records.push(current);
  return records;
};

/**
 * The delimiter the header uses most, ties broken by how many data records repeat that
 * count. Why the header decides: it is typed by people who do not put `,` in column names,
 * while descriptions are full of commas. A header naming one column has no delimiter; then
 * the one least present in the data wins, so descriptions with commas stay whole.
 */
export const detectDelimiter = (text: string): Delimiter => {
  const records = sampleDelimiterCounts(text);
  const headerIndex = records.findIndex((record) => record.hasContent);
  if (headerIndex === -1) return DELIMITER_PREFERENCE[0]!;
  const header = records[headerIndex]!;
  const data = records.slice(headerIndex + 1).filter((record) => record.hasContent);
  const rank = (delimiter: Delimiter): number[] => {
    const headerCount = header.counts[delimiter];
    if (headerCount > 0) {
      const consistent = data.filter((record) => record.counts[delimiter] === headerCount).length;
      return [headerCount, consistent];
    }
    const inData = data.reduce((sum, record) => sum + record.counts[delimiter], 0);
    return [0, -inData];
  };
  return [...DELIMITER_PREFERENCE].sort((a, b) => compareRanks(rank(b), rank(a)))[0]!;
};

const compareRanks = (a: number[], b: number[]): number => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
};

/** Excel honours a first line `sep=;` that names the delimiter; some users add it by hand. */
const SEP_DIRECTIVE = /^sep=(.)(\r\n|\r|\n)/i;

const LINE_BREAKS = /\r\n|\r|\n/g;
// Most cells hold no line break: looked for before the expression runs on every cell of every row.
const countLineBreaks = (text: string): number =>
  text.includes('\n') || text.includes('\r') ? (text.match(LINE_BREAKS)?.length ?? 0) : 0;

/**
 * The text the delimiter, the line ending and the `sep=` line are decided on: what papaparse
 * looks at for its line ending when it parses a whole file at once, so a file read in chunks is
 * split exactly as it would be whole.
 */
const LOOK_AHEAD_CHARS = 1024 * 1024;

/** papaparse's own guess (ParserHandle.guessLineEndings), which its bare Parser does not make. */
const guessNewline = (text: string): Newline => {
  const unquoted = text.slice(0, LOOK_AHEAD_CHARS).replace(/"[\s\S]*?"/g, '');
  const byCr = unquoted.split('\r');
  const byLf = unquoted.split('\n');
  const lfFirst = byLf.length > 1 && byLf[0]!.length < byCr[0]!.length;
  if (byCr.length === 1 || lfFirst) return '\n';
  const followedByLf = byCr.filter((part) => part[0] === '\n').length;
  return followedByLf >= byCr.length / 2 ? '\r\n' : '\r';
};

/** What a CSV file is read with, decided once from its start. */
interface CsvLayout {
  delimiter: Delimiter;
  newline: Newline;
  /** The `sep=` line's length in characters, or 0. */
  directiveLength: number;
}

const csvLayout = (start: string): CsvLayout => {
  const directive = SEP_DIRECTIVE.exec(start);
  if (directive && isDelimiter(directive[1]!)) {
    const rest = start.slice(directive[0].length);
    return { delimiter: directive[1], newline: guessNewline(rest), directiveLength: directive[0].length };
  }
  return { delimiter: detectDelimiter(start), newline: guessNewline(start), directiveLength: 0 };
};

/** A CSV file read front to back, once per `read()`. */
export interface CsvFile {
  delimiter: Delimiter;
  /**
   * One read of the file's records. The pass's encoding and problems are complete once its
   * records have all been read; a file that cannot be split into rows throws from the iteration.
   */
  read(): CsvPass;
}

interface CsvPass {
  records: AsyncIterable<SourceRecord>;
  /** Known when the records are all read: decoding needs every byte to name the encoding. */
  encoding(): TextEncoding;
  /** Where bytes that are not UTF-8 were first found, by how they were read; known at the end too. */
  foreign(): Partial<Record<ForeignBytes, ForeignBytesAt>>;
  problems: SpreadsheetProblem[];
}

/** Text chunks of a source, decoded as the same bytes would be whole. */
async function* decodedChunks(source: ByteSource, decoder: TextStreamDecoder): AsyncGenerator<string> {
  for await (const chunk of source.read(0, source.size)) {
    const text = decoder.decode(chunk);
    if (text) yield text;
  }
  const rest = decoder.decode(new Uint8Array(0), true);
  if (rest) yield rest;
}

/** At least `LOOK_AHEAD_CHARS` of text (or the whole file when it is shorter), and what follows. */
const readAhead = async (chunks: AsyncIterator<string>): Promise<{ start: string; ended: boolean }> => {
  let start = '';
  while (start.length < LOOK_AHEAD_CHARS) {
    const next = await chunks.next();
    if (next.done) return { start, ended: true };
    start += next.value;
  }
  return { start, ended: false };
};

/**
 * The most characters one record may run to while it is read: a cell of 30 MB is read, for its row
 * to be rejected on its own (cell-limits.ts), as an XLSX row is up to the same count (read-xlsx.ts);
 * past it, what is being read is no row but the rest of the file after a quote never closed, which
 * would otherwise be gathered into one string until memory or the string's length runs out.
 */
const MAX_RECORD_CHARACTERS = 100_000_000;

/** What a file of delimited text is read with, decided once from its start. */
type TextLayout = CsvLayout & { utf16: 'utf-16le' | 'utf-16be' | null; maxRecordCharacters: number };

export const openCsv = async (
  source: ByteSource,
  fileName: string,
  maxRecordCharacters = MAX_RECORD_CHARACTERS,
): Promise<CsvFile> => {
  // Not text at all (a PDF, an image, binary data) is refused here, naming where it shows.
  const utf16 = checkTextStart(await readBytes(source, 0, Math.min(source.size, SAMPLE_BYTES)), fileName);
  const chunks = decodedChunks(source, new TextStreamDecoder(utf16 ? { utf16 } : {}));
  const { start } = await readAhead(chunks);
  await chunks.return(undefined);
  const layout = { ...csvLayout(start), utf16, maxRecordCharacters };
  return { delimiter: layout.delimiter, read: () => readCsvPass(source, fileName, layout) };
};

const readCsvPass = (source: ByteSource, fileName: string, layout: TextLayout): CsvPass => {
  const decoder = new TextStreamDecoder(layout.utf16 ? { utf16: layout.utf16 } : {});
  const problems: SpreadsheetProblem[] = [];
  return {
    records: csvRecords(source, fileName, layout, decoder, problems),
    encoding: () => decoder.encoding,
    foreign: () => decoder.firstForeign,
    problems,
  };
};

/** The kinds of foreign bytes on lines `[from, to)`, taken off the decoder's list. */
const foreignOn = (decoder: TextStreamDecoder, to: number): ForeignBytes[] => {
  const kinds = new Set<ForeignBytes>();
  const lines = decoder.foreignLines;
  while (lines.length > 0 && lines[0]!.line < to) kinds.add(lines.shift()!.kind);
  return [...kinds];
};

/** What DOS programs put at a file's end (Ctrl-Z): not a row. */
const END_OF_FILE_MARK = '\u001A';

async function* csvRecords(
  source: ByteSource,
  fileName: string,
  layout: TextLayout,
  decoder: TextStreamDecoder,
  problems: SpreadsheetProblem[],
): AsyncGenerator<SourceRecord> {
  const parser = new Papa.Parser({ delimiter: layout.delimiter, newline: layout.newline });
  let line = layout.directiveLength > 0 ? 2 : 1;
  let skip = layout.directiveLength;
  let pending = '';
  // Text read but not parsed yet: see below.
  let waiting: string[] = [];
  let waitingLength = 0;
  let sawDoubleEncoding = false;
  let lastChar = '';
  const binary = binaryWatcher(fileName);
  // Every line a row ends on still ends it, whatever its line break or a stray quote before it.
  const plainRowEnds = csvRowEnds(layout.newline, layout.delimiter);
  const chunks = decodedChunks(source, decoder);
  for (let ended = false; !ended; ) {
    const next = await chunks.next();
    ended = next.done === true;
    let text = ended ? '' : (next.value as string);
    // Binary data further in than the start openCsv looked at is refused where it starts.
    if (ended) binary.end();
    else binary.feed(text);
    if (!sawDoubleEncoding && looksDoubleEncoded(lastChar + text)) {
      sawDoubleEncoding = true;
      problems.unshift(doubleEncodingProblem(fileName));
    }
    lastChar = text.slice(-1) || lastChar;
    if (skip > 0) {
      const skipped = Math.min(skip, text.length);
      text = text.slice(skipped);
      skip -= skipped;
    }
    text = plainRowEnds(text, ended);
    waiting.push(text);
    waitingLength += text.length;
    // A record longer than a chunk (a cell of megabytes) is parsed again only once the text after
    // it is as long as itself: each character is parsed a few times in all, not once per chunk.
    if (!ended && waitingLength < pending.length) continue;
    const input = pending + waiting.join('');
    waiting = [];
    waitingLength = 0;
    if (!input) continue;
    // Until the last chunk, the record cut by the chunk's end waits for the rest of it.
    const parsed = parser.parse(input, 0, !ended) as Papa.ParseResult<string[]>;
    pending = input.slice(parsed.meta.cursor);
    if (pending.length > layout.maxRecordCharacters) {
      throw recordTooLong(fileName, line, pending, layout.maxRecordCharacters);
    }
    const errorsByRow = new Map<number, Papa.ParseError[]>();
    for (const error of parsed.errors) {
      if (error.row === undefined || error.row >= parsed.data.length) continue;
      errorsByRow.set(error.row, [...(errorsByRow.get(error.row) ?? []), error]);
    }
    for (const [index, cells] of parsed.data.entries()) {
      const recordLine = line;
      // Every line break of the file ends a record or sits inside a quoted cell.
      line += 1 + cells.reduce((sum, cell) => sum + countLineBreaks(cell), 0);
      const foreign = foreignOn(decoder, line);
      if (ended && index === parsed.data.length - 1 && cells.at(-1)?.endsWith(END_OF_FILE_MARK)) {
        // The mark ends the file, on a line of its own or right after the last cell.
        cells[cells.length - 1] = cells.at(-1)!.slice(0, -END_OF_FILE_MARK.length);
        if (isBlank(cells)) break;
      }
      for (const error of errorsByRow.get(index) ?? []) {
        if (error.code === 'MissingQuotes') throw unterminatedQuote(fileName, recordLine);
        problems.push({
          code: 'csv_malformed_quotes',
          line: recordLine,
          message: `${fileName}, line ${recordLine}: a quote inside a quoted cell is not doubled ("") and was read as text`,
          said: { code: 'csv_malformed_quotes', params: { file: fileName, line: recordLine } },
        });
      }
      yield { line: recordLine, cells, ...(foreign.length > 0 ? { foreign } : {}) };
    }
    if (ended && parsed.errors.some((error) => error.code === 'MissingQuotes')) {
      throw unterminatedQuote(fileName, line);
    }
  }
}

const doubleEncodingProblem = (fileName: string): SpreadsheetProblem => ({
  said: { code: 'text_looks_double_encoded', params: { file: fileName } },
  code: 'text_looks_double_encoded',
  message:
    `${fileName}: some accents look garbled already in the file (like "Ã§" for "ç"); ` +
    'it was probably converted twice before upload. Re-export it from the original.',
});

// Everything after an unclosed quote lands in one cell: rows would vanish silently.
const unterminatedQuote = (fileName: string, line: number) =>
  new SpreadsheetError(
    'csv_unterminated_quote',
    fileName,
    'a quoted cell is never closed (a " without its closing "), so the rest of the file ' +
      'cannot be split into rows; close the quote or remove it',
    { line },
  );

/** A record read past its limit: a quote never closed, or a file without line breaks. */
const recordTooLong = (fileName: string, line: number, record: string, limit: number) => {
  if (record.includes('"')) return unterminatedQuote(fileName, line);
  return new SpreadsheetError(
    'line_too_long',
    fileName,
    `runs on for more than ${limit.toLocaleString('en-US')} characters from here without ` +
      'a line break, which no row of a catalogue holds; save it again as CSV with one product per line',
    { line },
    { details: { limit } },
  );
};

/** The whole file at once: every record, for the callers that hold small files in memory. */
export const readCsvRecords = async (bytes: Uint8Array, fileName: string): Promise<CsvRecords> => {
  const file = await openCsv(bytesSource(bytes), fileName);
  const pass = file.read();
  const records: SourceRecord[] = [];
  for await (const record of pass.records) records.push(record);
  return { encoding: pass.encoding(), delimiter: file.delimiter, records, problems: pass.problems };
};
