/**
 * results.xlsx's divergence sheet (shared/pipeline/outbox/divergence-sheet.ts): the rows whose
 * declared NCM differs from the verdict or is not in force in the carried NCM table, and only them,
 * read back from the real workbook's XML in Portuguese, Spanish and English; written by the results
 * pass in legs (a second reading of the rows, handed on like the first) and compared with the file
 * written at once; opened by LibreOffice and saved as CSV.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carriedNcmTable } from '../../../../shared/ncm-table/carried-table.js';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import { currentNcmMatches } from '../../../../shared/pipeline/core/row-results.js';
import {
  type ResultsPassOptions,
  ResultsWriting,
  writeResultsFiles,
} from '../../../../shared/pipeline/finalize/results-in-legs.js';
import { buildSummary } from '../../../../shared/pipeline/finalize/summary-tally.js';
import { DIVERGENCE_WORDS } from '../../../../shared/pipeline/outbox/divergence-labels.js';
import { tableDescription } from '../../../../shared/pipeline/outbox/divergence-sheet.js';
import { resultsWorkbook } from '../../../../shared/pipeline/outbox/results-workbook.js';
import { WORKBOOK_WORDS } from '../../../../shared/pipeline/outbox/workbook-labels.js';
import type { Language } from '../../../../shared/spreadsheet/header-language.js';
import { memoryPipelinePorts } from '../../../helpers/memory-ports.js';
import { batchOptions, classificationId, rowRecord } from '../../../helpers/records.js';
import { NOW, streamBytes, workbookBatch } from '../../../helpers/workbook-records.js';
import { partXml, sheetCells, workbookSheets } from '../../../helpers/xlsx-xml.js';

const TABLE = carriedNcmTable();

type Case = { sku: string; description: string; declared: string | null; ncm: string; alternatives?: string };

/** Row n is CASES[n - 1]. */
const CASES: readonly Case[] = [
  // Differs from the verdict, both in force.
  {
    sku: 'ROL-1',
    description: 'Rolamento de esferas 6204 2RS',
    declared: '84821010',
    ncm: '8482.10.90',
    // The declared code is one of the verdict's alternatives.
    alternatives: '8482.80.00 (33%); 8482.10.10 (31%)',
  },
  // Not in force (split by Gecex 321/2022), and differs.
  { sku: 'OLE-2', description: 'Óleo de palmiste em bruto, tambor', declared: '15132110', ncm: '1513.21.19' },
  // Seven digits (a spreadsheet dropped the zero): 0901.21.00, in force, differs.
  { sku: 'CAF-3', description: 'Café solúvel em sachê', declared: '9012100', ncm: '2101.11.10' },
  // Matches.
  { sku: 'CAF-4', description: 'Café torrado em grão, 1 kg', declared: '09012100', ncm: '0901.21.00' },
  // Declares none.
  { sku: 'PAR-5', description: 'Parafuso sextavado de aço', declared: null, ncm: '7318.15.00' },
  // Not in force though the verdict is the same code.
  { sku: 'OLE-6', description: 'Óleo de palmiste em bruto, granel', declared: '15132110', ncm: '1513.21.10' },
  // Seven digits, matching once its zero is back.
  { sku: 'CAF-7', description: 'Café torrado moído, 500 g', declared: '9012100', ncm: '0901.21.00' },
];
const LISTED = [1, 2, 3, 6];

