/**
 * review.xlsx's sheet of verdicts to check through LibreOffice: decisions put in its cells as the
 * drop-downs allow (a candidate's NCM and a SIM opening taken from their lists) and as typed (an
 * NCM not in the list, a note with accents and `&`), the workbook opened and saved again by
 * LibreOffice headless, then read back by the answers round's reader and planned. The NCM list
 * must not refuse a typed value in either program: its error alert is off before and after.
 * LibreOffice comes from Debian's packages (`.ci/run` installs it).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { carriedNcmTable } from '../../../../shared/ncm-table/carried-table.js';
import { readAnswersFile } from '../../../../shared/pipeline/answers/answers-file.js';
import { planDecisions } from '../../../../shared/pipeline/answers/plan-decisions.js';
import { reviewWorkbook } from '../../../../shared/pipeline/outbox/review-workbook.js';
import { checkItem } from '../../../helpers/check-items.js';
import { BATCH, classificationId } from '../../../helpers/records.js';
import { NOW, streamBytes, workbookBatch } from '../../../helpers/workbook-records.js';
import {
  elementsNamed,
  partXml,
  sheetCells,
  sheetNamed,
  sqrefCovers,
  unescapeXml,
  withInlineString,
  workbookSheets,
} from '../../../helpers/xlsx-xml.js';

const work = mkdtempSync(join(tmpdir(), 'check-sheet-libreoffice-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ITEMS = [
  checkItem(4),
  checkItem(9, {
    reasons: ['low_confidence', 'sim_pending_choice'],
    sim_options: [
      { code: '8471301200', description: 'Com tela sensível ao toque' },
      { code: '8471301201', description: 'Outros' },
    ],
  }),
  checkItem(12),
];
const NOTE = 'Conferido com o catálogo & a ficha técnica';

type Rule = { type: string; sqref: string; formula1: string | null; showErrorMessage: string | null };

/** The sheet's rules, and a cell's text by header and line, as a program that opens it sees them. */
const checkSheet = (bytes: Uint8Array) => {
  const parts = unzipSync(bytes);
  const sheet = sheetNamed(parts, 'Conferir');
  const cells = sheetCells(parts, 'Conferir');
  const letters = new Map<string, string>();
  for (const [reference, cell] of cells) {
    const match = /^([A-Z]+)1$/.exec(reference);
    if (match) letters.set(cell.text, match[1]!);
  }
  const rules: Rule[] = elementsNamed(partXml(parts, sheet.path), 'dataValidation').map(
    ({ attributes, inner }) => {
      const formula = elementsNamed(inner, 'formula1')[0]?.inner;
      return {
        type: attributes.type ?? 'none',
        sqref: attributes.sqref ?? '',
        formula1: formula === undefined ? null : unescapeXml(formula),
        showErrorMessage: attributes.showErrorMessage ?? null,
      };
    },
  );
  const at = (header: string, line: number) => {
    const letter = letters.get(header);
    if (!letter) throw new Error(`no column "${header}"`);
    return `${letter}${line}`;
  };
  return {
    parts,
    sheet,
    sheets: workbookSheets(parts).map(({ name, state }) => ({ name, state })),
    at,
    text: (header: string, line: number) => cells.get(at(header, line))?.text ?? '',
    rule: (reference: string) => rules.find((rule) => sqrefCovers(rule.sqref, reference)),
  };
};

/** A list written in its rule, `"a,b"`, as its options. */
const listOptions = (formula: string | null | undefined): string[] =>
  /^"(.*)"$/.exec(formula ?? '')?.[1]?.split(',') ?? [];

const alertOff = (rule: Rule | undefined) =>
  rule?.showErrorMessage === null || /^(0|false)$/.test(rule?.showErrorMessage ?? '');

