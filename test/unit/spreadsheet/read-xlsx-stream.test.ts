/**
 * The streaming XLSX reader: records read from ranges of a ByteSource, workbooks built by hand
 * to reach the parts of the format write-excel-file never writes, damage found mid-stream, and
 * reads that stay bounded while a large sheet is streamed.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { type ByteSource, bytesSource } from '../../../shared/spreadsheet/byte-source.js';
import { openXlsx, readXlsxRecords, type XlsxWorkbook } from '../../../shared/spreadsheet/read-xlsx.js';
import type { SourceRecord } from '../../../shared/spreadsheet/table.js';
import { thrown, xlsx, xlsxSheets } from './fixtures.js';

const collect = async (workbook: XlsxWorkbook): Promise<SourceRecord[]> => {
  const records: SourceRecord[] = [];
  for await (const record of workbook.records()) records.push(record);
  return records;
};

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';

interface HandBuiltWorkbook {
  /**
   * Sheet names in tab order, with the relationship target of each sheet's part and the part:
   * `xml` is the content of its `<sheetData>`; `part`, when given, is the whole part as is.
   */
  sheets: { name: string; target: string; xml: string; part?: string }[];
  workbookPr?: string;
  sharedStrings?: string;
  styles?: string;
  /** Archive entries in this order of part names (the rest follow); XLSX readers must not care. */
  firstEntries?: string[];
}

/** The part a relationship target names: relative to `xl/`, or absolute from the archive root. */
const partName = (target: string): string => (target.startsWith('/') ? target.slice(1) : `xl/${target}`);