const caseRow = (n: number, template: Case = CASES[(n - 1) % CASES.length]!): RowRecord => {
  const sku = `${template.sku}-${n}`;
  const digits = template.ncm.replace(/\D/g, '');
  const matches = currentNcmMatches(template.declared, digits);
  return rowRecord(n, {
    cells: [sku, template.description, 'importação', 'CN', template.declared ?? '', ''],
    status: 'resolved',
    product: {
      row: n,
      description: template.description,
      operation: 'import',
      country: 'CN',
      sheet: null,
      external_reference: null,
      sku,
      current_ncm: template.declared,
      flags: template.declared?.length === 7 ? ['leading_zero_probably_lost'] : [],
    },
    result: {
      status: 'resolved',
      classification_id: classificationId(n),
      ncm: template.ncm,
      ncm_description: 'A descrição que o serviço deu',
      confidence: '91',
      ...(template.alternatives ? { alternatives: template.alternatives } : {}),
      confidence_band: 'high',
      import_duty_applicable: '14',
      duty_kind: 'extrazone',
      statistical_rate: '0.5',
      aec: '16',
      tariff_source: 'TEC',
      verdict_pdf: `pdfs/${String(n).padStart(5, '0')}-${sku}.pdf`,
      ...(matches ? { current_ncm_matches: matches } : {}),
      cost_usd: '2.00',
    },
  });
};

const ROWS = CASES.map((_, i) => caseRow(i + 1));

const workbookIn = async (language: Language, rows = ROWS): Promise<Uint8Array> => {
  const batch = workbookBatch({ options: batchOptions({ language }), rows_total: rows.length });
  return streamBytes(resultsWorkbook({ batch, rows, summary: buildSummary(batch, rows, NOW), table: TABLE }));
};

/** A sheet's cells as text, line by line from `first`, column A onwards. */
const linesOf = (bytes: Uint8Array, sheet: string, first: number): string[][] => {
  const lines: string[][] = [];
  for (const [reference, cell] of sheetCells(unzipSync(bytes), sheet)) {
    const line = Number(reference.replace(/\D/g, ''));
    if (line < first) continue;
    const column = reference.replace(/\d/g, '').charCodeAt(0) - 65;
    const cells = lines[line - first] ?? [];
    cells[column] = cell.text;
    lines[line - first] = cells;
  }
  return lines.map((line) => Array.from(line ?? [], (text) => text ?? ''));
};