describe("review.xlsx's sheet of verdicts to check through LibreOffice", () => {
  it('keeps the lists and the decisions chosen or typed, and the round reads them back', async () => {
    const original = new Uint8Array(
      await streamBytes(reviewWorkbook({ batch: workbookBatch(), items: [], checks: ITEMS, at: NOW })),
    );
    const sheet = checkSheet(original);
    const ncmList = listOptions(sheet.rule(sheet.at('NCM decidida', 2))?.formula1);
    const simList = listOptions(sheet.rule(sheet.at('Destaque SIM decidido', 3))?.formula1);
    expect(ncmList).toEqual(['8471.30.12', '8471.30.19']);
    expect(simList).toEqual(['8471.30.12.00', '8471.30.12.01']);
    expect(alertOff(sheet.rule(sheet.at('NCM decidida', 2)))).toBe(true);

    // Row 4: the second candidate from the list, with a note; row 9: the first candidate and the
    // last SIM opening from their lists; row 12: an NCM typed that is in no list (in force).
    let xml = partXml(sheet.parts, sheet.sheet.path);
    xml = withInlineString(xml, sheet.at('NCM decidida', 2), ncmList[1]!);
    xml = withInlineString(xml, sheet.at('Observação da decisão', 2), NOTE);
    xml = withInlineString(xml, sheet.at('NCM decidida', 3), ncmList[0]!);
    xml = withInlineString(xml, sheet.at('Destaque SIM decidido', 3), simList.at(-1)!);
    xml = withInlineString(xml, sheet.at('NCM decidida', 4), '8471.41.00');
    const filled = join(work, 'filled');
    mkdirSync(filled, { recursive: true });
    writeFileSync(join(filled, 'review.xlsx'), zipSync({ ...sheet.parts, [sheet.sheet.path]: strToU8(xml) }));

    execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${join(work, 'profile')}`,
        '--headless',
        '--convert-to',
        'xlsx:Calc MS Excel 2007 XML',
        '--outdir',
        join(work, 'saved'),
        join(filled, 'review.xlsx'),
      ],
      { stdio: 'pipe', timeout: 120_000 },
    );
    const savedBytes = new Uint8Array(readFileSync(join(work, 'saved', 'review.xlsx')));
    const saved = checkSheet(savedBytes);
    expect(partXml(saved.parts, 'docProps/app.xml')).toContain('LibreOffice');
    expect(saved.sheets).toEqual([
      { name: 'Perguntas', state: 'visible' },
      { name: 'Conferir', state: 'visible' },
      { name: 'Opções', state: 'hidden' },
    ]);
    // The lists as they were, the NCM's still without an alert: a typed NCM is kept.
    expect(listOptions(saved.rule(saved.at('NCM decidida', 2))?.formula1)).toEqual(ncmList);
    expect(listOptions(saved.rule(saved.at('Destaque SIM decidido', 3))?.formula1)).toEqual(simList);
    expect(alertOff(saved.rule(saved.at('NCM decidida', 4)))).toBe(true);
    expect(saved.text('NCM decidida', 4)).toBe('8471.41.00');
    expect(saved.text('Linha', 4)).toBe('12');

    const file = await readAnswersFile(savedBytes, 'review.xlsx');
    expect(file.problems).toEqual([]);
    expect(file.decisions).toEqual([
      { line: 2, row: 4, classification_id: classificationId(4), ncm: '8471.30.19', sim: '', note: NOTE },
      {
        line: 3,
        row: 9,
        classification_id: classificationId(9),
        ncm: '8471.30.12',
        sim: '8471.30.12.01',
        note: '',
      },
      { line: 4, row: 12, classification_id: classificationId(12), ncm: '8471.41.00', sim: '', note: '' },
    ]);
    const plan = planDecisions({
      lines: file.decisions ?? [],
      items: ITEMS,
      table: carriedNcmTable(),
      tableDate: '2026-07-05',
      roundId: `${BATCH}~lo`,
      by: 'ana.revisora',
    });
    expect(plan.report.map((entry) => entry.outcome)).toEqual(['decided', 'decided', 'decided']);
    expect(plan.decide.map((d) => [d.item.row, d.ncm, d.sim])).toEqual([
      [4, '84713019', null],
      [9, '84713012', '8471301201'],
      [12, '84714100', null],
    ]);
  }, 180_000);
});
