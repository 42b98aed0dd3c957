/**
 * What a hostile or careless file finds, end to end through the local runtime (synthesized
 * workflows, bundled handlers, the sandbox over HTTP): every input row ends in exactly one output
 * row whenever the file can be read at all, and a file that cannot be read fails its batch with
 * one line naming the file, the part or line, and the reason. Each file is made here, byte by byte.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import {
  column,
  E2E_ASSEMBLY_DIR,
  E2E_TIME_SCALE,
  makeTempDir,
  RESOLVING_DESCRIPTIONS,
  readResults,
} from './helpers.js';

const temp = makeTempDir('hostile');
let pipeline: LocalPipeline;

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-hostile' },
  });
}, 120_000);

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

const HEADER = ['sku', 'description', 'operation', 'country', 'notes'];
const row = (sku: string, description: string, notes = ''): string[] => [
  sku,
  description,
  'import',
  'BR',
  notes,
];

/** A catalogue folder of its own per case, so each batch sees only its own sheets. */
const folder = (name: string): string => {
  const dir = join(temp.dir, name);
  mkdirSync(dir, { recursive: true });
  return dir;
};

const csvText = (rows: readonly (readonly string[])[], separator = ','): string =>
  `${rows.map((cells) => cells.map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(separator)).join('\r\n')}\r\n`;

/** Runs one catalogue to its end; the outbox copied to `<dir>/out`. */
const run = async (dir: string, fileName: string) => {
  const { batchId } = await pipeline.submit({ file: join(dir, fileName), sheetsDir: dir });
  const outcome = await pipeline.waitForBatch(batchId, { signal: AbortSignal.timeout(240_000) });
  const out = join(dir, 'out');
  await pipeline.copyOutbox(batchId, out);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, unknown>;
  return { outcome, out, summary, results: () => readResults(join(out, 'results.csv')) };
};

/** A row's status, reason and detail in results.csv, by SKU. */
const resultsBySku = (table: Awaited<ReturnType<typeof readResults>>) => {
  const [sku, status, reason, detail] = ['sku', 'status', 'reason', 'detail'].map((name) =>
    column(table, name),
  );
  return new Map(
    table.rows.map(({ cells }) => [
      cells[sku!]!,
      { status: cells[status!]!, reason: cells[reason!]!, detail: cells[detail!]! },
    ]),
  );
};

const textOf = (messages: unknown): string => JSON.stringify(messages ?? []);