describe.each(['pt', 'es', 'en'] as const)('the divergence sheet in %s', (language) => {
  const words = WORKBOOK_WORDS[language];
  const own = DIVERGENCE_WORDS[language];
  let bytes: Uint8Array;
  beforeAll(async () => {
    bytes = await workbookIn(language);
  });

  it('is the third sheet, after the results and the summary, named in the batch’s language', () => {
    expect(workbookSheets(unzipSync(bytes)).map((sheet) => sheet.name)).toEqual([
      words.sheets.results,
      words.sheets.summary,
      own.sheet,
    ]);
  });

  it('lists exactly the rows whose declared NCM differs or is not in force, in row order', () => {
    const [header, ...rows] = linesOf(bytes, own.sheet, 2);
    expect(header).toEqual([
      words.results.row,
      ...Object.values(own.columns),
      words.results.import_duty_applicable,
      words.results.duty_kind,
      words.results.statistical_rate,
      words.results.aec,
      words.results.export_duty,
      words.results.export_refund,
      words.results.tariff_source,
      words.results.status,
      words.results.verdict_pdf,
    ]);
    expect(rows.map((row) => row[0])).toEqual(LISTED.map(String));
    expect(rows.map((row) => row[1])).toEqual(LISTED.map((n) => `${CASES[n - 1]!.sku}-${n}`));
  });

  it('gives both codes, dotted, their descriptions from the table, whether each is in force, and what diverges', () => {
    const rows = linesOf(bytes, own.sheet, 3);
    const [yes, no] = [words.values.yes!, words.values.no!];
    // Row, SKU, description, declared, its description, in force, its confidence as an alternative,
    // verdict, its description, in force, divergence.
    expect(rows[0]!.slice(0, 11)).toEqual([
      '1',
      'ROL-1-1',
      'Rolamento de esferas 6204 2RS',
      '8482.10.10',
      'Rolamentos de esferas, de roletes ou de agulhas — Rolamentos de esferas — De carga radial',
      yes,
      '0.31',
      '8482.10.90',
      'Rolamentos de esferas, de roletes ou de agulhas — Rolamentos de esferas — Outros',
      yes,
      own.differs,
    ]);
    // The table no longer holds 1513.21.10: no description, not in force.
    expect(rows[1]!.slice(3, 11)).toEqual([
      '1513.21.10',
      '',
      no,
      '',
      '1513.21.19',
      'Óleos de coco (copra), de amêndoa de palma (palmiste) (coconote) ou de babaçu, e respectivas frações, ' +
        'mesmo refinados, mas não quimicamente modificados — Óleos de amêndoa de palma (palmiste) (coconote) ' +
        'ou de babaçu, e respectivas frações — Óleos em bruto — De amêndoa de palma (palmiste) (coconote) — Outros',
      yes,
      `${own.differs}; ${own.notInForce}`,
    ]);
    // Seven digits, read with the zero back.
    expect(rows[2]!.slice(3, 6)).toEqual(['0901.21.00', tableDescription(TABLE, '09012100'), yes]);
    expect(rows[2]![4]).toMatch(/^Café, mesmo torrado .* — Café torrado — Não descafeinado$/);
    // Equal to the verdict, listed because neither is in force; the verdict's words are the service's.
    expect(rows[3]!.slice(3, 11)).toEqual([
      '1513.21.10',
      '',
      no,
      '',
      '1513.21.10',
      'A descrição que o serviço deu',
      no,
      own.notInForce,
    ]);
  });

  it('shows the verdict’s duties as percentages, the status worded and coloured, the verdict PDF as a link', () => {
    const files = unzipSync(bytes);
    const cells = sheetCells(files, own.sheet);
    expect(cells.get('L3')?.text).toBe('0.14');
    expect(cells.get('M3')?.text).toBe(words.values.extrazone);
    expect(cells.get('N3')?.text).toBe('0.005');
    expect(cells.get('O3')?.text).toBe('0.16');
    expect(cells.get('P3')).toBeUndefined();
    expect(cells.get('R3')?.text).toBe('TEC');
    expect(cells.get('S3')?.text).toBe(words.status.resolved);
    // Rates as 0.00 %, the alternative's confidence as 0 %, the status coloured as on the results sheet.
    const resultsCells = sheetCells(files, words.sheets.results);
    const statusOnResults = [...resultsCells.values()].find(
      (cell) => cell.text === words.status.resolved,
    )!.style;
    expect(cells.get('S3')?.style).toBe(statusOnResults);
    expect(cells.get('L3')?.style).not.toBe(cells.get('G3')?.style);
    expect(partXml(files, 'xl/worksheets/sheet3.xml')).toContain(
      '<f>HYPERLINK("pdfs/00001-ROL-1-1.pdf","pdfs/00001-ROL-1-1.pdf")</f>',
    );
  });

  it('says under its note which table it checked against and that the declared code has no duties', () => {
    const note = linesOf(bytes, own.sheet, 1)[0]![0]!;
    expect(note).toBe(own.note({ asOf: '2026-07-05', act: 'Resolução Gecex nº 812/2025' }));
    expect(note).toContain('812/2025');
    expect(note).toMatch(
      language === 'pt' ? /05\/07\/2026/ : language === 'es' ? /05\/07\/2026/ : /2026-07-05/,
    );
    const sheet = partXml(unzipSync(bytes), 'xl/worksheets/sheet3.xml');
    expect(sheet).toContain('<pane ySplit="2" topLeftCell="A3"');
    expect(sheet).toContain('<autoFilter ref="A2:T6"/>');
  });

  it('has the summary count the rows listed and name the table', () => {
    const lines = linesOf(bytes, words.sheets.summary, 2);
    const value = (label: string) => lines.find((line) => line[0] === label)?.[1];
    expect(value(own.summary.listed)).toBe('4');
    expect(value(own.summary.table)).toBe(own.summary.tableValue({ asOf: '2026-07-05', act: TABLE.act }));
  });
});

