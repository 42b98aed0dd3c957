/**
 * review.xlsx's sheet of verdicts to check and its twin to-check.csv: what they show of each
 * verdict waiting for a person, the decision cells (a list of the candidates' NCMs that still
 * takes one typed, a list of the SIM openings, a note), the rest locked; and the decisions put in
 * those cells read back by the answers round's reader, from the workbook and from the CSV.
 */
import { strToU8, unzipSync, zipSync } from 'fflate';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { readAnswersFile } from '../../../../shared/pipeline/answers/answers-file.js';
import type { CheckItem } from '../../../../shared/pipeline/core/check-records.js';
import { reviewWorkbook } from '../../../../shared/pipeline/outbox/review-workbook.js';
import {
  buildToCheckCsv,
  TO_CHECK_COLUMNS,
  writeToCheckCsv,
} from '../../../../shared/pipeline/outbox/to-check-files.js';
import { WORKBOOK_WORDS } from '../../../../shared/pipeline/outbox/workbook-labels.js';
import { checkItem } from '../../../helpers/check-items.js';
import { memoryObjectStore } from '../../../helpers/memory-ports.js';
import { BATCH, batchOptions, classificationId } from '../../../helpers/records.js';
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

const BATCH_ID = BATCH;

const ITEMS: CheckItem[] = [
  checkItem(4),
  checkItem(9, {
    reasons: ['low_confidence', 'sim_pending_choice'],
    sim_options: [
      { code: '8471301200', description: 'Com tela sensível ao toque' },
      { code: '8471301201', description: 'Outros' },
    ],
  }),
  // Decided already: on neither file.
  checkItem(11, {
    state: 'decided',
    decision: {
      ncm: '84713012',
      sim: null,
      note: '',
      by: 'ana',
      at: '2026-11-21T12:30:00.000Z',
      round_id: 'nightly-abc~x',
    },
  }),
];
const SAME_PRODUCT = new Map<number, readonly number[]>([[9, [10, 12]]]);
const WORDS = WORKBOOK_WORDS.pt;

const workbookWith = async (checks: readonly CheckItem[]) =>
  new Uint8Array(
    await streamBytes(
      reviewWorkbook({ batch: workbookBatch(), items: [], checks, sameProductRows: SAME_PRODUCT, at: NOW }),
    ),
  );

type Validation = { type: string; sqref: string; formula1: string | null; showErrorMessage: string | null };

const validationsOf = (xml: string): Validation[] =>
  elementsNamed(xml, 'dataValidation').map(({ attributes, inner }) => ({
    type: attributes.type ?? 'none',
    sqref: attributes.sqref ?? '',
    formula1: ((f) => (f === undefined ? null : unescapeXml(f)))(elementsNamed(inner, 'formula1')[0]?.inner),
    showErrorMessage: attributes.showErrorMessage ?? null,
  }));

