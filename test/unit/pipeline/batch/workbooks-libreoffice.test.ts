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
import { planAnswers, readAnswersFile } from '../../../../shared/pipeline/answers/index.js';
import {
  buildResultsCsv,
  buildReviewCsv,
  buildSummary,
  daysLeft,
  resultsInputWidth,
  resultsWorkbook,
  reviewWorkbook,
  WORKBOOK_WORDS,
} from '../../../../shared/pipeline/batch/index.js';
import {
  type BatchRecord,
  OUTPUT_STATUSES,
  RESULT_COLUMNS,
  type ResultColumn,
  type ReviewItem,
  type RowRecord,
  type RowResult,
} from '../../../../shared/pipeline/core/index.js';
import { restoreNeutralisedField } from '../../../../shared/spreadsheet/write-csv.js';
import { batchRecord, classificationId, reviewItem, rowRecord } from '../../../helpers/records.js';

// ---------------------------------------------------------------------------
// The records (as in workbooks.test.ts): one row of every output status
// ---------------------------------------------------------------------------

const NOW = new Date('2026-11-21T13:00:00.000Z');
const DAY_MS = 86_400_000;
const HEADER_PT = ['SKU', 'Descrição', 'Operação', 'País', 'NCM atual', 'Observações'];
const WORDS = WORKBOOK_WORDS.pt;

const BATCH: BatchRecord = batchRecord({
  header: HEADER_PT,
  delimiter: ';',
  state: 'completed',
  rows_total: 8,
  rows_dispatched: 6,
  finished_at: '2026-11-21T12:59:00.000Z',
  warnings: ['A coluna "Observações" não foi lida'],
});

const done = (n: number, cells: string[], result: RowResult): RowRecord =>
  rowRecord(n, { cells, status: result.status, result });

const ROWS: RowRecord[] = [
  // Out of order on purpose: both files list rows by number.
  done(2, ['CAF-2', '=SUM(A1:A9)', 'importação', 'BR', '02071400', ''], {
    status: 'reused',
    classification_id: classificationId(2),
    title: 'Frango congelado',
    ncm: '0207.14.00',
    confidence: '88',
    confidence_band: 'medium',
    export_duty: '5',
    export_refund: '3.25',
    verdict_pdf: 'pdfs/00002-CAF-2.pdf',
    current_ncm_matches: 'no',
    cost_usd: '0.00',
  }),
  done(1, ['CAF-1', 'Café torrado em grãos, pacote de 1 kg', 'importação', 'BR', '09012100', 'ok'], {
    status: 'resolved',
    classification_id: classificationId(1),
    app_url: `https://app.example.com/classifications/${classificationId(1)}`,
    title: 'Café torrado',
    ncm: '0901.21.00',
    ncm_description: 'Café torrado, não descafeinado, em grão',
    sim_code: '0901.21.00.10',
    confidence: '97',
    confidence_band: 'high',
    alternatives: '0901.22.00 (12%); 2101.11.10 (4%)',
    import_duty_applicable: '10',
    duty_kind: 'extrazone',
    statistical_rate: '0.5',
    aec: '12.6',
    tariff_source: 'TEC (Resolução Gecex 272/2021)',
    verdict_pdf: 'pdfs/00001-CAF-1.pdf',
    current_ncm_matches: 'yes',
    cost_usd: '2.00',
  }),
  done(3, ['ROL-3', '+55 caixa de rolamentos sortidos', 'importação', 'BR', '', ''], {
    status: 'pending_data',
    detail:
      'awaiting answers to 2 questions (see review.csv); provisional proposal 8482.10.10 (41%), not a verdict',
    classification_id: classificationId(3),
    app_url: `https://app.example.com/classifications/${classificationId(3)}`,
    questions: 'Qual é o produto? (Rolamento / Junta) | De que material é feito?',
    cost_usd: '0.00',
  }),
  done(4, ['PAR-4', '-desconto especial no parafuso', 'exportação', 'AR', '', ''], {
    status: 'failed',
    reason: 'insufficient_information',
    detail: 'the service could not classify the product (insufficient_information); not billed',
    classification_id: classificationId(4),
    cost_usd: '0.00',
  }),
  done(5, ['@cmd', '@cmd|calc', '', '', '', ''], {
    status: 'rejected',
    reason: 'description_too_short',
    detail: 'Column "Descrição" has 9 characters.',
  }),
  done(6, ['PAR-6', 'Parafuso\u0007 sextavado M8 de aço inox', 'importação', 'BR', '', ''], {
    status: 'not_submitted',
    reason: 'budget_exceeded',
    detail: 'the batch budget of US$ 10.00 was reached before this row',
  }),
  // A row longer than the header: its extra cell gets an unnamed column.
  done(7, ['PAR-7', 'Porca sextavada M8', 'importação', 'BR', '', '', 'célula extra'], {
    status: 'error',
    reason: 'internal_error',
    detail: '-1: the row could not be processed',
  }),
  done(8, ['ROL-8', 'Rolamento de esferas blindado 6204', 'importação', 'BR', '84821010', ''], {
    status: 'abandoned',
    classification_id: classificationId(8),
    // Not a link anyone should be able to click: shown as text.
    app_url: 'javascript:alert(1)',
    detail: 'the questions were not answered within 30 days; not billed',
    cost_usd: '0.00',
  }),
];

