/**
 * A day at the "To check" workbench, in real Chromium against the local stack, signed in locally
 * as "Maria Conferente": last night's ERP export (the benchmark's generator, 360 products),
 * dropped into the inbox under `check_below: 100`, left hundreds of verdicts to check. The menu's badge counts them;
 * a filter by reason and a shift-click select 50 lines, approved at the service's NCM with one
 * confirmation that stays at the bottom of the window; each batch's round applies them and the
 * audit names her for each of the 50. A row's link opens its entry; after a decision the focus
 * moves to the next line; at 390 px the list and the questions inbox fit the window.
 * Screenshots in out/console-screenshots/ (40-…), at 1,366 and 390 px.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeNightlyExport } from '../../local/bench/nightly-export.js';
import { type LocalConsole, openLocalConsole } from '../../local/runtime/local-console.js';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import type { AuditEventView, CheckList } from '../../shared/console/api.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir } from '../e2e/helpers.js';
import { openBrowser } from '../helpers/chromium.js';
import { notInLanguage } from '../helpers/language-walk.js';

const PERSON = 'Maria Conferente';
const PERSON_SUB = `local:${PERSON}`;
const APPROVED = 50;
const temp = makeTempDir('workbench');
let local: LocalConsole;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
let batchId = '';
let approvedRows: number[] = [];

const within = (timeout: number) => ({ timeout, interval: 250 });

const api = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${local.url}api${path}`)).json()) as T;

const auditOf = async (id: string): Promise<AuditEventView[]> => {
  const events: AuditEventView[] = [];
  let after: string | null = null;
  do {
    const query: string = after === null ? '' : `&after=${encodeURIComponent(after)}`;
    const got: { events: AuditEventView[]; next: string | null } = await api(
      `/batches/${encodeURIComponent(id)}/audit?limit=200${query}`,
    );
    events.push(...got.events);
    after = got.next;
  } while (after !== null);
  return events;
};

/** Nothing reaches past the window's right edge: the page is usable without scrolling sideways. */
const overflowX = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

/** Whether the element's bottom edge is inside the window. */
const inWindow = async (locator: ReturnType<Page['getByTestId']>) =>
  (await locator.evaluate((node) => node.getBoundingClientRect().bottom)) <=
  (page.viewportSize()?.height ?? 0);

/** The `data-key` of the list's entry that holds the focus. */
const focusedEntry = () =>
  page.evaluate<string | undefined>('document.activeElement?.closest("tbody")?.dataset.key');

beforeAll(async () => {
  const file = join(temp.dir, 'exportacao-erp.csv');
  // Every verdict under 100 % is checked, as a team does in its first weeks: of the export's 360
  // products the sandbox resolves 306, each one line of the list.
  writeNightlyExport(file, { rows: 360, products: 360 });
  const pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    bucketNotifications: true,
    sandbox: { seed: 'workbench' },
  });
  local = await openLocalConsole(pipeline, { operator: PERSON });
  // Dropped into the inbox as the ERP's job drops it on AWS: S3's event starts the batch.
  await pipeline.putObject(
    'inbox/exportacao-noturna/batch.json',
    Buffer.from(JSON.stringify({ check_below: 100 })),
    'application/json',
  );
  await pipeline.putObject('inbox/exportacao-noturna/exportacao-erp.csv', readFileSync(file), 'text/csv');
  await vi.waitFor(
    async () => {
      const { batches } = await api<{ batches: { batch_id: string; stage: string }[] }>('/batches');
      expect(batches.map((batch) => batch.stage)).toEqual(['completed']);
      batchId = batches[0]?.batch_id ?? '';
    },
    { timeout: 600_000, interval: 1000 },
  );
  browser = await openBrowser({ locale: 'pt-BR' });
  page = await browser.context.newPage();
}, 720_000);

afterAll(async () => {
  await browser?.close();
  await local?.close();
  temp.remove();
}, 60_000);

