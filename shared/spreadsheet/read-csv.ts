/**
 * CSV text → records with their physical line numbers. Delimiter detection is ours (quote-
 * aware, header-first); the parsing itself is papaparse's (quoted delimiters and newlines,
 * `""` escapes, CRLF/LF/CR).
 */
import Papa from 'papaparse';
import { decodeText, looksDoubleEncoded } from './decode-text.js';
import { SpreadsheetError } from './errors.js';
import { DELIMITERS, type Delimiter, type SpreadsheetProblem, type TextEncoding } from './schemas.js';
import type { SourceRecord } from './table.js';

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
const countLineBreaks = (text: string): number => text.match(LINE_BREAKS)?.length ?? 0;

export const readCsvRecords = (bytes: Uint8Array, fileName: string): CsvRecords => {
  const decoded = decodeText(bytes);
  if (decoded.text.includes('\u0000')) {
    throw new SpreadsheetError(
      'not_a_text_file',
      fileName,
      'is not a CSV text file (it holds binary data); upload a CSV or XLSX file',
    );
  }
  let text = decoded.text;
  let delimiter: Delimiter | null = null;
  let firstLine = 1;
  const directive = SEP_DIRECTIVE.exec(text);
  if (directive && isDelimiter(directive[1]!)) {
    delimiter = directive[1];
    text = text.slice(directive[0].length);
    firstLine = 2;
  }
  delimiter ??= detectDelimiter(text);

  const problems: SpreadsheetProblem[] = [];
  if (looksDoubleEncoded(text)) {
    problems.push({
      code: 'text_looks_double_encoded',
      message:
        `${fileName}: some accents look garbled already in the file (like "Ã§" for "ç"); ` +
        'it was probably converted twice before upload. Re-export it from the original.',
    });
  }

  const records: SourceRecord[] = [];
  let cursor = 0;
  let line = firstLine;
  let unterminatedQuoteLine: number | null = null;
  Papa.parse<string[]>(text, {
    delimiter,
    skipEmptyLines: false,
    step: (result, parser) => {
      const recordLine = line;
      // `cursor` is the offset just past the record's line break: the next record starts there.
      line += countLineBreaks(text.slice(cursor, result.meta.cursor));
      cursor = result.meta.cursor;
      for (const error of result.errors) {
        if (error.code === 'MissingQuotes') {
          unterminatedQuoteLine = recordLine;
          parser.abort();
          return;
        }
        problems.push({
          code: 'csv_malformed_quotes',
          line: recordLine,
          message: `${fileName}, line ${recordLine}: a quote inside a quoted cell is not doubled ("") and was read as text`,
        });
      }
      records.push({ line: recordLine, cells: result.data });
    },
  });
  if (unterminatedQuoteLine !== null) {
    // Everything after an unclosed quote lands in one cell: rows would vanish silently.
    throw new SpreadsheetError(
      'csv_unterminated_quote',
      fileName,
      'a quoted cell is never closed (a " without its closing "), so the rest of the file ' +
        'cannot be split into rows; close the quote or remove it',
      { line: unterminatedQuoteLine },
    );
  }
  return { encoding: decoded.encoding, delimiter, records, problems };
};