/** LibreOffice counts the days left again from its own clock: deadlines are set from it. */
const CLOCK = Date.now();
const inDays = (days: number) => new Date(CLOCK + days * DAY_MS).toISOString();

const ITEMS: ReviewItem[] = [
  reviewItem(3, {
    sku: 'ROL-3',
    description: '+55 caixa de rolamentos sortidos',
    questions: [
      {
        id: 'q1',
        text: 'Qual é o produto?',
        options: ['Rolamento de esferas', 'Junta, "O-ring"', 'Outro & similar'],
      },
      { id: 'q2', text: 'De que material é feito?', options: [] },
    ],
    provisional_ncm: '84821010',
    provisional_confidence: 41,
    abandons_at: inDays(20.5),
  }),
  reviewItem(9, {
    sku: 'VAL-9',
    external_reference: 'PED-2026/117',
    description: '=HYPERLINK("http://evil.example")',
    questions: [
      { id: 'mat', text: 'Material do corpo?', options: ['Aço', 'Latão'] },
      { id: 'ros', text: 'É roscada?', options: ['Sim', 'Não'] },
      { id: 'uso', text: 'Para que serve?', options: [] },
    ],
    provisional_ncm: null,
    provisional_confidence: null,
    abandons_at: inDays(5.5),
  }),
  reviewItem(12, {
    sku: 'JUN-12',
    description: 'Junta de vedação',
    questions: [{ id: 'q1', text: 'Qual a aplicação?', options: ['Automotiva', 'Industrial'] }],
    provisional_confidence: 60,
    abandons_at: inDays(-2),
  }),
];
const ITEMS_BY_ID = new Map(ITEMS.map((item) => [item.classification_id, item]));
const SAME_PRODUCT = new Map<number, readonly number[]>([[3, [5, 7]]]);

const ANSWERS: Record<string, string[]> = {
  [ITEMS[0]!.classification_id]: ['Junta, "O-ring"', 'Aço cromo; 52100 & <inox>'],
  [ITEMS[1]!.classification_id]: ['Latão', 'Não', '=vedação de água quente'],
};

const streamBytes = async (stream: NodeJS.ReadableStream): Promise<Uint8Array> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
};

// ---------------------------------------------------------------------------
// Reading the XML of a workbook (as in workbooks.test.ts, with shared strings: LibreOffice uses them)
// ---------------------------------------------------------------------------

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) =>
    name.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (ENTITIES[name] ?? whole),
  );
const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const attributesOf = (tag: string): Record<string, string> =>
  Object.fromEntries(
    [...tag.matchAll(/([\w:.-]+)="([^"]*)"/g)].map(([, key, value]) => [key!, unescapeXml(value!)]),
  );
const elements = (xml: string, name: string): { attributes: Record<string, string>; inner: string }[] =>
  [...xml.matchAll(new RegExp(`<${name}\\b([^>]*?)(?:/>|>([\\s\\S]*?)</${name}>)`, 'g'))].map((match) => ({
    attributes: attributesOf(match[1] ?? ''),
    inner: match[2] ?? '',
  }));