describe('a workbook whose rows all agree', () => {
  it('has the divergence sheet with its note and header only, and the summary counts none', async () => {
    const bytes = await workbookIn('pt', [caseRow(1, CASES[3]), caseRow(2, CASES[4]), caseRow(3, CASES[6])]);
    const own = DIVERGENCE_WORDS.pt;
    expect(linesOf(bytes, own.sheet, 3)).toEqual([]);
    expect(partXml(unzipSync(bytes), 'xl/worksheets/sheet3.xml')).toContain('<autoFilter ref="A2:T2"/>');
    const summary = linesOf(bytes, WORKBOOK_WORDS.pt.sheets.summary, 2);
    expect(summary.find((line) => line[0] === own.summary.listed)?.[1]).toBe('0');
  });
});

// ---------------------------------------------------------------------------
// In legs: the results pass, its second reading handed on like the first
// ---------------------------------------------------------------------------

const BATCH_ROWS = 2_800;

const passWorld = async () => {
  const ports = memoryPipelinePorts({}, ['CN']);
  const batch = workbookBatch({ rows_total: BATCH_ROWS });
  await ports.batches.createBatch(batch);
  await ports.batches.putRows(Array.from({ length: BATCH_ROWS }, (_, i) => caseRow(i + 1)));
  return { ports, batch };
};

/** The pass to its end, a leg at a time: each leg's time spent once it has read a page (`until` passed). */
const writtenInLegs = async (legs: boolean) => {
  const { ports, batch } = await passWorld();
  const summary = buildSummary(batch, [], NOW);
  const options: ResultsPassOptions = {
    xlsx: { key: `outbox/${batch.batch_id}/results.xlsx`, name: 'results.xlsx', summary, at: NOW },
    csv: { key: `outbox/${batch.batch_id}/results.csv`, name: 'results.csv' },
    erp: { key: `outbox/${batch.batch_id}/erp-update.csv`, name: 'erp-update.csv' },
    width: 6,
    table: TABLE,
    until: legs ? 0 : Number.MAX_SAFE_INTEGER,
    pageSize: 400,
    partBytes: 5 * 1024 * 1024,
  };
  const handed: ResultsWriting[] = [];
  for (let from: ResultsWriting | null = null; ; ) {
    const step = await writeResultsFiles(ports, batch, from, options);
    if (step.next === 'done') break;
    from = ResultsWriting.parse(JSON.parse(JSON.stringify(step.writing)));
    handed.push(from);
  }
  const file = (name: string) =>
    Buffer.from(ports.objects.objects.get(`outbox/${batch.batch_id}/${name}`)!.bytes);
  return { xlsx: file('results.xlsx'), csv: file('results.csv'), erp: file('erp-update.csv'), handed };
};

