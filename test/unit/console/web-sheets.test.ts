/**
 * The upload page's reading of a catalogue's sheet column and its matching of the chosen sheets,
 * without a browser: real CSV bytes (UTF-8, Windows-1252, UTF-16, `;` and `sep=`, quoted cells
 * with line breaks, larger than one slice) read as File objects; loose files matched by name
 * to the paths the catalogue names, ambiguity said; and the batch a sent file started, found in
 * the batch list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { BatchListItem } from '../../../shared/console/api.js';
import {
  csvRecords,
  delimiterOf,
  readCatalogueSheets,
  sheetPathOf,
} from '../../../web/src/catalogue-sheets.js';
import { matchSheets } from '../../../web/src/files.js';
import { defaultsWanted, wouldReject } from '../../../web/src/rejections-preview.js';
import { startedBatchOf } from '../../../web/src/started-batch.js';

const fileOf = (bytes: Uint8Array | string, name = 'catalogo.csv') => new File([bytes], name);

const windows1252 = (text: string): Uint8Array =>
  Uint8Array.from([...text].map((char) => (char === 'ç' ? 0xe7 : char === 'ã' ? 0xe3 : char.charCodeAt(0))));

describe("a catalogue's sheet column, read in the page", () => {
  it('names each sheet of the sample with the rows that name it, as papaparse reads the same file', async () => {
    const bytes = readFileSync(join(process.cwd(), 'sample-data', 'products.csv'));
    const [header = [], ...records] = Papa.parse<string[]>(bytes.toString('utf8').replace(/^\uFEFF/, ''), {
      skipEmptyLines: 'greedy',
    }).data;
    const column = header.indexOf('Ficha técnica');
    const expected = new Map<string, number[]>();
    records.forEach((cells, index) => {
      const path = cells[column]?.trim();
      if (path) expected.set(path, [...(expected.get(path) ?? []), index + 1]);
    });
    expect(expected.size).toBe(6);
    const read = await readCatalogueSheets(fileOf(bytes, 'products.csv'));
    expect(read).toMatchObject({
      read: true,
      column: 'Ficha técnica',
      sheets: [...expected].map(([path, rows]) => ({ path, rows, rowCount: rows.length })),
    });
  });

  it('reads Windows-1252 with `;` and a `sep=` line, numbers rows without blank ones, normalises paths as Prepare does', async () => {
    const text = [
      'sep=;',
      'Código;Descrição;Ficha técnica',
      'A-1;Ração;fichas\\ração.pdf',
      ';;',
      'A-2;Outro;./fichas/../fichas/ração.pdf',
      'A-3;Sem ficha;',
      'A-4;URL;https://example.com/x.pdf',
      'A-5;Fora;../x.pdf',
      'A-6;Não PDF;fichas/x.doc',
      '',
    ].join('\r\n');
    const read = await readCatalogueSheets(fileOf(windows1252(text)));
    expect(read).toMatchObject({
      read: true,
      column: 'Ficha técnica',
      sheets: [{ path: 'fichas/ração.pdf', rows: [1, 2], rowCount: 2 }],
    });
  });

  it('reads UTF-16 with a BOM, quoted cells holding the delimiter, quotes and line breaks', async () => {
    const text =
      '\uFEFFSKU\tDescription\tTechnical sheet\r\n"X-1"\t"A ""pump"",\r\nwith two lines"\t"specs\tsheets/p.pdf"\r\nX-2\tValve\tsheets/v.pdf\r\n';
    const bytes = new Uint8Array(text.length * 2);
    [...text].forEach((char, index) => {
      bytes[index * 2] = char.charCodeAt(0) & 0xff;
      bytes[index * 2 + 1] = char.charCodeAt(0) >> 8;
    });
    const read = await readCatalogueSheets(fileOf(bytes));
    expect(read).toMatchObject({
      read: true,
      column: 'Technical sheet',
      sheets: [
        { path: 'specs\tsheets/p.pdf', rows: [1], rowCount: 1 },
        { path: 'sheets/v.pdf', rows: [2], rowCount: 1 },
      ],
    });
  });

  it("reads Excel's Unicode Text save: UTF-16 without a byte order mark, tab-delimited", async () => {
    const text = 'Código\tDescrição\tFicha técnica\r\nROD-1\tRolamento\tfichas/rolamento.pdf\r\n';
    const bytes = new Uint8Array(text.length * 2);
    [...text].forEach((char, index) => {
      bytes[index * 2] = char.charCodeAt(0) & 0xff;
      bytes[index * 2 + 1] = char.charCodeAt(0) >> 8;
    });
    expect(await readCatalogueSheets(fileOf(bytes, 'catalogo.txt'))).toMatchObject({
      read: true,
      column: 'Ficha técnica',
      sheets: [{ path: 'fichas/rolamento.pdf', rows: [1], rowCount: 1 }],
    });
  });

  it('reads a catalogue larger than one slice, a multi-byte character across the slice boundary, and keeps the first rows of a sheet named often', async () => {
    const header = 'SKU,Descrição,Ficha\n';
    const lines = Array.from(
      { length: 40 },
      (_, index) => `S-${index},Válvula de esfera ${index},fichas/válvula.pdf`,
    );
    // A first row as long as it takes for the "á" of the next row to start on the slice's last byte.
    const before = new TextEncoder().encode(`${header},\nS-0,V`).length;
    const text = `${header}${'x'.repeat(1024 * 1024 - 1 - before)},\n${lines.join('\n')}\n`;
    const bytes = new TextEncoder().encode(text);
    expect(new TextEncoder().encode(text.slice(0, text.indexOf('á'))).length).toBe(1024 * 1024 - 1);
    const read = await readCatalogueSheets(fileOf(bytes));
    expect(read.read && read.sheets).toEqual([
      { path: 'fichas/válvula.pdf', rows: [2, 3, 4, 5, 6], rowCount: 40 },
    ]);
  });

  it('says an Excel workbook is not read here, and finds no sheet column in a catalogue without one', async () => {
    expect(await readCatalogueSheets(fileOf('PK', 'catalogo.xlsx'))).toEqual({ read: false, why: 'xlsx' });
    expect(await readCatalogueSheets(fileOf('SKU,Descrição\nA,Bomba\n'))).toMatchObject({
      read: true,
      column: null,
      sheets: [],
    });
  });

  it('splits records as RFC 4180 says, across chunks, and picks the delimiter the header holds most of', () => {
    const records = csvRecords(',');
    expect(records.push('a,"b,')).toEqual([]);
    expect(records.push('c""d"\r')).toEqual([['a', 'b,c"d']]);
    expect(records.push('\n1,2')).toEqual([]);
    expect(records.end()).toEqual([['1', '2']]);
    expect(delimiterOf('"a;b",c,d\n')).toEqual({ delimiter: ',', skip: 0 });
    expect(delimiterOf('a;b;c,d\n')).toEqual({ delimiter: ';', skip: 0 });
    expect(delimiterOf('SEP=\t\nx')).toEqual({ delimiter: '\t', skip: 6 });
    expect(sheetPathOf('  C:\\x.pdf')).toBeNull();
    expect(sheetPathOf('/abs/x.pdf')).toBeNull();
    expect(sheetPathOf('.pdf')).toBeNull();
  });
});

describe('the chosen sheets against the paths the catalogue names', () => {
  const NAMED = ['sheets/bomba.pdf', 'sheets/motor.pdf', 'sheets/redutor.pdf'];

  it('sends a file chosen alone under the path the catalogue names for its name, and lists the named sheets not chosen', () => {
    const match = matchSheets(NAMED, ['Bomba.PDF', 'sheets/motor.pdf', 'extra.pdf']);
    expect(match).toEqual({
      names: ['sheets/bomba.pdf', 'sheets/motor.pdf', 'extra.pdf'],
      renamed: [{ from: 'Bomba.PDF', to: 'sheets/bomba.pdf' }],
      missing: ['sheets/redutor.pdf'],
      ambiguous: [],
    });
  });

  it('keeps a file at a named path (case and Unicode form aside) where it is', () => {
    const nfd = 'sheets/ração.pdf'.normalize('NFD');
    expect(matchSheets(['sheets/ração.pdf'], [nfd])).toEqual({
      names: [nfd],
      renamed: [],
      missing: [],
      ambiguous: [],
    });
  });

  it('says which files could be a sheet when two chosen files have its name, and sends them as they are', () => {
    const match = matchSheets(NAMED, ['a/bomba.pdf', 'b/bomba.pdf', 'motor.pdf', 'redutor.pdf']);
    expect(match.ambiguous).toEqual([
      { kind: 'files', path: 'sheets/bomba.pdf', candidates: ['a/bomba.pdf', 'b/bomba.pdf'] },
    ]);
    expect(match.names).toEqual(['a/bomba.pdf', 'b/bomba.pdf', 'sheets/motor.pdf', 'sheets/redutor.pdf']);
    expect(match.missing).toEqual([]);
  });

  it('says which paths a file could be when the catalogue names its name in two folders', () => {
    const match = matchSheets(['old/bomba.pdf', 'new/bomba.pdf'], ['bomba.pdf']);
    expect(match).toEqual({
      names: ['bomba.pdf'],
      renamed: [],
      missing: [],
      ambiguous: [{ kind: 'paths', file: 'bomba.pdf', paths: ['old/bomba.pdf', 'new/bomba.pdf'] }],
    });
  });

  it('never takes a file at one named path for another named path of the same name', () => {
    const match = matchSheets(['bomba.pdf', 'sheets/bomba.pdf'], ['bomba.pdf']);
    expect(match).toMatchObject({ names: ['bomba.pdf'], renamed: [], missing: ['sheets/bomba.pdf'] });
  });
});

describe('the batch a sent file started', () => {
  const item = (overrides: Partial<BatchListItem>): BatchListItem => ({
    batch_id: 'products-a',
    name: 'products',
    file_name: 'products.csv',
    state: 'preparing',
    stage: 'preparing',
    plan_only: false,
    rows_total: 0,
    by_status: {},
    billed_usd: 0,
    started_at: '2026-11-21T12:00:05.000Z',
    finished_at: null,
    stop: null,
    ...overrides,
  });

  it('is the newest batch of that folder and file started at or after the time before it was sent', () => {
    const expected = { batch_name: 'products', file_name: 'products.csv', since: '2026-11-21T12:00:00.000Z' };
    const earlier = item({ batch_id: 'products-old', started_at: '2026-11-21T11:59:59.999Z' });
    const other = item({ batch_id: 'other-b', name: 'other' });
    expect(startedBatchOf([earlier, other], expected)).toBeNull();
    const started = item({ batch_id: 'products-new' });
    expect(startedBatchOf([other, started, earlier], expected)?.batch_id).toBe('products-new');
    expect(startedBatchOf([item({ file_name: 'products.xlsx' })], expected)).toBeNull();
  });
});

describe('the rows a catalogue would have rejected, said before sending', () => {
  const sample = () =>
    readCatalogueSheets(
      fileOf(readFileSync(join(process.cwd(), 'sample-data', 'products.csv')), 'products.csv'),
    );

  it("names the sample's rows without operation or country while no default is set, and none once both are", async () => {
    const read = await sample();
    const preview = read.read ? read.rejections : null;
    expect(preview?.rows).toBe(34);
    expect(defaultsWanted(preview!)).toEqual({ operation: true, country: true });
    // Row 18 leaves both empty, row 26 the operation; 13's description is too short and 30's
    // operation is not one, whatever the defaults say.
    expect(wouldReject(preview!, { operation: false, country: false })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'operation_missing', rows: [18, 26], rowCount: 2 }),
        expect.objectContaining({ reason: 'description_too_short', rows: [13], rowCount: 1 }),
        expect.objectContaining({ reason: 'operation_invalid', rows: [30], rowCount: 1 }),
      ]),
    );
    expect(wouldReject(preview!, { operation: true, country: false })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'country_missing', rows: [18], rowCount: 1 }),
      ]),
    );
    const mended = wouldReject(preview!, { operation: true, country: true });
    expect(mended.map((left) => left.reason).sort()).toEqual(['description_too_short', 'operation_invalid']);
    // Each reason comes with its message, which the page words in its language.
    expect(mended.find((left) => left.reason === 'description_too_short')?.message).toMatchObject({
      code: 'description_too_short',
      params: { header: 'Descrição', length: 8 },
    });
  });

  it('gives no preview for a header the pipeline refuses, which Prepare names when the batch starts', async () => {
    const read = await readCatalogueSheets(fileOf('SKU,Descrição,Description\nA,Bomba,Pump\n'));
    expect(read).toMatchObject({ read: true, rejections: null });
  });
});
