/**
 * Files named like text whose bytes are not quite what a CSV reader expects: not text at all,
 * text with a stray NUL byte, text that is not UTF-8, Excel's "Unicode Text" and "Text (tab
 * delimited)". Real bytes, made here, read through the one reader.
 */
import { describe, expect, it } from 'vitest';
import { refusalMessage } from '../../../shared/pipeline/prepare/input-file.js';
import { bytesSource } from '../../../shared/spreadsheet/byte-source.js';
import type { SpreadsheetError } from '../../../shared/spreadsheet/errors.js';
import { normaliseRow } from '../../../shared/spreadsheet/normalise-row.js';
import { openSpreadsheet, readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import type { SpreadsheetRead } from '../../../shared/spreadsheet/schemas.js';
import { wordMessage } from '../../../shared/wording/index.js';
import { ACCEPTED_COUNTRIES, crlf, thrown, utf8, windows1252 } from './fixtures.js';

const HEADER = 'SKU;Descrição;País;Operação';
const PRODUCTS = [
  'Parafuso sextavado de aço inoxidável M8',
  'Café torrado em grãos, pacote de 1 kg',
  'Rolamento de esferas de aço, 22 mm',
  'Vinho tinto seco, garrafa de 750 ml',
  'Bomba centrífuga de água, motor 1 CV',
  'Frango congelado em pedaços, sem osso',
  'Pneu radial para automóvel 185/65 R15',
  'Cabo de cobre isolado, 2,5 mm², rolo',
  'Luva de borracha nitrílica, caixa com 100',
  'Azulejo cerâmico esmaltado 30 x 30 cm',
  'Garrafa térmica de aço inoxidável 1 l',
];
const eleven = () => PRODUCTS.map((description, i) => `P-${i + 1};${description};BR;import`);

/** UTF-16LE as Excel's "Unicode Text" writes it: a BOM, tabs, CR LF. */
const unicodeText = (text: string, { bom = true } = {}) =>
  Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);

const outcomesOf = (read: SpreadsheetRead) =>
  read.rows.map((row) => normaliseRow(row, {}, ACCEPTED_COUNTRIES, read.columns));

describe('a file that is not text is refused in one line saying where and what it looks like', () => {
  it('a PDF named .csv', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 0, 0xff, 0x00, 0x10])]);

    const error = await thrown(() => readSpreadsheet(pdf, 'ficha.csv'));

    expect(error).toMatchObject({ code: 'not_a_text_file', line: 1 });
    expect((error as Error).message).toBe(
      'ficha.csv, line 1: is not a text file: it is a PDF document (it starts with "%PDF-"); ' +
        'upload the catalogue as CSV, tab-delimited text (.txt, .tsv) or XLSX',
    ); // Worded in the batch's language from what the refusal names.
    const said = refusalMessage(error as SpreadsheetError);
    expect(wordMessage(said, 'en')).toBe((error as Error).message);
    expect(wordMessage(said, 'pt')).toBe(
      'ficha.csv, linha 1: não é um arquivo de texto: é um documento PDF (começa com "%PDF-"); envie o ' +
        'catálogo como CSV, texto separado por tabulações (.txt, .tsv) ou XLSX',
    );
  });

  it("a program's binary data named .txt: how much, the first control byte, its line and offset", async () => {
    const data = Buffer.concat([
      Buffer.from('abc\n12\n'),
      Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 37 + 11) % 256)),
    ]);

    const error = await thrown(() => readSpreadsheet(data, 'dados.txt'));

    expect(error).toMatchObject({ code: 'not_a_text_file', line: 3 });
    expect((error as Error).message).toMatch(
      /^dados\.txt, line 3: is not a text file: \d+ of its first 2,007 bytes are control characters that text never holds, the first 0x0E at byte 14; it looks like a program's binary data\. Upload the catalogue as CSV/,
    );
    expect(wordMessage(refusalMessage(error as SpreadsheetError), 'es')).toMatch(
      /^dados\.txt, línea 3: no es un archivo de texto: \d+ de sus primeros 2007 bytes son caracteres de control que un texto nunca tiene, el primero un 0x0E en el byte 14; parecen datos binarios de un programa\. Sube el catálogo/,
    );
  });

  it('a web page saved as .csv', async () => {
    const error = await thrown(() =>
      readSpreadsheet(
        utf8('<!DOCTYPE html>\n<html><table><tr><td>SKU</td></tr></table></html>'),
        'export.csv',
      ),
    );

    expect((error as Error).message).toMatch(
      /^export\.csv, line 1: is a web page \(HTML\), not a table of text/,
    );
  });
});

