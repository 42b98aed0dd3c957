/**
 * A SPED EFD ICMS/IPI file read as a catalogue: its 0200 registers as rows under a header naming
 * their fields as the layout does, every other register counted, in the encodings files come in
 * (Windows-1252, UTF-8), with CRLF or LF, in chunks cut anywhere, signed or not.
 */
import { describe, expect, it } from 'vitest';
import { bytesSource } from '../../../shared/spreadsheet/byte-source.js';
import { SpreadsheetError } from '../../../shared/spreadsheet/errors.js';
import { headerLanguage } from '../../../shared/spreadsheet/header-language.js';
import { normaliseRow } from '../../../shared/spreadsheet/normalise-row.js';
import { SPED_ITEM_FIELDS } from '../../../shared/spreadsheet/read-sped.js';
import {
  openSpreadsheet,
  readSpreadsheet,
  readWholeFile,
} from '../../../shared/spreadsheet/read-spreadsheet.js';
import type { SpreadsheetRead } from '../../../shared/spreadsheet/schemas.js';
import { wordMessage } from '../../../shared/wording/index.js';
import { ACCEPTED_COUNTRIES, crlf, thrown, utf8, windows1252 } from './fixtures.js';

/** A small SPED file: block 0 with three items, a block C invoice, block 9; `items` in place of the 0200s. */
const spedLines = (items: readonly string[]): string[] => [
  '|0000|019|0|01102026|31102026|IMPORTADORA PAULISTA LTDA|12345678000195||SP|111222333444|3550308|||A|1|',
  '|0001|0|',
  '|0005|PAULISTA IMPORTADORA|01310100|AVENIDA PAULISTA|1000|CONJ 101|BELA VISTA|1130001000|||',
  '|0150|F001|TORREFAÇÃO SÃO JOSÉ LTDA|1058|98765432000110||||3550308|||',
  '|0190|UN|UNIDADE|',
  '|0190|KG|QUILOGRAMA|',
  ...items,
  '|0990|10|',
  '|C001|0|',
  '|C100|0|1|F001|55|00|1|1520|35261098765432000110550010000015201000015205|01102026|02102026|1000,00|0|0,00|0,00|1000,00|0|0,00|0,00|0,00|1000,00|180,00|0,00|0,00|0,00|0,00|0,00|0,00|0,00|',
  '|C170|1|CAF-0101|CAFÉ TORRADO EM GRÃOS 1KG|20|KG|1000,00|0,00|0|000|1102||1000,00|18,00|180,00|0,00|0,00|0,00|0|||0,00|0,00|0,00|50|0,00|0,00|0|0,00|0,00|50|0,00|0,00|0|0,00|0,00||0,00|',
  '|C170|2|ROL-6204|ROLAMENTO DE ESFERAS 6204|10|UN|0,00|0,00|0|000|1102||0,00|18,00|0,00|0,00|0,00|0,00|0|||0,00|0,00|0,00|50|0,00|0,00|0|0,00|0,00|50|0,00|0,00|0|0,00|0,00||0,00|',
  '|C990|4|',
  '|9001|0|',
  '|9900|0000|1|',
  '|9990|3|',
  '|9999|16|',
];

const ITEMS = [
  '|0200|CAF-0101|CAFÉ TORRADO EM GRÃOS 1KG|7891234567895||KG|00|09012100||||18,00||',
  '|0200|ROL-6204|ROLAMENTO DE ESFERAS 6204-2RS|7890000000017||UN|00|84821010||||18,00||',
  '|0200|ERV-MATE|ERVA MATE PARA CHIMARRÃO 1KG|||KG|00|9030090||||18,00||',
];

/** Where the items sit in `spedLines`: lines 7 to 9. */
const ITEM_LINES = [7, 8, 9];

const SKIPPED = {
  registers: [
    '0000',
    '0001',
    '0005',
    '0150',
    '0190',
    '0990',
    'C001',
    'C100',
    'C170',
    'C990',
    '9001',
    '9900',
    '9990',
    '9999',
  ],
  counts: [1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 1, 1],
};

const readInChunks = async (
  bytes: Uint8Array,
  fileName: string,
  chunkBytes: number,
): Promise<SpreadsheetRead> => readWholeFile(await openSpreadsheet(bytesSource(bytes, chunkBytes), fileName));

