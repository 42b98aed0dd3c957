/**
 * results.xlsx and review.xlsx as bytes: the real output (both from the project's own writer,
 * without a library), unzipped and read back by the project's own readers
 * (readXlsxRecords, readAnswersFile) and by looking at the sheet XML, then compared with what
 * results.csv and review.csv say for the same records.
 */
import { strToU8, type Unzipped, unzipSync, zipSync } from 'fflate';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { readAnswersFile } from '../../../../shared/pipeline/answers/answers-file.js';
import { planAnswers } from '../../../../shared/pipeline/answers/plan-answers.js';
import { type BatchRecord, daysLeft } from '../../../../shared/pipeline/core/records.js';
import {
  RESULT_COLUMNS,
  type ResultColumn,
  type RowResult,
} from '../../../../shared/pipeline/core/result-columns.js';
import { OUTPUT_STATUSES } from '../../../../shared/pipeline/core/row-statuses.js';
import { buildSummary } from '../../../../shared/pipeline/finalize/summary-tally.js';
import { buildResultsCsv } from '../../../../shared/pipeline/outbox/results-files.js';
import { resultsWorkbook } from '../../../../shared/pipeline/outbox/results-workbook.js';
import { reviewWorkbook } from '../../../../shared/pipeline/outbox/review-workbook.js';
import { WORKBOOK_WORDS, type WorkbookWords } from '../../../../shared/pipeline/outbox/workbook-labels.js';
import { wordsForBatch, workbookLanguage } from '../../../../shared/pipeline/outbox/workbook-language.js';
import { readXlsxRecords } from '../../../../shared/spreadsheet/read-xlsx.js';
import { restoreNeutralisedField } from '../../../../shared/spreadsheet/write-csv.js';
import { formatXlsxNumber } from '../../../../shared/spreadsheet/xlsx-cells.js';
import { PRICE_PER_RESOLVED_USD } from '../../../../shared/tcs/schemas.js';
import { batchOptions, classificationId, reviewItem } from '../../../helpers/records.js';
import {
  HEADER_PT,
  NOW,
  ROWS,
  reviewHeader,
  SAME_PRODUCT,
  streamBytes,
  waitingItems,
  workbookBatch,
} from '../../../helpers/workbook-records.js';
import {
  cellsCoveredBy,
  columnLetters,
  columnNumber,
  elementsNamed,
  partXml,
  rowNumber,
  sheetCells,
  sheetXml,
  unescapeXml,
  withInlineString,
  workbookSheets,
} from '../../../helpers/xlsx-xml.js';

// ---------------------------------------------------------------------------
// The records (in workbook-records.ts): one row of every output status, formula-looking
// descriptions, a control character
// ---------------------------------------------------------------------------

const HEADER_EN = ['SKU', 'Description', 'Operation', 'Country', 'Current NCM', 'Notes'];

const ITEMS = waitingItems([
  '2026-12-21T12:00:00.000Z',
  '2026-12-01T08:30:00.000Z',
  '2026-11-22T12:00:00.000Z',
]);

const resultsBytes = (given: BatchRecord, rows = ROWS) =>
  streamBytes(resultsWorkbook({ batch: given, rows, summary: buildSummary(given, rows, NOW) }));

const reviewBytes = (given: BatchRecord, items = ITEMS) =>
  streamBytes(reviewWorkbook({ batch: given, items, sameProductRows: SAME_PRODUCT, at: NOW }));

// ---------------------------------------------------------------------------
// Reading the styles of a workbook (its XML read by xlsx-xml.ts)
// ---------------------------------------------------------------------------

const BUILT_IN_FORMATS: Record<number, string> = { 0: 'General', 9: '0%', 10: '0.00%' };

type CellStyle = { numFmt: string; locked: boolean; fill: string | undefined };

