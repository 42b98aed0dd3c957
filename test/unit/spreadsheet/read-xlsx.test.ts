/** XLSX workbooks generated with write-excel-file, read back the way users see their cells. */
import { describe, expect, it } from 'vitest';
import { normaliseRow } from '../../../shared/spreadsheet/normalise-row.js';
import { detectFormat, readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import { SpreadsheetRead } from '../../../shared/spreadsheet/schemas.js';
import { formatXlsxCell, formatXlsxNumber } from '../../../shared/spreadsheet/xlsx-cells.js';
import { ACCEPTED_COUNTRIES, crlf, thrown, utf8, xlsx, xlsxSheets } from './fixtures.js';

describe('readSpreadsheet on XLSX', () => {
  it('reads the first sheet with numbers, dates, booleans and empty cells as the user sees them', async () => {
    const bytes = await xlsxSheets([
      {
        sheet: 'Produtos',
        data: [
          ['Descrição', 'Operação', 'País', 'NCM atual', 'Peso', 'Validade', 'Ativo', 'Obs'],
          [
            'Filé de peito de frango congelado',
            'importação',
            'br',
            2071400,
            0.5,
            new Date(Date.UTC(2024, 2, 5)),
            true,
            null,
          ],
          [null, null, null, null, null, null, null, null],
          ['Café torrado em grãos, 1 kg', 'export', 'AR', '0901.21.00', 0.1 + 0.2, null, false, 'frágil'],
        ],
      },
      { sheet: 'Instruções', data: [['Preencha a aba Produtos']] },
    ]);

    const read = await readSpreadsheet(bytes, 'catalogo.xlsx');

    expect(SpreadsheetRead.parse(read)).toEqual(read);
    expect(read.format).toBe('xlsx');
    expect(read.encoding).toBeUndefined();
    expect(read.delimiter).toBeUndefined();
    expect(read.header).toEqual([
      'Descrição',
      'Operação',
      'País',
      'NCM atual',
      'Peso',
      'Validade',
      'Ativo',
      'Obs',
    ]);
    expect(read.rows.map(({ row, line, cells }) => ({ row, line, cells }))).toEqual([
      {
        row: 1,
        line: 2,
        cells: [
          'Filé de peito de frango congelado',
          'importação',
          'br',
          '2071400',
          '0.5',
          '2024-03-05',
          'TRUE',
          '',
        ],
      },
      {
        row: 2,
        line: 4,
        cells: ['Café torrado em grãos, 1 kg', 'export', 'AR', '0901.21.00', '0.3', '', 'FALSE', 'frágil'],
      },
    ]);
    expect(read.columns.passthrough.map((ref) => ref.header)).toEqual(['Peso', 'Validade', 'Ativo', 'Obs']);
    expect(read.problems).toEqual([
      {
        code: 'other_sheets_ignored',
        message: 'catalogo.xlsx: only the first sheet "Produtos" was read; ignored: "Instruções"',
        said: {
          code: 'other_sheets_ignored',
          params: { file: 'catalogo.xlsx', first: 'Produtos', others: ['Instruções'] },
        },
      },
    ]);
  });

  it('flags an NCM that Excel stored as a number without its leading zero, never padding it', async () => {
    const read = await readSpreadsheet(
      await xlsx([
        ['Descrição', 'NCM'],
        ['Filé de peito de frango congelado', 2071400],
      ]),
      'a.xlsx',
    );

    const outcome = normaliseRow(read.rows[0]!, { operation: 'import', country: 'BR' }, ACCEPTED_COUNTRIES);

    expect(outcome).toMatchObject({
      status: 'valid',
      product: { current_ncm: '2071400', flags: ['leading_zero_probably_lost'] },
    });
  });

  it('keeps header cells exactly as written, spaces included', async () => {
    const read = await readSpreadsheet(
      await xlsx([
        [' Descrição ', 'País'],
        ['Café torrado em grãos', 'BR'],
      ]),
      'a.xlsx',
    );

    expect(read.header).toEqual([' Descrição ', 'País']);
    expect(read.columns.fields.description).toEqual({ index: 0, header: ' Descrição ' });
  });

  it('goes by content: an XLSX renamed .csv is still read as XLSX', async () => {
    const bytes = await xlsx([['Descrição'], ['Café torrado em grãos']]);

    expect(detectFormat(bytes, 'catalogo.csv')).toBe('xlsx');
    expect((await readSpreadsheet(bytes, 'catalogo.csv')).rows[0]?.cells).toEqual(['Café torrado em grãos']);
  });

  it('refuses a damaged workbook, a text file named .xlsx and an old .xls with clear errors', async () => {
    const damaged = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('not really a zip')]);
    const renamedText = utf8(crlf('Descrição;País', 'Café;BR'));
    const oldXls = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);

    const damagedError = await thrown(() => readSpreadsheet(damaged, 'catalogo.xlsx'));
    const renamedError = await thrown(() => readSpreadsheet(renamedText, 'catalogo.xlsx'));
    const xlsError = await thrown(() => readSpreadsheet(oldXls, 'catalogo.xls'));

    expect(damagedError).toMatchObject({
      name: 'SpreadsheetError',
      code: 'xlsx_invalid',
      fileName: 'catalogo.xlsx',
    });
    expect((damagedError as Error).message).toMatch(/^catalogo\.xlsx: is not a valid XLSX workbook/);
    expect(renamedError).toMatchObject({ code: 'xlsx_invalid' });
    expect(xlsError).toMatchObject({ code: 'xls_not_supported' });
    expect((xlsError as Error).message).toContain('save it as .xlsx or CSV');
  });

  it('refuses a workbook whose first sheet is empty, and one with only a header', async () => {
    await expect(readSpreadsheet(await xlsx([[null]]), 'vazio.xlsx')).rejects.toMatchObject({
      code: 'file_empty',
    });
    await expect(
      readSpreadsheet(await xlsx([['Descrição', 'País']]), 'cabecalho.xlsx'),
    ).rejects.toMatchObject({
      code: 'no_data_rows',
    });
  });
});

describe('formatXlsxCell', () => {
  it('writes numbers without float noise and as Excel shows them', () => {
    expect(formatXlsxNumber(2071400)).toBe('2071400');
    expect(formatXlsxNumber(0.5)).toBe('0.5');
    expect(formatXlsxNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatXlsxNumber(1.15 * 3)).toBe('3.45');
    expect(formatXlsxNumber(7891234567895)).toBe('7891234567895');
    expect(formatXlsxNumber(-0)).toBe('0');
  });

  it('writes dates as ISO, with the time only when there is one', () => {
    expect(formatXlsxCell(new Date(Date.UTC(2024, 0, 9)))).toBe('2024-01-09');
    expect(formatXlsxCell(new Date(Date.UTC(2024, 0, 9, 13, 5, 7)))).toBe('2024-01-09T13:05:07');
  });

  it('writes booleans as Excel does and empty cells as ""', () => {
    expect([true, false, null, undefined, 'texto'].map(formatXlsxCell)).toEqual([
      'TRUE',
      'FALSE',
      '',
      '',
      'texto',
    ]);
  });
});
