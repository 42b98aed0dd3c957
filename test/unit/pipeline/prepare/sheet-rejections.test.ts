/**
 * A row rejected for the sheet it names says why as a message: in English exactly the detail
 * results.csv keeps, in Portuguese and Spanish its own sentence, naming the column and the path.
 */
import { describe, expect, it } from 'vitest';
import { BatchOptions } from '../../../../shared/pipeline/core/batch-options-schema.js';
import { rowPlanner } from '../../../../shared/pipeline/prepare/row-plans.js';
import { matchColumns } from '../../../../shared/spreadsheet/columns.js';
import type { MappedRow } from '../../../../shared/spreadsheet/schemas.js';
import { wordMessage } from '../../../../shared/wording/index.js';
import { memoryObjectStore } from '../../../helpers/memory-ports.js';
import { ACCEPTED_COUNTRIES } from '../../spreadsheet/fixtures.js';

const FOLDER = 'inbox/fichas/';
const DESCRIPTION = 'Rolamento de esferas de aço, diâmetro 22 mm';

const row = (n: number, sheet: string): MappedRow => ({
  row: n,
  line: n + 1,
  cells: [DESCRIPTION, sheet],
  fields: { description: DESCRIPTION, sheet, operation: 'import', country: 'BR' },
  passthrough: [],
});

describe('a row rejected for its sheet', () => {
  it('says why in each language, its English the detail results.csv keeps', async () => {
    const objects = memoryObjectStore({
      [`${FOLDER}grande.pdf`]: new Uint8Array(11 * 1024 * 1024),
      [`${FOLDER}texto.pdf`]: 'not a PDF at all',
    });
    const plan = rowPlanner(
      { objects },
      {
        options: BatchOptions.parse({}),
        acceptedCountries: ACCEPTED_COUNTRIES,
        folder: FOLDER,
        columns: matchColumns(['Descrição', 'Ficha técnica', 'Operação', 'País'], 'produtos.csv'),
      },
    );
    const plans = await plan([row(1, 'falta.pdf'), row(2, 'grande.pdf'), row(3, 'texto.pdf')]);
    const rejections = plans.map((one) => (one.kind === 'rejected' ? one.rejection : null));
    expect(rejections.map((rejection) => rejection?.reason)).toEqual([
      'sheet_not_found',
      'sheet_too_large',
      'sheet_not_pdf',
    ]);
    for (const rejection of rejections) {
      const said = { code: rejection!.reason, params: rejection!.params! };
      expect(wordMessage(said, 'en')).toBe(rejection!.detail);
      expect(wordMessage(said, 'pt')).toMatch(/^Coluna "Ficha técnica": "[a-z]+\.pdf" /);
      expect(wordMessage(said, 'es')).toMatch(/^Columna "Ficha técnica": "[a-z]+\.pdf" /);
    }
    expect(wordMessage({ code: 'sheet_not_found', params: rejections[0]!.params! }, 'pt')).toBe(
      'Coluna "Ficha técnica": "falta.pdf" não está na pasta do lote "fichas".',
    );
    expect(wordMessage({ code: 'sheet_too_large', params: rejections[1]!.params! }, 'es')).toBe(
      'Columna "Ficha técnica": "grande.pdf" pesa 11,0 MB; el servicio acepta fichas técnicas de hasta 10,0 MB.',
    );
  });
});
