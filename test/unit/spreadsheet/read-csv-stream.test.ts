/**
 * A CSV read in chunks reads exactly as it does whole, wherever the chunks cut it: inside a
 * UTF-8 sequence, between CR and LF, inside a quoted cell, in the `sep=` line.
 */
import { describe, expect, it } from 'vitest';
import { bytesSource } from '../../../shared/spreadsheet/byte-source.js';
import { decodeText, TextStreamDecoder } from '../../../shared/spreadsheet/decode-text.js';
import {
  openSpreadsheet,
  readSpreadsheet,
  readWholeFile,
} from '../../../shared/spreadsheet/read-spreadsheet.js';
import type { SpreadsheetRead } from '../../../shared/spreadsheet/schemas.js';
import { crlf, thrown, utf8, windows1252 } from './fixtures.js';

/** The same read as `readSpreadsheet`, from a source handing out `chunkBytes` at a time. */
const readInChunks = async (
  bytes: Uint8Array,
  fileName: string,
  chunkBytes: number,
): Promise<SpreadsheetRead> => readWholeFile(await openSpreadsheet(bytesSource(bytes, chunkBytes), fileName));

const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

const FILES: [string, Uint8Array][] = [
  [
    'UTF-8 with a BOM, CRLF, accents and a quoted cell with a line break and a delimiter',
    utf8(
      crlf(
        'SKU;Descrição;País;Observação',
        'A-1;Café torrado em grãos;BR;"linha um\r\nlinha dois; com ; e ""aspas"""',
        'A-2;Filé de peito de frango, congelado;AR;',
        ';;;',
        'A-3;Açúcar cristal — 5 kg €;UY;fim',
      ),
      { bom: true },
    ),
  ],
  [
    'Windows-1252 from Excel, with a sep= line',
    windows1252(crlf('sep=;', 'Descripción;País', 'Café tostado “premium”;AR', 'Año 2024 – señal;PY')),
  ],
  ['UTF-16LE text from Excel', utf16le(crlf('Descrição\tPaís', 'Café torrado\tBR', 'Açúcar\tUY'))],
  [
    'LF only, commas, a malformed quote',
    utf8('Description,Country\nLeather bag "soft" ok,BR\n"Coffee "beans",AR\n'),
  ],
  ['CR only (old Mac)', utf8('Descrição;País\rCafé;BR\rChá;AR')],
  [
    'CRLF from Excel with rows appended by other programs: LF, CR only, a quoted cell with a line break',
    utf8('Descrição;País;Nota\r\nCafé;BR;x\r\nChá;AR;"linha 1\nlinha 2"\nMate;PY;y\rAçúcar;UY;z\r\n'),
  ],
  [
    'a stray quote in a quoted cell, a doubled one, spaces before a closing one, and a cell over two lines',
    utf8(
      'SKU,Descrição,País\r\nA,"Tubo 12" aço inox,BR\r\nB,"Motor ""WEG""",BR\r\n' +
        'C,"Bomba" ,AR\r\nD,"linha 1\r\nlinha 2",UY\r\nE,"fim 3" x',
    ),
  ],
];