const letters = (column: number): string => {
  let text = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26))
    text = String.fromCharCode(65 + ((rest - 1) % 26)) + text;
  return text;
};
const columnOf = (reference: string): number =>
  [...reference.replace(/[$\d]/g, '')].reduce((n, letter) => n * 26 + letter.charCodeAt(0) - 64, 0);
const rowOf = (reference: string): number => Number(reference.replace(/[^\d]/g, ''));
const cellsIn = (sqref: string): string[] =>
  sqref.split(/\s+/).flatMap((range) => {
    const [from, to = from] = range.split(':') as [string, string?];
    const cells: string[] = [];
    for (let column = columnOf(from); column <= columnOf(to!); column += 1)
      for (let row = rowOf(from); row <= rowOf(to!); row += 1) cells.push(`${letters(column)}${row}`);
    return cells;
  });

const xmlOf = (files: Unzipped, path: string): string => {
  const part = files[path];
  if (!part) throw new Error(`no part ${path} in the workbook: ${Object.keys(files).join(', ')}`);
  return strFromU8(part);
};

const sheetsOf = (files: Unzipped): { name: string; state: string; path: string }[] => {
  const targets = new Map(
    elements(xmlOf(files, 'xl/_rels/workbook.xml.rels'), 'Relationship').map(({ attributes }) => [
      attributes.Id!,
      attributes.Target!,
    ]),
  );
  return elements(xmlOf(files, 'xl/workbook.xml'), 'sheet').map(({ attributes }) => {
    const target = targets.get(attributes['r:id']!)!;
    return {
      name: attributes.name!,
      state: attributes.state ?? 'visible',
      path: target.startsWith('/') ? target.slice(1) : `xl/${target}`,
    };
  });
};

/** Every cell's text by reference; shared strings resolved. */
const sheetTexts = (files: Unzipped, path: string): Map<string, { text: string; style: number }> => {
  const strings = files['xl/sharedStrings.xml']
    ? elements(xmlOf(files, 'xl/sharedStrings.xml'), 'si').map(({ inner }) =>
        elements(inner, 't')
          .map(({ inner: t }) => unescapeXml(t))
          .join(''),
      )
    : [];
  return new Map(
    elements(xmlOf(files, path), 'c').map(({ attributes, inner }) => {
      const value = elements(inner, 'v')[0]?.inner;
      const text =
        attributes.t === 's'
          ? (strings[Number(value)] ?? '')
          : attributes.t === 'inlineStr'
            ? elements(inner, 't')
                .map(({ inner: t }) => unescapeXml(t))
                .join('')
            : unescapeXml(value ?? '');
      return [attributes.r!, { text, style: Number(attributes.s ?? 0) }];
    }),
  );
};

/** Whether each cell style (cellXfs index) is locked. */
const lockedStyles = (files: Unzipped): boolean[] =>
  elements(elements(xmlOf(files, 'xl/styles.xml'), 'cellXfs')[0]!.inner, 'xf').map(({ inner }) => {
    const locked = elements(inner, 'protection')[0]?.attributes.locked;
    return !(locked === '0' || locked === 'false');
  });

const fillCell = (xml: string, cell: string, text: string): string => {
  const pattern = new RegExp(`<c r="${cell}"([^>]*?)(?:/>|></c>)`);
  if (!pattern.test(xml)) throw new Error(`no empty cell ${cell} in the sheet`);
  return xml.replace(
    pattern,
    (_, attributes: string) =>
      `<c r="${cell}"${attributes.replace(/\s+t="[^"]*"/, '')} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`,
  );
};

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
  const path = sheetsOf(files)[0]!.path;
  const header = reviewHeader(3);
  const cellFor = (name: string, index: number) => `${letters(header.indexOf(name) + 1)}${index + 2}`;
  let xml = xmlOf(files, path);
  ITEMS.forEach((item, index) => {
    (ANSWERS[item.classification_id] ?? []).forEach((answer, n) => {
      xml = fillCell(xml, cellFor(WORDS.review.answer(n + 1), index), answer);
    });
  });
  xml = fillCell(xml, cellFor(WORDS.review.sheet, 1), 'fichas/valvula-9.pdf');
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

