/**
 * A person signs off, in real Chromium against `npm run console`'s stack, signed in locally as
 * "Maria Conferente": a catalogue uploaded twice through the page with `check_below` (the second
 * batch reuses the first's verdicts), its coffee verdict under the threshold in both batches and
 * in the row that follows it in each, shown as one entry of the "To check" list and decided once.
 * A typed NCM not in the NCM table in force is refused before anything is written; the decision
 * writes one decisions file per batch and records her (name and sign-in `sub`) as who wrote it;
 * the answers round applies it and each batch's audit shows the decision under her name and sub,
 * known by the console. An answer given in the
 * questions inbox is hers too: the review item's `answered_by`, the row's round and the audit.
 * Screenshots in out/console-screenshots/ (30-…), in Portuguese and English.
 */
import { join } from 'node:path';
import { HeadObjectCommand, ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalConsole, openLocalConsole } from '../../local/runtime/local-console.js';
import { LOCAL_CREDENTIALS } from '../../local/runtime/loopback.js';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import { LOCAL_REGION } from '../../local/runtime/template.js';
import type { AuditEventView } from '../../shared/console/api.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, writeCsv } from '../e2e/helpers.js';
import { openBrowser } from '../helpers/chromium.js';

const PERSON = 'Maria Conferente';
/** The `sub` the local sign-in gives her (local/runtime/console-gateway.ts). */
const PERSON_SUB = `local:${PERSON}`;
const COFFEE = 'Café torrado em grãos, pacote 1 kg [sandbox:confidence=medium]';
const temp = makeTempDir('to-check');
let local: LocalConsole;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
let s3: S3Client;
const batchIds: string[] = [];
let decidedNcm = '';
let simChosen = '';

type CheckEntry = {
  description: string;
  row_count: number;
  reasons: string[];
  rows: { batch_id: string; row: number; classification_id: string }[];
};

/** The entry of the list whose product's description has `text`. */
const entryOf = (text: string) => page.getByTestId('check-entry').filter({ hasText: text });

const within = (timeout: number) => ({ timeout, interval: 250 });

const api = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${local.url}api${path}`)).json()) as T;

/** The keys under answers/<batch-id>/ and their answered-by metadata, decoded. */
const answersFiles = async (batchId: string) => {
  const { Buckets = [] } = await s3.send(new ListBucketsCommand({}));
  const files: { key: string; by: string | null }[] = [];
  for (const { Name } of Buckets) {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: Name, Prefix: `answers/${batchId}/` }));
    for (const { Key } of listed.Contents ?? []) {
      const head = await s3.send(new HeadObjectCommand({ Bucket: Name, Key }));
      const by = head.Metadata?.['answered-by'];
      files.push({ key: Key ?? '', by: by === undefined ? null : decodeURIComponent(by) });
    }
  }
  return files;
};

/** Uploads the catalogue through the page under `name`, with check_below; resolves with the batch id once completed. */
const uploadAndFinish = async (name: string, screenshot: string | null) => {
  await page.goto(`${local.url}#/upload`);
  await page.getByTestId('upload-catalogue').setInputFiles(join(temp.dir, 'catalogo.csv'));
  await page.getByTestId('upload-batch-name').fill(name);
  await page.getByTestId('option-check-below').fill('80');
  if (screenshot) await browser.screenshot(page, screenshot);
  await page.getByTestId('upload-submit').click();
  const opened = page.getByTestId('batch-page');
  await opened.waitFor({ timeout: 60_000 });
  const batchId = (await opened.getAttribute('data-batch-id')) ?? '';
  await vi.waitFor(
    async () => expect(await page.getByTestId('stage').getAttribute('data-stage')).toBe('completed'),
    within(150_000),
  );
  return batchId;
};

