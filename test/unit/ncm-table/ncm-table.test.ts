/**
 * The NCM table the project carries, read as published: its day and act, every 8-digit code, a
 * code's levels from the chapter down, and what "in force" means on a given day. The sandbox's
 * verdicts must be real codes in force with their real descriptions.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../local/sandbox/classifier/catalogue.js';
import { carriedNcmTable } from '../../../shared/ncm-table/carried-table.js';
import { ncmTableOf } from '../../../shared/ncm-table/siscomex-table.js';
import { siscomexEntry } from '../../helpers/siscomex-table.js';

const entry = (code: string, description: string, starts = '01/04/2022', ends = '31/12/9999') =>
  siscomexEntry(code, description, { starts, ends });

describe('the carried NCM table', () => {
  const table = carriedNcmTable();

  it('is the table in force on 5 July 2026, by Resolução Gecex nº 812/2025, with its 10,515 codes', () => {
    expect(table.asOf).toBe('2026-07-05');
    expect(table.act).toBe('Resolução Gecex nº 812/2025');
    expect(table.codeCount).toBe(10_515);
  });

  it("gives a code's levels from the chapter down, descriptions without their tags", () => {
    expect(table.path('0901.21.00').map((level) => [level.dotted, level.description])).toEqual([
      ['09', 'Café, chá, mate e especiarias.'],
      ['09.01', expect.stringMatching(/^Café, mesmo torrado ou descafeinado/)],
      ['0901.2', '- Café torrado:'],
      ['0901.21.00', '-- Não descafeinado'],
    ]);
    expect(table.entry('09012100')?.ends).toBeNull();
  });

  it('holds every code the sandbox answers with, in force', () => {
    const notInForce = CATALOGUE.flatMap((item) => [item.ncm, ...item.discarded.map((d) => d.ncm)]).filter(
      (ncm) => !table.inForce(ncm),
    );
    expect(notInForce).toEqual([]);
  });

  it('says a code it does not hold, a heading, or a 7-digit code is not in force', () => {
    expect(table.inForce('99999999')).toBe(false);
    expect(table.inForce('0901')).toBe(false);
    expect(table.inForce('9012100')).toBe(false);
    expect(table.inForce('0901 21 00')).toBe(true);
  });
});

describe('a table read from its published JSON', () => {
  const table = ncmTableOf({
    Data_Ultima_Atualizacao_NCM: 'Vigente em 01/02/2026',
    Ato: 'Resolução Gecex nº 812/2025',
    Nomenclaturas: [
      entry('84', 'Reatores nucleares, caldeiras, máquinas.'),
      entry('8413.70.10', '<i>Ex</i> Bombas centrífugas submersíveis'),
      entry('8413.70.90', 'Outras', '01/04/2022', '31/01/2026'),
      entry('8413.70.20', 'Novas', '01/02/2026'),
    ],
  });

  it('keeps a code in force between its dates only', () => {
    expect(table.inForce('84137010')).toBe(true);
    expect(table.inForce('84137090')).toBe(false);
    expect(table.inForce('84137090', '2026-01-31')).toBe(true);
    expect(table.inForce('84137020', '2026-01-31')).toBe(false);
    expect(table.inForce('84137020')).toBe(true);
    expect(table.entry('8413.70.10')?.description).toBe('Ex Bombas centrífugas submersíveis');
  });

  it('refuses a file that is not the table, naming the field', () => {
    expect(() => ncmTableOf({ Ato: 'x', Nomenclaturas: [] })).toThrow(/Data_Ultima_Atualizacao_NCM/);
    expect(() =>
      ncmTableOf({
        Data_Ultima_Atualizacao_NCM: 'x',
        Ato: 'x',
        Nomenclaturas: [entry('09', 'Café', '2026-01-01')],
      }),
    ).toThrow(/dd\/mm\/yyyy/);
  });
});