describe("review.xlsx's sheet of verdicts to check", () => {
  it('comes after the questions, one row per verdict still to check, with the product, the candidates and the links', async () => {
    const bytes = await workbookWith(ITEMS);
    const parts = unzipSync(bytes);
    expect(workbookSheets(parts).map(({ name, state }) => ({ name, state }))).toEqual([
      { name: 'Perguntas', state: 'visible' },
      { name: 'Conferir', state: 'visible' },
      { name: 'Opções', state: 'hidden' },
    ]);
    const cells = sheetCells(parts, 'Conferir');
    const headers = new Map<string, string>();
    for (const [reference, cell] of cells) {
      const match = /^([A-Z]+)1$/.exec(reference);
      if (match) headers.set(cell.text, match[1]!);
    }
    const at = (header: string, line: number) => {
      const letter = headers.get(header);
      if (!letter) throw new Error(`no column "${header}" in ${[...headers.keys()].join(', ')}`);
      return cells.get(`${letter}${line}`)?.text ?? '';
    };
    expect([2, 3].map((line) => at('Linha', line))).toEqual(['4', '9']);
    expect(cells.has('A4')).toBe(false);
    expect(at('Por que conferir', 3)).toBe('Confiança abaixo de 90%; Destaque SIM a escolher');
    expect(at('NCM do serviço', 2)).toBe('8471.30.12');
    expect(at('Candidato 2: NCM', 2)).toBe('8471.30.19');
    expect(at('Candidato 1: justificativa', 2)).toBe('Tela de 14 polegadas; bateria própria.');
    expect(at('Destaques SIM', 3)).toBe('8471.30.12.00 Com tela sensível ao toque\n8471.30.12.01 Outros');
    expect(at('Linhas do mesmo produto', 3)).toBe('10 12');
    // The verdict PDF opens from the workbook, as results.xlsx's does.
    const pdf = cells.get(`${headers.get('Parecer (PDF)')}2`);
    expect(pdf?.text).toBe('pdfs/4-verdict.pdf');
    expect(pdf?.formula).toBe('HYPERLINK("pdfs/4-verdict.pdf","pdfs/4-verdict.pdf")');

    const validations = validationsOf(partXml(parts, sheetNamed(parts, 'Conferir').path));
    const ruleAt = (reference: string) => validations.find((rule) => sqrefCovers(rule.sqref, reference));
    const ncmCell = `${headers.get('NCM decidida')}2`;
    // The candidates as a list that does not refuse a typed NCM.
    expect(ruleAt(ncmCell)).toMatchObject({ type: 'list', formula1: '"8471.30.12,8471.30.19"' });
    expect(ruleAt(ncmCell)?.showErrorMessage ?? '0').toMatch(/^(0|false)$/);
    expect(ruleAt(`${headers.get('Destaque SIM decidido')}3`)).toMatchObject({
      type: 'list',
      formula1: '"8471.30.12.00,8471.30.12.01"',
      showErrorMessage: '1',
    });
    // No openings to choose on row 4: no list there.
    expect(ruleAt(`${headers.get('Destaque SIM decidido')}2`)).toBeUndefined();
    expect(WORDS.check.sheet).toBe('Conferir');
  });

  it('speaks the batch’s language, and reads back in it: Spanish and English headers', async () => {
    for (const [language, name, ncmHeader, rowHeader] of [
      ['es', 'Revisar', 'NCM decidida', 'Fila'],
      ['en', 'To check', 'Decided NCM', 'Row'],
    ] as const) {
      const batch = workbookBatch({ options: batchOptions({ language }) });
      const parts = unzipSync(
        await streamBytes(reviewWorkbook({ batch, items: [], checks: ITEMS, at: NOW })),
      );
      expect(workbookSheets(parts).map((sheet) => sheet.name)).toContain(name);
      const cells = sheetCells(parts, name);
      const letter = (header: string) =>
        [...cells]
          .find(([reference, cell]) => /^[A-Z]+1$/.test(reference) && cell.text === header)![0]
          .replace('1', '');
      expect(cells.get(`${letter(rowHeader)}2`)?.text).toBe('4');
      const sheet = sheetNamed(parts, name);
      const xml = withInlineString(partXml(parts, sheet.path), `${letter(ncmHeader)}2`, '8471.30.19');
      const file = await readAnswersFile(zipSync({ ...parts, [sheet.path]: strToU8(xml) }), 'review.xlsx');
      expect(
        file.decisions?.map((line) => [line.row, line.ncm]),
        language,
      ).toEqual([
        [4, '8471.30.19'],
        [9, ''],
      ]);
    }
  });

  it('is left out when nothing waits to be checked', async () => {
    const parts = unzipSync(await workbookWith([ITEMS[2]!]));
    expect(workbookSheets(parts).map((sheet) => sheet.name)).toEqual(['Perguntas', 'Opções']);
  });

  it('reads back the decisions put in its cells: a candidate chosen, an NCM typed, a SIM chosen, a note', async () => {
    const bytes = await workbookWith(ITEMS);
    const parts = unzipSync(bytes);
    const sheet = sheetNamed(parts, 'Conferir');
    const cells = sheetCells(parts, 'Conferir');
    const letter = (header: string) =>
      [...cells]
        .find(([reference, cell]) => /^[A-Z]+1$/.test(reference) && cell.text === header)![0]
        .replace('1', '');
    let xml = partXml(parts, sheet.path);
    xml = withInlineString(xml, `${letter('NCM decidida')}2`, '8471.30.19');
    xml = withInlineString(
      xml,
      `${letter('Observação da decisão')}2`,
      'Sem tela tátil; conferido com o catálogo',
    );
    xml = withInlineString(xml, `${letter('NCM decidida')}3`, '84713012');
    xml = withInlineString(xml, `${letter('Destaque SIM decidido')}3`, '8471.30.12.01');
    const filled = zipSync({ ...parts, [sheet.path]: strToU8(xml) });

    const file = await readAnswersFile(filled, 'review.xlsx');
    expect(file.rows).toEqual([]);
    expect(file.decisions).toEqual([
      {
        line: 2,
        row: 4,
        classification_id: classificationId(4),
        ncm: '8471.30.19',
        sim: '',
        note: 'Sem tela tátil; conferido com o catálogo',
      },
      {
        line: 3,
        row: 9,
        classification_id: classificationId(9),
        ncm: '84713012',
        sim: '8471.30.12.01',
        note: '',
      },
    ]);
    // Our own sheets are not sheets the user added: nothing said of them.
    expect(file.problems).toEqual([]);
  });
});