const skippedProblem = (read: SpreadsheetRead) =>
  read.problems.find((p) => p.code === 'sped_registers_skipped');

describe('a SPED EFD file as a catalogue', () => {
  it('reads a Windows-1252 file with CRLF: a header of the 0200 fields, one row per item on its line, accents intact', async () => {
    const read = await readSpreadsheet(windows1252(crlf(...spedLines(ITEMS))), 'efd-outubro.txt');
    expect(read.format).toBe('sped');
    expect(read.encoding).toBe('windows-1252');
    expect(read.header).toEqual([...SPED_ITEM_FIELDS]);
    expect(read.header).toEqual([
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
    ]);
    expect(read.rows.map((row) => row.line)).toEqual(ITEM_LINES);
    expect(read.rows.map((row) => row.row)).toEqual([1, 2, 3]);
    expect(read.rows[0]!.cells).toEqual([
      'CAF-0101',
      'CAFÉ TORRADO EM GRÃOS 1KG',
      '7891234567895',
      '',
      'KG',
      '00',
      '09012100',
      '',
      '',
      '',
      '18,00',
      '',
    ]);
    expect(read.rows[2]!.fields).toEqual({
      sku: 'ERV-MATE',
      description: 'ERVA MATE PARA CHIMARRÃO 1KG',
      current_ncm: '9030090',
    });
    // Latin-1 is SPED's own encoding: no "check the accents" warning for reading it right.
    expect(read.warnings).toBeUndefined();
  });

  it('maps COD_ITEM, DESCR_ITEM and COD_NCM, keeps the other fields as passthrough, and reads the header as Portuguese', async () => {
    const read = await readSpreadsheet(windows1252(crlf(...spedLines(ITEMS))), 'efd.txt');
    expect(read.columns.fields).toEqual({
      sku: { index: 0, header: 'COD_ITEM' },
      description: { index: 1, header: 'DESCR_ITEM' },
      current_ncm: { index: 6, header: 'COD_NCM' },
    });
    expect(read.columns.passthrough.map((column) => column.header)).toEqual([
      'COD_BARRA',
      'COD_ANT_ITEM',
      'UNID_INV',
      'TIPO_ITEM',
      'EX_IPI',
      'COD_GEN',
      'COD_LST',
      'ALIQ_ICMS',
      'CEST',
    ]);
    expect(headerLanguage(read.header)).toBe('pt');
  });

  it("gives products with the declared NCM, taking batch.json's operation and country", async () => {
    const read = await readSpreadsheet(windows1252(crlf(...spedLines(ITEMS))), 'efd.txt');
    const products = read.rows.map((row) =>
      normaliseRow(row, { operation: 'import', country: 'BR' }, ACCEPTED_COUNTRIES, read.columns),
    );
    expect(
      products.map((outcome) => (outcome.status === 'valid' ? outcome.product : outcome.status)),
    ).toEqual([
      expect.objectContaining({
        sku: 'CAF-0101',
        description: 'CAFÉ TORRADO EM GRÃOS 1KG',
        operation: 'import',
        country: 'BR',
        current_ncm: '09012100',
      }),
      expect.objectContaining({ sku: 'ROL-6204', current_ncm: '84821010' }),
      // Seven digits, as written: the code's leading zero was lost on the way (0903.00.90).
      expect.objectContaining({
        sku: 'ERV-MATE',
        current_ncm: '9030090',
        flags: ['leading_zero_probably_lost'],
      }),
    ]);
  });

  it('reads the same rows from UTF-8 with LF, and says UTF-8', async () => {
    const cp1252 = await readSpreadsheet(windows1252(crlf(...spedLines(ITEMS))), 'efd.txt');
    const read = await readSpreadsheet(utf8(`${spedLines(ITEMS).join('\n')}\n`), 'efd.txt');
    expect(read.format).toBe('sped');
    expect(read.encoding).toBe('utf-8');
    expect(read.rows).toEqual(cp1252.rows);
    expect(skippedProblem(read)).toEqual(skippedProblem(cp1252));
  });

  it('reads a UTF-8 file with a BOM and no final line break', async () => {
    const read = await readSpreadsheet(utf8(spedLines(ITEMS).join('\r\n'), { bom: true }), 'efd.txt');
    expect(read.format).toBe('sped');
    expect(read.rows.map((row) => row.fields.description)).toEqual([
      'CAFÉ TORRADO EM GRÃOS 1KG',
      'ROLAMENTO DE ESFERAS 6204-2RS',
      'ERVA MATE PARA CHIMARRÃO 1KG',
    ]);
  });

  it('counts every other register, in the order first seen, and says so in each language', async () => {
    const read = await readSpreadsheet(windows1252(crlf(...spedLines(ITEMS))), 'efd.txt');
    expect(read.problems).toHaveLength(1);
    const problem = skippedProblem(read)!;
    expect(problem.said).toEqual({
      code: 'sped_registers_skipped',
      params: { file: 'efd.txt', items: 3, ...SKIPPED },
    });
    expect(problem.message).toBe(
      'efd.txt: SPED EFD file read for its 3 items (0200 registers); the other registers describe no product ' +
        'and were skipped: 0000 (1), 0001 (1), 0005 (1), 0150 (1), 0190 (2), 0990 (1), C001 (1), C100 (1), ' +
        'C170 (2), C990 (1), 9001 (1), 9900 (1), 9990 (1) and 9999 (1)',
    );
    expect(wordMessage(problem.said!, 'en')).toBe(problem.message);
    expect(wordMessage(problem.said!, 'pt')).toContain('lido pelos seus 3 itens (registros 0200)');
    expect(wordMessage(problem.said!, 'pt')).toContain('0190 (2)');
  });

  it('refuses a SPED file without any 0200 in one line, when it is opened', async () => {
    const bytes = windows1252(crlf(...spedLines([])));
    const error = await thrown(() => openSpreadsheet(bytesSource(bytes), 'efd-sem-itens.txt'));
    expect(error).toBeInstanceOf(SpreadsheetError);
    expect((error as SpreadsheetError).code).toBe('sped_no_items');
    expect((error as SpreadsheetError).message).toBe(
      'efd-sem-itens.txt: is a SPED EFD file but holds no 0200 register (the item table), so there is no ' +
        'product to classify; generate the file again with block 0 complete',
    );
    expect((error as SpreadsheetError).message).not.toContain('\n');
  });

  it('pads a 0200 with fewer fields, and keeps the fields of one with more as extra cells', async () => {
    const items = [
      '|0200|OLD-1|CHAVE DE FENDA PHILIPS PH2|',
      '|0200|NEW-1|ESCOVA DE DENTES MACIA||||00|96032100||||18,00||99|',
    ];
    const read = await readSpreadsheet(utf8(crlf(...spedLines(items))), 'efd.txt');
    expect(read.rows[0]!.cells).toEqual(['OLD-1', 'CHAVE DE FENDA PHILIPS PH2', ...Array(10).fill('')]);
    expect(read.rows[0]!.fields.current_ncm).toBe('');
    expect(read.rows[1]!.cells).toHaveLength(13);
    expect(read.rows[1]!.cells.at(-1)).toBe('99');
    expect(read.problems.map((problem) => problem.code)).toEqual([
      'sped_registers_skipped',
      'row_longer_than_header',
    ]);
  });

  it('names a line that is no register (a description cut by a line break) and reads on', async () => {
    const items = [
      '|0200|MOT-5CV|MOTOR ELÉTRICO TRIFÁSICO',
      '5CV 4 POLOS|||UN|00|85015210||||18,00||',
      ...ITEMS,
    ];
    const read = await readSpreadsheet(windows1252(crlf(...spedLines(items))), 'efd.txt');
    expect(read.rows.map((row) => row.fields.sku)).toEqual(['MOT-5CV', 'CAF-0101', 'ROL-6204', 'ERV-MATE']);
    expect(read.rows.map((row) => row.line)).toEqual([7, 9, 10, 11]);
    const problem = read.problems.find((p) => p.code === 'sped_line_not_a_register')!;
    expect(problem.line).toBe(8);
    expect(problem.message).toBe(
      'efd.txt, line 8: "5CV 4 POLOS|||UN|00|85015210||||18,00||" is not a SPED register (a register\'s line ' +
        'starts with "|") and was skipped; if it is the rest of the line above, a line break inside a field cut it there',
    );
    expect(wordMessage(problem.said!, 'en')).toBe(problem.message);
    expect(wordMessage(problem.said!, 'pt')).toMatch(
      /^efd\.txt, linha 8: "5CV 4 POLOS.*não é um registro SPED/,
    );
    expect(wordMessage(problem.said!, 'es')).toMatch(/^efd\.txt, línea 8: .*no es un registro SPED/);
  });

  it('lists the first 50 lines that are no register and counts the rest', async () => {
    const stray = Array.from({ length: 120 }, (_, i) => `linha solta ${i + 1}`);
    const read = await readSpreadsheet(utf8(crlf(...spedLines([...ITEMS, ...stray]))), 'efd.txt');
    const problems = read.problems.filter((p) => p.code === 'sped_line_not_a_register');
    expect(problems).toHaveLength(51);
    expect(problems[49]!.line).toBe(10 + 49);
    expect(problems[50]!.said).toEqual({
      code: 'more_like_these',
      params: { file: 'efd.txt', more: 70, total: 120 },
    });
    expect(read.rows).toHaveLength(3);
  });

  it('reads the same in chunks cut anywhere: in a CR LF, in an accent, in "|9999|"', async () => {
    const files = [
      windows1252(crlf(...spedLines(ITEMS))),
      utf8(crlf(...spedLines(ITEMS))),
      utf8(`${spedLines(ITEMS).join('\r')}\r`),
    ];
    for (const bytes of files) {
      const whole = await readSpreadsheet(bytes, 'efd.txt');
      for (const chunkBytes of [1, 2, 3, 5, 7, 64]) {
        expect(await readInChunks(bytes, 'efd.txt', chunkBytes)).toEqual(whole);
      }
    }
  });

  it('stops at 9999: the signature the validator appends to a signed file is not read as text', async () => {
    const signature = Buffer.from([
      ...Buffer.from('SBRCAAEPDR', 'latin1'),
      0x30,
      0x80,
      0x06,
      0x09,
      0x2a,
      0x86,
      0x48,
      0x86,
      0xf7,
      0x0d,
      0x01,
      0x07,
      0x02,
      ...Array(2000).fill(0),
      ...Buffer.from('\r\n|C100|não é registro|', 'latin1'),
    ]);
    const text = windows1252(crlf(...spedLines(ITEMS)));
    const unsigned = await readSpreadsheet(text, 'efd.txt');
    for (const bytes of [
      Buffer.concat([text, signature]),
      Buffer.concat([text.subarray(0, -2), signature]),
    ]) {
      for (const chunkBytes of [3, 64 * 1024]) {
        expect(await readInChunks(bytes, 'efd-assinado.txt', chunkBytes)).toEqual({
          ...unsigned,
          problems: [
            {
              ...skippedProblem(unsigned)!,
              message: skippedProblem(unsigned)!.message.replace('efd.txt', 'efd-assinado.txt'),
              said: {
                code: 'sped_registers_skipped',
                params: { file: 'efd-assinado.txt', items: 3, ...SKIPPED },
              },
            },
          ],
        });
      }
    }
  });

  it('refuses binary data inside a file that opens like SPED, naming where', async () => {
    const bytes = Buffer.concat([
      windows1252(crlf(...spedLines(ITEMS).slice(0, 5))),
      Buffer.alloc(4096, 0x01),
    ]);
    const error = await thrown(() => readSpreadsheet(bytes, 'efd.txt'));
    expect((error as SpreadsheetError).code).toBe('not_a_text_file');
    expect((error as SpreadsheetError).line).toBe(6);
  });

  it('reads each pass afresh', async () => {
    const file = await openSpreadsheet(bytesSource(windows1252(crlf(...spedLines(ITEMS)))), 'efd.txt');
    for (let pass = 0; pass < 3; pass++) {
      const rows = file.readRows();
      const skus: string[] = [];
      for await (const row of rows.rows) skus.push(row.fields.sku ?? '');
      expect(skus).toEqual(['CAF-0101', 'ROL-6204', 'ERV-MATE']);
      expect(rows.finished().problems.map((problem) => problem.code)).toEqual(['sped_registers_skipped']);
      expect(rows.finished().encoding).toBe('windows-1252');
      expect(rows.finished().rowCount).toBe(3);
    }
  });
});
