/**
 * SPED EFD ICMS/IPI → records: its item registers (0200) as a catalogue, streamed like a CSV
 * (sped-lines.ts). The first record is a header naming register 0200's fields 02 to 13 as the
 * layout does (COD_ITEM, DESCR_ITEM, …, COD_NCM, …), which columns.ts maps to the SKU, the
 * description and the declared NCM; then one record per 0200, on its physical line. Every other
 * register (0000, 0150, C100, C170, 9900, …) describes no product: each is counted, and the pass
 * ends by saying how many of each were skipped.
 */
import { checkTextStart, SAMPLE_BYTES } from './binary-text.js';
import type { ByteSource } from './byte-source.js';
import { TextStreamDecoder } from './decode-text.js';
import { SpreadsheetError } from './errors.js';
import type { SpreadsheetProblem } from './schemas.js';
import { counted } from './sentence-parts.js';
import { spedHead, spedLines } from './sped-lines.js';
import type { RecordSource, SourceRecord } from './table.js';

/** Register 0200's fields 02 to 13, named as the EFD ICMS/IPI layout names them. */
export const SPED_ITEM_FIELDS = [
  'COD_ITEM',
  'DESCR_ITEM',
  'COD_BARRA',
  'COD_ANT_ITEM',
  'UNID_INV',
  'TIPO_ITEM',
  'COD_NCM',
  'EX_IPI',
  'COD_GEN',
  'COD_LST',
  'ALIQ_ICMS',
  'CEST',
] as const;

const ITEM_REGISTER = '0200';

/** A register's line: `|`, its four-character name, `|`. */
const REGISTER = /^\|([0-9A-Z]{4})\|/;

/** Whether a text file's first bytes open with SPED's `|0000|` register (after a UTF-8 BOM). */
export const looksLikeSped = (head: Uint8Array): boolean => {
  const start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  return Buffer.from(head.subarray(start, start + 6)).toString('latin1') === '|0000|';
};

export const openSped = async (source: ByteSource, fileName: string): Promise<RecordSource> => {
  // Binary data in place of text is refused here, as a CSV is; a signature after 9999 is not looked at.
  checkTextStart(await spedHead(source, SAMPLE_BYTES), fileName);
  return { read: () => readSpedPass(source, fileName) };
};

const readSpedPass = (source: ByteSource, fileName: string): ReturnType<RecordSource['read']> => {
  // The layout asks for Latin-1; files are also Windows-1252 or UTF-8. The decoder reads UTF-8 where
  // the bytes are UTF-8 and Windows-1252 (a superset of Latin-1's printable range) where not.
  const decoder = new TextStreamDecoder();
  const problems: SpreadsheetProblem[] = [];
  return {
    records: spedRecords(source, fileName, decoder, problems),
    encoding: () => decoder.encoding,
    // No `foreign`: bytes that are not UTF-8 are what Latin-1, the layout's own encoding, is made of.
    // Saying "text read from bytes that were not UTF-8, check the accents" would be said of every
    // SPED file read right, and the encoding is still reported.
    problems,
  };
};

/** Register name → how many lines it has, in the order first seen. */
type RegisterCounts = Map<string, number>;

async function* spedRecords(
  source: ByteSource,
  fileName: string,
  decoder: TextStreamDecoder,
  problems: SpreadsheetProblem[],
): AsyncGenerator<SourceRecord> {
  const skipped: RegisterCounts = new Map();
  const notRegisters = notRegisterProblems(fileName, problems);
  let items = 0;
  let line = 0;
  for await (const lines of spedLines(source, fileName, decoder)) {
    for (const text of lines) {
      line += 1;
      const register = REGISTER.exec(text)?.[1];
      if (register === ITEM_REGISTER) {
        // The header waits for the first item: a file without one is refused when it is opened.
        if (items === 0) yield { line: 1, cells: [...SPED_ITEM_FIELDS] };
        items += 1;
        yield { line, cells: itemFields(text) };
      } else if (register !== undefined) {
        skipped.set(register, (skipped.get(register) ?? 0) + 1);
      } else if (text.trim() !== '') {
        notRegisters.add(line, text);
      }
    }
  }
  if (items === 0) {
    throw new SpreadsheetError(
      'sped_no_items',
      fileName,
      'is a SPED EFD file but holds no 0200 register (the item table), so there is no product to ' +
        'classify; generate the file again with block 0 complete',
    );
  }
  problems.push(skippedRegisters(fileName, items, skipped));
}

/**
 * A 0200 line's fields from 02 on: its cells, padded to the layout's twelve when the line has fewer
 * (an older layout had no CEST). Fields past 13 are kept; the table reports them as extra cells.
 * A field never holds a `|`: the layout forbids it, so splitting at each one is the whole parse.
 */
const itemFields = (text: string): string[] => {
  const fields = text.split('|').slice(2);
  // `|…|last|` ends with an empty piece after its closing `|`.
  if (fields.length > 0 && fields[fields.length - 1]!.trim() === '') fields.pop();
  while (fields.length < SPED_ITEM_FIELDS.length) fields.push('');
  return fields;
};

const skippedRegisters = (fileName: string, items: number, skipped: RegisterCounts): SpreadsheetProblem => {
  const registers = [...skipped.keys()];
  const counts = [...skipped.values()];
  const listed = registers.map((register, i) => `${register} (${counted(counts[i]!)})`);
  return {
    code: 'sped_registers_skipped',
    message:
      `${fileName}: SPED EFD file read for its ${counted(items)} items (0200 registers); the other ` +
      `registers describe no product and were skipped: ${englishList(listed)}`,
    said: { code: 'sped_registers_skipped', params: { file: fileName, items, registers, counts } },
  };
};

/** What the summary lists of a kind (read-spreadsheet.ts): past it, a problem is only counted. */
const LISTED_LINES = 50;
/** The start of a line a problem quotes. */
const QUOTED_CHARACTERS = 40;

/**
 * Lines that are no register (no `|` opening them) inside the file, each a problem naming its
 * line: most often the rest of a field cut by a line break the ERP let into a description. The
 * validator (PVA) refuses such a file; its items are still worth reading. Past the ones listed, one
 * shared problem is added per line, for the summary to count them without holding a sentence each.
 */
const notRegisterProblems = (fileName: string, problems: SpreadsheetProblem[]) => {
  let count = 0;
  let shared: SpreadsheetProblem | null = null;
  return {
    add(line: number, text: string): void {
      count += 1;
      if (count <= LISTED_LINES) {
        problems.push(notRegister(fileName, line, text));
        return;
      }
      shared ??= notRegister(fileName, line, text);
      problems.push(shared);
    },
  };
};

const notRegister = (fileName: string, line: number, text: string): SpreadsheetProblem => {
  const start = text.trim();
  const quoted = start.length > QUOTED_CHARACTERS ? `${start.slice(0, QUOTED_CHARACTERS)}…` : start;
  return {
    code: 'sped_line_not_a_register',
    line,
    message:
      `${fileName}, line ${line}: "${quoted}" is not a SPED register (a register's line starts with "|") ` +
      'and was skipped; if it is the rest of the line above, a line break inside a field cut it there',
    said: { code: 'sped_line_not_a_register', params: { file: fileName, line, text: quoted } },
  };
};

const englishList = (items: readonly string[]): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
