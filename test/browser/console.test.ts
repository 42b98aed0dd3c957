/**
 * The operations console in real Chromium against `npm run console`'s stack (the local pipeline
 * with S3 notifications, the gateway, the console functions in their processes, the sandbox):
 * upload the sample catalogue with its sheets folder through the page, watch it complete, open
 * a verdict PDF, filter and search the results, download results.csv and check it row by row
 * against the input, and results.xlsx in the language chosen at upload, then answer a pending row's questions in the inbox and see it resolve,
 * billed once, a second submit changing nothing; send a failed row again with a new sheet from the
 * batch page and see it resolve, billed once. Beside each verdict's NCM, the NCM the row
 * declared, and a mark on a code not in the NCM table in force (a catalogue of the test's own
 * declares one). Each step leaves a screenshot in out/console-screenshots/.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalConsole, openLocalConsole } from '../../local/runtime/local-console.js';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import { WORKBOOK_WORDS } from '../../shared/pipeline/outbox/workbook-labels.js';
import { readXlsxRecords } from '../../shared/spreadsheet/read-xlsx.js';
import { adminClassifications, E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir } from '../e2e/helpers.js';
import { openBrowser, SCREENSHOTS_DIR } from '../helpers/chromium.js';
import { notInLanguage } from '../helpers/language-walk.js';

const SAMPLE = join(process.cwd(), 'sample-data');
const temp = makeTempDir('console');
let local: LocalConsole;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
let batchId = '';

type Table = { header: string[]; rows: string[][] };
const readCsv = (text: string): Table => {
  const [header = [], ...rows] = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), {
    skipEmptyLines: true,
  }).data;
  return { header, rows };
};

/** A declared NCM as the rows table shows it: 8 digits dotted, a 7-digit one given back its zero. */
const shownDeclared = (cell: string): string => {
  const digits = cell.trim().replace(/[.\s-]/g, '');
  const code = /^[0-9]{7}$/.test(digits) ? `0${digits}` : digits;
  return /^[0-9]{8}$/.test(code) ? `${code.slice(0, 4)}.${code.slice(4, 6)}.${code.slice(6)}` : cell.trim();
};

/** vi.waitFor's retries, every 250 ms until the deadline (the condition decides, not a sleep). */
const within = (timeout: number) => ({ timeout, interval: 250 });

beforeAll(async () => {
  const pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    bucketNotifications: true,
  });
  local = await openLocalConsole(pipeline);
  browser = await openBrowser({ locale: 'pt-BR' });
  page = await browser.context.newPage();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await local?.close();
  temp.remove();
}, 60_000);