/** cellXfs by index: the number format, whether the cell is locked, its solid fill colour. */
const cellStyles = (files: Unzipped): CellStyle[] => {
  const styles = partXml(files, 'xl/styles.xml');
  const formats = new Map(
    elementsNamed(styles, 'numFmt').map(({ attributes }) => [
      Number(attributes.numFmtId),
      attributes.formatCode!,
    ]),
  );
  const fills = elementsNamed(elementsNamed(styles, 'fills')[0]!.inner, 'fill').map(
    ({ inner }) => elementsNamed(inner, 'fgColor')[0]?.attributes.rgb,
  );
  return elementsNamed(elementsNamed(styles, 'cellXfs')[0]!.inner, 'xf').map(({ attributes, inner }) => {
    const id = Number(attributes.numFmtId ?? 0);
    const locked = elementsNamed(inner, 'protection')[0]?.attributes.locked;
    return {
      numFmt: formats.get(id) ?? BUILT_IN_FORMATS[id] ?? `#${id}`,
      locked: !(locked === '0' || locked === 'false'),
      fill: fills[Number(attributes.fillId ?? 0)],
    };
  });
};

// ---------------------------------------------------------------------------
// What results.csv says, as the workbook shows it
// ---------------------------------------------------------------------------

const parseCsv = (bytes: Buffer): string[][] => {
  const text = bytes.toString('utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  return Papa.parse<string[]>(text.slice(1), { delimiter: ';', newline: '\r\n', skipEmptyLines: true }).data;
};

const PERCENT: ReadonlySet<ResultColumn> = new Set([
  'confidence',
  'import_duty_applicable',
  'statistical_rate',
  'aec',
  'export_duty',
  'export_refund',
]);
const NUMBERS: ReadonlySet<ResultColumn> = new Set(['row', 'cost_usd']);
const CODED: ReadonlySet<ResultColumn> = new Set(['confidence_band', 'duty_kind', 'current_ncm_matches']);

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a workbook cannot hold
const NOT_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;

/** A number's meaning, compared as text without float noise: `2.00` and `2` are the same. */
const numberText = (text: string): string => (text === '' ? '' : formatXlsxNumber(Number(text)));

/** A results.csv cell, as the workbook should hold it (read by readXlsxRecords), for comparing. */
const csvMeaning = (column: ResultColumn | null, csv: string, words: WorkbookWords): string => {
  const text = restoreNeutralisedField(csv);
  if (column === null) return text.replace(NOT_IN_XML, '');
  if (column === 'status') return words.status[text as RowResult['status']];
  if (CODED.has(column)) return text === '' ? '' : (words.values[text] ?? text);
  if (PERCENT.has(column) || NUMBERS.has(column)) return numberText(text);
  return text;
};

/** A workbook cell read back, with percentages turned back into the service's units (×100). */
const workbookMeaning = (column: ResultColumn | null, cell: string): string => {
  if (column !== null && PERCENT.has(column)) return cell === '' ? '' : formatXlsxNumber(Number(cell) * 100);
  if (column !== null && NUMBERS.has(column)) return numberText(cell);
  return cell;
};

const padded = (cells: readonly string[], length: number): string[] => [
  ...cells,
  ...Array<string>(Math.max(0, length - cells.length)).fill(''),
];

// ---------------------------------------------------------------------------
// results.xlsx
// ---------------------------------------------------------------------------

describe('results.xlsx holds the rows and values of results.csv, read back by the project’s XLSX reader', async () => {
  const given = workbookBatch();
  const words = WORKBOOK_WORDS.pt;
  const bytes = await resultsBytes(given);
  const read = await readXlsxRecords(bytes, 'results.xlsx');
  const [header, ...records] = read.records.map((record) => record.cells);
  const csv = parseCsv(buildResultsCsv(given, ROWS));
  const [csvHeader, ...csvRows] = csv;
  const width = 7; // six headers, and the unnamed column of row 7's extra cell
  const columnAt = (i: number): ResultColumn | null => (i < width ? null : RESULT_COLUMNS[i - width]!);
  const at = (column: ResultColumn) => width + RESULT_COLUMNS.indexOf(column);
  const byRow = (n: number) => records[n - 1]!;

  it('names the input columns as the input did, then the result columns in the batch’s language', () => {
    expect(header).toEqual([...HEADER_PT, '', ...RESULT_COLUMNS.map((column) => words.results[column])]);
    expect(csvHeader).toEqual([...HEADER_PT, '', ...RESULT_COLUMNS]);
    expect(header).toEqual(
      csvHeader!.map((name, i) => (i < width ? name : words.results[name as ResultColumn])),
    );
  });

  it('has one record per row, in row order, with the same values as results.csv', () => {
    expect(records).toHaveLength(ROWS.length);
    expect(csvRows).toHaveLength(ROWS.length);
    records.forEach((record, index) => {
      const length = csvHeader!.length;
      expect(padded(record, length).map((cell, i) => workbookMeaning(columnAt(i), cell))).toEqual(
        padded(csvRows[index]!, length).map((cell, i) => csvMeaning(columnAt(i), cell, words)),
      );
    });
  });

  it('words statuses and coded values, and writes percentages and money as numbers', () => {
    expect(records.map((record) => record[at('status')])).toEqual([
      'Resolvida',
      'Reaproveitada',
      'Aguardando respostas',
      'Falhou',
      'Rejeitada',
      'Não enviada',
      'Erro',
      'Abandonada',
    ]);
    const resolved = byRow(1);
    expect(resolved[at('confidence')]).toBe('0.97');
    expect(resolved[at('confidence_band')]).toBe('Alta');
    expect(resolved[at('duty_kind')]).toBe('Extrazona');
    expect(resolved[at('current_ncm_matches')]).toBe('Sim');
    expect(resolved[at('import_duty_applicable')]).toBe('0.1');
    expect(resolved[at('statistical_rate')]).toBe('0.005');
    expect(resolved[at('aec')]).toBe('0.126');
    expect(resolved[at('cost_usd')]).toBe('2');
    expect(byRow(2)[at('current_ncm_matches')]).toBe('Não');
    expect(byRow(2)[at('confidence_band')]).toBe('Média');
  });

  it('keeps NCM and SIM codes as the dotted text of the CSV, leading zeros included', () => {
    expect(byRow(1)[at('ncm')]).toBe('0901.21.00');
    expect(byRow(1)[at('sim_code')]).toBe('0901.21.00.10');
    expect(byRow(2)[at('ncm')]).toBe('0207.14.00');
    expect(csvRows[0]![at('ncm')]).toBe('0901.21.00');
    // The input's own NCM cell stays text too: its leading zero is not lost.
    expect(byRow(1)[HEADER_PT.indexOf('NCM atual')]).toBe('09012100');
  });

  it('shows formula-looking input as the text it is, and drops the control character results.csv keeps', () => {
    const descriptions = records.map((record) => record[HEADER_PT.indexOf('Descrição')]);
    expect(descriptions.slice(1, 6)).toEqual([
      '=SUM(A1:A9)',
      '+55 caixa de rolamentos sortidos',
      '-desconto especial no parafuso',
      '@cmd|calc',
      'Parafuso sextavado M8 de aço inox',
    ]);
    expect(csvRows[1]![1]).toBe("'=SUM(A1:A9)");
    expect(csvRows[5]![1]).toBe('Parafuso\u0007 sextavado M8 de aço inox');
    expect(byRow(7)[6]).toBe('célula extra');
  });

  const files = unzipSync(bytes);
  const sheets = workbookSheets(files);
  const sheet = sheetXml(files, words.sheets.results);
  const cells = sheetCells(files, words.sheets.results);
  const styles = cellStyles(files);
  const ref = (column: ResultColumn | number, row: number) =>
    `${columnLetters(typeof column === 'number' ? column + 1 : at(column) + 1)}${row + 1}`;

  it('names its three sheets in the batch’s language, results first', () => {
    expect(sheets.map((entry) => [entry.name, entry.state])).toEqual([
      ['Resultados', 'visible'],
      ['Resumo', 'visible'],
      ['Divergências de NCM', 'visible'],
    ]);
  });

  it('writes formula-looking text as string cells; the only formulas are the verdict PDFs’ links', () => {
    for (const row of [2, 3, 4, 5]) {
      const cell = cells.get(ref(1, row))!;
      expect(cell.text).toMatch(/^[=+\-@]/);
      expect(['str', 'inlineStr', 's']).toContain(cell.type);
      expect(cell.formula).toBeUndefined();
    }
    const formulas = [...cells].filter(([, cell]) => cell.formula !== undefined);
    expect(formulas.map(([at]) => columnNumber(at))).toEqual([
      columnNumber(ref('verdict_pdf', 1)),
      columnNumber(ref('verdict_pdf', 1)),
    ]);
    for (const [, cell] of formulas)
      expect(cell.formula).toMatch(/^HYPERLINK\("pdfs\/[\w.-]+\.pdf","pdfs\/[\w.-]+\.pdf"\)$/);
    expect(elementsNamed(sheet, 'f')).toHaveLength(2);
  });

  it('freezes the header row and puts an autofilter over every row and column', () => {
    const pane = elementsNamed(sheet, 'pane')[0]?.attributes;
    expect(pane).toMatchObject({ state: 'frozen', ySplit: '1', topLeftCell: 'A2' });
    const filter = elementsNamed(sheet, 'autoFilter')[0]?.attributes;
    expect(filter?.ref).toBe(`A1:${columnLetters(header!.length)}${ROWS.length + 1}`);
  });

  it('makes each column as wide as its longest text, up to 60 characters', () => {
    const widths = new Map<number, number>();
    for (const { attributes } of elementsNamed(sheet, 'col'))
      for (let c = Number(attributes.min); c <= Number(attributes.max); c += 1)
        widths.set(c, Number(attributes.width));
    // `Café torrado em grãos, pacote de 1 kg`: 37 characters, and 2 to spare.
    expect(widths.get(2)).toBe(39);
    // The pending row's detail is longer than 60: wrapped or read in the cell, not on screen.
    expect(widths.get(at('detail') + 1)).toBe(60);
    for (const width of widths.values()) {
      expect(width).toBeGreaterThanOrEqual(6);
      expect(width).toBeLessThanOrEqual(60);
    }
  });

  it('links each verdict PDF to its pdfs/ path, and nothing else: the app URL stays text, a javascript: one too', () => {
    // A HYPERLINK formula showing the path, not a cell hyperlink: the sheet keeps no relationship per row.
    const links = new Map(
      [...cells]
        .filter(([, cell]) => cell.formula !== undefined)
        .map(([at, cell]) => [at, /^HYPERLINK\("([^"]+)","([^"]+)"\)$/.exec(cell.formula!)] as const),
    );
    const linksIn = (column: ResultColumn) =>
      [...links]
        .filter(([at]) => columnNumber(at) === columnNumber(ref(column, 1)))
        .sort(([a], [b]) => rowNumber(a) - rowNumber(b))
        .map(([, match]) => match?.[1]);
    expect(linksIn('verdict_pdf')).toEqual(['pdfs/00001-CAF-1.pdf', 'pdfs/00002-CAF-2.pdf']);
    expect(linksIn('app_url')).toEqual([]);
    expect(links.size).toBe(2);
    for (const [at, match] of links) {
      // The link shows its path: the value every program reads without calculating.
      expect(match?.[2]).toBe(match?.[1]);
      expect(cells.get(at)?.text).toBe(match?.[1]);
      expect(cells.get(at)?.type).toBe('str');
    }
    expect(files['xl/worksheets/_rels/sheet1.xml.rels']).toBeUndefined();
    expect(elementsNamed(sheet, 'hyperlink')).toEqual([]);
    expect(cells.get(ref('app_url', 1))?.text).toBe(
      `https://app.example.com/classifications/${classificationId(1)}`,
    );
    expect(cells.get(ref('app_url', 8))?.text).toBe('javascript:alert(1)');
    expect(byRow(8)[at('app_url')]).toBe('javascript:alert(1)');
  });

  it('formats confidence as 0%, rates as 0.00% and cost as US$, and colours the status cells', () => {
    const format = (column: ResultColumn, row: number) => styles[cells.get(ref(column, row))!.style]!.numFmt;
    expect(format('confidence', 1)).toBe('0%');
    for (const column of ['import_duty_applicable', 'statistical_rate', 'aec'] as const)
      expect(format(column, 1)).toBe('0.00%');
    expect(format('cost_usd', 1)).toBe('"US$" #,##0.00');
    expect(format('export_refund', 2)).toBe('0.00%');
    // Numbers, not text that looks like one: no `t` (a number is the default type).
    for (const column of ['row', 'confidence', 'aec', 'cost_usd'] as const)
      expect(cells.get(ref(column, 1))?.type, column).toBeUndefined();
    // The dotted NCM is a string written in its cell, as every text of the workbook is.
    expect(cells.get(ref('ncm', 1))?.type).toBe('inlineStr');
    const fill = (row: number) => styles[cells.get(ref('status', row))!.style]!.fill;
    expect(fill(1)).toBe('FFC6EFCE');
    expect(fill(4)).toBe('FFFFC7CE');
    expect(fill(3)).toBe('FFFFEB9C');
  });

  it('has a summary sheet with the count of every status, what was billed and saved, and the warnings', () => {
    const summary = buildSummary(given, ROWS, NOW);
    const summaryCells = sheetCells(files, words.sheets.summary);
    const lines = new Map<string, string>();
    for (let row = 2; summaryCells.has(`A${row}`); row += 1) {
      const label = summaryCells.get(`A${row}`)!.text;
      if (!lines.has(label)) lines.set(label, summaryCells.get(`B${row}`)?.text ?? '');
    }
    expect(summaryCells.get('A1')?.text).toBe('Item');
    for (const status of OUTPUT_STATUSES) {
      expect(lines.get(words.status[status]), status).toBe(String(summary.by_status[status]));
      expect(summary.by_status[status], status).toBe(1);
    }
    expect(lines.get(words.summary.rowsTotal)).toBe('8');
    expect(Number(lines.get(words.summary.billed))).toBe(2);
    expect(Number(lines.get(words.summary.saved))).toBe(PRICE_PER_RESOLVED_USD);
    expect(lines.get(words.summary.mismatches)).toBe('1');
    expect(lines.get(words.summary.warnings)).toBe('A coluna "Observações" não foi lida');
    expect(lines.get(words.summary.problems)).toBe(words.summary.none);
    expect(lines.get(words.summary.state)).toBe('Concluído');
  });
});

// ---------------------------------------------------------------------------
// review.xlsx
// ---------------------------------------------------------------------------

const ITEMS_BY_ID = new Map(ITEMS.map((item) => [item.classification_id, item]));

describe('review.xlsx is read back by the answers round in each of its languages', () => {
  for (const language of ['pt', 'es', 'en'] as const) {
    it(`finds its columns in the ${language} workbook, with every question id and every answer empty`, async () => {
      const given = workbookBatch({ options: batchOptions({ language }) });
      const bytes = await reviewBytes(given);
      const words = WORKBOOK_WORDS[language];

      const records = (await readXlsxRecords(bytes, 'review.xlsx')).records;
      expect(records[0]!.cells).toEqual(reviewHeader(words, 3));
      expect(records[1]!.cells.slice(0, 7)).toEqual([
        '3',
        'ROL-3',
        '',
        '+55 caixa de rolamentos sortidos',
        ITEMS[0]!.classification_id,
        '8482.10.10',
        '0.41',
      ]);

      const file = await readAnswersFile(bytes, 'review.xlsx');
      expect(file.format).toBe('xlsx');
      expect(file.rows).toEqual(
        ITEMS.map((item, index) => ({
          line: index + 2,
          row: item.row,
          classification_id: item.classification_id,
          answers: item.questions.map((question, n) => ({ n: n + 1, question_id: question.id, answer: '' })),
          sheet: null,
        })),
      );
      const plan = planAnswers({ file, items: ITEMS_BY_ID, statusOf: () => 'pending_data' });
      expect(plan.resume).toEqual([]);
      expect(plan.report.map((entry) => entry.outcome)).toEqual([
        'skipped_unanswered',
        'skipped_unanswered',
        'skipped_unanswered',
      ]);
    });
  }
});

describe('review.xlsx guides each answer cell and protects everything else', async () => {
  const words = WORKBOOK_WORDS.pt;
  const bytes = await reviewBytes(workbookBatch());
  const files = unzipSync(bytes);
  const sheets = workbookSheets(files);
  const sheet = sheetXml(files, words.sheets.review);
  const cells = sheetCells(files, words.sheets.review);
  const options = sheetCells(files, words.sheets.options);
  const styles = cellStyles(files);
  const header = reviewHeader(words, 3);
  const column = (name: string) => header.indexOf(name) + 1;
  const answerCell = (item: number, n: number) =>
    `${columnLetters(column(words.review.answer(n)))}${item + 2}`;
  const validations = elementsNamed(sheet, 'dataValidation').map(({ attributes, inner }) => ({
    attributes,
    formula: unescapeXml(elementsNamed(inner, 'formula1')[0]?.inner ?? ''),
    cells: cellsCoveredBy(attributes.sqref ?? ''),
  }));
  const validationOf = (cell: string) => validations.filter((validation) => validation.cells.includes(cell));

  it('puts the questions first and its options on a hidden sheet after them', () => {
    expect(sheets.map((entry) => [entry.name, entry.state])).toEqual([
      ['Perguntas', 'visible'],
      ['Opções', 'hidden'],
    ]);
  });

  it('offers each question’s options, and exactly them, as a list over the hidden sheet, with a warning', () => {
    let lists = 0;
    ITEMS.forEach((item, index) => {
      item.questions.forEach((question, n) => {
        if (question.options.length === 0) return;
        lists += 1;
        const [validation, ...more] = validationOf(answerCell(index, n + 1));
        expect(more).toEqual([]);
        expect(validation?.attributes).toMatchObject({
          type: 'list',
          errorStyle: 'warning',
          allowBlank: '1',
        });
        const match = /^'((?:[^']|'')+)'!(\$?[A-Z]+\$?\d+:\$?[A-Z]+\$?\d+)$/.exec(validation!.formula);
        expect(match, validation!.formula).not.toBeNull();
        expect(match![1]!.replace(/''/g, "'")).toBe(words.sheets.options);
        const range = cellsCoveredBy(match![2]!.replace(/\$/g, ''));
        expect(range.map((cell) => options.get(cell)?.text)).toEqual(question.options);
        // Nothing else on that line of the hidden sheet.
        const line = rowNumber(range[0]!);
        expect([...options.keys()].filter((cell) => rowNumber(cell) === line)).toEqual(range);
      });
    });
    expect(lists).toBe(4);
  });

  it('takes free text of up to 500 characters where a question has no options, and refuses longer', () => {
    for (const [index, n] of [
      [0, 2],
      [1, 3],
    ] as const) {
      const [validation, ...more] = validationOf(answerCell(index, n));
      expect(more).toEqual([]);
      expect(validation?.attributes).toMatchObject({
        type: 'textLength',
        operator: 'lessThanOrEqual',
        errorStyle: 'stop',
      });
      expect(validation?.formula).toBe('500');
    }
  });

  it('leaves the answer cells of questions a row does not have without a rule, and locked', () => {
    for (const [index, n] of [
      [0, 3],
      [2, 2],
      [2, 3],
    ] as const) {
      const cell = answerCell(index, n);
      expect(validationOf(cell)).toEqual([]);
      expect(styles[cells.get(cell)?.style ?? 0]!.locked).toBe(true);
    }
  });

  it('unlocks the answer cells and the new-sheet cells, and only them', () => {
    const unlocked = [...cells]
      .filter(([, cell]) => !styles[cell.style]!.locked)
      .map(([at]) => at)
      .sort();
    const expected = [
      ...ITEMS.flatMap((item, index) => item.questions.map((_, n) => answerCell(index, n + 1))),
      ...ITEMS.map((_, index) => `${columnLetters(column(words.review.sheet))}${index + 2}`),
    ].sort();
    expect(unlocked).toEqual(expected);
  });

  it('protects the sheet without a password', () => {
    const protection = elementsNamed(sheet, 'sheetProtection');
    expect(protection).toHaveLength(1);
    expect(protection[0]!.attributes.sheet).toBe('1');
    for (const attribute of ['password', 'hashValue', 'saltValue', 'spinCount', 'algorithmName'])
      expect(protection[0]!.attributes).not.toHaveProperty(attribute);
  });

  it('hides the question id columns, and only them', () => {
    const hidden = elementsNamed(sheet, 'col')
      .filter(({ attributes }) => attributes.hidden === '1' || attributes.hidden === 'true')
      .flatMap(({ attributes }) =>
        Array.from(
          { length: Number(attributes.max) - Number(attributes.min) + 1 },
          (_, i) => Number(attributes.min) + i,
        ),
      );
    expect(hidden).toEqual([1, 2, 3].map((n) => column(words.review.questionId(n))));
  });

  it('counts the days left with a formula over the abandon date, its result written for today', () => {
    const abandons = columnLetters(column(words.review.abandons_at));
    const days = columnLetters(column(words.review.days_left));
    ITEMS.forEach((item, index) => {
      const line = index + 2;
      const cell = cells.get(`${days}${line}`)!;
      expect(cell.formula).toBe(`MAX(0,INT(${abandons}${line}-NOW()))`);
      expect(Number(cell.text)).toBe(daysLeft(item.abandons_at, NOW));
      expect(styles[cells.get(`${abandons}${line}`)!.style]!.numFmt).toBe(words.dateFormat);
    });
    expect([...cells.values()].filter((cell) => cell.formula !== undefined)).toHaveLength(ITEMS.length);
    expect(daysLeft(ITEMS[0]!.abandons_at, NOW)).toBe(29);
    // The description that looks like a formula is a string.
    expect(cells.get(`${columnLetters(column(words.review.description))}3`)).toMatchObject({
      text: '=HYPERLINK("http://evil.example")',
      formula: undefined,
    });
  });
});