const reviewHeader = (groups: number): string[] => {
  const r = WORDS.review;
  return [
    r.row,
    r.sku,
    r.external_reference,
    r.description,
    r.classification_id,
    r.provisional_ncm,
    r.provisional_confidence,
    ...Array.from({ length: groups }, (_, i) => [
      r.questionId(i + 1),
      r.question(i + 1),
      r.answer(i + 1),
    ]).flat(),
    r.sheet,
    r.abandons_at,
    r.days_left,
    r.same_product_rows,
  ];
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
    expect(readCsv(output('csv', 'review-Perguntas.csv'))[0]).toEqual(reviewHeader(3));
  });

  it('shows, row by row, what review.csv says, with empty answers and the days left counted today', () => {
    const rows = readCsv(output('csv', 'review-Perguntas.csv')).slice(1);
    expect(rows).toHaveLength(ITEMS.length);
    rows.forEach((row, index) => {
      const source = csvRows[index]!;
      const confidence = csv(source, 'provisional_confidence');
      const abandons = csv(source, 'abandons_at');
      const days = Number(row[reviewHeader(3).indexOf(WORDS.review.days_left)]);
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
    expect(rows.map((row) => row[reviewHeader(3).indexOf(WORDS.review.days_left)])).toEqual(['20', '5', '0']);
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
  const header = reviewHeader(3);
  const answerCell = (index: number, n: number) =>
    `${letters(header.indexOf(WORDS.review.answer(n)) + 1)}${index + 2}`;

  it('keeps a list over the hidden sheet for every question with options, and the length rule elsewhere', () => {
    const files = saved('review.xlsx');
    const sheets = sheetsOf(files);
    expect(sheets.map((sheet) => [sheet.name, sheet.state])).toEqual([
      ['Perguntas', 'visible'],
      ['Opções', 'hidden'],
    ]);
    const sheet = xmlOf(files, sheets[0]!.path);
    const options = sheetTexts(files, sheets[1]!.path);
    const validations = elements(sheet, 'dataValidation').map(({ attributes, inner }) => ({
      attributes,
      formula: unescapeXml(elements(inner, 'formula1')[0]?.inner ?? ''),
      cells: cellsIn(attributes.sqref ?? ''),
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
        const range = cellsIn(match![2]!.replace(/\$/g, ''));
        expect(range.map((cell) => options.get(cell)?.text)).toEqual(question.options);
      });
    });
  });

  it('keeps the sheet protected without a password, the answer cells unlocked', () => {
    const files = saved('review.xlsx');
    const sheets = sheetsOf(files);
    const sheet = xmlOf(files, sheets[0]!.path);
    const protection = elements(sheet, 'sheetProtection')[0]?.attributes;
    expect(protection?.sheet).toMatch(/^(1|true)$/);
    for (const attribute of ['password', 'hashValue', 'saltValue'])
      expect(protection).not.toHaveProperty(attribute);
    const locked = lockedStyles(files);
    const cells = sheetTexts(files, sheets[0]!.path);
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

describe('LibreOffice opens the workbooks with their filters on', () => {
  it('shows the filter buttons over every row and column of both workbooks', () => {
    const ranges = (name: string) =>
      elements(
        strFromU8(unzipSync(readFileSync(output('ods', name)))['content.xml']!),
        'table:database-range',
      ).map(({ attributes }) => [
        attributes['table:target-range-address'],
        attributes['table:display-filter-buttons'],
      ]);
    // The input's columns (one row is longer than the header) and the results'.
    const resultsColumns = letters(resultsInputWidth(BATCH, ROWS) + RESULT_COLUMNS.length);
    expect(ranges('results.ods')).toEqual([
      [`${WORDS.sheets.results}.A1:${WORDS.sheets.results}.${resultsColumns}${ROWS.length + 1}`, 'true'],
    ]);
    const review = ranges('review.ods');
    expect(review).toHaveLength(1);
    expect(review[0]?.[0]).toMatch(
      new RegExp(`^${WORDS.sheets.review}\\.A1:${WORDS.sheets.review}\\.[A-Z]+${ITEMS.length + 1}$`),
    );
    expect(review[0]?.[1]).toBe('true');
  });
});