describe('the operations console in Chromium', () => {
  it('uploads the sample catalogue with its sheets folder and options; the batch starts as a drop does and the page opens it', async () => {
    await page.goto(`${local.url}#/upload`);
    await page.getByTestId('upload-catalogue').setInputFiles(join(SAMPLE, 'products.csv'));
    await page.getByTestId('upload-sheets-folder').setInputFiles(join(SAMPLE, 'sheets'));
    await expect.poll(() => page.getByTestId('sheet-file').count()).toBe(5);
    expect(await page.getByTestId('sheet-file').first().getAttribute('data-name')).toMatch(
      /^sheets\/.+\.pdf$/,
    );
    // Nothing rejected by surprise: without defaults, the check before sending names rows 18 and
    // 26 (no operation; 18 no country either), and the file's own faults (13, 30).
    const check = page.getByTestId('rejections-check');
    await check.waitFor();
    const reasons = () =>
      check
        .getByTestId('rejection-reason')
        .evaluateAll((items) =>
          items.map((item) => `${item.getAttribute('data-reason')}:${item.getAttribute('data-rows')}`),
        );
    expect((await reasons()).sort()).toEqual([
      'description_too_short:13',
      'operation_invalid:30',
      'operation_missing:18,26',
    ]);
    expect(
      await check.getByTestId('rejection-reason').filter({ hasText: 'Linhas 18, 26' }).textContent(),
    ).toContain('Sem operação');
    await browser.screenshot(page, '01-upload-would-reject');
    // The defaults, set right there: the rows that wanted them are no longer named.
    await check.getByTestId('rejections-operation').selectOption('import');
    await expect.poll(reasons).toContain('country_missing:18');
    await check.getByTestId('rejections-country').fill('BR');
    await expect
      .poll(async () => (await reasons()).sort())
      .toEqual(['description_too_short:13', 'operation_invalid:30']);
    // They are the batch's options below, as if typed there.
    expect(await page.getByTestId('option-operation').inputValue()).toBe('import');
    expect(await page.getByTestId('option-country').inputValue()).toBe('BR');
    await page.getByTestId('option-budget').fill('54');
    // Portuguese headers, Spanish workbooks: the choice must win over the headers' language.
    await page.getByTestId('option-language').selectOption('es');
    await browser.screenshot(page, '01-upload');
    // The folder chosen: every sheet the catalogue names is among the files but row 23's, said before sending.
    const named = page.getByTestId('named-sheets');
    await expect.poll(() => named.getAttribute('data-state')).toBe('read');
    expect(await named.getAttribute('data-missing')).toBe('1');
    expect(await named.getAttribute('data-renamed')).toBe('0');
    await page.getByTestId('upload-submit').click();
    // The page opens the batch the catalogue started, not the list.
    const opened = page.getByTestId('batch-page');
    await opened.waitFor({ timeout: 60_000 });
    batchId = (await opened.getAttribute('data-batch-id')) ?? '';
    expect(batchId).toMatch(/^products-/);
    expect(new URL(page.url()).hash).toBe(`#/batches/${encodeURIComponent(batchId)}`);
    await browser.screenshot(page, '02-batch-started');
  }, 120_000);

  it('shows the batch page updating without a reload until the batch completes', async () => {
    await page.goto(`${local.url}#/batches/${encodeURIComponent(batchId)}`);
    const stage = page.getByTestId('stage');
    await stage.waitFor();
    const seen = new Set<string>();
    // What matters first: while classifications run, the share of rows with a verdict after them.
    let coverage: string | null = null;
    await vi.waitFor(async () => {
      seen.add((await stage.getAttribute('data-stage')) ?? '');
      if (coverage === null && (await page.getByTestId('coverage').count()) > 0) {
        coverage = await page.getByTestId('coverage').textContent();
        await browser.screenshot(page, '02-batch-coverage');
      }
      expect(seen.has('completed'), 'the batch page shows the batch completed').toBe(true);
    }, within(120_000));
    expect(coverage).toMatch(/^\d+ % das linhas após \d+ % das classificações$/);
    expect(await page.getByTestId('rows-done').getAttribute('data-value')).toBe('34');
    expect(await page.getByTestId('rows-total').getAttribute('data-value')).toBe('34');
    // The rows table ends as the batch did: no row left on its way.
    await vi.waitFor(async () => {
      const statuses = await page
        .getByTestId('result-row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-status')));
      expect(
        statuses.length === 34 &&
          statuses.every((status) => !['queued', 'submitting', 'in_progress'].includes(status ?? '')),
        'the rows table shows every row final',
      ).toBe(true);
    }, within(30_000));
    await browser.screenshot(page, '03-batch-completed');
  }, 180_000);

  it('opens a verdict PDF from a resolved row', async () => {
    // The tab the page opens loads the presigned GET (or, headless, saves it): either way the URL
    // it used is a PDF, which this test reads once more to look at its bytes.
    const opened: { url: string; status: number; type: string }[] = [];
    browser.context.on('response', (response) => {
      if (new URL(response.url()).pathname.includes('/pdfs/'))
        opened.push({
          url: response.url(),
          status: response.status(),
          type: response.headers()['content-type'] ?? '',
        });
    });
    await page.locator('[data-testid="verdict-pdf"][data-row="1"]').click();
    await vi.waitFor(
      () => expect(opened.length > 0, 'the verdict PDF is fetched').toBe(true),
      within(30_000),
    );
    const [first] = opened;
    expect(first).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(new URL(first?.url ?? '').pathname).toMatch(
      /\/outbox\/products-[^/]+\/pdfs\/00001-CAF-0101\.pdf$/,
    );
    const bytes = Buffer.from(await (await fetch(first?.url ?? '')).arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  }, 60_000);

  it('filters the results by status and searches them', async () => {
    await page.locator('[data-testid="status-filter"] [data-status="resolved"]').click();
    await vi.waitFor(async () => {
      const statuses = await page
        .getByTestId('result-row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-status')));
      expect(
        statuses.length > 0 && statuses.every((status) => status === 'resolved'),
        'only resolved rows are shown',
      ).toBe(true);
    }, within(30_000));
    const resolved = await page.getByTestId('result-row').count();
    await browser.screenshot(page, '04-filtered');
    await page.locator('[data-testid="status-filter"] [data-status=""]').click();
    await page.getByTestId('rows-search').fill('cafe torrado');
    await vi.waitFor(
      async () => expect(await page.getByTestId('result-row').count(), 'the search finds one row').toBe(1),
      within(30_000),
    );
    expect(await page.getByTestId('result-row').getAttribute('data-row')).toBe('1');
    await page.getByTestId('rows-search').fill('');
    await expect.poll(() => page.getByTestId('result-row').count(), within(30_000)).toBe(34);
    expect(resolved).toBeGreaterThan(15);
  }, 60_000);

  it('marks the rows whose declared NCM differs from the verdict, counts them and keeps only those when asked', async () => {
    const filter = page.getByTestId('divergent-filter');
    // The finished batch's summary counts them: row 12 (PAR-M10) declares 7318.16.00, a nut.
    await expect.poll(() => filter.getAttribute('data-count')).not.toBe('');
    const count = Number(await filter.getAttribute('data-count'));
    expect(count).toBeGreaterThanOrEqual(1);
    await filter.click();
    await vi.waitFor(async () => {
      const rows = await page
        .getByTestId('result-row')
        .evaluateAll((all) =>
          all.map((row) => [
            Number(row.getAttribute('data-row')),
            row.querySelectorAll('[data-testid="ncm-divergent"]').length,
          ]),
        );
      expect(rows).toHaveLength(count);
      expect(rows.every(([, marks]) => marks === 1)).toBe(true);
      expect(rows.map(([row]) => row)).toContain(12);
    }, within(30_000));
    expect(await page.getByTestId('ncm-divergent').first().textContent()).toContain('NCM divergente');
    // Every row was read: the count is the answer, not "so far".
    expect(await page.getByTestId('rows-found').textContent()).not.toContain('até agora');
    await browser.screenshot(page, '04-divergent');
    await filter.click();
    await expect.poll(() => page.getByTestId('result-row').count(), within(30_000)).toBe(34);
  }, 60_000);

  it('shows beside each verdict the NCM its row declared, and the NCM table the codes are checked against', async () => {
    const input = readCsv(readFileSync(join(SAMPLE, 'products.csv'), 'utf8'));
    const ncm = input.header.indexOf('NCM');
    const shown = await page.getByTestId('result-row').evaluateAll((rows) =>
      rows.map((row) => {
        const declared = row.querySelector('[data-testid="declared-ncm"]');
        return {
          row: Number(row.getAttribute('data-row')),
          status: row.getAttribute('data-status'),
          declared: declared?.querySelector('.mono')?.textContent ?? null,
          inForce: declared?.getAttribute('data-in-force') ?? null,
          marks: row.querySelectorAll('[data-testid="ncm-not-in-force"]').length,
        };
      }),
    );
    expect(shown).toHaveLength(34);
    for (const { row, status, declared, inForce, marks } of shown) {
      const cell = input.rows[row - 1]?.[ncm]?.trim() ?? '';
      // A rejected row has no product, and so no declared code to check.
      const expected = status === 'rejected' || cell === '' ? null : shownDeclared(cell);
      expect(declared, `row ${row}`).toBe(expected);
      // Every code the sample declares, and every one the sandbox answers with, is in force.
      if (expected !== null) expect(inForce, `row ${row}`).toBe('true');
      expect(marks, `row ${row}`).toBe(0);
    }
    expect(shown.find((one) => one.row === 1)?.declared).toBe('0901.21.00');
    expect(shown.filter((one) => one.declared !== null).length).toBeGreaterThan(20);
    expect(await page.getByTestId('ncm-table').getAttribute('data-as-of')).toBe('2026-07-05');
    expect(await page.getByTestId('ncm-table').textContent()).toBe(
      '5 de julho de 2026, Resolução Gecex nº 812/2025',
    );
  }, 60_000);

  it('downloads results.csv: one row per input row, in order, with the statuses the page shows', async () => {
    const shown = new Map(
      await page
        .getByTestId('result-row')
        .evaluateAll((rows) =>
          rows.map((row) => [row.getAttribute('data-row'), row.getAttribute('data-status')] as const),
        ),
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-results.csv').click(),
    ]);
    const saved = join(temp.dir, 'results.csv');
    await download.saveAs(saved);
    expect(download.suggestedFilename()).toBe('products-results.csv');
    const input = readCsv(readFileSync(join(SAMPLE, 'products.csv'), 'utf8'));
    const results = readCsv(readFileSync(saved, 'utf8'));
    expect(results.header.slice(0, input.header.length)).toEqual(input.header);
    expect(results.rows).toHaveLength(input.rows.length);
    const rowColumn = results.header.indexOf('row');
    const statusColumn = results.header.indexOf('status');
    results.rows.forEach((row, index) => {
      expect(row.slice(0, input.header.length)).toEqual(input.rows[index]);
      expect(row[rowColumn]).toBe(String(index + 1));
      expect(shown.get(String(index + 1))).toBe(row[statusColumn]);
    });
  }, 60_000);

  it('downloads erp-update.csv: the products whose settled code differs from the one declared, for the ERP', async () => {
    expect(await page.getByTestId('download-erp-update.csv').textContent()).toContain(
      'Atualização para o ERP (CSV)',
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-erp-update.csv').click(),
    ]);
    const saved = join(temp.dir, 'erp-update.csv');
    await download.saveAs(saved);
    expect(download.suggestedFilename()).toBe('products-erp-update.csv');
    const erp = readCsv(readFileSync(saved, 'utf8'));
    const results = readCsv(readFileSync(join(temp.dir, 'results.csv'), 'utf8'));
    const cell = (row: readonly string[], name: string) => row[results.header.indexOf(name)] ?? '';
    // Worked out from results.csv: settled, a SKU, and a code other than the one declared.
    const expected = results.rows
      .filter(
        (row) => ['resolved', 'reused'].includes(cell(row, 'status')) && cell(row, 'check') !== 'to_check',
      )
      .filter(
        (row) => cell(row, 'ncm').replace(/\D/g, '') !== cell(row, 'NCM').replace(/\D/g, '').padStart(8, '0'),
      )
      .map((row) => [cell(row, 'SKU'), cell(row, 'ncm').replace(/\D/g, '')]);
    expect(erp.header.slice(0, 3)).toEqual(['sku', 'declared_ncm', 'ncm']);
    expect(erp.rows.map((row) => [row[0], row[2]])).toEqual(expected);
    // The sample's PAR-M10 declared 7318.16.00; the verdict is 7318.15.00.
    expect(erp.rows.map((row) => row[0])).toContain('PAR-M10');
  }, 60_000);

  it('downloads results.xlsx: the same rows, labelled in the language chosen at upload', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-results.xlsx').click(),
    ]);
    const saved = join(temp.dir, 'results.xlsx');
    await download.saveAs(saved);
    expect(download.suggestedFilename()).toBe('products-results.xlsx');
    const csv = readCsv(readFileSync(join(temp.dir, 'results.csv'), 'utf8'));
    const [header, ...rows] = (await readXlsxRecords(readFileSync(saved), 'results.xlsx')).records.map(
      (record) => record.cells,
    );
    const input = readCsv(readFileSync(join(SAMPLE, 'products.csv'), 'utf8'));
    const spanish = WORKBOOK_WORDS.es;
    const inputWidth = csv.header.indexOf('row');
    expect(header?.slice(0, inputWidth)).toEqual(csv.header.slice(0, inputWidth));
    expect(header?.slice(inputWidth, inputWidth + 3)).toEqual([
      spanish.results.row,
      spanish.results.status,
      spanish.results.reason,
    ]);
    expect(rows).toHaveLength(csv.rows.length);
    const ncm = csv.header.indexOf('ncm');
    rows.forEach((row, index) => {
      const expected = csv.rows[index] ?? [];
      expect(row.slice(0, input.header.length)).toEqual(input.rows[index]);
      expect(row[inputWidth + 1]).toBe(
        spanish.status[expected[inputWidth + 1] as keyof typeof spanish.status],
      );
      expect(row[ncm]).toBe(expected[ncm]);
    });
    // The batch page says the choice too.
    expect(await page.locator('dl.options-line').textContent()).toContain('Español');
  }, 60_000);

  it('downloads results.xlsx with its verdict PDFs as one ZIP: each link of the workbook opens a PDF beside it', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-results-with-pdfs.zip').click(),
    ]);
    expect(download.suggestedFilename()).toBe('products-results.zip');
    const saved = join(temp.dir, 'bundle.zip');
    await download.saveAs(saved);
    const files = unzipSync(readFileSync(saved));
    const workbook = files['results.xlsx'];
    expect(workbook).toBeDefined();
    // Every HYPERLINK formula of the results sheet names a PDF the ZIP holds at that path.
    const sheet = strFromU8(unzipSync(workbook!)['xl/worksheets/sheet1.xml']!);
    const targets = [...sheet.matchAll(/HYPERLINK\((?:&quot;|")([^"&]+)/g)].map((match) => match[1] ?? '');
    expect(targets.length).toBeGreaterThan(10);
    for (const target of targets) {
      expect(target).toMatch(/^pdfs\/.+\.pdf$/);
      expect(strFromU8(files[target]!.subarray(0, 5)), target).toBe('%PDF-');
    }
  }, 60_000);

  it('answers a pending row in the inbox; it resumes and resolves, billed once, and a second submit changes nothing', async () => {
    const sandbox = local.pipeline.sandbox;
    if (!sandbox) throw new Error('the console runs on the built-in sandbox here');
    const billedBefore = sandbox.stats().billed_usd;
    await page.getByTestId('nav-questions').click();
    const group = page.getByTestId('question-group').first();
    await group.waitFor();
    await browser.screenshot(page, '05-inbox');
    for (const options of await group.getByTestId('answer-options').all())
      await options.locator('[data-testid="answer-option"][data-option="0"]').check();
    for (const text of await group.getByTestId('answer-text').all())
      await text.fill('Uso em oficina mecânica');
    const row = group.getByTestId('question-row').first();
    const rowNumber = Number(await row.getAttribute('data-row'));
    let body = '';
    page.on('request', (request) => {
      if (request.url().endsWith('/api/answers')) body = request.postData() ?? '';
    });
    await group.getByTestId('submit-answers').click();
    await page.getByTestId('answers-sent').first().waitFor();
    const sent = page.locator(`[data-testid="sent-row"][data-row="${rowNumber}"]`);
    await vi.waitFor(
      async () => expect(await sent.getAttribute('data-final'), 'the answered row is final').toBe('true'),
      within(120_000),
    );
    expect(await sent.getAttribute('data-status')).toBe('resolved');
    await browser.screenshot(page, '06-answered');

    expect(sandbox.stats().billed_usd).toBe(billedBefore + 2);
    const again = await fetch(`${local.url}api/answers`, { method: 'POST', body });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'not_pending', params: { row: rowNumber } });
    const classifications = await adminClassifications(sandbox.adminUrl);
    expect(classifications.every((classification) => classification._sandbox.billed_times <= 1)).toBe(true);
    expect(sandbox.stats().billed_usd).toBe(billedBefore + 2);
  }, 180_000);

  it('sends a failed row again with a new sheet from its line on the batch page; it resolves, billed once', async () => {
    const sandbox = local.pipeline.sandbox;
    if (!sandbox) throw new Error('the console runs on the built-in sandbox here');
    const billedBefore = sandbox.stats().billed_usd;
    await page.goto(`${local.url}#/batches/${encodeURIComponent(batchId)}`);
    // Row 20: no description and a scanned sheet, failed `unreadable_pdf`; a resolved row offers nothing.
    const row = page.locator('[data-testid="result-row"][data-row="20"]');
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('failed');
    expect(
      await page.locator('[data-testid="result-row"][data-row="1"] [data-testid="row-resend"]').count(),
    ).toBe(0);
    await row.getByTestId('row-resend').click();
    const form = page.locator('[data-testid="resend-form"][data-row="20"]');
    await form.waitFor();
    expect(await form.getByTestId('resend-country').inputValue()).toBe('IT');
    await form.getByTestId('resend-sheet').setInputFiles(join(SAMPLE, 'resend', 'valvula-esfera.pdf'));
    await browser.screenshot(page, '07-resend-form');
    await form.getByTestId('resend-submit').click();
    await page.getByTestId('row-resent').waitFor();
    await vi.waitFor(
      async () => expect(await row.getAttribute('data-status'), 'row 20 resolves').toBe('resolved'),
      within(120_000),
    );
    await expect.poll(() => row.getByTestId('ncm').textContent()).toContain('8481.80.95');
    await browser.screenshot(page, '08-resent');
    // The row opened: who sent it again, the verdict with its description, every cell of the file.
    await row.getByTestId('row-open').click();
    const detail = page.locator('[data-testid="row-detail"][data-row="20"]');
    await detail.waitFor();
    await expect.poll(() => detail.getByTestId('row-detail-resent').count()).toBe(1);
    expect(await detail.getByTestId('row-detail-ncm').textContent()).toContain('8481.80.95');
    expect(await detail.getByTestId('row-detail-cells').textContent()).toContain(
      'Rubinetterie Lombarde S.r.l.',
    );
    await detail.scrollIntoViewIfNeeded();
    await browser.screenshot(page, '08-row-opened');
    expect(sandbox.stats().billed_usd).toBe(billedBefore + 2);

    // Sent again once more: refused, nothing written, nothing billed.
    const again = await fetch(`${local.url}api/resends`, {
      method: 'POST',
      body: JSON.stringify({ batch_id: batchId, rows: [{ row: 20 }] }),
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'not_resendable', params: { row: 20 } });
    expect(sandbox.stats().billed_usd).toBe(billedBefore + 2);
  }, 180_000);

  it('reads naturally in Spanish and English: the switch changes every page', async () => {
    for (const [language, word] of [
      ['es', 'Lotes'],
      ['en', 'Batches'],
    ] as const) {
      await page.getByTestId('language').selectOption(language);
      await page.goto(`${local.url}#/batches/${encodeURIComponent(batchId)}`);
      await page.getByTestId('stage').waitFor();
      await expect.poll(() => page.getByTestId('nav-batches').textContent()).toContain(word);
      await browser.screenshot(page, `07-batch-${language}`);
      await page.getByTestId('nav-questions').click();
      await page.getByTestId('question-group').first().waitFor();
      await browser.screenshot(page, `08-inbox-${language}`);
    }
  }, 60_000);

  let plannedId = '';

  it('sends sheets chosen as loose files under the paths the catalogue names, and lists the one it names that is not chosen, before sending', async () => {
    await page.getByTestId('language').selectOption('pt');
    await page.goto(`${local.url}#/upload`);
    await page.getByTestId('upload-catalogue').setInputFiles(join(SAMPLE, 'products.csv'));
    const loose = readdirSync(join(SAMPLE, 'sheets')).map((name) => join(SAMPLE, 'sheets', name));
    expect(loose).toHaveLength(5);
    await page.getByTestId('upload-sheets').setInputFiles(loose);
    await expect.poll(() => page.getByTestId('sheet-file').count()).toBe(5);
    const named = page.getByTestId('named-sheets');
    await expect.poll(() => named.getAttribute('data-state')).toBe('read');
    expect(await named.getAttribute('data-renamed')).toBe('5');
    expect(await named.getAttribute('data-missing')).toBe('1');
    expect(await page.getByTestId('sent-as').count()).toBe(5);
    const missing = page.getByTestId('missing-sheet');
    expect(await missing.getAttribute('data-path')).toBe('sheets/redutor-engrenagens.pdf');
    // Where: the row that names it, as results.csv numbers it.
    expect(await missing.textContent()).toContain('23');
    // The first batch's options, planned only: the plan rejects the rows that batch rejected.
    await page.getByTestId('option-operation').selectOption('import');
    await page.getByTestId('option-country').fill('BR');
    await page.getByTestId('option-plan-only').check();
    await browser.screenshot(page, '09-loose-sheets-pt');
    for (const language of ['es', 'en'] as const) {
      await page.getByTestId('language').selectOption(language);
      await expect.poll(() => page.getByTestId('named-summary').textContent()).toContain('6');
      await browser.screenshot(page, `09-loose-sheets-${language}`);
    }
    await page.getByTestId('language').selectOption('pt');
    await page.getByTestId('upload-submit').click();
    const opened = page.getByTestId('batch-page');
    await vi.waitFor(async () => {
      const id = (await opened.getAttribute('data-batch-id', { timeout: 1_000 })) ?? '';
      expect(id !== '' && id !== batchId, 'the page opens the new batch').toBe(true);
      plannedId = id;
    }, within(60_000));
    expect(plannedId).toMatch(/^products-/);
    await vi.waitFor(
      async () => expect(await page.getByTestId('stage').getAttribute('data-stage')).toBe('planned'),
      within(60_000),
    );
    // Only row 23's sheet is missing: the five loose files were found where the catalogue names them.
    const link = (await (
      await fetch(`${local.url}api/batches/${encodeURIComponent(plannedId)}/files/plan.json`)
    ).json()) as { url: string };
    const plan = (await (await fetch(link.url)).json()) as { rejected: { row: number; reason: string }[] };
    expect(plan.rejected.filter((row) => row.reason === 'sheet_not_found').map((row) => row.row)).toEqual([
      23,
    ]);
    expect(plan.rejected.map((row) => row.row)).toEqual([13, 19, 23, 30]);
    await browser.screenshot(page, '10-plan-opened');
  }, 180_000);

  it("shows a rejected row's own SKU and description, as the catalogue has them", async () => {
    await page.goto(`${local.url}#/batches/${encodeURIComponent(batchId)}`);
    await page.locator('[data-testid="status-filter"] [data-status="rejected"]').click();
    const input = readCsv(readFileSync(join(SAMPLE, 'products.csv'), 'utf8'));
    const sku = input.header.indexOf('SKU');
    const description = input.header.indexOf('Descrição');
    await vi.waitFor(async () => {
      const shown = await page
        .getByTestId('result-row')
        .evaluateAll((rows) =>
          rows.map((row) => [
            row.getAttribute('data-status'),
            Number(row.getAttribute('data-row')),
            row.querySelector('td:nth-of-type(2)')?.textContent?.trim(),
            row.querySelector('td:nth-of-type(3) .truncate')?.getAttribute('title') ?? '',
          ]),
        );
      expect(shown.map(([status, row]) => [status, row])).toEqual(
        [13, 19, 23, 30].map((row) => ['rejected', row]),
      );
      for (const [, row, shownSku, shownDescription] of shown) {
        const cells = input.rows[Number(row) - 1] ?? [];
        expect(shownSku).toBe(cells[sku]);
        expect(shownDescription).toBe(cells[description]?.trim());
      }
    }, within(30_000));
    await browser.screenshot(page, '11-rejected-rows-pt');
    await page.getByTestId('language').selectOption('es');
    await expect.poll(() => page.getByTestId('nav-batches').textContent()).toContain('Lotes');
    await browser.screenshot(page, '11-rejected-rows-es');
    await page.locator('[data-testid="status-filter"] [data-status=""]').click();
    await page.goto(`${local.url}#/batches/${encodeURIComponent(plannedId)}`);
  }, 60_000);

  it('runs the plan without sending its files again: the page opens the new batch, which finds every sheet', async () => {
    const run = page.getByTestId('run-plan');
    await run.waitFor();
    await browser.screenshot(page, '12-run-plan-es');
    for (const language of ['en', 'pt'] as const) {
      await page.getByTestId('language').selectOption(language);
      await expect.poll(() => page.getByTestId('run-plan-button').textContent()).not.toContain('Ejecutar');
      await browser.screenshot(page, `12-run-plan-${language}`);
    }
    await page.getByTestId('run-plan-button').click();
    let runId = '';
    await vi.waitFor(async () => {
      runId = (await page.getByTestId('batch-page').getAttribute('data-batch-id', { timeout: 1_000 })) ?? '';
      expect(runId.startsWith(`${plannedId}-`), 'the page opens the batch the plan started').toBe(true);
    }, within(60_000));
    await browser.screenshot(page, '13-run-started');
    await vi.waitFor(
      async () => expect(await page.getByTestId('stage').getAttribute('data-stage')).toBe('completed'),
      within(150_000),
    );
    expect(await page.getByTestId('rows-total').getAttribute('data-value')).toBe('34');
    expect(await page.getByTestId('run-plan').count()).toBe(0);
    const rows = (await (
      await fetch(`${local.url}api/batches/${encodeURIComponent(runId)}/rows?limit=200`)
    ).json()) as { rows: { row: number; reason: string | null }[] };
    expect(rows.rows.filter((row) => row.reason === 'sheet_not_found').map((row) => row.row)).toEqual([23]);
    // The run's options are the plan's, plan_only off.
    const view = (await (await fetch(`${local.url}api/batches/${encodeURIComponent(runId)}`)).json()) as {
      plan_only: boolean;
      name: string;
    };
    expect(view).toMatchObject({ plan_only: false, name: plannedId });
    await browser.screenshot(page, '14-run-completed');

    // A plan runs once: asked again, the page says which batch it started.
    await page.goto(`${local.url}#/batches/${encodeURIComponent(plannedId)}`);
    await page.getByTestId('run-plan-button').click();
    const refused = page.getByTestId('run-plan-error');
    await refused.waitFor();
    expect(await refused.textContent()).toContain(plannedId);
    await browser.screenshot(page, '15-run-again-pt');
  }, 240_000);

  it('marks a declared NCM that is not in the NCM table in force, naming the table, and keeps those rows alone when asked', async () => {
    // 1513.21.10 and 8517.12.31 ended before the carried table (5 July 2026); the rest are in force.
    const catalogue = join(temp.dir, 'ncm-vigente.csv');
    writeFileSync(
      catalogue,
      [
        'SKU,Descrição,NCM,Referência',
        'OLE-1513,"Óleo de palmiste em bruto, tambor de 200 L",1513.21.10,PO-2026-0501',
        'CAF-0101,"Café torrado em grãos, tipo exportação, pacote 1 kg",9012100,PO-2026-0502',
        'ROL-6204,"Rolamentos de esferas 6204-2RS, caixa com 10 unidades",84821010,PO-2026-0503',
        'CEL-128,"Smartphone 128 GB, tela de 6,1 polegadas, desbloqueado",8517.12.31,PO-2026-0504',
        'PAR-M10,"Parafuso sextavado M10 de aço carbono, com porca",,PO-2026-0505',
      ].join('\r\n'),
    );
    await page.getByTestId('language').selectOption('pt');
    await page.goto(`${local.url}#/upload`);
    await page.getByTestId('upload-catalogue').setInputFiles(catalogue);
    await page.getByTestId('option-operation').selectOption('import');
    await page.getByTestId('option-country').fill('CN');
    await page.getByTestId('upload-submit').click();
    const opened = page.getByTestId('batch-page');
    let id = '';
    await vi.waitFor(async () => {
      id = (await opened.getAttribute('data-batch-id', { timeout: 1_000 })) ?? '';
      expect(id.startsWith('ncm-vigente-'), 'the page opens the new batch').toBe(true);
    }, within(60_000));
    await vi.waitFor(
      async () => expect(await page.getByTestId('stage').getAttribute('data-stage')).toBe('completed'),
      within(120_000),
    );
    const marksOf = () =>
      page.getByTestId('result-row').evaluateAll((rows) =>
        rows.map((row) => ({
          row: Number(row.getAttribute('data-row')),
          declared: row.querySelector('[data-testid="declared-ncm"] .mono')?.textContent ?? null,
          marks: [...row.querySelectorAll('[data-testid="ncm-not-in-force"]')].map((mark) => ({
            which: mark.getAttribute('data-which'),
            text: mark.querySelector('.ncm-flag-label')?.textContent ?? '',
            title: mark.getAttribute('title') ?? '',
          })),
        })),
      );
    let shown: Awaited<ReturnType<typeof marksOf>> = [];
    await vi.waitFor(async () => {
      shown = await marksOf();
      expect(shown.map((one) => one.row)).toEqual([1, 2, 3, 4, 5]);
    }, within(30_000));
    expect(shown.map((one) => one.declared)).toEqual([
      '1513.21.10',
      '0901.21.00',
      '8482.10.10',
      '8517.12.31',
      null,
    ]);
    expect(shown.map((one) => one.marks.map((mark) => mark.which))).toEqual([
      ['declared'],
      [],
      [],
      ['declared'],
      [],
    ]);
    const [mark] = shown[0]?.marks ?? [];
    expect(mark?.text).toBe('NCM não vigente');
    expect(mark?.title).toBe(
      'A NCM declarada 1513.21.10 não consta da tabela NCM vigente (5 de julho de 2026, Resolução Gecex nº 812/2025): a SEFAZ rejeita uma NF-e com esse código.',
    );
    await browser.screenshot(page, '16-ncm-not-in-force-pt');
    await page
      .locator('.rows-panel')
      .screenshot({ path: join(SCREENSHOTS_DIR, '16-ncm-not-in-force-rows-pt.png') });

    // The rows with a code not in force, alone; a search's rows, found as they are read.
    await page.getByTestId('not-in-force-filter').click();
    await vi.waitFor(async () => {
      expect((await marksOf()).map((one) => one.row)).toEqual([1, 4]);
    }, within(30_000));
    expect(await page.getByTestId('not-in-force-filter').getAttribute('aria-pressed')).toBe('true');
    await browser.screenshot(page, '17-ncm-not-in-force-filtered-pt');

    for (const [language, words] of [
      ['es', 'NCM no vigente'],
      ['en', 'NCM not in force'],
    ] as const) {
      await page.getByTestId('language').selectOption(language);
      await vi.waitFor(async () => {
        const [first] = await marksOf();
        expect(first?.marks[0]?.text).toBe(words);
      }, within(10_000));
      await browser.screenshot(page, `16-ncm-not-in-force-${language}`);
      await page
        .locator('.rows-panel')
        .screenshot({ path: join(SCREENSHOTS_DIR, `16-ncm-not-in-force-rows-${language}.png`) });
    }
    const [first] = await marksOf();
    expect(first?.marks[0]?.title).toBe(
      'The declared NCM 1513.21.10 is not in the NCM table in force (July 5, 2026, Resolução Gecex nº 812/2025): in Brazil, SEFAZ rejects an NF-e with that code.',
    );
    await page.getByTestId('language').selectOption('pt');
  }, 240_000);

  it('reads in Portuguese and in Spanish on every page and panel: no English sentence, no bare reason code', async () => {
    const found: Record<string, string[]> = {};
    const look = async (name: string) => {
      found[name] = await notInLanguage(page);
    };
    for (const language of ['pt', 'es'] as const) {
      await page.goto(`${local.url}#/batches`);
      await page.getByTestId('language').selectOption(language);
      await page.getByTestId('batch-row').first().waitFor();
      await look(`${language} batches`);

      await page.goto(`${local.url}#/batches/${encodeURIComponent(batchId)}`);
      await expect.poll(() => page.getByTestId('result-row').count(), within(30_000)).toBe(34);
      await page.getByTestId('batch-audit').locator('summary').click();
      await page.getByTestId('audit-event').first().waitFor();
      await look(`${language} batch, its rows and its audit`);
      // "Reenviar" opened on a rejected row: its form's words.
      await page.locator('[data-testid="result-row"][data-row="30"] [data-testid="row-resend"]').click();
      await page.getByTestId('resend-form').waitFor();
      await look(`${language} sending a row again`);
      // A row opened: everything about it (row 12, whose declared NCM differs from its verdict).
      await page.locator('[data-testid="result-row"][data-row="12"] [data-testid="row-open"]').click();
      await page.locator('[data-testid="row-detail"][data-row="12"]').waitFor();
      await look(`${language} a row opened`);

      await page.goto(`${local.url}#/upload`);
      await page.getByTestId('upload-catalogue').setInputFiles(join(SAMPLE, 'products.csv'));
      await page.getByTestId('rejections-check').waitFor();
      await look(`${language} upload, its checks before sending`);

      await page.goto(`${local.url}#/questions`);
      await page.getByTestId('question-group').first().waitFor();
      await look(`${language} questions`);

      await page.goto(`${local.url}#/checks`);
      await page.getByTestId('checks-empty').waitFor();
      await look(`${language} to check`);

      // A refusal's panel: row 13 was rejected and has no verdict PDF.
      await page.goto(`${local.url}#/batches/${encodeURIComponent(batchId)}/rows/13/verdict`);
      await page.getByTestId('verdict-error').waitFor();
      await look(`${language} a refusal`);
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, []])));
    await page.getByTestId('language').selectOption('pt');
  }, 120_000);
});