describe('a CSV read in chunks', () => {
  it.each(FILES)('%s reads the same whether whole or a few bytes at a time', async (_what, bytes) => {
    const whole = await readSpreadsheet(bytes, 'catalogo.csv');

    for (const chunkBytes of [1, 2, 3, 5, 7, 64]) {
      expect(await readInChunks(bytes, 'catalogo.csv', chunkBytes)).toEqual(whole);
    }
  });

  it("a row ended by another kind of line break than the file's is a row of its own, at its own line", async () => {
    const bytes = FILES.find(([what]) => what.startsWith('CRLF from Excel with rows appended'))![1];

    const read = await readSpreadsheet(bytes, 'catalogo.csv');

    expect(read.rows.map((row) => [row.line, ...row.cells])).toEqual([
      [2, 'Café', 'BR', 'x'],
      [3, 'Chá', 'AR', 'linha 1\nlinha 2'],
      [5, 'Mate', 'PY', 'y'],
      [6, 'Açúcar', 'UY', 'z'],
    ]);
    expect(read.problems).toEqual([]);
  });

  it('a stray quote in a quoted cell ends with its line, as Excel reads it: the rows after it are their own', async () => {
    const bytes = FILES.find(([what]) => what.startsWith('a stray quote in a quoted cell'))![1];

    const read = await readSpreadsheet(bytes, 'catalogo.csv');

    expect(read.rows.map((row) => [row.line, ...row.cells])).toEqual([
      [2, 'A', 'Tubo 12" aço inox,BR', ''],
      [3, 'B', 'Motor "WEG"', 'BR'],
      [4, 'C', 'Bomba', 'AR'],
      [5, 'D', 'linha 1\r\nlinha 2', 'UY'],
      [7, 'E', 'fim 3" x', ''],
    ]);
    expect(read.problems.map((problem) => [problem.code, problem.line])).toEqual([
      ['csv_malformed_quotes', 2],
      ['csv_malformed_quotes', 7],
    ]);
  });

  it('names the encoding of a file whose only Windows-1252 byte comes after many UTF-8 chunks', async () => {
    const bytes = Buffer.concat([
      utf8(crlf('Descrição;País', ...Array.from({ length: 200 }, (_, i) => `Café número ${i};BR`))),
      windows1252(crlf('Cachaça envelhecida;BR')),
    ]);

    const read = await readInChunks(bytes, 'misto.csv', 16);

    expect(read.encoding).toBe('utf-8+windows-1252');
    expect(read.encoding).toBe(decodeText(bytes).encoding);
    expect(read.rows.at(-1)?.cells).toEqual(['Cachaça envelhecida', 'BR']);
    expect(read.rows[0]?.cells).toEqual(['Café número 0', 'BR']);
  });

  it('decodes a sequence cut by every chunk boundary, and an accent byte last in the file', () => {
    const bytes = Buffer.concat([utf8('ação 😀 €'), Buffer.from([0xe9])]);
    for (const size of [1, 2, 3, 4]) {
      const decoder = new TextStreamDecoder();
      let text = '';
      for (let at = 0; at < bytes.length; at += size) text += decoder.decode(bytes.subarray(at, at + size));
      text += decoder.decode(new Uint8Array(0), true);
      expect(text).toBe(decodeText(bytes).text);
      expect(decoder.encoding).toBe('utf-8+windows-1252');
    }
  });

  it('refuses binary data found past the start it opens with, and an unclosed quote, while the rows are read', async () => {
    // Past the first MiB of text that opening the file looks at: a program's data, 8 KiB of it.
    const binary = Buffer.concat([
      utf8(`Descrição;País\r\n${'Café;BR\r\n'.repeat(130_000)}`),
      Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 37) % 256)),
    ]);
    for (const chunkBytes of [64 * 1024, 1000]) {
      const file = await openSpreadsheet(bytesSource(binary, chunkBytes), 'dados.csv');
      const error = await thrown(async () => {
        for await (const _row of file.readRows().rows);
      });
      // The same line however the file is cut into chunks: the line where the binary data starts.
      expect(error).toMatchObject({ code: 'not_a_text_file', line: 130_002 });
      expect((error as Error).message).toMatch(/^dados\.csv, line 130002: holds binary data from here on: /);
    }

    const unclosed = utf8(crlf('Descrição;País', 'Café;BR', '"Chá verde;AR', 'Mate;UY'));
    const opened = await openSpreadsheet(bytesSource(unclosed, 5), 'aspas.csv');
    const quoteError = await thrown(async () => {
      for await (const _row of opened.readRows().rows);
    });
    expect(quoteError).toMatchObject({ code: 'csv_unterminated_quote', line: 3 });
  });

  it('reads the file afresh on each pass', async () => {
    const file = await openSpreadsheet(bytesSource(FILES[0]![1], 7), 'catalogo.csv');
    const first = [];
    for await (const row of file.readRows().rows) first.push(row);
    const second = [];
    for await (const row of file.readRows().rows) second.push(row);

    expect(second).toEqual(first);
    expect(first).toHaveLength(3);
  });
});
