/**
 * Workbooks made to hurt the reader, built byte by byte here: XML entity declarations (an internal
 * entity, "billion laughs", an external entity pointing at a file this test writes), a cell of
 * hundreds of megabytes, a zip bomb of more rows than a batch takes, parts that inflate past their
 * limit or past the size the archive declares. Each is refused in one line naming the file, the
 * part and the cell or row, and the reason; none is inflated further than it takes to know.
 */
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type ByteSource, bytesSource } from '../../../shared/spreadsheet/byte-source.js';
import { SpreadsheetError } from '../../../shared/spreadsheet/errors.js';
import { openSpreadsheet, readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import { openXlsx, type XlsxWorkbook } from '../../../shared/spreadsheet/read-xlsx.js';
import type { SourceRecord } from '../../../shared/spreadsheet/table.js';
import { XLSX_LIMITS } from '../../../shared/spreadsheet/xlsx-sheet.js';
import { thrown } from './fixtures.js';

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const SHEET = 'xl/worksheets/sheet1.xml';
const FILE = 'hostil.xlsx';

/** A part's content, as a string or pieces generated one after the other (never held whole). */
type PartContent = string | (() => Iterable<string>);

interface ZipEntry {
  name: string;
  content: PartContent;
  /** The inflated size the archive's directory declares, when it should lie. */
  declaredSize?: number;
}

/** Deflated as it is generated, so a part of hundreds of megabytes costs its compressed size. */
const deflatePart = async (content: PartContent) => {
  if (typeof content === 'string') {
    const bytes = Buffer.from(content, 'utf8');
    return { data: deflateRawSync(bytes), crc: crc32(bytes), size: bytes.length };
  }
  // Level 1, as fast as deflate goes: the parts are large, and how well they deflate is not the point.
  const deflate = createDeflateRaw({ level: 1 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  let crc = 0;
  let size = 0;
  let pending = '';
  const write = async (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    crc = crc32(bytes, crc);
    size += bytes.length;
    if (!deflate.write(bytes)) await once(deflate, 'drain');
  };
  for (const piece of content()) {
    pending += piece;
    if (pending.length >= 1 << 20) {
      await write(pending);
      pending = '';
    }
  }
  await write(pending);
  deflate.end();
  await once(deflate, 'end');
  return { data: Buffer.concat(out), crc, size };
};

/** A ZIP archive as the format lays it out: local headers and data, then the central directory. */
const zipOf = async (entries: ZipEntry[]): Promise<Buffer> => {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const { data, crc, size } = await deflatePart(entry.content);
    const declared = entry.declaredSize ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    directory.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
};

interface Workbook {
  sheet: PartContent;
  sharedStrings?: PartContent;
  styles?: PartContent;
  workbook?: string;
  /** Inflated sizes the directory should declare, by part name. */
  declared?: Record<string, number>;
}

const WORKBOOK_XML =
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
  '<sheets><sheet name="Produtos" sheetId="1" r:id="rId1"/></sheets></workbook>';

const RELS_XML =
  `<?xml version="1.0" encoding="UTF-8"?>\n<Relationships xmlns="${PACKAGE_REL_NS}">` +
  `<Relationship Id="rId1" Type="${REL_NS}/worksheet" Target="worksheets/sheet1.xml"/>` +
  `<Relationship Id="rId2" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>` +
  `<Relationship Id="rId3" Type="${REL_NS}/styles" Target="styles.xml"/>` +
  '</Relationships>';

/** The parts a reader needs, as Excel names them. */
const workbookOf = (parts: Workbook): Promise<Buffer> => {
  const entries: ZipEntry[] = [
    { name: 'xl/workbook.xml', content: parts.workbook ?? WORKBOOK_XML },
    { name: 'xl/_rels/workbook.xml.rels', content: RELS_XML },
    ...(parts.styles === undefined ? [] : [{ name: 'xl/styles.xml', content: parts.styles }]),
    ...(parts.sharedStrings === undefined
      ? []
      : [{ name: 'xl/sharedStrings.xml', content: parts.sharedStrings }]),
    { name: SHEET, content: parts.sheet },
  ];
  return zipOf(
    entries.map((entry) => {
      const declaredSize = parts.declared?.[entry.name];
      return declaredSize === undefined ? entry : { ...entry, declaredSize };
    }),
  );
};

const sheetXml = (rows: string, prolog = '') =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${prolog}<worksheet xmlns="${MAIN_NS}"><sheetData>${rows}</sheetData></worksheet>`;

const textCell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

const HEADER_ROW = `<row r="1">${textCell('A1', 'Descrição')}${textCell('B1', 'País')}</row>`;

/**
 * Text that deflates about twentyfold, like a real sheet's (a run of one letter deflates a
 * thousandfold, and a reader that stopped early could not be told from one that did not by the
 * bytes it read): words drawn from a small vocabulary, which deflate finds again in its window.
 * `wrap` makes each word markup (an attribute value) rather than text. Deterministic.
 */
function* textOf(megabytes: number, wrap: (word: string) => string = (word) => word): Generator<string> {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const vocabulary = Array.from({ length: 256 }, () =>
    wrap(Array.from({ length: 48 }, () => letters[Math.floor(random() * 26)]).join('')),
  );
  const blocks = Array.from({ length: 4 }, () => {
    let block = '';
    while (block.length < 1024 * 1024) block += vocabulary[Math.floor(random() * vocabulary.length)];
    return block.slice(0, 1024 * 1024);
  });
  for (let i = 0; i < megabytes; i++) yield blocks[i % blocks.length]!;
}

/** A ByteSource over the bytes that counts what the reader asked of it. */
const countingSource = (bytes: Uint8Array) => {
  const inner = bytesSource(bytes, 16 * 1024);
  const counter = { bytesRead: 0 };
  const source: ByteSource = {
    size: inner.size,
    async *read(start, end) {
      for await (const chunk of inner.read(start, end)) {
        counter.bytesRead += chunk.byteLength;
        yield chunk;
      }
    },
  };
  return { source, counter };
};

const collect = async (workbook: XlsxWorkbook, into: SourceRecord[] = []): Promise<SourceRecord[]> => {
  for await (const record of workbook.records()) into.push(record);
  return into;
};

/** Opens the workbook and reads its sheet to the end: what it throws, wherever it throws it. */
const refusalOf = async (bytes: Uint8Array, limits = XLSX_LIMITS): Promise<SpreadsheetError> => {
  const error = await thrown(async () => collect(await openXlsx(bytesSource(bytes), FILE, limits)));
  expect(error).toBeInstanceOf(SpreadsheetError);
  return error as SpreadsheetError;
};

/** Everything an error carries, its causes included, as text: where a leak would show. */
const everythingSaid = (error: unknown): string => {
  const said: string[] = [];
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    said.push(at.message, String(at.stack), JSON.stringify({ ...at }));
  }
  return said.join('\n');
};

const ENTITY_REFUSAL = (part: string) =>
  `${FILE}: the part ${part} declares an XML entity (<!DOCTYPE …>), which a workbook saved by Excel or ` +
  'LibreOffice never holds; it is refused so no entity is ever expanded or fetched';

describe('a workbook declaring XML entities', () => {
  it('is refused naming the part, whichever part declares one', async () => {
    const doctype = '<!DOCTYPE x [<!ENTITY marca "Acme">]>';
    const inSheet = await workbookOf({
      sheet: sheetXml(`${HEADER_ROW}<row r="2">${textCell('A2', '&marca;')}</row>`, doctype),
    });
    const inSharedStrings = await workbookOf({
      sheet: sheetXml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'),
      sharedStrings: `${doctype}<sst xmlns="${MAIN_NS}"><si><t>&marca;</t></si></sst>`,
    });
    const inWorkbook = await workbookOf({
      sheet: sheetXml(HEADER_ROW),
      workbook: `${doctype}${WORKBOOK_XML.split('\n')[1]}`,
    });
    const inStyles = await workbookOf({
      sheet: sheetXml(HEADER_ROW),
      styles: `${doctype}<styleSheet xmlns="${MAIN_NS}"/>`,
    });

    for (const [bytes, part] of [
      [inSheet, SHEET],
      [inSharedStrings, 'xl/sharedStrings.xml'],
      [inWorkbook, 'xl/workbook.xml'],
      [inStyles, 'xl/styles.xml'],
    ] as const) {
      const error = await refusalOf(bytes);
      expect(error).toMatchObject({ code: 'xlsx_entity_declared', fileName: FILE, details: { part } });
      expect(error.message).toBe(ENTITY_REFUSAL(part));
      expect(error.message).not.toContain('Acme');
    }
  });

  it('refuses a "billion laughs" expansion without expanding a single entity', async () => {
    const entities = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    const doctype = `<!DOCTYPE lolz [${entities.join('')}]>`;
    const bytes = await workbookOf({
      sheet: sheetXml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'),
      sharedStrings: `${doctype}<sst xmlns="${MAIN_NS}"><si><t>&lol9;</t></si></sst>`,
    });

    const error = await refusalOf(bytes);

    expect(error.code).toBe('xlsx_entity_declared');
    expect(error.message).toBe(ENTITY_REFUSAL('xl/sharedStrings.xml'));
    expect(everythingSaid(error)).not.toContain('lollol');
  });

  it('never reads the file an external entity points at, nor says what it holds', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'xxe-'));
    const secretFile = join(folder, 'segredo.txt');
    const secret = 'SEGREDO-a1b2c3-nao-deve-aparecer';
    writeFileSync(secretFile, secret);
    const doctype = `<!DOCTYPE x [<!ENTITY xxe SYSTEM "file://${secretFile}">]>`;
    const bytes = await workbookOf({
      sheet: sheetXml(
        `${HEADER_ROW}<row r="2">${textCell('A2', '&xxe;')}${textCell('B2', 'BR')}</row>`,
        doctype,
      ),
    });

    const opened = await thrown(() => readSpreadsheet(bytes, FILE));
    const streamed = await refusalOf(bytes);

    for (const error of [opened, streamed]) {
      expect(error).toMatchObject({ code: 'xlsx_entity_declared', message: ENTITY_REFUSAL(SHEET) });
      expect(everythingSaid(error)).not.toContain(secret);
    }
    // Without a DOCTYPE, a reference to an entity nobody declared is not well-formed, and says so.
    const undeclared = await refusalOf(
      await workbookOf({ sheet: sheetXml(`${HEADER_ROW}<row r="2">${textCell('A2', '&xxe;')}</row>`) }),
    );
    expect(undeclared.code).toBe('xlsx_invalid');
    expect(undeclared.message).toBe(
      `${FILE}: is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx): ` +
        `${SHEET}, cell A2: its XML is not well-formed (undefined entity); open it in Excel and save it again ` +
        'as .xlsx, or upload a CSV',
    );
  });
});

describe('a cell, a row or a text too large to read', () => {
  it('refuses a cell of 300 MB naming it, after the rows before it and long before its end', async () => {
    const bytes = await workbookOf({
      sheet: function* () {
        yield sheetXml('').split('<sheetData>')[0]!;
        yield `<sheetData>${HEADER_ROW}`;
        for (let row = 2; row <= 4; row++)
          yield `<row r="${row}">${textCell(`A${row}`, `Produto ${row}`)}</row>`;
        yield `<row r="5">${textCell('A5', 'Motor')}${textCell('B5', 'BR')}<c r="C5" t="inlineStr"><is><t>`;
        yield* textOf(300);
        yield '</t></is></c></row></sheetData></worksheet>';
      },
    });
    const { source, counter } = countingSource(bytes);
    const received: SourceRecord[] = [];

    const error = await thrown(async () => collect(await openXlsx(source, FILE), received));

    expect(error).toMatchObject({
      name: 'SpreadsheetError',
      code: 'xlsx_cell_too_large',
      details: { part: SHEET, cell: 'C5', limit: 50_000_000 },
      message:
        `${FILE}: cell C5 (in ${SHEET}) holds more than 50,000,000 characters, far more than the 32,767 an Excel ` +
        'cell holds; it is refused before it is read whole: shorten that cell and save the workbook again',
    });
    expect(received.map((record) => record.line)).toEqual([1, 2, 3, 4]);
    // 50 of its 300 MB were inflated: about a sixth of the part's compressed bytes were read.
    expect(counter.bytesRead).toBeLessThan(bytes.length / 4);
  });

  it('refuses a shared text past the limit, and a row whose cells together pass it', async () => {
    const limits = { ...XLSX_LIMITS, cellCharacters: 1_000, rowCharacters: 2_500 };
    const longText = await workbookOf({
      sheet: sheetXml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'),
      sharedStrings: `<sst xmlns="${MAIN_NS}"><si><t>curto</t></si><si><r><t>${'b'.repeat(600)}</t></r><r><t>${'c'.repeat(600)}</t></r></si></sst>`,
    });
    const wideRow = await workbookOf({
      sheet: sheetXml(
        `${HEADER_ROW}<row r="7">${['A', 'B', 'C'].map((column) => textCell(`${column}7`, 'x'.repeat(900))).join('')}</row>`,
      ),
    });

    expect(await refusalOf(longText, limits)).toMatchObject({
      code: 'xlsx_cell_too_large',
      message:
        `${FILE}: a cell text in xl/sharedStrings.xml (its item 2) holds more than 1,000 characters, far more than ` +
        'the 32,767 an Excel cell holds; it is refused before it is read whole: shorten that cell and save the ' +
        'workbook again',
    });
    expect(await refusalOf(wideRow, limits)).toMatchObject({
      code: 'xlsx_cell_too_large',
      details: { part: SHEET, row: 7, limit: 2_500 },
      message:
        `${FILE}: row 7 (in ${SHEET}) holds more than 2,500 characters in its cells, which no catalogue row ` +
        'needs; it is refused before it is read whole: shorten its cells and save the workbook again',
    });
  });

  it('reads a cell far longer than Excel holds but under the limit, for its row to be rejected on its own', async () => {
    const bytes = await workbookOf({
      sheet: sheetXml(
        `${HEADER_ROW}<row r="2">${textCell('A2', 'd'.repeat(100_000))}${textCell('B2', 'BR')}</row>`,
      ),
    });

    const records = await collect(await openXlsx(bytesSource(bytes), FILE));

    expect(records[1]!.cells[0]).toHaveLength(100_000);
  });
});

describe('a zip bomb of rows', () => {
  it('refuses a sheet of a million tiny rows as soon as row 400,001 is read, not at its end', async () => {
    const rows = 1_000_000;
    const bytes = await workbookOf({
      sheet: function* () {
        yield sheetXml('').split('<sheetData>')[0]!;
        yield `<sheetData>${HEADER_ROW}`;
        for (let row = 2; row <= rows + 1; row++) {
          yield `<row r="${row}">${textCell(`A${row}`, 'Motor')}${textCell(`B${row}`, 'BR')}</row>`;
        }
        yield '</sheetData></worksheet>';
      },
    });
    const { source, counter } = countingSource(bytes);

    const file = await openSpreadsheet(source, FILE);
    let read = 0;
    const error = await thrown(async () => {
      for await (const _ of file.readRows().rows) read += 1;
    });

    expect(error).toMatchObject({
      code: 'too_many_rows',
      line: 400_002,
      message: expect.stringMatching(/^hostil\.xlsx, line 400002: has more than 400,000 data rows/),
    });
    expect(read).toBe(400_000);
    // Rows 400,002 to 1,000,001 were never inflated: the read stopped about 40 % of the way in
    // (the header's read, at the start, adds a few chunks).
    expect(counter.bytesRead).toBeLessThan(bytes.length * 0.5);
  });

  it('refuses a row numbered past the last row a sheet has', async () => {
    const error = await refusalOf(
      await workbookOf({
        sheet: sheetXml(`${HEADER_ROW}<row r="1048577"><c r="A1048577"><v>1</v></c></row>`),
      }),
    );

    expect(error.message).toBe(
      `${FILE}: is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx): ` +
        `${SHEET}, row 1,048,577: it is past row 1,048,576, the last row a sheet has; open it in Excel and save ` +
        'it again as .xlsx, or upload a CSV',
    );
  });
});

describe('a part that inflates past its limit', () => {
  const MEGABYTE = 1024 * 1024;
  /** 70 MB of number formats, more than any workbook's styles hold. */
  const bigStyles = function* () {
    yield `<styleSheet xmlns="${MAIN_NS}"><numFmts>`;
    yield* textOf(70, (word) => `<numFmt numFmtId="200" formatCode="${word}"/>`);
    yield '</numFmts></styleSheet>';
  };

  it('refuses a part whose declared size passes the limit before inflating a byte of it', async () => {
    const bytes = await workbookOf({ sheet: sheetXml(HEADER_ROW), styles: bigStyles });
    const { source, counter } = countingSource(bytes);

    const error = await thrown(() => openXlsx(source, FILE));

    expect(error).toMatchObject({
      code: 'xlsx_part_too_large',
      details: { part: 'xl/styles.xml', limit_mb: 64 },
      message:
        `${FILE}: the part xl/styles.xml inflates past 64 MB once unzipped, more than one batch reads from a ` +
        'workbook; split it into smaller workbooks, or save it as CSV UTF-8',
    });
    // The directory and the two small parts before it; none of the styles' 70 MB.
    expect(counter.bytesRead).toBeLessThan(bytes.length / 20);
  });

  it('refuses a part that passes its limit as it inflates, its declared size notwithstanding', async () => {
    const limits = { ...XLSX_LIMITS, worksheetBytes: MEGABYTE };
    const bytes = await workbookOf({
      sheet: function* () {
        yield sheetXml('').split('<sheetData>')[0]!;
        yield `<sheetData>${HEADER_ROW}`;
        for (let row = 2; row < 200_000; row++) yield `<row r="${row}">${textCell(`A${row}`, 'Motor')}</row>`;
        yield '</sheetData></worksheet>';
      },
      declared: { [SHEET]: MEGABYTE },
    });
    const { source, counter } = countingSource(bytes);

    const error = await thrown(async () => collect(await openXlsx(source, FILE, limits)));

    expect(error).toMatchObject({
      code: 'xlsx_part_too_large',
      message:
        `${FILE}: the part ${SHEET} inflates past 1 MB once unzipped, more than one batch reads from a ` +
        'workbook; split it into smaller workbooks, or save it as CSV UTF-8',
    });
    expect(counter.bytesRead).toBeLessThan(bytes.length / 4);
  });

  it('refuses a part that inflates past the size the archive declares, as soon as it does', async () => {
    const bytes = await workbookOf({
      sheet: sheetXml(HEADER_ROW),
      styles: bigStyles,
      declared: { 'xl/styles.xml': 1000 },
    });
    const { source, counter } = countingSource(bytes);

    const error = await thrown(() => openXlsx(source, FILE));

    expect(error).toMatchObject({
      code: 'xlsx_invalid',
      message:
        `${FILE}: is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx): ` +
        "xl/styles.xml: it inflates past the 1,000 bytes the archive's directory says it holds; open it in Excel " +
        'and save it again as .xlsx, or upload a CSV',
    });
    expect(counter.bytesRead).toBeLessThan(bytes.length / 4);
  });
});

describe('damage said in plain words, with its part and cell', () => {
  it('names the part and cell of a cell whose value is not what its type says', async () => {
    const error = await refusalOf(
      await workbookOf({ sheet: sheetXml(`${HEADER_ROW}<row r="3"><c r="B3" t="b"><v>sim</v></c></row>`) }),
    );

    expect(error).toMatchObject({
      code: 'xlsx_invalid',
      details: { part: SHEET, detail: `${SHEET}, cell B3: its value "sim" is not a boolean (1 or 0)` },
      message:
        `${FILE}: is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx): ` +
        `${SHEET}, cell B3: its value "sim" is not a boolean (1 or 0); open it in Excel and save it again as ` +
        '.xlsx, or upload a CSV',
    });
  });

  it('says a file cut short before its ZIP directory cannot be opened', async () => {
    const bytes = await workbookOf({ sheet: sheetXml(HEADER_ROW) });

    const error = await refusalOf(bytes.subarray(0, bytes.length - 30));

    expect(error.message).toBe(
      `${FILE}: is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx): ` +
        'its ZIP directory cannot be read (the file is cut short, or it is not a ZIP archive); open it in ' +
        'Excel and save it again as .xlsx, or upload a CSV',
    );
  });

  it('names the part whose bytes do not inflate', async () => {
    const bytes = await workbookOf({ sheet: sheetXml(HEADER_ROW) });
    // The sheet's deflated data is the last before the directory: damage its first bytes.
    const start = bytes.indexOf(Buffer.from(SHEET)) + SHEET.length;
    bytes.fill(0xff, start, start + 8);

    const error = await refusalOf(bytes);

    expect(error.message).toBe(
      `${FILE}: is not a valid XLSX workbook (it may be damaged or another kind of file renamed .xlsx): ` +
        `${SHEET}: its compressed bytes do not inflate (they are damaged); open it in Excel and save it again ` +
        'as .xlsx, or upload a CSV',
    );
  });
});
