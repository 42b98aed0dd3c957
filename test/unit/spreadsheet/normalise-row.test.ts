/** Mapped rows → a ProductRow for the service, or a rejection with a stable reason. */
import { describe, expect, it } from 'vitest';
import { matchColumns } from '../../../shared/spreadsheet/columns.js';
import {
  normaliseRow,
  normaliseSheetPath,
  parseCurrentNcm,
  parseOperation,
} from '../../../shared/spreadsheet/normalise-row.js';
import { readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import {
  type BatchDefaults,
  type CellFlaw,
  type MappedRow,
  REJECTION_REASONS,
  type RejectionReason,
  RowOutcome,
  SHEET_REJECTION_REASONS,
} from '../../../shared/spreadsheet/schemas.js';
import { wordMessage } from '../../../shared/wording/index.js';
import { ACCEPTED_COUNTRIES, crlf, windows1252 } from './fixtures.js';

const DESCRIPTION = 'Café torrado em grãos, embalagem de 1 kg';
const NO_DEFAULTS: BatchDefaults = {};

const row = (
  fields: MappedRow['fields'],
  number = 1,
  flaws?: CellFlaw[],
): Pick<MappedRow, 'row' | 'fields' | 'flaws'> => ({
  row: number,
  fields,
  ...(flaws ? { flaws } : {}),
});

const normalise = (
  fields: MappedRow['fields'],
  defaults: BatchDefaults = NO_DEFAULTS,
  flaws?: CellFlaw[],
) => {
  const outcome = normaliseRow(row(fields, 1, flaws), defaults, ACCEPTED_COUNTRIES);
  // Every outcome must satisfy its own schema.
  expect(RowOutcome.parse(outcome)).toEqual(outcome);
  return outcome;
};

const reasonOf = (
  fields: MappedRow['fields'],
  defaults: BatchDefaults = NO_DEFAULTS,
  flaws?: CellFlaw[],
): RejectionReason | null => {
  const outcome = normalise(fields, defaults, flaws);
  return outcome.status === 'rejected' ? outcome.rejection.reason : null;
};

const VALID = { description: DESCRIPTION, operation: 'import', country: 'BR' } as const;

describe('normaliseRow: valid rows', () => {
  it('tidies every cell: whitespace, case, country names, NCM dots, sheet backslashes', () => {
    const outcome = normalise({
      description: '  Café   torrado\r\nem grãos,\u00A0embalagem de 1 kg ',
      operation: ' Importação ',
      country: 'brasil',
      sheet: ' fichas\\café.pdf ',
      external_reference: '  PO-2024  / 17 ',
      sku: ' CAF-001 ',
      current_ncm: '0901.21.00',
    });

    expect(outcome).toEqual({
      status: 'valid',
      product: {
        row: 1,
        description: 'Café torrado em grãos, embalagem de 1 kg',
        operation: 'import',
        country: 'BR',
        sheet: 'fichas/café.pdf',
        external_reference: 'PO-2024 / 17',
        sku: 'CAF-001',
        current_ncm: '09012100',
        flags: [],
      },
    });
  });

  it('sends null for the optional cells that are empty or absent', () => {
    expect(normalise({ ...VALID, sku: '   ', current_ncm: '' })).toEqual({
      status: 'valid',
      product: {
        row: 1,
        ...VALID,
        sheet: null,
        external_reference: null,
        sku: null,
        current_ncm: null,
        flags: [],
      },
    });
  });

  it('accepts a row with only a technical sheet: description is null', () => {
    expect(normalise({ sheet: 'ficha.PDF', operation: 'export', country: 'ar' })).toMatchObject({
      status: 'valid',
      product: { description: null, sheet: 'ficha.PDF', operation: 'export', country: 'AR' },
    });
  });

  it('uses the batch defaults for empty operation and country cells', () => {
    expect(
      normalise(
        { description: DESCRIPTION, operation: '', country: ' ' },
        { operation: 'export', country: 'UY' },
      ),
    ).toMatchObject({
      status: 'valid',
      product: { operation: 'export', country: 'UY' },
    });
  });

  it('counts characters, not code units, after NFC: 10 accented characters are enough', () => {
    // 'ação ação ' written decomposed (a Mac export): 14 code points, 10 characters once composed.
    const decomposed = 'Ação ação!'.normalize('NFD');

    expect(decomposed.length).toBeGreaterThan(10);
    expect(normalise({ ...VALID, description: decomposed })).toMatchObject({
      status: 'valid',
      product: { description: 'Ação ação!' },
    });
  });

  it('accepts the limits exactly: 10 and 5000 characters, 100 for the reference', () => {
    expect(reasonOf({ ...VALID, description: 'x'.repeat(10) })).toBeNull();
    expect(reasonOf({ ...VALID, description: 'ç'.repeat(5000) })).toBeNull();
    expect(reasonOf({ ...VALID, external_reference: 'r'.repeat(100) })).toBeNull();
  });
});

describe('parseOperation', () => {
  it.each([
    'import',
    'IMPORT',
    'Import',
    'importação',
    'IMPORTAÇÃO',
    'importacao',
    'importación',
    'importacion',
    'imp',
    'I',
    'i',
  ])('%s → import', (value) => {
    expect(parseOperation(value)).toBe('import');
  });

  it.each(['export', 'EXPORT', 'exportação', 'exportacao', 'exportación', 'Exportacion', 'exp', 'E'])(
    '%s → export',
    (value) => {
      expect(parseOperation(value)).toBe('export');
    },
  );

  it.each(['import/export', 'ambos', 'transfer', 'in', 'x', 'entrada', '1'])(
    '%s is refused as ambiguous',
    (value) => {
      expect(parseOperation(value)).toBeNull();
    },
  );
});

describe('normaliseRow: countries', () => {
  it.each([
    ['br', 'BR'],
    [' Ar ', 'AR'],
    ['Brasil', 'BR'],
    ['BRAZIL', 'BR'],
    ['Argentina', 'AR'],
    ['China', 'CN'],
    ['Estados Unidos', 'US'],
    ['United States', 'US'],
    ['EUA', 'US'],
    ['USA', 'US'],
    ['EE.UU.', 'US'],
    ['Alemanha', 'DE'],
    ['Alemania', 'DE'],
    ['Germany', 'DE'],
    ['España', 'ES'],
    ['Reino Unido', 'GB'],
    ['UK', 'GB'],
    ['Japão', 'JP'],
    ['URY', 'UY'],
  ])('%s → %s', (value, code) => {
    expect(normalise({ ...VALID, country: value })).toMatchObject({
      status: 'valid',
      product: { country: code },
    });
  });
});

describe('parseCurrentNcm', () => {
  it('removes dots, spaces and dashes from an 8-digit NCM', () => {
    expect(parseCurrentNcm('0901.21.00')).toEqual({ current_ncm: '09012100', flags: [] });
    expect(parseCurrentNcm(' 0901 21 00 ')).toEqual({ current_ncm: '09012100', flags: [] });
    expect(parseCurrentNcm('8471-30-12')).toEqual({ current_ncm: '84713012', flags: [] });
  });

  it('flags 7 digits as a lost leading zero and never pads them', () => {
    expect(parseCurrentNcm('2071400')).toEqual({
      current_ncm: '2071400',
      flags: ['leading_zero_probably_lost'],
    });
    expect(parseCurrentNcm('207.14.00')).toEqual({
      current_ncm: '2071400',
      flags: ['leading_zero_probably_lost'],
    });
  });

  it('flags anything else as invalid, keeping what was written, without rejecting the row', () => {
    expect(parseCurrentNcm('0901.21')).toEqual({ current_ncm: '0901.21', flags: ['current_ncm_invalid'] });
    expect(parseCurrentNcm('0901.21.00.10')).toEqual({
      current_ncm: '0901.21.00.10',
      flags: ['current_ncm_invalid'],
    });
    expect(parseCurrentNcm('a definir')).toEqual({
      current_ncm: 'a definir',
      flags: ['current_ncm_invalid'],
    });
    expect(normalise({ ...VALID, current_ncm: 'a definir' })).toMatchObject({
      status: 'valid',
      product: { flags: ['current_ncm_invalid'] },
    });
  });
});

describe('normaliseSheetPath', () => {
  it('normalises a relative path inside the batch folder', () => {
    expect(normaliseSheetPath('Fichas\\Café\\ficha 1.pdf')).toEqual({ path: 'Fichas/Café/ficha 1.pdf' });
    expect(normaliseSheetPath('./fichas/../ficha.pdf')).toEqual({ path: 'ficha.pdf' });
    expect(normaliseSheetPath('fichas//ficha.pdf')).toEqual({ path: 'fichas/ficha.pdf' });
  });

  it.each([
    '/etc/ficha.pdf',
    'C:\\Users\\ana\\ficha.pdf',
    'c:ficha.pdf',
    '\\\\servidor\\fichas\\ficha.pdf',
    'https://example.com/ficha.pdf',
    '../ficha.pdf',
    'fichas/../../ficha.pdf',
    '..\\ficha.pdf',
    'ficha.docx',
    'ficha.pdf.exe',
    'fichas/.pdf',
  ])('%s is refused', (value) => {
    expect(normaliseSheetPath(value)).toHaveProperty('invalid');
  });
});

describe('normaliseRow: every rejection reason', () => {
  const cases: [RejectionReason, MappedRow['fields'], BatchDefaults?, CellFlaw[]?][] = [
    ['description_missing', { ...VALID, description: '  ' }],
    ['description_too_short', { ...VALID, description: 'Café moíd' }],
    ['description_too_long', { ...VALID, description: 'x'.repeat(5001) }],
    ['operation_missing', { ...VALID, operation: '' }],
    ['operation_invalid', { ...VALID, operation: 'transferência' }, { operation: 'import' }],
    ['country_missing', { ...VALID, country: '' }],
    ['country_invalid', { ...VALID, country: 'Narnia' }],
    ['country_unknown', { ...VALID, country: 'XX' }],
    ['country_unknown', { ...VALID, country: '' }, { country: 'ZW' }],
    ['sheet_path_invalid', { ...VALID, sheet: '../outra-pasta/ficha.pdf' }],
    ['external_reference_too_long', { ...VALID, external_reference: 'r'.repeat(101) }],
    ['sku_too_long', { ...VALID, sku: 'S'.repeat(501) }],
    ['cell_too_long', VALID, {}, [{ kind: 'cell_too_long', index: 3, characters: 40_000 }]],
    ['row_too_large', VALID, {}, [{ kind: 'row_too_large', bytes: 300_000, index: 3, characters: 30_000 }]],
    ['control_character', VALID, {}, [{ kind: 'control_character', index: 0, code: 0 }]],
  ];

  it.each(cases)('%s', (reason, fields, defaults, flaws) => {
    expect(reasonOf(fields, defaults, flaws)).toBe(reason);
  });

  it.each(cases)(
    '%s: its message, worded in English, is the detail results.csv keeps',
    (_, fields, defaults, flaws) => {
      const columns = matchColumns(
        ['Descrição', 'Operação', 'País', 'Ficha técnica', 'Referência', 'SKU'],
        'a.csv',
      );
      const outcome = normaliseRow(
        { ...row(fields), ...(flaws ? { flaws } : {}) },
        { ...NO_DEFAULTS, ...defaults },
        ACCEPTED_COUNTRIES,
        columns,
      );
      if (outcome.status !== 'rejected') throw new Error('expected a rejection');
      for (const issue of outcome.rejection.issues) {
        const said = { code: issue.reason, params: issue.params ?? {} };
        expect(wordMessage(said, 'en')).toBe(issue.detail);
        expect(wordMessage(said, 'pt')).not.toBe(issue.detail);
        expect(wordMessage(said, 'es')).not.toBe(issue.detail);
      }
    },
  );

  it('covers every reason code', () => {
    // The sheet reasons are the pipeline's (it looks the sheet up in the bucket), not normaliseRow's.
    const ownReasons = REJECTION_REASONS.filter(
      (reason) => !(SHEET_REJECTION_REASONS as readonly string[]).includes(reason),
    );
    expect(new Set(cases.map(([reason]) => reason))).toEqual(new Set(ownReasons));
  });

  it('names the column as the file wrote it, with the numbers that matter', () => {
    const columns = matchColumns(['Descripción', 'Operación', 'País'], 'a.csv');

    const outcome = normaliseRow(
      row({ description: 'Café', operation: 'import', country: 'AR' }, 7),
      NO_DEFAULTS,
      ACCEPTED_COUNTRIES,
      columns,
    );

    expect(outcome).toEqual({
      status: 'rejected',
      rejection: {
        row: 7,
        reason: 'description_too_short',
        column: 'description',
        detail: 'Column "Descripción" has 4 characters; a description needs at least 10.',
        params: { header: 'Descripción', length: 4, limit: 10 },
        issues: [
          {
            reason: 'description_too_short',
            column: 'description',
            detail: 'Column "Descripción" has 4 characters; a description needs at least 10.',
            params: { header: 'Descripción', length: 4, limit: 10 },
          },
        ],
      },
    });
  });

  it('says when the file has no such column rather than calling it empty', () => {
    const columns = matchColumns(['Descrição'], 'a.csv');

    const outcome = normaliseRow(row({ description: DESCRIPTION }), NO_DEFAULTS, ACCEPTED_COUNTRIES, columns);

    expect(outcome.status === 'rejected' && outcome.rejection.issues.map((issue) => issue.detail)).toEqual([
      'No operation: the file has no operation column and the batch has no default operation.',
      'No country: the file has no country column and the batch has no default country.',
    ]);
  });

  it('lists every issue of the row in column order, the first as the reason', () => {
    const outcome = normalise({
      description: 'curto',
      operation: 'talvez',
      country: 'Atlântida',
      sheet: 'C:\\ficha.pdf',
      external_reference: 'r'.repeat(150),
    });

    expect(outcome.status).toBe('rejected');
    if (outcome.status !== 'rejected') return;
    expect(outcome.rejection.reason).toBe('description_too_short');
    expect(outcome.rejection.issues.map((issue) => [issue.reason, issue.column])).toEqual([
      ['description_too_short', 'description'],
      ['operation_invalid', 'operation'],
      ['country_invalid', 'country'],
      ['sheet_path_invalid', 'sheet'],
      ['external_reference_too_long', 'external_reference'],
    ]);
    expect(outcome.rejection.issues[2]?.detail).toBe(
      'Column "country": "Atlântida" is not a country code or a known country name; write the two-letter ISO code (BR, AR, CN…).',
    );
  });

  it('never replaces a value that is present but wrong by the batch default', () => {
    expect(reasonOf({ ...VALID, country: 'Narnia' }, { country: 'BR' })).toBe('country_invalid');
    expect(reasonOf({ ...VALID, operation: 'ambos' }, { operation: 'import' })).toBe('operation_invalid');
  });
});

describe('a whole upload, read then normalised', () => {
  it('turns an es-AR Excel "CSV" (Windows-1252, `;`) into products and rejections, row by row', async () => {
    const bytes = windows1252(
      crlf(
        'Código;Descripción;Operación;País de origen;Ficha técnica;NCM actual;Proveedor',
        'A-1;Café tostado en granos, bolsa de 1 kg;importación;Brasil;fichas\\cafe.pdf;0901.21.00;Acme',
        'A-2;Pechuga de pollo congelada;IMPORT;br;;2071400;Acme',
        'A-3;Té;import;CN;;;Beta',
        'A-4;;exportación;Alemania;;;Beta',
        'A-5;Yerba mate elaborada, paquete de 500 g;;;;;Gamma',
      ),
    );

    const read = await readSpreadsheet(bytes, 'catalogo-ar.csv');
    const outcomes = read.rows.map((mapped) =>
      normaliseRow(mapped, { operation: 'export', country: 'UY' }, ACCEPTED_COUNTRIES, read.columns),
    );

    expect(read.encoding).toBe('windows-1252');
    expect(read.columns.passthrough.map((ref) => ref.header)).toEqual(['Proveedor']);
    expect(
      outcomes.map((outcome) =>
        outcome.status === 'valid'
          ? [
              outcome.product.row,
              outcome.product.sku,
              outcome.product.operation,
              outcome.product.country,
              outcome.product.flags,
            ]
          : [outcome.rejection.row, outcome.rejection.reason, outcome.rejection.detail],
      ),
    ).toEqual([
      [1, 'A-1', 'import', 'BR', []],
      [2, 'A-2', 'import', 'BR', ['leading_zero_probably_lost']],
      [3, 'description_too_short', 'Column "Descripción" has 2 characters; a description needs at least 10.'],
      [
        4,
        'description_missing',
        'No description and no technical sheet: fill column "Descripción" or column "Ficha técnica".',
      ],
      [5, 'A-5', 'export', 'UY', []],
    ]);
    expect(outcomes[0]).toMatchObject({ product: { sheet: 'fichas/cafe.pdf', current_ncm: '09012100' } });
  });
});