beforeAll(async () => {
  writeCsv(
    join(temp.dir, 'catalogo.csv'),
    ['SKU', 'Descrição', 'Operação', 'País'],
    [
      ['CAF-0101', COFFEE, 'export', 'US'],
      ['CAF-0102', COFFEE, 'export', 'US'],
      ['VIN-MAL', 'Vinho tinto Malbec 750 ml [sandbox:confidence=high]', 'import', 'AR'],
      ['KIT-FER', 'Kit de ferramentas para oficina mecânica [sandbox:ask=1]', 'import', 'CN'],
    ],
  );
  const pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    bucketNotifications: true,
    sandbox: { seed: 'to-check' },
  });
  local = await openLocalConsole(pipeline, { operator: PERSON });
  s3 = new S3Client({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: pipeline.endpoints.s3,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  browser = await openBrowser({ locale: 'pt-BR' });
  page = await browser.context.newPage();
}, 300_000);

afterAll(async () => {
  s3?.destroy();
  await browser?.close();
  await local?.close();
  temp.remove();
}, 60_000);

describe('a person signs off in the console', () => {
  it('uploads the catalogue twice with check_below; the plan of options shows it', async () => {
    batchIds.push(await uploadAndFinish('cafe-1', '30-upload-check-below-pt'));
    expect(await page.locator('dl.options-line').textContent()).toContain('80');
    batchIds.push(await uploadAndFinish('cafe-2', null));
    expect(new Set(batchIds).size).toBe(2);
    expect(await page.getByTestId('user').textContent()).toBe(PERSON);
    // The first batch was sent by her (the second reuses its verdicts: nothing is submitted): the
    // console gave her the form, and S3's record says its role wrote the catalogue through it.
    // S3's record of the drop may come after the batch finished (CloudTrail's delay, a loaded
    // machine here): the audit names her as soon as it has.
    await vi.waitFor(async () => {
      const { events } = await api<{ events: AuditEventView[] }>(
        `/batches/${encodeURIComponent(batchIds[0] ?? '')}/audit?limit=200`,
      );
      const submitted = events.filter((event) => event.event === 'submitted');
      expect(submitted.length).toBeGreaterThan(0);
      expect(new Set(submitted.map((event) => `${event.who}|${event.who_id}|${event.known_by}`))).toEqual(
        new Set([`${PERSON}|${PERSON_SUB}|console`]),
      );
    }, within(120_000));
  }, 360_000);

  it('lists each product of both batches as one entry; a typed NCM not in force is refused and nothing is written', async () => {
    // The batch's rows say why each verdict waits: the coffee is less sure than 80 %, the wine
    // (sure enough) has a SIM opening to choose; each links to its entry.
    await page.goto(`${local.url}#/batches/${encodeURIComponent(batchIds[0] ?? '')}`);
    const why = (row: number) =>
      page.locator(`[data-testid="result-row"][data-row="${row}"] [data-testid="row-check-why"]`);
    await why(3).waitFor({ timeout: 30_000 });
    expect(await why(3).textContent()).toContain('destaque SIM');
    expect(await why(1).textContent()).toContain('menos segura');
    await page.getByTestId('nav-checks').click();
    const entries = page.getByTestId('check-entry');
    // The coffee (under 80 %) and the wine (its SIM opening to choose), each across both batches.
    await vi.waitFor(async () => expect(await entries.count()).toBe(2), within(30_000));
    const listed = await api<{ entries: CheckEntry[] }>('/checks');
    const coffee = listed.entries.find((entry) => entry.description.startsWith('Café'));
    const wine = listed.entries.find((entry) => entry.description.startsWith('Vinho'));
    expect(coffee?.reasons).toContain('low_confidence');
    expect(wine?.reasons).toEqual(['sim_pending_choice']);
    // Row 1 of each batch: the first batch's row 2 follows it; the second's reuses the same
    // verdict, under the one item of its product there, which counts it.
    expect(coffee?.rows.map((row) => [row.batch_id, row.row])).toEqual([
      [batchIds[0], 1],
      [batchIds[1], 1],
    ]);
    expect(coffee?.row_count).toBe(4);
    expect(new Set(coffee?.rows.map((row) => row.classification_id)).size).toBe(1);
    expect(wine?.rows.map((row) => [row.batch_id, row.row])).toEqual([
      [batchIds[0], 3],
      [batchIds[1], 3],
    ]);
    const card = entryOf('Café');
    expect(await card.getAttribute('data-batches')).toBe('2');
    // A line each; opened, the line shows the product in full and the form.
    await card.getByTestId('check-toggle').click();
    expect(await card.locator('h2').textContent()).toBe(COFFEE);
    expect(await card.getByTestId('check-reasons').textContent()).toContain('80');
    await browser.screenshot(page, '31-to-check-pt');

    await card.getByTestId('candidate-typed-choice').check();
    await card.getByTestId('typed-ncm').fill('9999.99.99');
    await card.getByTestId('check-decide').click();
    const refused = card.getByTestId('check-error');
    await refused.waitFor();
    expect(await refused.textContent()).toContain('9999.99.99');
    expect(await refused.textContent()).toContain('vigente');
    await browser.screenshot(page, '32-to-check-refused-pt');
    for (const batchId of batchIds) expect(await answersFiles(batchId)).toEqual([]);

    await page.getByTestId('language').selectOption('en');
    // The menu names the list, its badge counting the two products waiting.
    await expect.poll(() => page.getByTestId('nav-checks').textContent()).toBe('To check2');
    expect(await page.getByTestId('checks-badge').getAttribute('data-count')).toBe('2');
    await browser.screenshot(page, '33-to-check-en');
  }, 120_000);

  it('decides each entry once: a decisions file per batch, each carrying the signed-in person', async () => {
    const coffee = entryOf('Café');
    const chosen = coffee.getByTestId('candidate').last();
    decidedNcm = (await chosen.getAttribute('data-ncm')) ?? '';
    await chosen.getByTestId('candidate-choice').check();
    await coffee.getByTestId('check-note').fill('Conferido com a ficha do fornecedor');
    await coffee.getByTestId('check-decide').click();
    await page.getByTestId('check-decided').first().waitFor();
    // The wine: its own NCM, and one of its SIM openings (the line opens by itself when it came
    // after the coffee's).
    const wine = entryOf('Vinho');
    if ((await wine.getByTestId('check-open').count()) === 0) await wine.getByTestId('check-toggle').click();
    await wine.getByTestId('candidate-choice').first().check();
    const sim = wine.getByTestId('check-sim');
    simChosen = (await sim.locator('option').nth(1).getAttribute('value')) ?? '';
    await sim.selectOption(simChosen);
    await wine.getByTestId('check-decide').click();
    await expect.poll(() => page.getByTestId('check-decided').count()).toBe(2);
    await browser.screenshot(page, '34-to-check-decided-en');
    for (const batchId of batchIds) {
      const files = await answersFiles(batchId);
      expect(files).toEqual([
        { key: expect.stringMatching(/\/console-[0-9a-f]{16}\.csv$/), by: PERSON },
        { key: expect.stringMatching(/\/console-[0-9a-f]{16}\.csv$/), by: PERSON },
      ]);
    }
    expect(decidedNcm).toMatch(/^[0-9]{8}$/);
    expect(simChosen).toMatch(/^[0-9]{10}$/);
  }, 60_000);

  it("applies the decisions in each batch's answers round; the audit shows them under the person's name", async () => {
    // The rounds apply them: the list has nothing left to check.
    await vi.waitFor(
      async () => expect((await api<{ entries: unknown[] }>('/checks')).entries).toEqual([]),
      within(120_000),
    );
    for (const batchId of batchIds) {
      await vi.waitFor(async () => {
        const { events } = await api<{ events: AuditEventView[] }>(
          `/batches/${encodeURIComponent(batchId)}/audit?limit=200`,
        );
        const decided = events.filter((event) => event.event === 'decided');
        // Her name, her sign-in's sub and how she was known: the console's record of the file it wrote.
        expect(decided.map((event) => [event.who, event.who_id, event.known_by, event.stated_by])).toEqual(
          decided.map(() => [PERSON, PERSON_SUB, 'console', null]),
        );
        expect(decided.map((event) => event.row)).toEqual(expect.arrayContaining([1, 3]));
      }, within(60_000));
      const row = await local.pipeline.tables.batches.getRow(batchId, 1);
      expect(row?.result).toMatchObject({ check: 'approved', decided_by: PERSON });
    }
    // The second batch's row 2 reuses the coffee's verdict itself: the one decision is written on
    // it too, by the round's FinalizeAnswers.
    await vi.waitFor(async () => {
      const reused = await local.pipeline.tables.batches.getRow(batchIds[1] ?? '', 2);
      expect(reused).toMatchObject({ status: 'reused', result: { check: 'approved', decided_by: PERSON } });
    }, within(60_000));
    await page.goto(`${local.url}#/batches/${encodeURIComponent(batchIds[0] ?? '')}`);
    // The rows say so too: row 1 approved by her, and row 2, which follows it.
    const approved = page.locator('[data-testid="row-check"][data-check="approved"]');
    await vi.waitFor(async () => expect(await approved.count()).toBeGreaterThanOrEqual(2), within(30_000));
    expect(await approved.first().getAttribute('data-by')).toBe(PERSON);
    await page.getByTestId('batch-audit').locator('summary').click();
    const decided = page.locator('[data-testid="audit-event"][data-event="decided"]');
    await decided.first().waitFor({ timeout: 30_000 });
    expect(await decided.first().getAttribute('data-who')).toBe(PERSON);
    // How she was known, beside her name; her sign-in's sub in its tooltip.
    const who = decided.first().locator('td[data-known-by]');
    expect(await who.getAttribute('data-known-by')).toBe('console');
    expect(await who.textContent()).toContain('signed in to the console');
    expect(await who.getAttribute('title')).toBe(PERSON_SUB);
    // Filtered by person and by kind of event: only her decisions.
    await page.getByTestId('audit-filter-who').selectOption(PERSON);
    await page.getByTestId('audit-filter-event').selectOption('decided');
    const shownEvents = page.getByTestId('audit-event');
    await expect
      .poll(
        async () =>
          new Set(await shownEvents.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event')))),
      )
      .toEqual(new Set(['decided']));
    expect(await page.getByTestId('audit-filter-row').count()).toBe(1);
    await page.getByTestId('audit-filter-row').fill('3');
    await expect
      .poll(() => shownEvents.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-row'))))
      .toEqual(['3']);
    await browser.screenshot(page, '35-audit-decided-en');
    await page.getByTestId('language').selectOption('pt');
    // Nothing left to check: the badge is gone.
    await expect.poll(() => page.getByTestId('nav-checks').textContent()).toBe('A conferir');
    await browser.screenshot(page, '35-audit-decided-pt');
  }, 240_000);

  it('attributes an answer given in the inbox to the person, not a role: review item, round and audit', async () => {
    await page.getByTestId('nav-questions').click();
    const group = page.getByTestId('question-group').first();
    await group.waitFor({ timeout: 30_000 });
    for (const options of await group.getByTestId('answer-options').all())
      await options.locator('[data-testid="answer-option"][data-option="0"]').check();
    for (const text of await group.getByTestId('answer-text').all())
      await text.fill('Uso em oficina mecânica');
    const row = group.getByTestId('question-row').first();
    const rowNumber = Number(await row.getAttribute('data-row'));
    const batchId = (await row.getAttribute('data-batch-id')) ?? '';
    await group.getByTestId('submit-answers').click();
    const sent = page.locator(`[data-testid="sent-row"][data-row="${rowNumber}"]`);
    await vi.waitFor(
      async () => expect(await sent.getAttribute('data-final'), 'the answered row is final').toBe('true'),
      within(150_000),
    );
    await browser.screenshot(page, '36-answered-pt');
    const record = await local.pipeline.tables.batches.getRow(batchId, rowNumber);
    expect(record?.round?.answered_by).toBe(PERSON);
    const items = await local.pipeline.tables.reviews.listByBatch(batchId);
    expect(items.find((item) => item.row === rowNumber)?.answered_by).toBe(PERSON);
    await vi.waitFor(async () => {
      const { events } = await api<{ events: AuditEventView[] }>(
        `/batches/${encodeURIComponent(batchId)}/audit?limit=200`,
      );
      expect(events.filter((event) => event.event === 'answered' && event.row === rowNumber)).toEqual([
        expect.objectContaining({ who: PERSON, who_id: PERSON_SUB, known_by: 'console' }),
      ]);
    }, within(60_000));
  }, 240_000);
});