// ---------------------------------------------------------------------------
// Answers typed into review.xlsx
// ---------------------------------------------------------------------------

describe('answers typed into review.xlsx resume their classifications with exactly those answers', async () => {
  const words = WORKBOOK_WORDS.pt;
  const bytes = await reviewBytes(workbookBatch());
  const files = unzipSync(bytes);
  const path = workbookSheets(files)[0]!.path;
  const header = reviewHeader(words, 3);
  const cellFor = (name: string, item: number) => `${columnLetters(header.indexOf(name) + 1)}${item + 2}`;
  const ANSWERS: Record<string, string[]> = {
    [ITEMS[0]!.classification_id]: ['Junta, "O-ring"', '  Aço cromo; 52100 & <inox> '],
    [ITEMS[1]!.classification_id]: ['Latão', 'Não', '=vedação de água quente'],
  };
  let xml = partXml(files, path);
  ITEMS.forEach((item, index) => {
    (ANSWERS[item.classification_id] ?? []).forEach((answer, n) => {
      xml = withInlineString(xml, cellFor(words.review.answer(n + 1), index), answer);
    });
  });
  xml = withInlineString(xml, cellFor(words.review.sheet, 1), 'fichas/valvula-9.pdf');
  const filled = zipSync({ ...files, [path]: strToU8(xml) });

  it('reads the typed answers and the new sheet back from the cells they were typed in', async () => {
    const file = await readAnswersFile(filled, 'review.xlsx');
    expect(file.rows.map((row) => [row.row, row.answers.map((a) => a.answer), row.sheet])).toEqual([
      [3, ['Junta, "O-ring"', 'Aço cromo; 52100 & <inox>'], null],
      [9, ['Latão', 'Não', '=vedação de água quente'], 'fichas/valvula-9.pdf'],
      [12, [''], null],
    ]);
  });

  it('plans the answered rows to resume with their question ids, and leaves the unanswered one waiting', async () => {
    const file = await readAnswersFile(filled, 'review.xlsx');
    const plan = planAnswers({ file, items: ITEMS_BY_ID, statusOf: () => 'pending_data' });
    expect(plan.report.map((entry) => [entry.row, entry.outcome])).toEqual([
      [3, 'resumed'],
      [9, 'resumed'],
      [12, 'skipped_unanswered'],
    ]);
    expect(plan.resume.map((row) => [row.classification_id, row.row, row.answers, row.sheet])).toEqual([
      [
        ITEMS[0]!.classification_id,
        3,
        [
          { question_id: 'q1', answer: 'Junta, "O-ring"' },
          { question_id: 'q2', answer: 'Aço cromo; 52100 & <inox>' },
        ],
        null,
      ],
      [
        ITEMS[1]!.classification_id,
        9,
        [
          { question_id: 'mat', answer: 'Latão' },
          { question_id: 'ros', answer: 'Não' },
          { question_id: 'uso', answer: '=vedação de água quente' },
        ],
        'fichas/valvula-9.pdf',
      ],
    ]);
  });
});

