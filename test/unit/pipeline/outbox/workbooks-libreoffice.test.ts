/**
 * results.xlsx and review.xlsx as a spreadsheet program shows them: the real workbooks opened by
 * LibreOffice headless (its own profile, en-US number formats) and saved as CSV (every sheet, cells
 * as shown), as PDF (as printed) and again as XLSX (a copy saved by LibreOffice), then compared
 * with what results.csv and review.csv say for the same records. LibreOffice comes from Debian's
 * packages (`.ci/run` installs it); pdftotext from poppler-utils.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, type Unzipped, unzipSync, zipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnswersFile } from '../../../../shared/pipeline/answers/answers-file.js';
import { planAnswers } from '../../../../shared/pipeline/answers/plan-answers.js';
import { daysLeft } from '../../../../shared/pipeline/core/records.js';
import {
  RESULT_COLUMNS,
  type ResultColumn,
  type RowResult,
} from '../../../../shared/pipeline/core/result-columns.js';
import { OUTPUT_STATUSES } from '../../../../shared/pipeline/core/row-statuses.js';
import { buildSummary } from '../../../../shared/pipeline/finalize/summary-tally.js';
import {
  buildResultsCsv,
  buildReviewCsv,
  resultsInputWidth,
} from '../../../../shared/pipeline/outbox/results-files.js';
import { resultsWorkbook } from '../../../../shared/pipeline/outbox/results-workbook.js';
import { reviewWorkbook } from '../../../../shared/pipeline/outbox/review-workbook.js';
import { WORKBOOK_WORDS } from '../../../../shared/pipeline/outbox/workbook-labels.js';
import { restoreNeutralisedField } from '../../../../shared/spreadsheet/write-csv.js';
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
  elementsNamed,
  partXml,
  sheetCells,
  unescapeXml,
  withInlineString,
  workbookSheets,
} from '../../../helpers/xlsx-xml.js';

// ---------------------------------------------------------------------------
// The records (in workbook-records.ts, as in workbooks.test.ts): one row of every output status
// ---------------------------------------------------------------------------

const DAY_MS = 86_400_000;
const WORDS = WORKBOOK_WORDS.pt;
const BATCH = workbookBatch();

/** LibreOffice counts the days left again from its own clock: deadlines are set from it. */
const CLOCK = Date.now();
const inDays = (days: number) => new Date(CLOCK + days * DAY_MS).toISOString();

const ITEMS = waitingItems([inDays(20.5), inDays(5.5), inDays(-2)]);
const ITEMS_BY_ID = new Map(ITEMS.map((item) => [item.classification_id, item]));

const ANSWERS: Record<string, string[]> = {
  [ITEMS[0]!.classification_id]: ['Junta, "O-ring"', 'Aço cromo; 52100 & <inox>'],
  [ITEMS[1]!.classification_id]: ['Latão', 'Não', '=vedação de água quente'],
};

// ---------------------------------------------------------------------------
// Reading a workbook's styles (the rest of its XML through xlsx-xml.ts, shared strings included:
// LibreOffice uses them)
// ---------------------------------------------------------------------------

/** Whether each cell style (cellXfs index) is locked. */
const lockedStyles = (files: Unzipped): boolean[] =>
  elementsNamed(elementsNamed(partXml(files, 'xl/styles.xml'), 'cellXfs')[0]!.inner, 'xf').map(
    ({ inner }) => {
      const locked = elementsNamed(inner, 'protection')[0]?.attributes.locked;
      return !(locked === '0' || locked === 'false');
    },
  );

// ---------------------------------------------------------------------------
// LibreOffice
// ---------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), 'workbooks-libreoffice-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every sheet (`-1`), UTF-8 (76), `,` and `"`, cells as shown (token 9). */
const CSV_AS_SHOWN = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1';