/** A minimal XLSX zipped with fflate: only the parts a reader needs, as Excel names them. */
const handBuiltXlsx = (workbook: HandBuiltWorkbook): Uint8Array => {
  const parts: Record<string, string> = {
    'xl/workbook.xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
      `${workbook.workbookPr ?? ''}<sheets>` +
      workbook.sheets
        .map((sheet, i) => `<sheet name="${sheet.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
        .join('') +
      '</sheets></workbook>',
    'xl/_rels/workbook.xml.rels':
      `<?xml version="1.0" encoding="UTF-8"?>\n<Relationships xmlns="${PACKAGE_REL_NS}">` +
      workbook.sheets
        .map(
          (sheet, i) =>
            `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="${sheet.target}"/>`,
        )
        .join('') +
      `<Relationship Id="rIdS" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/>` +
      `<Relationship Id="rIdT" Type="${REL_NS}/styles" Target="styles.xml"/>` +
      '</Relationships>',
  };
  for (const sheet of workbook.sheets) {
    parts[partName(sheet.target)] =
      sheet.part ?? `<worksheet xmlns="${MAIN_NS}"><sheetData>${sheet.xml}</sheetData></worksheet>`;
  }
  if (workbook.sharedStrings) {
    parts['xl/sharedStrings.xml'] = `<sst xmlns="${MAIN_NS}">${workbook.sharedStrings}</sst>`;
  }
  if (workbook.styles)
    parts['xl/styles.xml'] = `<styleSheet xmlns="${MAIN_NS}">${workbook.styles}</styleSheet>`;
  const ordered = [...(workbook.firstEntries ?? []), ...Object.keys(parts)];
  const entries = [...new Set(ordered)].map((name) => [name, strToU8(parts[name]!)] as const);
  return zipSync(Object.fromEntries(entries));
};

const oneSheet = (xml: string, extra: Omit<HandBuiltWorkbook, 'sheets'> = {}): Uint8Array =>
  handBuiltXlsx({ sheets: [{ name: 'Produtos', target: 'worksheets/sheet1.xml', xml }], ...extra });

/** Number formats: a custom date (164), a custom number with a unit (165), and built-in 14 (a date). */
const STYLES =
  '<numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy;@"/>' +
  '<numFmt numFmtId="165" formatCode="0.00&quot; kg&quot;"/></numFmts>' +
  '<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="14"/></cellXfs>';

describe('openXlsx on a ByteSource', () => {
  it('streams from 1 KiB chunks exactly the records read from the whole bytes', async () => {
    const bytes = await xlsxSheets([
      {
        sheet: 'Produtos',
        data: [
          [' Descrição ', 'NCM', 'Peso', 'Validade', 'Ativo'],
          ...Array.from({ length: 300 }, (_, i) => [
            `Produto ${i} — açúcar & café <${i}>`,
            2071400 + i,
            i / 7,
            new Date(Date.UTC(2024, 0, 1 + i)),
            i % 2 === 0,
          ]),
        ],
      },
      { sheet: 'Notas', data: [['ignorada']] },
    ]);

    const whole = await readXlsxRecords(bytes, 'catalogo.xlsx');
    const workbook = await openXlsx(bytesSource(bytes, 1024), 'catalogo.xlsx');
    const streamed = await collect(workbook);

    expect(streamed).toEqual(whole.records);
    expect(workbook.problems).toEqual(whole.problems);
    expect(streamed).toHaveLength(301);
    expect(streamed[0]).toEqual({ line: 1, cells: [' Descrição ', 'NCM', 'Peso', 'Validade', 'Ativo'] });
    expect(streamed[3]).toEqual({
      line: 4,
      cells: ['Produto 2 — açúcar & café <2>', '2071402', '0.285714285714286', '2024-01-03', 'TRUE'],
    });
    expect(workbook.problems).toEqual([
      {
        code: 'other_sheets_ignored',
        message: 'catalogo.xlsx: only the first sheet "Produtos" was read; ignored: "Notas"',
        said: {
          code: 'other_sheets_ignored',
          params: { file: 'catalogo.xlsx', first: 'Produtos', others: ['Notas'] },
        },
      },
    ]);
  });

  it('streams the rows afresh on every call to records(), even after one was left early', async () => {
    const bytes = await xlsx([['Descrição'], ['Café torrado'], ['Filé de frango']]);
    const workbook = await openXlsx(bytesSource(bytes, 512), 'a.xlsx');

    for await (const record of workbook.records()) {
      expect(record.line).toBe(1);
      break;
    }
    const first = await collect(workbook);
    const second = await collect(workbook);

    expect(first).toEqual([
      { line: 1, cells: ['Descrição'] },
      { line: 2, cells: ['Café torrado'] },
      { line: 3, cells: ['Filé de frango'] },
    ]);
    expect(second).toEqual(first);
  });
});

describe('openXlsx on hand-built workbooks', () => {
  it('finds the first sheet through the relationships, whatever the entry order, absolute target included', async () => {
    const bytes = handBuiltXlsx({
      sheets: [
        {
          name: 'Catálogo &amp; preços',
          target: '/xl/worksheets/data.xml',
          xml: '<row r="1"><c r="A1"><v>1</v></c></row>',
        },
        { name: 'Resumo', target: 'worksheets/sheet1.xml', xml: '<row r="1"><c r="A1"><v>2</v></c></row>' },
      ],
      firstEntries: ['xl/worksheets/sheet1.xml', 'xl/worksheets/data.xml', 'xl/_rels/workbook.xml.rels'],
    });

    const workbook = await openXlsx(bytesSource(bytes), 'precos.xlsx');

    expect(await collect(workbook)).toEqual([{ line: 1, cells: ['1'] }]);
    expect(workbook.problems).toEqual([
      {
        code: 'other_sheets_ignored',
        message: 'precos.xlsx: only the first sheet "Catálogo & preços" was read; ignored: "Resumo"',
        said: {
          code: 'other_sheets_ignored',
          params: { file: 'precos.xlsx', first: 'Catálogo & preços', others: ['Resumo'] },
        },
      },
    ]);
  });

  it('reads every kind of cell as the user sees it, keeping sparse cells in their columns', async () => {
    const bytes = oneSheet(
      // Row 1: shared strings. Row 3: inline and formula strings. Row 4: booleans, error, ISO date.
      // Row 6: cells without `r` follow the previous one.
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c><c r="D1" t="s"><v>2</v></c></row>' +
        '<row r="3"><c r="B3" t="inlineStr"><is><t xml:space="preserve"> só &lt;isso&gt; </t></is></c>' +
        '<c r="C3" t="inlineStr"><is><r><t>Filé </t></r><r><rPr><b/></rPr><t>congelado</t></r></is></c>' +
        '<c r="E3" t="str"><f>A1&amp;"!"</f><v>linha_x000D__x000A_dupla</v></c></row>' +
        '<row r="4"><c r="A4" t="b"><v>1</v></c><c r="B4" t="b"><v>0</v></c>' +
        '<c r="C4" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="D4" t="d"><v>2024-03-05T10:20:30Z</v></c></row>' +
        '<row r="6"><c><v>1</v></c><c r="C6"><v>3</v></c><c><v>4</v></c></row>',
      {
        sharedStrings:
          '<si><t xml:space="preserve">  Descrição  </t></si>' +
          '<si><r><t>Rich </t></r><r><rPr><i/></rPr><t>text</t></r><rPh sb="0" eb="4"><t>リッチ</t></rPh></si>' +
          '<si><t>P&amp;D &#233;&#x4E2D;</t></si>',
      },
    );

    expect(await collect(await openXlsx(bytesSource(bytes), 'a.xlsx'))).toEqual([
      { line: 1, cells: ['  Descrição  ', '', 'Rich text', 'P&D é中'] },
      { line: 3, cells: ['', ' só <isso> ', 'Filé congelado', '', 'linha\r\ndupla'] },
      { line: 4, cells: ['TRUE', 'FALSE', '', '2024-03-05T10:20:30'] },
      { line: 6, cells: ['1', '', '3', '4'] },
    ]);
  });

  it('turns numbers styled as dates into ISO dates, custom formats and 1904 dates included', async () => {
    const row =
      '<row r="1"><c r="A1" s="1"><v>45356</v></c><c r="B1" s="2"><v>45356</v></c>' +
      '<c r="C1" s="3"><v>45356.75</v></c><c r="D1" s="0"><v>45356</v></c></row>';

    const in1900 = await readXlsxRecords(oneSheet(row, { styles: STYLES }), 'a.xlsx');
    const in1904 = await readXlsxRecords(
      oneSheet(row.replaceAll('45356', '43894'), {
        styles: STYLES,
        workbookPr: '<workbookPr date1904="1"/>',
      }),
      'a.xlsx',
    );

    expect(in1900.records).toEqual([
      { line: 1, cells: ['2024-03-05', '45356', '2024-03-05T18:00:00', '45356'] },
    ]);
    expect(in1904.records).toEqual([
      { line: 1, cells: ['2024-03-05', '43894', '2024-03-05T18:00:00', '43894'] },
    ]);
  });
});

describe('openXlsx on damaged workbooks', () => {
  const expectInvalid = (error: unknown, fileName = 'catalogo.xlsx') => {
    expect(error).toMatchObject({ name: 'SpreadsheetError', code: 'xlsx_invalid', fileName });
    expect((error as Error).message).toMatch(/^catalogo\.xlsx: is not a valid XLSX workbook/);
  };

  it('refuses a truncated file when opening it', async () => {
    const bytes = await xlsx([['Descrição'], ['Café torrado']]);

    expectInvalid(
      await thrown(() => openXlsx(bytesSource(bytes.subarray(0, bytes.length - 40)), 'catalogo.xlsx')),
    );
    expectInvalid(await thrown(() => openXlsx(bytesSource(bytes.subarray(0, 300)), 'catalogo.xlsx')));
  });

  it('throws from the records iterator when the sheet XML stops mid-element, after the rows before it', async () => {
    // The part itself ends there: no closing tags follow, as in a file cut short before zipping.
    const cut = handBuiltXlsx({
      sheets: [
        {
          name: 'Produtos',
          target: 'worksheets/sheet1.xml',
          xml: '',
          part:
            `<worksheet xmlns="${MAIN_NS}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Café</t></is></c></row>` +
            '<row r="2"><c r="A2" t="inlineStr"><is><t>Fi',
        },
      ],
    });
    const workbook = await openXlsx(bytesSource(cut), 'catalogo.xlsx');
    const received: SourceRecord[] = [];

    const error = await thrown(async () => {
      for await (const record of workbook.records()) received.push(record);
    });

    expectInvalid(error);
    expect(received).toEqual([{ line: 1, cells: ['Café'] }]);
  });

  it('throws from the records iterator on bad XML and on a cell read-excel-file refused', async () => {
    const badXml = oneSheet('<row r="1"><c r="A1"><v>1</v></c></rows>');
    const badSharedString = oneSheet('<row r="1"><c r="A1" t="s"><v>7</v></c></row>', {
      sharedStrings: '<si><t>só uma</t></si>',
    });

    expectInvalid(await thrown(async () => collect(await openXlsx(bytesSource(badXml), 'catalogo.xlsx'))));
    expectInvalid(
      await thrown(async () => collect(await openXlsx(bytesSource(badSharedString), 'catalogo.xlsx'))),
    );
  });

  it('refuses an archive without a workbook', async () => {
    const notAWorkbook = zipSync({ 'word/document.xml': strToU8('<document/>') });

    expectInvalid(await thrown(() => openXlsx(bytesSource(notAWorkbook), 'catalogo.xlsx')));
  });

  it('lets a failing source fail as itself, not as a damaged workbook', async () => {
    const bytes = await xlsx([['Descrição'], ['Café torrado']]);
    const outage = new Error('S3 is unreachable');
    const failing: ByteSource = {
      size: bytes.length,
      // biome-ignore lint/correctness/useYield: a source that fails before its first chunk
      async *read() {
        throw outage;
      },
    };

    expect(await thrown(() => openXlsx(failing, 'catalogo.xlsx'))).toBe(outage);
  });
});