describe('results.xlsx written by the results pass in legs', async () => {
  const once = await writtenInLegs(false);
  const inLegs = await writtenInLegs(true);
  const own = DIVERGENCE_WORDS.pt;

  it('hands on in both readings, each progress small and never a row', () => {
    expect(once.handed).toEqual([]);
    const first = inLegs.handed.filter((writing) => writing.listed_through === undefined);
    const again = inLegs.handed.filter((writing) => writing.listed_through !== undefined);
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(again.length).toBeGreaterThanOrEqual(2);
    // results.csv is whole before the rows are read again.
    for (const writing of again) expect(writing.csv).toBeUndefined();
    for (const writing of inLegs.handed) expect(JSON.stringify(writing).length).toBeLessThan(1_500);
    expect(again.map((writing) => writing.listed_through)).toEqual(
      [...again.map((writing) => writing.listed_through)].sort((a, b) => a! - b!),
    );
  });

  it('is byte for byte the workbook written at once, and results.csv and erp-update.csv too', () => {
    expect(inLegs.xlsx.equals(once.xlsx)).toBe(true);
    expect(inLegs.csv.equals(once.csv)).toBe(true);
    expect(inLegs.erp.equals(once.erp)).toBe(true);
  });

  it('writes erp-update.csv with the products whose code differs from the declared one, or that declared none', () => {
    const lines = Papa.parse<Record<string, string>>(inLegs.erp.toString('utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    // Cases 1, 2 and 3 differ, case 5 declared none; 4 and 7 match, 6 is the same code (not in force).
    const expected = Array.from({ length: BATCH_ROWS }, (_, i) => i + 1).filter((n) =>
      [1, 2, 3, 5].includes(((n - 1) % CASES.length) + 1),
    );
    expect(lines.map((line) => line.sku)).toEqual(
      expected.map((n) => `${CASES[(n - 1) % CASES.length]!.sku}-${n}`),
    );
    expect(lines[2]).toEqual({
      sku: 'CAF-3-3',
      declared_ncm: '9012100',
      ncm: '21011110',
      ex_tipi: '',
      cest: '',
      classification_id: classificationId(3),
      approved_by: '',
      approved_at: '',
    });
    expect(lines[3]).toMatchObject({ sku: 'PAR-5-5', declared_ncm: '', ncm: '73181500' });
  });

  it('lists every divergent row of the batch once, in row order', () => {
    const rows = linesOf(inLegs.xlsx, own.sheet, 3);
    const expected = Array.from({ length: BATCH_ROWS }, (_, i) => i + 1).filter((n) =>
      LISTED.includes(((n - 1) % CASES.length) + 1),
    );
    expect(rows.map((row) => Number(row[0]))).toEqual(expected);
    expect(partXml(unzipSync(inLegs.xlsx), 'xl/worksheets/sheet3.xml')).toContain(
      `<autoFilter ref="A2:T${expected.length + 2}"/>`,
    );
  });
});

// ---------------------------------------------------------------------------
// LibreOffice
// ---------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), 'divergences-libreoffice-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every sheet (`-1`), UTF-8 (76), `,` and `"`, cells as shown (token 9). */
const CSV_AS_SHOWN = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1';

describe('the divergence sheet saved as CSV by LibreOffice', () => {
  let converted: string;
  beforeAll(async () => {
    mkdirSync(join(work, 'in'));
    writeFileSync(join(work, 'in', 'results.xlsx'), await workbookIn('en'));
    converted = execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${join(work, 'profile')}`,
        '--headless',
        '--convert-to',
        CSV_AS_SHOWN,
        '--outdir',
        join(work, 'csv'),
        join(work, 'in', 'results.xlsx'),
      ],
      {
        stdio: 'pipe',
        timeout: 120_000,
        env: { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8', TZ: 'UTC' },
      },
    ).toString('utf8');
  }, 180_000);

  it('opens the workbook without complaint and shows the listed rows as a person reads them', () => {
    expect(converted).not.toMatch(/error|warning/i);
    expect(readdirSync(join(work, 'csv')).sort()).toEqual([
      'results-NCM divergences.csv',
      'results-Results.csv',
      'results-Summary.csv',
    ]);
    const [note, header, ...rows] = Papa.parse<string[]>(
      readFileSync(join(work, 'csv', 'results-NCM divergences.csv'), 'utf8').replace(/^\uFEFF/, ''),
      { delimiter: ',', skipEmptyLines: true },
    ).data;
    expect(note![0]).toMatch(/^Rows whose declared NCM differs/);
    expect(header!.slice(0, 4)).toEqual(['Row', 'SKU', 'Product description', 'Declared NCM']);
    expect(rows.map((row) => row[1])).toEqual(['ROL-1-1', 'OLE-2-2', 'CAF-3-3', 'OLE-6-6']);
    expect(rows[0]![6]).toBe('31%');
    expect(rows[0]!.slice(11, 15)).toEqual(['14.00%', 'Extra-zone', '0.50%', '16.00%']);
    expect(rows[2]![3]).toBe('0901.21.00');
  });
});