describe('a stray NUL byte rejects its row, naming the column; the file is read', () => {
  it('one NUL byte in an 11-row CSV: ten valid rows and one rejected', async () => {
    const lines = eleven();
    const bytes = utf8(crlf(HEADER, ...lines));
    // The NUL inside row 4's description, as a broken export leaves it.
    const at = bytes.indexOf(Buffer.from('tinto'));
    const withNul = Buffer.concat([bytes.subarray(0, at), Buffer.from([0]), bytes.subarray(at)]);

    const read = await readSpreadsheet(withNul, 'catalogo.csv');
    const outcomes = outcomesOf(read);

    expect(read.rows).toHaveLength(11);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      ...Array(3).fill('valid'),
      'rejected',
      ...Array(7).fill('valid'),
    ]);
    expect(outcomes[3]).toMatchObject({
      status: 'rejected',
      rejection: {
        row: 4,
        reason: 'control_character',
        column: 'description',
        detail: 'Column "Descrição" (column B) holds a NUL character (byte 0), which is not text; remove it.',
      },
    });
    // The cell kept for results.csv shows where it was.
    expect(read.rows[3]!.cells[1]).toBe('Vinho \uFFFDtinto seco, garrafa de 750 ml');
  });

  it("a fixed-width export's cell padded with 60 NULs: that row alone is rejected, near the start or further in", async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `P-${i + 1};${PRODUCTS[i % 11]};BR;import`);
    for (const at of [20, 300]) {
      const padded = rows.map((row, i) => (i === at ? row.replace(';BR', `${'\u0000'.repeat(60)};BR`) : row));

      const read = await readSpreadsheet(utf8(crlf(HEADER, ...padded)), 'largura-fixa.csv');
      const outcomes = read.rows.map((row) => normaliseRow(row, {}, ACCEPTED_COUNTRIES, read.columns));

      expect(outcomes).toHaveLength(400);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([
        expect.objectContaining({
          rejection: expect.objectContaining({ row: at + 1, reason: 'control_character' }),
        }),
      ]);
    }
  });

  it('text followed by zeros (an export cut off by a crash) is refused from the line where they start', async () => {
    const text = crlf(
      HEADER,
      ...Array.from({ length: 2_000 }, (_, i) => `P-${i + 1};${PRODUCTS[i % 11]};BR;import`),
    );
    const bytes = Buffer.concat([utf8(text), Buffer.alloc(10_000)]);

    const error = (await thrown(() => readSpreadsheet(bytes, 'cortado.csv'))) as SpreadsheetError;

    expect(error).toMatchObject({ code: 'not_a_text_file', line: 2_002 });
  });

  it("a NUL in a column's name is shown as U+FFFD, and the column is still recognised", async () => {
    const bytes = utf8(crlf('SKU;Descri\u0000ção;País;Operação', ...eleven().slice(0, 2)));

    const read = await readSpreadsheet(bytes, 'cabecalho.csv');

    expect(read.header).toEqual(['SKU', 'Descri\uFFFDção', 'País', 'Operação']);
    expect(read.columns.fields.description).toMatchObject({ index: 1, header: 'Descri\uFFFDção' });
    expect(read.rows.map((row) => row.fields.description)).toEqual(PRODUCTS.slice(0, 2));
  });

  it('a DOS end-of-file mark (Ctrl-Z) after the last line is not a row', async () => {
    const bytes = Buffer.concat([utf8(crlf(HEADER, ...eleven().slice(0, 2))), Buffer.from([0x1a])]);

    const read = await readSpreadsheet(bytes, 'dos.csv');

    expect(read.rows.map((row) => row.cells[0])).toEqual(['P-1', 'P-2']);
  });

  it('a Ctrl-Z right after the last cell, with no line break before it, is not part of the cell', async () => {
    const bytes = utf8(`${crlf(HEADER, ...eleven().slice(0, 2)).trimEnd()}\u001A`);

    const read = await readSpreadsheet(bytes, 'dos.csv');

    expect(read.rows.map((row) => row.cells)).toEqual([
      ['P-1', PRODUCTS[0], 'BR', 'import'],
      ['P-2', PRODUCTS[1], 'BR', 'import'],
    ]);
  });

  it("an ERP's SUB (Ctrl-Z) for a line break in every row's cell is text: the file is read and every row valid", async () => {
    // One SUB every 50 bytes or so: twice the share of control bytes that makes binary data.
    const rows = Array.from(
      { length: 400 },
      (_, i) => `P-${i + 1};Motor elétrico\u001Alinha ${i + 1};BR;import`,
    );
    const bytes = utf8(crlf(HEADER, ...rows));

    const read = await readSpreadsheet(bytes, 'erp.csv');
    const outcomes = read.rows.map((row) => normaliseRow(row, {}, ACCEPTED_COUNTRIES, read.columns));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(400).fill('valid'));
    expect(outcomes[0]).toMatchObject({ product: { description: 'Motor elétrico linha 1' } });
  });
});

