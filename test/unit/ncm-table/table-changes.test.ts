/**
 * What a newer table says of a code no longer in force: ended, or replaced/split into the codes in
 * force under its subitem (7 digits), else its subheading (6). Tables built here as Siscomex
 * publishes them.
 */
import { describe, expect, it } from 'vitest';
import { ncmTableOf } from '../../../shared/ncm-table/siscomex-table.js';
import { codeChangeOf } from '../../../shared/ncm-table/table-changes.js';
import { siscomexEntry, siscomexTable } from '../../helpers/siscomex-table.js';

const entry = (code: string, description: string, ends = '31/12/9999') =>
  siscomexEntry(code, description, { starts: '01/07/2022', ends });

const table = ncmTableOf(
  siscomexTable('01/07/2022', 'Resolução Gecex nº 321/2022', [
    entry('15', 'Gorduras e óleos animais, vegetais ou de origem microbiana'),
    entry('15.13', 'Óleos de coco, de amêndoa de palma ou de babaçu'),
    entry('1513.2', '- Óleos de amêndoa de palma ou de babaçu, e respetivas frações:'),
    entry('1513.21', '-- Óleos em bruto'),
    entry('1513.21.11', 'De amêndoa de palma'),
    entry('1513.21.19', 'Outros'),
    entry('1513.29', '-- Outros'),
    entry('1513.29.10', 'Óleo de amêndoa de palma'),
    entry('1513.29.20', 'Óleo de babaçu, refinado', '30/06/2022'),
    entry('1513.29.90', 'Outros'),
    entry('73', 'Obras de ferro fundido, ferro ou aço'),
    entry('7318.15.00', '-- Outros parafusos e pinos ou pernos, mesmo com as porcas e arruelas'),
  ]),
);

describe('what a newer table says of a code', () => {
  it('a code it holds in force is in force', () => {
    expect(codeChangeOf(table, '1513.21.11')).toEqual({ kind: 'in_force' });
  });

  it('a code split within its subitem is split into the codes in force under its 7 digits', () => {
    const change = codeChangeOf(table, '1513.21.10');
    expect(change.kind).toBe('split');
    expect(change.kind === 'split' && change.by.map((e) => [e.dotted, e.description])).toEqual([
      ['1513.21.11', 'De amêndoa de palma'],
      ['1513.21.19', 'Outros'],
    ]);
    expect(change.kind === 'split' && change.under).toBe('1513211');
  });

  it('with nothing under its 7 digits, the codes in force under its subheading; an ended one not among them', () => {
    const change = codeChangeOf(table, '15132930');
    expect(change).toMatchObject({ kind: 'split', under: '151329' });
    expect(change.kind === 'split' && change.by.map((e) => e.code)).toEqual(['15132910', '15132990']);
  });

  it('one code in its place is a replacement', () => {
    expect(codeChangeOf(table, '7318.15.90')).toMatchObject({
      kind: 'replaced',
      under: '731815',
      by: [expect.objectContaining({ dotted: '7318.15.00' })],
    });
  });

  it('a code with nothing in force under its subheading has ended', () => {
    expect(codeChangeOf(table, '7318.16.00')).toEqual({ kind: 'ended' });
    expect(codeChangeOf(table, '9999.99.99')).toEqual({ kind: 'ended' });
  });
});