describe('to-check.csv', () => {
  const table = (bytes: Buffer) =>
    Papa.parse<string[]>(bytes.toString('utf8').replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data;

  it('lists the same verdicts under stable column names, the decision columns empty', () => {
    const [header, ...rows] = table(buildToCheckCsv(ITEMS, ',', SAME_PRODUCT));
    expect(header).toEqual(TO_CHECK_COLUMNS);
    const cell = (row: string[] | undefined, name: string) => row?.[header!.indexOf(name)];
    expect(rows.map((row) => cell(row, 'row'))).toEqual(['4', '9']);
    expect(cell(rows[1], 'reasons')).toBe('low_confidence sim_pending_choice');
    expect(cell(rows[0], 'candidate_2_ncm')).toBe('8471.30.19');
    expect(cell(rows[0], 'candidate_3_ncm')).toBe('');
    expect(cell(rows[1], 'sim_options')).toBe(
      '8471.30.12.00 Com tela sensível ao toque | 8471.30.12.01 Outros',
    );
    expect(cell(rows[1], 'same_product_rows')).toBe('10 12');
    expect(rows.map((row) => cell(row, 'decision_ncm'))).toEqual(['', '']);
  });

  it("reads back as decisions, filled with Excel's separator or as the console writes just the needed columns", async () => {
    const [header, ...rows] = table(buildToCheckCsv(ITEMS, ',', SAME_PRODUCT));
    rows[0]![header!.indexOf('decision_ncm')] = '84713019';
    const text = [header, ...rows]
      .map((row) => row!.map((c) => `"${c.replace(/"/g, '""')}"`).join(';'))
      .join('\r\n');
    const file = await readAnswersFile(new TextEncoder().encode(text), 'to-check.csv');
    expect(file.delimiter).toBe(';');
    expect(file.decisions?.map((line) => [line.row, line.ncm])).toEqual([
      [4, '84713019'],
      [9, ''],
    ]);

    const console = `row,classification_id,decision_ncm,decision_sim,decision_note\r\n9,${classificationId(9)},8471.30.12,8471301200,ok\r\n`;
    const minimal = await readAnswersFile(new TextEncoder().encode(console), 'decisions-1.csv');
    expect(minimal.decisions).toEqual([
      {
        line: 2,
        row: 9,
        classification_id: classificationId(9),
        ncm: '8471.30.12',
        sim: '8471301200',
        note: 'ok',
      },
    ]);
    await expect(
      readAnswersFile(new TextEncoder().encode('row,decision_ncm\r\n9,84713012\r\n'), 'decisions-2.csv'),
    ).rejects.toThrow(/decisions-2\.csv: the decisions file has no "classification_id" column/);
  });

  it('is written only when there is something to check, and emptied once an earlier one is all decided', async () => {
    const objects = memoryObjectStore();
    const key = `outbox/${BATCH_ID}/to-check.csv`;
    const files = { delimiter: ',' as const, sameProductRows: SAME_PRODUCT };
    await writeToCheckCsv(objects, BATCH_ID, { ...files, items: [ITEMS[2]!] });
    expect(objects.objects.has(key)).toBe(false);
    await writeToCheckCsv(objects, BATCH_ID, { ...files, items: ITEMS });
    expect(table(Buffer.from(objects.objects.get(key)!.bytes))).toHaveLength(3);
    await writeToCheckCsv(objects, BATCH_ID, { ...files, items: [ITEMS[2]!] });
    expect(table(Buffer.from(objects.objects.get(key)!.bytes))).toEqual([TO_CHECK_COLUMNS]);
  });
});