// ---------------------------------------------------------------------------
// Language
// ---------------------------------------------------------------------------

describe('the workbooks speak the batch’s language: its option first, else its headers’', () => {
  it('takes the language option over the headers', () => {
    expect(workbookLanguage(workbookBatch())).toBe('pt');
    expect(workbookLanguage(workbookBatch({ options: batchOptions({ language: 'es' }) }))).toBe('es');
    expect(workbookLanguage(workbookBatch({ header: HEADER_EN }))).toBe('en');
    expect(
      workbookLanguage(workbookBatch({ header: HEADER_EN, options: batchOptions({ language: 'pt' }) })),
    ).toBe('pt');
    expect(wordsForBatch(workbookBatch({ header: ['SKU', 'NCM'] }))).toBe(WORKBOOK_WORDS.en);
  });

  it('labels both workbooks in Spanish when the option says es, though the headers are Portuguese', async () => {
    const given = workbookBatch({ options: batchOptions({ language: 'es' }) });
    const results = await resultsBytes(given);
    const [header, first] = (await readXlsxRecords(results, 'results.xlsx')).records.map((r) => r.cells);
    expect(header).toEqual([...HEADER_PT, '', ...RESULT_COLUMNS.map((c) => WORKBOOK_WORDS.es.results[c])]);
    expect(header).toContain('Derecho de importación aplicable');
    expect(first![7 + RESULT_COLUMNS.indexOf('status')]).toBe('Resuelta');
    expect(first![7 + RESULT_COLUMNS.indexOf('duty_kind')]).toBe('Extrazona');
    expect(first![7 + RESULT_COLUMNS.indexOf('current_ncm_matches')]).toBe('Sí');
    expect(workbookSheets(unzipSync(results)).map((sheet) => sheet.name)).toEqual([
      'Resultados',
      'Resumen',
      'Divergencias de NCM',
    ]);
    const review = unzipSync(await reviewBytes(given));
    expect(workbookSheets(review).map((sheet) => sheet.name)).toEqual(['Preguntas', 'Opciones']);
    const formulas = elementsNamed(sheetXml(review, 'Preguntas'), 'formula1').map(({ inner }) =>
      unescapeXml(inner),
    );
    expect(formulas).toContain("'Opciones'!$A$1:$C$1");
  });

  it('labels both workbooks in English when the headers are English', async () => {
    const given = workbookBatch({ header: HEADER_EN });
    const results = await resultsBytes(given);
    const [header, first] = (await readXlsxRecords(results, 'results.xlsx')).records.map((r) => r.cells);
    expect(header!.slice(7, 10)).toEqual(['Row', 'Status', 'Reason']);
    expect(first![7 + RESULT_COLUMNS.indexOf('status')]).toBe('Resolved');
    expect(first![7 + RESULT_COLUMNS.indexOf('confidence_band')]).toBe('High');
    expect(workbookSheets(unzipSync(results)).map((sheet) => sheet.name)).toEqual([
      'Results',
      'Summary',
      'NCM divergences',
    ]);
    const review = await reviewBytes(given);
    expect(workbookSheets(unzipSync(review)).map((sheet) => sheet.name)).toEqual(['Questions', 'Options']);
    const records = (await readXlsxRecords(review, 'review.xlsx')).records;
    expect(records[0]!.cells.slice(0, 8)).toEqual([
      'Row',
      'SKU',
      'External reference',
      'Description',
      'Classification ID',
      'Provisional NCM',
      'Provisional confidence',
      'Question 1 ID',
    ]);
  });
});

