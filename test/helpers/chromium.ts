/**
 * Debian's Chromium driven by Playwright (playwright-core: no browser download), as a person's
 * browser: a fresh profile per test file, headless, with the flags this machine's closed network
 * needs (no background connections that would be refused).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the browser tests leave their screenshots (git-ignored; the README shows two of them). */
export const SCREENSHOTS_DIR = join(process.cwd(), 'out', 'console-screenshots');

export const openBrowser = async (options: { locale: string }) => {
  const profile = mkdtempSync(join(tmpdir(), 'ncm-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    locale: options.locale,
    viewport: { width: 1366, height: 900 },
    acceptDownloads: true,
    // As a person who asked for less motion: the page stops its spinner and live dot, which a
    // headless browser would otherwise repaint every frame for the whole file.
    reducedMotion: 'reduce',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  return {
    context,
    /** A full-page PNG under SCREENSHOTS_DIR (or only what the window shows: `view`); returns its path. */
    screenshot: async (page: Page, name: string, { view = false }: { view?: boolean } = {}) => {
      const path = join(SCREENSHOTS_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: !view });
      return path;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
