/**
 * The rules a sheet puts on the cells a person fills in (shared/spreadsheet/xlsx-rules.ts): runs of
 * neighbouring cells under the same rule become one range and nothing else does, the element
 * counts its rules and is left out when there are none, the texts a person reads survive the
 * XML (quotes, `&`, line breaks), and a protected sheet allows only what it names.
 */
import { describe, expect, it } from 'vitest';
import {
  type CellRule,
  columnRules,
  dataValidationsXml,
  type RangeRule,
  sheetProtectionXml,
} from '../../../shared/spreadsheet/xlsx-rules.js';
import { cellsCoveredBy, elementsNamed, unescapeXml } from '../../helpers/xlsx-xml.js';

const LIST: CellRule = { type: 'list', formula: '"8471.30.12,8471.30.19"' };
const OTHER_LIST: CellRule = { type: 'list', formula: "'Opções'!$A$2:$B$2" };
const LENGTH: CellRule = { type: 'textLength', operator: 'lessThanOrEqual', formula: '500' };

const ranges = (rules: Iterable<RangeRule>) => [...rules].map(({ sqref, rule }) => [sqref, rule.formula]);

describe('columnRules', () => {
  it('makes one range of a run of alike rules, and breaks it where a cell has none or another', () => {
    const rules = [LIST, LIST, { ...LIST }, null, LIST, OTHER_LIST, LENGTH, LENGTH];
    expect(ranges(columnRules('T', 2, rules))).toEqual([
      ['T2:T4', LIST.formula],
      ['T6', LIST.formula],
      ['T7', OTHER_LIST.formula],
      ['T8:T9', LENGTH.formula],
    ]);
  });

  it('covers every cell that has a rule exactly once, and no cell that has none', () => {
    const rules = Array.from({ length: 40 }, (_, i) => (i % 7 === 3 ? null : i % 5 < 2 ? LIST : LENGTH));
    const covered = [...columnRules('J', 2, rules)].flatMap(({ sqref, rule }) =>
      cellsCoveredBy(sqref).map((cell) => [cell, rule] as const),
    );
    const expected = rules.flatMap((rule, i) => (rule === null ? [] : [[`J${i + 2}`, rule] as const]));
    expect(covered).toEqual(expected);
  });

  it('has nothing for a column without rules', () => {
    expect([...columnRules('A', 2, [null, null])]).toEqual([]);
    expect([...columnRules('A', 2, [])]).toEqual([]);
  });
});

describe('dataValidationsXml', () => {
  it('writes nothing when there is no rule: an empty <dataValidations> is not allowed', () => {
    expect([...dataValidationsXml(() => [])]).toEqual([]);
  });

  it('counts its rules, reading them twice, and writes each over its range', () => {
    const rules: RangeRule[] = [
      { sqref: 'J2:J9', rule: LENGTH },
      { sqref: 'K3', rule: OTHER_LIST },
    ];
    let reads = 0;
    const xml = [
      ...dataValidationsXml(() => {
        reads += 1;
        return rules;
      }),
    ].join('');
    expect(reads).toBe(2);
    expect(elementsNamed(xml, 'dataValidations')[0]?.attributes.count).toBe('2');
    const written = elementsNamed(xml, 'dataValidation');
    expect(written.map(({ attributes }) => [attributes.sqref, attributes.type])).toEqual([
      ['J2:J9', 'textLength'],
      ['K3', 'list'],
    ]);
    expect(written[0]?.attributes).toMatchObject({ operator: 'lessThanOrEqual', allowBlank: '1' });
    expect(written.map(({ inner }) => unescapeXml(elementsNamed(inner, 'formula1')[0]!.inner))).toEqual([
      '500',
      "'Opções'!$A$2:$B$2",
    ]);
  });

  it('keeps the prompt and the alert as written, and leaves the alert off when a rule has none', () => {
    const prompt = { title: 'Resposta', text: 'Escolha "uma" & pronto\nou escreva <a sua>' };
    const xml = [
      ...dataValidationsXml(() => [
        {
          sqref: 'A2',
          rule: {
            ...LIST,
            prompt,
            alert: { style: 'warning', title: 'Fora da lista', text: 'Continuar?\tSim' },
          },
        },
        { sqref: 'B2', rule: { ...LIST, prompt } },
        { sqref: 'C2:C4', rule: { type: 'none', prompt: { text: 'Opcional' } } },
      ]),
    ].join('');
    const [alerted, silent, hint] = elementsNamed(xml, 'dataValidation');
    expect(alerted?.attributes).toMatchObject({
      showInputMessage: '1',
      promptTitle: 'Resposta',
      prompt: prompt.text,
      showErrorMessage: '1',
      errorStyle: 'warning',
      errorTitle: 'Fora da lista',
      error: 'Continuar?\tSim',
    });
    // A raw line break in an attribute would be read back as a space.
    expect(xml).not.toMatch(/="[^"]*\n/);
    expect(silent?.attributes).not.toHaveProperty('showErrorMessage');
    expect(silent?.attributes).not.toHaveProperty('errorStyle');
    // No type is "any value": only the hint.
    expect(hint?.attributes).not.toHaveProperty('type');
    expect(hint?.attributes).toMatchObject({ prompt: 'Opcional', sqref: 'C2:C4' });
    expect(elementsNamed(hint?.inner ?? '', 'formula1')).toEqual([]);
  });
});

describe('sheetProtectionXml', () => {
  it('protects without a password, allowing only what it names', () => {
    expect(sheetProtectionXml()).toBe('<sheetProtection sheet="1"/>');
    const allowing = elementsNamed(sheetProtectionXml(['formatColumns', 'autoFilter']), 'sheetProtection')[0];
    expect(allowing?.attributes).toEqual({ sheet: '1', formatColumns: '0', autoFilter: '0' });
  });
});
