/** Headers as people write them in pt, es and en → the pipeline's columns. */
import { describe, expect, it } from 'vitest';
import { columnLetter } from '../../../shared/spreadsheet/column-letters.js';
import {
  COLUMN_ALIASES,
  columnForHeader,
  mapRow,
  matchColumns,
} from '../../../shared/spreadsheet/columns.js';
import { SpreadsheetError } from '../../../shared/spreadsheet/errors.js';
import { PIPELINE_COLUMNS } from '../../../shared/spreadsheet/schemas.js';
import { thrown } from './fixtures.js';

describe('columnForHeader', () => {
  it.each([
    ['Descrição', 'description'],
    ['DESCRIÇÃO', 'description'],
    ['descricao', 'description'],
    ['Descripción', 'description'],
    ['DESCRIPTION', 'description'],
    ['Product description', 'description'],
    ['Descrição do Produto', 'description'],
    ['Desc.', 'description'],
    ['Descrição (obrigatório)', 'description'],
    ['* Descrição *', 'description'],
    ['Operação', 'operation'],
    ['OPERACIÓN', 'operation'],
    ['Tipo de Operação', 'operation'],
    ['Import/Export', 'operation'],
    ['País', 'country'],
    ['PAIS', 'country'],
    ['Country', 'country'],
    ['País de origem', 'country'],
    ['Origem/Destino', 'country'],
    ['Ficha Técnica', 'sheet'],
    ['ficha tecnica', 'sheet'],
    ['Technical sheet', 'sheet'],
    ['Datasheet', 'sheet'],
    ['PDF', 'sheet'],
    ['Arquivo', 'sheet'],
    ['Referência externa', 'external_reference'],
    ['Referencia', 'external_reference'],
    ['Ref.', 'external_reference'],
    ['Código', 'sku'],
    ['código do produto', 'sku'],
    ['Código del producto', 'sku'],
    ['Part Number', 'sku'],
    ['SKU', 'sku'],
    ['NCM', 'current_ncm'],
    ['NCM atual', 'current_ncm'],
    ['NCM actual', 'current_ncm'],
    ['Current NCM', 'current_ncm'],
    ['Código NCM', 'current_ncm'],
    ['NCM/SH', 'current_ncm'],
    ['NCM (8 dígitos)', 'current_ncm'],
  ])('%s → %s', (header, column) => {
    expect(columnForHeader(header)?.column).toBe(column);
  });

  it.each([
    'Origem',
    'Peso',
    'Tipo',
    'Observações',
    'Fornecedor',
    'Descrição adicional',
    'NCM sugerida pelo fornecedor',
  ])('%s is not a pipeline column and is passed through', (header) => {
    expect(columnForHeader(header)).toBeNull();
  });

  it('maps every listed alias to its own column, so no alias is claimed twice', () => {
    for (const column of PIPELINE_COLUMNS) {
      const { strong, weak } = COLUMN_ALIASES[column];
      for (const alias of strong) expect(columnForHeader(alias)).toEqual({ column, weak: false });
      for (const alias of weak) expect(columnForHeader(alias)).toEqual({ column, weak: true });
    }
  });
});

describe('matchColumns', () => {
  it('maps pipeline columns and keeps every other column, in file order, for the output', () => {
    const header = ['Fornecedor', 'Código', 'Descrição', 'Peso', 'NCM', 'País', 'Obs'];

    const columns = matchColumns(header, 'a.csv');

    expect(columns.fields).toEqual({
      sku: { index: 1, header: 'Código' },
      description: { index: 2, header: 'Descrição' },
      current_ncm: { index: 4, header: 'NCM' },
      country: { index: 5, header: 'País' },
    });
    expect(columns.passthrough).toEqual([
      { index: 0, header: 'Fornecedor' },
      { index: 3, header: 'Peso' },
      { index: 6, header: 'Obs' },
    ]);
  });

  it('refuses two headers meaning the same column, naming both with their letters', async () => {
    const error = await thrown(() => matchColumns(['Código', 'Descrição', 'País', 'Description'], 'dup.csv'));

    expect(error).toBeInstanceOf(SpreadsheetError);
    expect(error).toMatchObject({ code: 'duplicate_column', column: 'Description' });
    expect((error as Error).message).toBe(
      'dup.csv, column "Description": columns "Descrição" (column B) and "Description" (column D) both mean ' +
        '"description"; keep one and rename or delete the other',
    );
  });

  it('lets a strong alias win over a weak one: `Produto` next to `Descrição` is passed through', () => {
    const columns = matchColumns(['Produto', 'Descrição', 'Item'], 'a.csv');

    expect(columns.fields).toEqual({
      description: { index: 1, header: 'Descrição' },
      sku: { index: 2, header: 'Item' },
    });
    expect(columns.passthrough).toEqual([{ index: 0, header: 'Produto' }]);
  });

  it('uses a weak alias when it is the only candidate', () => {
    expect(matchColumns(['Produto', 'País'], 'a.csv').fields.description).toEqual({
      index: 0,
      header: 'Produto',
    });
  });

  it('accepts a file with a sheet column and no description column', () => {
    expect(matchColumns(['Ficha técnica', 'País'], 'a.csv').fields).toEqual({
      sheet: { index: 0, header: 'Ficha técnica' },
      country: { index: 1, header: 'País' },
    });
  });

  it('refuses a file with neither description nor sheet, listing what it found', async () => {
    const error = await thrown(() => matchColumns(['Código', 'Produto ID', 'NCM'], 'sem.csv'));

    expect(error).toMatchObject({ code: 'no_description_or_sheet_column' });
    expect((error as Error).message).toMatch(
      /^sem\.csv: has no description column and no technical-sheet column/,
    );
    expect((error as Error).message).toContain('Columns found: "Código", "Produto ID", "NCM"');
  });
});

describe('mapRow', () => {
  it('puts pipeline cells in fields and the rest in passthrough, raw', () => {
    const columns = matchColumns(['Obs', 'Descrição', 'País'], 'a.csv');

    const mapped = mapRow({ row: 3, line: 5, cells: [' nota ', ' Café torrado ', 'br', 'extra'] }, columns);

    expect(mapped).toEqual({
      row: 3,
      line: 5,
      cells: [' nota ', ' Café torrado ', 'br', 'extra'],
      fields: { description: ' Café torrado ', country: 'br' },
      passthrough: [' nota '],
    });
  });
});

describe('columnLetter', () => {
  it('names columns as Excel does', () => {
    expect([0, 1, 25, 26, 27, 701, 702].map(columnLetter)).toEqual(['A', 'B', 'Z', 'AA', 'AB', 'ZZ', 'AAA']);
  });
});