describe('openXlsx memory', () => {
  /** A source that records every range asked for and every byte handed out, and how many reads are open. */
  const observedSource = (bytes: Uint8Array, chunkBytes: number) => {
    const inner = bytesSource(bytes, chunkBytes);
    const log = { ranges: [] as { start: number; end: number }[], delivered: 0, chunks: 0, open: 0 };
    let allClosed: (() => void) | null = null;
    const source: ByteSource = {
      size: bytes.length,
      async *read(start, end) {
        log.ranges.push({ start, end });
        log.open += 1;
        try {
          for await (const chunk of inner.read(start, end)) {
            log.delivered += chunk.byteLength;
            log.chunks += 1;
            yield chunk;
          }
        } finally {
          log.open -= 1;
          if (log.open === 0) allClosed?.();
        }
      },
    };
    const closed = (): Promise<void> =>
      log.open === 0 ? Promise.resolve() : new Promise((resolve) => (allClosed = resolve));
    return { source, log, closed };
  };

  it('reads a 20,000-row sheet in bounded chunks as the rows are consumed, never the whole file at once', async () => {
    const bytes = await xlsx([
      ['Descrição', 'NCM', 'País', 'Peso', 'Quantidade'],
      ...Array.from({ length: 20_000 }, (_, i) => [`Produto ${i % 40}`, 2071400 + i, 'BR', i * 0.37, i * 7]),
    ]);
    const { source, log, closed } = observedSource(bytes, 4096);

    const workbook = await openXlsx(source, 'grande.xlsx');
    const deliveredToOpen = log.delivered;
    for await (const record of workbook.records()) {
      expect(record).toEqual({ line: 1, cells: ['Descrição', 'NCM', 'País', 'Peso', 'Quantidade'] });
      break;
    }
    const deliveredForFirstRow = log.delivered - deliveredToOpen;
    // Leaving the loop closes the sheet's range read (an S3 stream, in production).
    await closed();

    let rows = 0;
    let lastLine = 0;
    for await (const record of workbook.records()) {
      rows += 1;
      lastLine = record.line;
    }

    expect(rows).toBe(20_001);
    expect(lastLine).toBe(20_001);
    // The directory and the small parts are found with ranges, none of them the whole file.
    expect(deliveredToOpen).toBeLessThan(bytes.length / 4);
    expect(log.ranges.every(({ start, end }) => end - start < bytes.length)).toBe(true);
    // The first row came out after a small part of the sheet had been read: the rest waited.
    expect(deliveredForFirstRow).toBeLessThan(bytes.length / 3);
    // And the whole sheet arrived as many chunks, parsed as they came.
    expect(log.chunks).toBeGreaterThan(100);
    expect(log.open).toBe(0);
  });
});