describe('review.xlsx of many waiting products', async () => {
  // Alike rules on neighbouring rows: where a writer that sorts addresses as text (J10 before J2)
  // would merge them into overlapping ranges.
  const many = Array.from({ length: 14 }, (_, i) =>
    reviewItem(i + 1, {
      sku: `P-${i + 1}`,
      questions: [
        { id: 'q1', text: 'Qual é o produto?', options: ['Rolamento', 'Junta'] },
        { id: 'q2', text: 'De que material?', options: [] },
      ],
    }),
  );
  const words = WORKBOOK_WORDS.pt;
  const files = unzipSync(await reviewBytes(workbookBatch(), many));
  const sheet = sheetXml(files, words.sheets.review);
  const header = reviewHeader(words, 2);
  const covering = (cell: string) =>
    elementsNamed(sheet, 'dataValidation').filter(({ attributes }) =>
      cellsCoveredBy(attributes.sqref ?? '').includes(cell),
    );

  it('gives every answer cell exactly one rule, and no two rules a cell in common', () => {
    for (let row = 2; row <= many.length + 1; row++) {
      for (const n of [1, 2]) {
        const rules = covering(`${columnLetters(header.indexOf(words.review.answer(n)) + 1)}${row}`);
        expect(rules.map(({ attributes }) => attributes.type)).toEqual([n === 1 ? 'list' : 'textLength']);
      }
    }
    const all = elementsNamed(sheet, 'dataValidation').flatMap(({ attributes }) =>
      cellsCoveredBy(attributes.sqref ?? ''),
    );
    expect(new Set(all).size).toBe(all.length);
  });
});