describe('text that is not UTF-8 is read, and a warning names the rows and columns to check', () => {
  it('Windows-1252 (Excel\'s plain "CSV"): the encoding, the first byte and the rows with accents', async () => {
    const bytes = windows1252(
      crlf(
        'SKU;Descrição;Marca;País;Operação',
        'P-1;Parafuso sextavado M8;ACME;BR;import',
        'P-2;Motor elétrico trifásico 1 CV;Weg;BR;importação',
        'P-3;Rolamento de esferas 22 mm;SKF;BR;import',
        'P-4;Café torrado em grãos;Pilão;BR;import',
      ),
    );

    const read = await readSpreadsheet(bytes, 'catalogo.csv');

    expect(read.encoding).toBe('windows-1252');
    expect(read.rows[1]!.fields.description).toBe('Motor elétrico trifásico 1 CV');
    expect(read.warnings).toEqual([
      'catalogo.csv is not UTF-8 text: line 1 holds the byte 0xE7 (byte 10 of the file), which UTF-8 does ' +
        'not allow, so such bytes were read as Windows-1252, what Excel\'s plain "CSV" writes. Check the ' +
        'accented letters of the header row and rows 2 and 4 in columns "Descrição" (column B), "Marca" ' +
        '(column C) and "Operação" (column E); if any look wrong, save the file as "CSV UTF-8" and upload it again.',
    ]);
    // The same warning as a message, worded in the batch's language.
    const pass = (await openSpreadsheet(bytesSource(bytes), 'catalogo.csv')).readRows();
    for await (const _row of pass.rows);
    const [said] = pass.finished().messages;
    expect(wordMessage(said!, 'en')).toBe(read.warnings![0]);
    expect(wordMessage(said!, 'pt')).toBe(
      'catalogo.csv não está em UTF-8: a linha 1 tem o byte 0xE7 (byte 10 do arquivo), que o UTF-8 não ' +
        'permite, então esses bytes foram lidos como Windows-1252, o que o "CSV" simples do Excel grava. ' +
        'Confira as letras acentuadas no cabeçalho e nas linhas 2 e 4, colunas "Descrição" (coluna B), ' +
        '"Marca" (coluna C) e "Operação" (coluna E); se alguma estiver errada, salve o arquivo como ' +
        '"CSV UTF-8" e envie-o de novo.',
    );
    expect(wordMessage(said!, 'es')).toContain(
      'Revisa las letras con acento en el encabezado y en las filas 2 y 4, columnas "Descrição" (columna B),',
    );
  });

  it('UTF-8 rows and one row typed in another editor: only that row is named', async () => {
    const bytes = Buffer.concat([
      utf8(crlf(HEADER, 'P-1;Café torrado em grãos;BR;import')),
      windows1252(crlf('P-2;Motor elétrico trifásico;BR;import')),
      utf8(crlf('P-3;Pneu radial para automóvel;BR;import')),
    ]);

    const read = await readSpreadsheet(bytes, 'misto.csv');

    expect(read.encoding).toBe('utf-8+windows-1252');
    expect(read.rows.map((row) => row.fields.description)).toEqual([
      'Café torrado em grãos',
      'Motor elétrico trifásico',
      'Pneu radial para automóvel',
    ]);
    expect(read.warnings).toHaveLength(1);
    expect(read.warnings![0]).toContain('line 3 holds the byte 0xE9');
    expect(read.warnings![0]).toContain(
      'Check the accented letters of row 2 in column "Descrição" (column B);',
    );
  });

  it('CESU-8 (surrogates written as UTF-8): pairs read as their character, a lone one as U+FFFD, and said', async () => {
    // "Motor el" + a lone high surrogate (ED A0 80) + "trico", as a broken export wrote "elétrico".
    const lone = Buffer.concat([
      Buffer.from('P-2;Motor el'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('trico;BR;import\r\n'),
    ]);
    // U+1F529 (a nut and bolt) as CESU-8: D83D DD29, each surrogate in three bytes.
    const pair = Buffer.concat([
      Buffer.from('P-3;Porca e parafuso '),
      Buffer.from([0xed, 0xa0, 0xbd, 0xed, 0xb4, 0xa9]),
      Buffer.from(' M8;BR;import\r\n'),
    ]);
    const bytes = Buffer.concat([utf8(crlf(HEADER, 'P-1;Café torrado em grãos;BR;import')), lone, pair]);

    // Read whole and in 4-byte pieces: a pair cut by a chunk's end is still one character.
    for (const chunkBytes of [64 * 1024, 4]) {
      const file = await openSpreadsheet(bytesSource(bytes, chunkBytes), 'java.csv');
      const pass = file.readRows();
      const rows = [];
      for await (const row of pass.rows) rows.push(row);
      const { encoding, warnings } = pass.finished();

      expect(encoding).toBe('cesu-8');
      expect(rows.map((row) => row.fields.description)).toEqual([
        'Café torrado em grãos',
        'Motor el\uFFFDtrico',
        'Porca e parafuso 🔩 M8',
      ]);
      expect(warnings).toEqual([
        'java.csv is not valid UTF-8: line 3 holds the bytes 0xED 0xA0 0x80 (byte 85 of the file), a UTF-16 ' +
          'surrogate written as if it were a character (CESU-8, what some Java programs and databases write), ' +
          'which UTF-8 does not allow. A pair of them was read as the character it stands for, a surrogate ' +
          'without its pair as "\uFFFD". Check rows 2 and 3 in column "Descrição" (column B), and save the file as UTF-8.',
      ]);
    }
  });

  it('a UTF-8 file has no such warning', async () => {
    const read = await readSpreadsheet(utf8(crlf(HEADER, ...eleven())), 'ok.csv');

    expect(read.encoding).toBe('utf-8');
    expect(read.warnings).toBeUndefined();
  });
});

describe('Excel\'s "Unicode Text" and "Text (tab delimited)" are read by their content', () => {
  const lines = [
    'SKU\tDescrição\tPaís\tOperação',
    'P-1\tCafé torrado em grãos\tBR\timportação',
    'P-2\tPneu radial 185/65\tAR\texport',
  ];

  it.each([
    ['UTF-16LE with its BOM ("Unicode Text")', unicodeText(crlf(...lines)), 'utf-16le'],
    ['UTF-16LE without a BOM', unicodeText(crlf(...lines), { bom: false }), 'utf-16le'],
    ['UTF-16BE without a BOM', Buffer.from(unicodeText(crlf(...lines), { bom: false })).swap16(), 'utf-16be'],
    ['Windows-1252 with tabs ("Text (tab delimited)")', windows1252(crlf(...lines)), 'windows-1252'],
  ] as const)('%s', async (_name, bytes, encoding) => {
    for (const fileName of ['catalogo.txt', 'catalogo.tsv']) {
      const read = await readSpreadsheet(bytes, fileName);

      expect(read.encoding).toBe(encoding);
      expect(read.delimiter).toBe('\t');
      expect(read.header).toEqual(['SKU', 'Descrição', 'País', 'Operação']);
      expect(read.rows.map((row) => row.cells)).toEqual([
        ['P-1', 'Café torrado em grãos', 'BR', 'importação'],
        ['P-2', 'Pneu radial 185/65', 'AR', 'export'],
      ]);
      expect(outcomesOf(read).map((outcome) => outcome.status)).toEqual(['valid', 'valid']);
    }
  });
});