const soffice = (convertTo: string, outdir: string, inputs: string[]): void => {
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${join(work, 'profile')}`,
      '--headless',
      '--convert-to',
      convertTo,
      '--outdir',
      outdir,
      ...inputs,
    ],
    // The C locale, whatever the machine's: LibreOffice formats numbers as en-US (`97%`, `US$ 2.00`),
    // and UTF-8 file names keep `Opções` (a locale the system lacks would write `Op??es`); NOW() in UTC,
    // as the workbook's dates are.
    {
      stdio: 'pipe',
      timeout: 120_000,
      env: { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8', TZ: 'UTC' },
    },
  );
};

const readCsv = (path: string): string[][] =>
  Papa.parse<string[]>(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), {
    delimiter: ',',
    skipEmptyLines: true,
  }).data;

const pdfText = (path: string): string =>
  execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8', timeout: 60_000 });

const input = (name: string) => join(work, 'in', name);
const output = (kind: string, name: string) => join(work, kind, name);
/** The days left LibreOffice may have counted: the conversion ran between these two clocks. */
let clocks: { before: Date; after: Date };

beforeAll(async () => {
  mkdirSync(join(work, 'in'));
  const summary = buildSummary(BATCH, ROWS, NOW);
  const results = await streamBytes(resultsWorkbook({ batch: BATCH, rows: ROWS, summary }));
  const review = await streamBytes(
    reviewWorkbook({ batch: BATCH, items: ITEMS, sameProductRows: SAME_PRODUCT, at: NOW }),
  );
  writeFileSync(input('results.xlsx'), results);
  writeFileSync(input('review.xlsx'), review);

  // The same review.xlsx with answers typed in and a new sheet named.
  const files = unzipSync(review);
  const path = workbookSheets(files)[0]!.path;
  const header = reviewHeader(WORDS, 3);
  const cellFor = (name: string, index: number) => `${columnLetters(header.indexOf(name) + 1)}${index + 2}`;
  let xml = partXml(files, path);
  ITEMS.forEach((item, index) => {
    (ANSWERS[item.classification_id] ?? []).forEach((answer, n) => {
      xml = withInlineString(xml, cellFor(WORDS.review.answer(n + 1), index), answer);
    });
  });
  xml = withInlineString(xml, cellFor(WORDS.review.sheet, 1), 'fichas/valvula-9.pdf');
  writeFileSync(input('review-filled.xlsx'), zipSync({ ...files, [path]: strToU8(xml) }));

  const before = new Date();
  soffice(CSV_AS_SHOWN, join(work, 'csv'), [input('results.xlsx'), input('review.xlsx')]);
  soffice('pdf', join(work, 'pdf'), [input('results.xlsx'), input('review.xlsx')]);
  soffice('ods', join(work, 'ods'), [input('results.xlsx'), input('review.xlsx')]);
  soffice('xlsx:Calc MS Excel 2007 XML', join(work, 'xlsx'), [
    input('review.xlsx'),
    input('review-filled.xlsx'),
  ]);
  clocks = { before, after: new Date() };
}, 300_000);

// ---------------------------------------------------------------------------
// What the project's CSVs say, as a spreadsheet shows it
// ---------------------------------------------------------------------------

const parseProjectCsv = (bytes: Buffer): string[][] =>
  Papa.parse<string[]>(bytes.toString('utf8').replace(/^\uFEFF/, ''), {
    delimiter: ';',
    newline: '\r\n',
    skipEmptyLines: true,
  }).data;

const RATES: ReadonlySet<ResultColumn> = new Set([
  'import_duty_applicable',
  'statistical_rate',
  'aec',
  'export_duty',
  'export_refund',
]);
const CODED: ReadonlySet<ResultColumn> = new Set(['confidence_band', 'duty_kind', 'current_ncm_matches']);
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a workbook cannot hold
const NOT_IN_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;

/** A results.csv cell as the workbook's number format shows it (en-US). */
const shownResult = (column: ResultColumn | null, csv: string): string => {
  const text = restoreNeutralisedField(csv);
  if (column === null) return text.replace(NOT_IN_XML, '');
  if (text === '') return '';
  if (column === 'status') return WORDS.status[text as RowResult['status']];
  if (CODED.has(column)) return WORDS.values[text] ?? text;
  if (column === 'confidence') return `${Number(text).toFixed(0)}%`;
  if (RATES.has(column)) return `${Number(text).toFixed(2)}%`;
  if (column === 'cost_usd') return `US$ ${Number(text).toFixed(2)}`;
  return text;
};

const pad = (cells: readonly string[], length: number): string[] => [
  ...cells,
  ...Array<string>(Math.max(0, length - cells.length)).fill(''),
];

/** `2026-12-21T12:00:00.000Z` as `dd/mm/yyyy hh:mm` (pt), in UTC like the workbook. */
const shownDate = (iso: string): string => {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
};

// ---------------------------------------------------------------------------
// results.xlsx
// ---------------------------------------------------------------------------

describe('results.xlsx saved as CSV by LibreOffice shows the rows of results.csv, formatted', () => {
  const width = HEADER_PT.length + 1;
  const columnAt = (i: number): ResultColumn | null => (i < width ? null : RESULT_COLUMNS[i - width]!);
  const at = (column: ResultColumn) => width + RESULT_COLUMNS.indexOf(column);
  const [csvHeader, ...csvRows] = parseProjectCsv(buildResultsCsv(BATCH, ROWS));

  it('writes one CSV per sheet, the hidden ones included, named after the sheets', () => {
    expect(readCsv(output('csv', 'results-Resultados.csv')).length).toBe(ROWS.length + 1);
    expect(readCsv(output('csv', 'results-Resumo.csv')).length).toBeGreaterThan(OUTPUT_STATUSES.length);
  });

  it('shows the same header and, row by row, the values of results.csv as their formats show them', () => {
    const [header, ...rows] = readCsv(output('csv', 'results-Resultados.csv'));
    expect(header).toEqual(
      csvHeader!.map((name, i) => (i < width ? name : WORDS.results[name as ResultColumn])),
    );
    expect(rows).toHaveLength(csvRows.length);
    rows.forEach((row, index) => {
      const length = csvHeader!.length;
      expect(pad(row, length)).toEqual(
        pad(csvRows[index]!, length).map((cell, i) => shownResult(columnAt(i), cell)),
      );
    });
  });

  it('shows percentages, money and dotted NCMs as a person reads them, leading zeros intact', () => {
    const rows = readCsv(output('csv', 'results-Resultados.csv')).slice(1);
    expect(rows[0]![at('confidence')]).toBe('97%');
    expect(rows[0]![at('import_duty_applicable')]).toBe('10.00%');
    expect(rows[0]![at('statistical_rate')]).toBe('0.50%');
    expect(rows[0]![at('aec')]).toBe('12.60%');
    expect(rows[1]![at('export_refund')]).toBe('3.25%');
    expect(rows[0]![at('cost_usd')]).toBe('US$ 2.00');
    expect(rows[1]![at('cost_usd')]).toBe('US$ 0.00');
    expect(rows[0]![at('ncm')]).toBe('0901.21.00');
    expect(rows[0]![at('sim_code')]).toBe('0901.21.00.10');
    expect(rows[1]![at('ncm')]).toBe('0207.14.00');
    expect(rows[0]![HEADER_PT.indexOf('NCM atual')]).toBe('09012100');
    expect(rows.map((row) => row[1])).toContain('=SUM(A1:A9)');
  });

  it('shows the summary sheet’s counts, money and dates', () => {
    const lines = new Map<string, string>();
    for (const [label = '', value = ''] of readCsv(output('csv', 'results-Resumo.csv')))
      if (!lines.has(label)) lines.set(label, value);
    for (const status of OUTPUT_STATUSES) expect(lines.get(WORDS.status[status]), status).toBe('1');
    expect(lines.get(WORDS.summary.billed)).toBe('US$ 2.00');
    expect(lines.get(WORDS.summary.saved)).toBe('US$ 2.00');
    expect(lines.get(WORDS.summary.finishedAt)).toBe('21/11/2026 12:59');
    expect(lines.get(WORDS.summary.startedAt)).toBe(shownDate(BATCH.started_at));
    expect(lines.get(WORDS.summary.warnings)).toBe('A coluna "Observações" não foi lida');
  });

  it('prints the headers and the values in the PDF', () => {
    const text = pdfText(output('pdf', 'results.pdf'));
    for (const shown of [
      'Situação',
      'Confiança',
      'Custo (USD)',
      'Parecer (PDF)',
      'Resolvida',
      'Aguardando respostas',
      '0901.21.00',
      '09012100',
      '97%',
      '10.00%',
      'US$ 2.00',
      '=SUM(A1:A9)',
      'pdfs/00001-CAF-1.pdf',
      'Cobrado (USD)',
    ])
      expect(text, shown).toContain(shown);
  });
});

// ---------------------------------------------------------------------------
// review.xlsx
// ---------------------------------------------------------------------------

describe('review.xlsx saved as CSV and PDF by LibreOffice shows the questions of review.csv', () => {
  const [csvHeader, ...csvRows] = parseProjectCsv(
    buildReviewCsv(ITEMS, ';', { sameProductRows: SAME_PRODUCT }),
  );
  const csv = (row: string[], column: string) => row[csvHeader!.indexOf(column)] ?? '';

  it('has the questions sheet’s columns in the batch’s language', () => {
    expect(readCsv(output('csv', 'review-Perguntas.csv'))[0]).toEqual(reviewHeader(WORDS, 3));
  });

  it('shows, row by row, what review.csv says, with empty answers and the days left counted today', () => {
    const rows = readCsv(output('csv', 'review-Perguntas.csv')).slice(1);
    expect(rows).toHaveLength(ITEMS.length);
    rows.forEach((row, index) => {
      const source = csvRows[index]!;
      const confidence = csv(source, 'provisional_confidence');
      const abandons = csv(source, 'abandons_at');
      const days = Number(row[reviewHeader(WORDS, 3).indexOf(WORDS.review.days_left)]);
      expect([daysLeft(abandons, clocks.before), daysLeft(abandons, clocks.after)]).toContain(days);
      expect(pad(row, 20)).toEqual([
        csv(source, 'row'),
        csv(source, 'sku'),
        csv(source, 'external_reference'),
        restoreNeutralisedField(csv(source, 'description')),
        csv(source, 'classification_id'),
        csv(source, 'provisional_ncm'),
        confidence === '' ? '' : `${confidence}%`,
        ...[1, 2, 3].flatMap((n) => [
          csv(source, `question_${n}_id`),
          csv(source, `question_${n}_text`),
          csv(source, `answer_${n}`),
        ]),
        csv(source, 'sheet'),
        shownDate(abandons),
        String(days),
        csv(source, 'same_product_rows'),
      ]);
    });
    expect(rows.map((row) => row[6])).toEqual(['41%', '', '60%']);
    expect(rows[0]![5]).toBe('8482.10.10');
    expect(rows.map((row) => row[reviewHeader(WORDS, 3).indexOf(WORDS.review.days_left)])).toEqual([
      '20',
      '5',
      '0',
    ]);
  });

  it('keeps each question’s options on the hidden sheet, one question a line', () => {
    const options = readCsv(output('csv', 'review-Opções.csv'));
    const withOptions = ITEMS.flatMap((item) => item.questions.filter((q) => q.options.length > 0));
    expect(options.map((line) => line.filter((cell) => cell !== ''))).toEqual(
      withOptions.map((q) => q.options),
    );
  });

  it('prints the questions but neither the hidden question ids nor the hidden options', () => {
    const text = pdfText(output('pdf', 'review.pdf'));
    for (const shown of [
      'Pergunta 1',
      'Resposta 1',
      'Qual é o produto?',
      'Material do corpo?',
      ITEMS[0]!.classification_id,
      '8482.10.10',
      '41%',
      '=HYPERLINK("http://evil.example")',
    ])
      expect(text, shown).toContain(shown);
    expect(text).not.toContain('ID da pergunta');
    expect(text).not.toContain('Outro & similar');
  });
});

describe('review.xlsx saved again by LibreOffice keeps its drop-downs and is still read by the answers round', () => {
  const saved = (name: string) => unzipSync(readFileSync(output('xlsx', name)));
  const header = reviewHeader(WORDS, 3);
  const answerCell = (index: number, n: number) =>
    `${columnLetters(header.indexOf(WORDS.review.answer(n)) + 1)}${index + 2}`;

  it('keeps a list over the hidden sheet for every question with options, and the length rule elsewhere', () => {
    const files = saved('review.xlsx');
    const sheets = workbookSheets(files);
    expect(sheets.map((sheet) => [sheet.name, sheet.state])).toEqual([
      ['Perguntas', 'visible'],
      ['Opções', 'hidden'],
    ]);
    const sheet = partXml(files, sheets[0]!.path);
    const options = sheetCells(files, sheets[1]!.name);
    const validations = elementsNamed(sheet, 'dataValidation').map(({ attributes, inner }) => ({
      attributes,
      formula: unescapeXml(elementsNamed(inner, 'formula1')[0]?.inner ?? ''),
      cells: cellsCoveredBy(attributes.sqref ?? ''),
    }));
    ITEMS.forEach((item, index) => {
      item.questions.forEach((question, n) => {
        const [validation, ...more] = validations.filter((v) => v.cells.includes(answerCell(index, n + 1)));
        expect(more).toEqual([]);
        if (question.options.length === 0) {
          expect(validation?.attributes).toMatchObject({ type: 'textLength', operator: 'lessThanOrEqual' });
          expect(validation?.formula).toBe('500');
          return;
        }
        expect(validation?.attributes).toMatchObject({ type: 'list', errorStyle: 'warning' });
        const match = /^'?(.+?)'?!(\$?[A-Z]+\$?\d+:\$?[A-Z]+\$?\d+)$/.exec(validation!.formula);
        expect(match?.[1]).toBe('Opções');
        const range = cellsCoveredBy(match![2]!.replace(/\$/g, ''));
        expect(range.map((cell) => options.get(cell)?.text)).toEqual(question.options);
      });
    });
  });

  it('keeps the sheet protected without a password, the answer cells unlocked', () => {
    const files = saved('review.xlsx');
    const sheets = workbookSheets(files);
    const sheet = partXml(files, sheets[0]!.path);
    const protection = elementsNamed(sheet, 'sheetProtection')[0]?.attributes;
    expect(protection?.sheet).toMatch(/^(1|true)$/);
    for (const attribute of ['password', 'hashValue', 'saltValue'])
      expect(protection).not.toHaveProperty(attribute);
    const locked = lockedStyles(files);
    const cells = sheetCells(files, sheets[0]!.name);
    ITEMS.forEach((item, index) => {
      item.questions.forEach((_, n) => {
        expect(locked[cells.get(answerCell(index, n + 1))!.style], answerCell(index, n + 1)).toBe(false);
      });
      expect(locked[cells.get(`A${index + 2}`)!.style]).toBe(true);
    });
  });

  it('reads the untouched copy as rows waiting for answers', async () => {
    const file = await readAnswersFile(readFileSync(output('xlsx', 'review.xlsx')), 'review.xlsx');
    expect(file.rows.map((row) => [row.row, row.classification_id, row.answers, row.sheet])).toEqual(
      ITEMS.map((item) => [
        item.row,
        item.classification_id,
        item.questions.map((question, n) => ({ n: n + 1, question_id: question.id, answer: '' })),
        null,
      ]),
    );
  });

  it('resumes the rows answered before LibreOffice saved the copy, with exactly those answers', async () => {
    const file = await readAnswersFile(readFileSync(output('xlsx', 'review-filled.xlsx')), 'review.xlsx');
    const plan = planAnswers({ file, items: ITEMS_BY_ID, statusOf: () => 'pending_data' });
    expect(plan.report.map((entry) => [entry.row, entry.outcome])).toEqual([
      [3, 'resumed'],
      [9, 'resumed'],
      [12, 'skipped_unanswered'],
    ]);
    expect(
      Object.fromEntries(plan.resume.map((row) => [row.classification_id, row.answers.map((a) => a.answer)])),
    ).toEqual(ANSWERS);
    expect(plan.resume.map((row) => row.answers.map((a) => a.question_id))).toEqual([
      ['q1', 'q2'],
      ['mat', 'ros', 'uso'],
    ]);
    expect(plan.resume[1]!.sheet).toBe('fichas/valvula-9.pdf');
  });
});

describe('LibreOffice opens the verdict PDFs’ links', () => {
  it('keeps each verdict PDF a HYPERLINK to its pdfs/ path, showing the path, in the copy it saves', () => {
    const content = strFromU8(unzipSync(readFileSync(output('ods', 'results.ods')))['content.xml']!);
    const links = elementsNamed(content, 'table:table-cell')
      .map(({ attributes }) => attributes['table:formula'])
      .filter((formula) => formula !== undefined)
      .map((formula) => unescapeXml(formula));
    // The results sheet's two, then the divergence sheet's (row 2's declared NCM differs).
    expect(links).toEqual([
      'of:=HYPERLINK("pdfs/00001-CAF-1.pdf";"pdfs/00001-CAF-1.pdf")',
      'of:=HYPERLINK("pdfs/00002-CAF-2.pdf";"pdfs/00002-CAF-2.pdf")',
      'of:=HYPERLINK("pdfs/00002-CAF-2.pdf";"pdfs/00002-CAF-2.pdf")',
    ]);
  });
});

describe('LibreOffice opens the workbooks with their filters on', () => {
  it('shows the filter buttons over every row and column of both workbooks, each sheet of rows', () => {
    const ranges = (name: string) =>
      elementsNamed(
        strFromU8(unzipSync(readFileSync(output('ods', name)))['content.xml']!),
        'table:database-range',
      ).map(({ attributes }) => [
        attributes['table:target-range-address'],
        attributes['table:display-filter-buttons'],
      ]);
    // The input's columns (one row is longer than the header) and the results'.
    const resultsColumns = columnLetters(resultsInputWidth(BATCH, ROWS) + RESULT_COLUMNS.length);
    expect(ranges('results.ods')).toEqual([
      [`${WORDS.sheets.results}.A1:${WORDS.sheets.results}.${resultsColumns}${ROWS.length + 1}`, 'true'],
      // The divergence sheet's, from its header (under the note) to its one row.
      ["'Divergências de NCM'.A2:'Divergências de NCM'.T3", 'true'],
    ]);
    const review = ranges('review.ods');
    expect(review).toHaveLength(1);
    expect(review[0]?.[0]).toMatch(
      new RegExp(`^${WORDS.sheets.review}\\.A1:${WORDS.sheets.review}\\.[A-Z]+${ITEMS.length + 1}$`),
    );
    expect(review[0]?.[1]).toBe('true');
  });
});