describe('the "To check" workbench on a nightly export', () => {
  it('counts the verdicts to check in the menu, one line per product', async () => {
    const listed = await api<CheckList>('/checks');
    expect(listed.entries.length).toBeGreaterThanOrEqual(300);
    await page.goto(`${local.url}#/checks`);
    const badge = page.getByTestId('checks-badge');
    await vi.waitFor(
      async () => expect(await badge.getAttribute('data-count')).toBe(String(listed.entries.length)),
      within(30_000),
    );
    await vi.waitFor(
      async () => expect(await page.getByTestId('check-entry').count()).toBe(listed.entries.length),
      within(30_000),
    );
    // A line, not a form: the page of 300 products is a table a person scans.
    expect(await page.getByTestId('check-open').count()).toBe(0);
    await browser.screenshot(page, '40-workbench-pt', { view: true });
  }, 120_000);

  it('filters by reason and approves 50 lines at the service’s NCM with one confirmation', async () => {
    const listed = await api<CheckList>('/checks');
    const lowConfidence = listed.entries.filter((entry) => entry.reasons.includes('low_confidence'));
    await page.getByTestId('check-filter-reason').selectOption('low_confidence');
    const shown = page.getByTestId('check-shown');
    await expect.poll(() => shown.getAttribute('data-shown')).toBe(String(lowConfidence.length));
    expect(lowConfidence.length).toBeGreaterThan(APPROVED);
    const lines = page.getByTestId('check-entry');
    await lines.nth(0).getByTestId('check-select').click();
    await lines
      .nth(APPROVED - 1)
      .getByTestId('check-select')
      .click({ modifiers: ['Shift'] });
    const bar = page.getByTestId('bulk-bar');
    expect(await bar.getAttribute('data-count')).toBe(String(APPROVED));
    const keys = await Promise.all(
      Array.from({ length: APPROVED }, (_, i) => lines.nth(i).getAttribute('data-key')),
    );
    const chosen = listed.entries.filter((entry) => keys.includes(entry.key));
    expect(chosen).toHaveLength(APPROVED);
    approvedRows = chosen.flatMap((entry) => entry.rows.map((row) => row.row)).sort((a, b) => a - b);

    await page.getByTestId('bulk-note').fill('Conferido em lote com as fichas');
    await page.getByTestId('bulk-approve').click();
    const confirm = page.getByTestId('bulk-confirm');
    await confirm.waitFor();
    // The confirmation is in the window, however far down the list the person is.
    expect(await confirm.isVisible()).toBe(true);
    expect(await inWindow(confirm)).toBe(true);
    expect(await confirm.textContent()).toContain('50 produtos');
    await browser.screenshot(page, '41-workbench-confirm-pt', { view: true });
    await page.getByTestId('bulk-confirm-yes').click();
    const approved = page.getByTestId('check-approved');
    await approved.waitFor({ timeout: 30_000 });
    expect(await inWindow(approved)).toBe(true);
    expect(await approved.textContent()).toContain('50 produtos');
    await expect.poll(() => shown.getAttribute('data-shown')).toBe(String(lowConfidence.length - APPROVED));
    await browser.screenshot(page, '42-workbench-approved-pt', { view: true });
  }, 120_000);

  it("applies the 50 in the batch's round; the audit names her for each of them", async () => {
    await vi.waitFor(async () => {
      const decided = (await auditOf(batchId)).filter((event) => event.event === 'decided');
      expect(decided.map((event) => event.row).sort((a, b) => a - b)).toEqual(approvedRows);
      expect(new Set(decided.map((event) => `${event.who}|${event.who_id}|${event.known_by}`))).toEqual(
        new Set([`${PERSON}|${PERSON_SUB}|console`]),
      );
    }, within(240_000));
    const row = await local.pipeline.tables.batches.getRow(batchId, approvedRows[0] ?? 0);
    expect(row?.result).toMatchObject({ check: 'approved', decided_by: PERSON });
    await vi.waitFor(async () => {
      const left = await api<CheckList>('/checks');
      expect(left.entries.some((entry) => entry.rows.some((r) => approvedRows.includes(r.row)))).toBe(false);
    }, within(60_000));
  }, 300_000);

  it('opens the entry a row links to, and moves the focus to the next line after a decision', async () => {
    const listed = await api<CheckList>('/checks');
    const target = listed.entries[3];
    const targetRow = target?.rows[0];
    expect(targetRow).toBeDefined();
    await page.goto(`${local.url}#/batches/${encodeURIComponent(batchId)}`);
    await page.goto(`${local.url}#/checks?batch=${encodeURIComponent(batchId)}&row=${targetRow?.row}`);
    const entry = page.locator(`[data-testid="check-entry"][data-key="${target?.key}"]`);
    await entry.getByTestId('check-open').waitFor({ timeout: 30_000 });
    await vi.waitFor(async () => expect(await focusedEntry()).toBe(target?.key));
    const lines = page.getByTestId('check-entry');
    const index = (
      await lines.evaluateAll((all) => all.map((node) => node.getAttribute('data-key')))
    ).indexOf(target?.key ?? '');
    const nextKey = await lines.nth(index + 1).getAttribute('data-key');
    await entry.getByTestId('candidate-choice').first().check();
    await entry.getByTestId('check-decide').click();
    await page.getByTestId('check-decided').waitFor({ timeout: 30_000 });
    await vi.waitFor(async () => expect(await focusedEntry()).toBe(nextKey));
    expect(
      await page
        .locator(`[data-testid="check-entry"][data-key="${nextKey}"]`)
        .getByTestId('check-open')
        .count(),
    ).toBe(1);
    await browser.screenshot(page, '43-workbench-next-pt', { view: true });
  }, 120_000);

  it('reads in Portuguese and in Spanish: the list, an open line and the bulk bar, no English sentence nor bare code', async () => {
    const found: Record<string, string[]> = {};
    for (const language of ['pt', 'es'] as const) {
      // The list afresh: nothing open, nothing selected.
      await page.goto(`${local.url}#/checks`);
      await page.reload();
      await page.getByTestId('language').selectOption(language);
      const first = page.getByTestId('check-entry').first();
      await first.waitFor({ timeout: 30_000 });
      if ((await first.getByTestId('check-open').count()) === 0)
        await first.getByTestId('check-toggle').click();
      await first.getByTestId('check-open').waitFor();
      await first.getByTestId('check-select').click();
      await page.getByTestId('bulk-approve').click();
      await page.getByTestId('bulk-confirm').waitFor();
      found[language] = await notInLanguage(page);
      await page.getByRole('button', { name: language === 'pt' ? 'Voltar' : 'Volver' }).click();
    }
    expect(found).toEqual({ pt: [], es: [] });
    await page.getByTestId('language').selectOption('pt');
  }, 120_000);

  it('fits a phone: the list, an open line and the questions inbox at 390 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${local.url}#/checks`);
    await page.reload();
    await page.getByTestId('check-entry').first().waitFor({ timeout: 30_000 });
    expect(await overflowX()).toBeLessThanOrEqual(0);
    // Every menu entry can be reached: the menu scrolls sideways inside the window.
    for (const name of ['batches', 'upload', 'questions', 'checks']) {
      const link = page.getByTestId(`nav-${name}`);
      await link.scrollIntoViewIfNeeded();
      expect(await link.isVisible()).toBe(true);
    }
    await browser.screenshot(page, '44-workbench-390-pt', { view: true });
    await page.getByTestId('check-toggle').first().click();
    const decide = page.getByTestId('check-entry').first().getByTestId('check-decide');
    await decide.scrollIntoViewIfNeeded();
    expect(await decide.isVisible()).toBe(true);
    expect(await overflowX()).toBeLessThanOrEqual(0);
    await browser.screenshot(page, '45-workbench-open-390-pt', { view: true });
    await page.getByTestId('nav-questions').click();
    await page.getByTestId('question-group').first().waitFor({ timeout: 30_000 });
    // The inbox too is read one batch at a time when asked.
    await page.getByTestId('questions-filter-batch').selectOption(batchId);
    expect(
      new Set(
        await page
          .getByTestId('question-row')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-batch-id'))),
      ),
    ).toEqual(new Set([batchId]));
    expect(await overflowX()).toBeLessThanOrEqual(0);
    await browser.screenshot(page, '46-questions-390-pt', { view: true });
    await page.setViewportSize({ width: 1366, height: 900 });
  }, 120_000);
});