describe('hostile and careless files, end to end', () => {
  it('rejects only the row whose cell is too long for a row, naming the column and the limit (500 KB and 30 MB cells)', async () => {
    const dir = folder('long-cells');
    writeFileSync(
      join(dir, 'long-cells.csv'),
      csvText([
        HEADER,
        row('LC-1', RESOLVING_DESCRIPTIONS[0]),
        row('LC-2', RESOLVING_DESCRIPTIONS[1], 'x'.repeat(500_000)),
        row('LC-3', RESOLVING_DESCRIPTIONS[2], 'y'.repeat(30_000_000)),
        row('LC-4', RESOLVING_DESCRIPTIONS[3]),
      ]),
    );
    const { outcome, results } = await run(dir, 'long-cells.csv');
    expect(outcome.state).toBe('completed');
    const rows = resultsBySku(await results());
    expect([...rows.keys()]).toEqual(['LC-1', 'LC-2', 'LC-3', 'LC-4']);
    for (const sku of ['LC-2', 'LC-3']) {
      expect(rows.get(sku)).toMatchObject({ status: 'rejected', reason: 'cell_too_long' });
      expect(rows.get(sku)?.detail).toMatch(/"notes" \(column E\).*32,767/);
    }
    expect(rows.get('LC-1')?.status).toBe('resolved');
    expect(rows.get('LC-4')?.status).toBe('resolved');
  }, 300_000);

  it('keeps every one of 20,000 columns in results.csv and finishes its workbooks', async () => {
    const dir = folder('wide');
    const extra = Array.from({ length: 20_000 - HEADER.length }, (_, index) => `extra ${index + 1}`);
    writeFileSync(
      join(dir, 'wide.csv'),
      csvText([
        [...HEADER, ...extra],
        [...row('W-1', RESOLVING_DESCRIPTIONS[4]), ...extra.map(() => '1')],
        [...row('W-2', RESOLVING_DESCRIPTIONS[5]), ...extra.map(() => '2')],
      ]),
    );
    const { outcome, out, results } = await run(dir, 'wide.csv');
    expect(outcome.state).toBe('completed');
    const table = await results();
    expect(table.header.length).toBeGreaterThan(20_000);
    expect(table.rows.map(({ cells }) => cells.length)).toEqual([table.header.length, table.header.length]);
    expect(readFileSync(join(out, 'results.xlsx')).subarray(0, 2).toString()).toBe('PK');
  }, 300_000);

  it('reads a CSV with one NUL byte and rejects only the row that holds it, naming its column', async () => {
    const dir = folder('nul');
    const rows = Array.from({ length: 11 }, (_, index) =>
      row(`N-${index + 1}`, `${RESOLVING_DESCRIPTIONS[index % 10]}, lote N${index + 1}`),
    );
    rows[4]![1] = `Parafuso\u0000 sextavado M8`;
    writeFileSync(join(dir, 'nul.csv'), csvText([HEADER, ...rows]));
    const { outcome, results } = await run(dir, 'nul.csv');
    expect(outcome.state).toBe('completed');
    const byS = resultsBySku(await results());
    expect(byS.size).toBe(11);
    expect(byS.get('N-5')).toMatchObject({ status: 'rejected', reason: 'control_character' });
    expect(byS.get('N-5')?.detail).toMatch(/"description" \(column B\)/);
    expect([...byS.values()].filter((r) => r.status === 'rejected')).toHaveLength(1);
  }, 300_000);

  it('warns, naming the row and column, when bytes that are not UTF-8 were read as another encoding', async () => {
    const dir = folder('cesu');
    const text = csvText([
      HEADER,
      row('C-1', RESOLVING_DESCRIPTIONS[6]),
      row('C-2', 'Motor el@trico trifásico 5 CV'),
    ]);
    // CESU-8: a character outside the BMP written as two 3-byte surrogates, which UTF-8 forbids.
    const [before, after] = text.split('@') as [string, string];
    const bytes = Buffer.concat([
      Buffer.from(before, 'latin1'),
      Buffer.from([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]),
      Buffer.from(after, 'latin1'),
    ]);
    writeFileSync(join(dir, 'cesu.csv'), bytes);
    const { outcome, summary, results } = await run(dir, 'cesu.csv');
    expect(outcome.state).toBe('completed');
    expect((await results()).rows).toHaveLength(2);
    const warnings = textOf(summary.warnings);
    expect(warnings).toMatch(/UTF-8/);
    expect(warnings).toMatch(/row 2\b/);
    expect(warnings).toMatch(/description/);
  }, 300_000);

  it("classifies Excel's Unicode Text save (.txt, UTF-16 with tabs) like any delimited file", async () => {
    const dir = folder('unicode-text');
    const text = csvText(
      [HEADER, row('U-1', RESOLVING_DESCRIPTIONS[7]), row('U-2', RESOLVING_DESCRIPTIONS[8])],
      '\t',
    );
    writeFileSync(
      join(dir, 'catalogo.txt'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
    );
    const { outcome, results } = await run(dir, 'catalogo.txt');
    expect(outcome.state).toBe('completed');
    const rows = resultsBySku(await results());
    expect([...rows.values()].map((r) => r.status)).toEqual(['resolved', 'resolved']);
  }, 300_000);

  it('refuses an XLSX that declares an entity in one line naming the file, the part and why', async () => {
    const dir = folder('entity');
    writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET-CONTENT');
    const sheet =
      '<?xml version="1.0" encoding="UTF-8"?>' +
      `<!DOCTYPE x [<!ENTITY leak SYSTEM "file://${join(dir, 'secret.txt')}">]>` +
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>description</t></is></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t>E-1</t></is></c><c r="B2" t="inlineStr"><is><t>&leak;</t></is></c></row>' +
      '</sheetData></worksheet>';
    writeFileSync(join(dir, 'entity.xlsx'), minimalXlsx(sheet));
    const { outcome, summary } = await run(dir, 'entity.xlsx');
    expect(outcome.state).toBe('failed');
    const problems = textOf(summary.problems);
    expect(problems).toContain('entity.xlsx');
    expect(problems).toContain('xl/worksheets/sheet1.xml');
    expect(problems).toMatch(/entit/i);
    expect(problems).not.toContain('TOP-SECRET');
  }, 300_000);

  it('refuses a zip bomb of more rows than a batch takes, and a PDF named .csv, each in one line saying why', async () => {
    const dir = folder('refused');
    const rows = Array.from(
      { length: 468_541 },
      (_, index) =>
        `<row r="${index + 2}"><c r="A${index + 2}" t="inlineStr"><is><t>B${index}</t></is></c></row>`,
    );
    const sheet =
      '<?xml version="1.0" encoding="UTF-8"?>' +
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>description</t></is></c></row>' +
      `${rows.join('')}</sheetData></worksheet>`;
    writeFileSync(join(dir, 'bomb.xlsx'), minimalXlsx(sheet));
    const bomb = await run(dir, 'bomb.xlsx');
    expect(bomb.outcome.state).toBe('failed');
    expect(textOf(bomb.summary.problems)).toMatch(/bomb\.xlsx.*400,000/);

    writeFileSync(join(dir, 'renamed.csv'), await pdfBytes('Not a catalogue'));
    const renamed = await run(dir, 'renamed.csv');
    expect(renamed.outcome.state).toBe('failed');
    expect(textOf(renamed.summary.problems)).toMatch(/renamed\.csv.*PDF/);
  }, 300_000);

  it('rejects the rows whose sheet is a link out of the folder or not a readable PDF, saying which', async () => {
    const dir = folder('sheets');
    const outside = folder('outside');
    writeFileSync(join(outside, 'elsewhere.pdf'), await pdfBytes('A sheet outside the folder'));
    symlinkSync(join(outside, 'elsewhere.pdf'), join(dir, 'linked.pdf'));
    const whole = await pdfBytes('Bomba submersível 1 CV, 220 V, rotor de aço inox');
    writeFileSync(join(dir, 'cut.pdf'), whole.subarray(0, Math.floor(whole.length / 2)));
    writeFileSync(join(dir, 'renamed.pdf'), 'This is a text file renamed to .pdf\n');
    writeFileSync(join(dir, 'good.pdf'), whole);
    writeFileSync(
      join(dir, 'sheets.csv'),
      csvText([
        ['sku', 'description', 'operation', 'country', 'sheet'],
        ['S-1', RESOLVING_DESCRIPTIONS[9], 'import', 'BR', 'linked.pdf'],
        ['S-2', `${RESOLVING_DESCRIPTIONS[0]}, lote S2`, 'import', 'BR', 'cut.pdf'],
        ['S-3', `${RESOLVING_DESCRIPTIONS[1]}, lote S3`, 'import', 'BR', 'renamed.pdf'],
        ['S-4', `${RESOLVING_DESCRIPTIONS[2]}, lote S4`, 'import', 'BR', 'good.pdf'],
      ]),
    );
    const { outcome, summary, results } = await run(dir, 'sheets.csv');
    expect(outcome.state).toBe('completed');
    const rows = resultsBySku(await results());
    expect(rows.get('S-1')).toMatchObject({ status: 'rejected', reason: 'sheet_outside_folder' });
    expect(rows.get('S-2')).toMatchObject({ status: 'rejected', reason: 'sheet_damaged' });
    expect(rows.get('S-3')).toMatchObject({ status: 'rejected', reason: 'sheet_not_pdf' });
    expect(rows.get('S-4')?.status).toBe('resolved');
    // Neither bad PDF is taken for a scan first.
    expect(textOf(summary.warnings)).not.toMatch(/cut\.pdf|renamed\.pdf/);
  }, 300_000);
});

/** The smallest workbook a reader opens: one sheet whose XML is given. */
const minimalXlsx = (sheetXml: string): Uint8Array =>
  zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        '</Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
        '</Relationships>',
    ),
    'xl/workbook.xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>' +
        '<sheet name="Products" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
        '</Relationships>',
    ),
    'xl/worksheets/sheet1.xml': strToU8(sheetXml),
  });

/** A real one-page PDF with a text layer (pdfkit). */
const pdfBytes = (text: string): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const document = new PDFDocument();
    const chunks: Buffer[] = [];
    document.on('data', (chunk: Buffer) => chunks.push(chunk));
    document.on('end', () => resolve(Buffer.concat(chunks)));
    document.on('error', reject);
    document.text(text);
    document.end();
  });
