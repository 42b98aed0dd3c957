/**
 * The console's sign-in in real Chromium, as on AWS but on loopback: the built page with a
 * config.json naming an authorisation server, here a stand-in of Cognito's (OpenID discovery,
 * authorize, token with PKCE, JWKS, Cognito's /logout), and the API behind a JWT check. Sign in
 * and back, the name the API read from the ID token in the header, every API call carrying that
 * token, a decision recorded under the token's `sub`, a callback with a state this tab never sent
 * refused, sign-out clearing the session.
 * Screenshots in out/console-screenshots/.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../e2e/helpers.js';
import { checkItem } from '../helpers/check-items.js';
import { openBrowser } from '../helpers/chromium.js';
import { consoleWorld } from '../helpers/console-world.js';
import { type OidcStandIn, STAND_IN_ISSUER, startOidcStandIn } from '../helpers/oidc-stand-in.js';
import { BATCH, batchRecord } from '../helpers/records.js';
import { buildPage, startSignedInConsole } from '../helpers/signed-in-console.js';

const CLIENT_ID = 'ncm-console-test';
const ANA = { sub: '7d1e0f52-0000-4000-8000-00000000a0a0', email: 'ana@example.com' };
const temp = makeTempDir('sign-in');
let standIn: OidcStandIn;
let site: Awaited<ReturnType<typeof startSignedInConsole>>;
let browser: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
const world = consoleWorld();

const atStandIn = (path: string) => (url: URL) => url.href.startsWith(`${standIn.url}${path}`);

/** What the page's origin keeps in this tab's sessionStorage (read from config.json: no app runs there). */
const pageSessionKeys = async (): Promise<string[]> => {
  await page.goto(`${site.url}config.json`);
  // A string: the test's own type check knows no DOM.
  return page.evaluate<string[]>('Object.keys(sessionStorage)');
};

beforeAll(async () => {
  const siteDir = join(temp.dir, 'site');
  [standIn] = await Promise.all([startOidcStandIn({ clientId: CLIENT_ID, user: ANA }), buildPage(siteDir)]);
  // One verdict waiting to be checked, for the decision made signed in.
  await world.ports.batches.createBatch(batchRecord({ state: 'completed' }));
  await world.ports.checks.create(checkItem(3));
  site = await startSignedInConsole({
    siteDir,
    ports: world.ports,
    authority: standIn.url,
    issuer: STAND_IN_ISSUER,
    clientId: CLIENT_ID,
  });
  browser = await openBrowser({ locale: 'en-US' });
  page = await browser.context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await standIn?.close();
  temp.remove();
}, 60_000);

describe('signing in to the console', () => {
  it('sends a person with no session to the authorisation server with PKCE (S256), a state and a nonce', async () => {
    await page.goto(`${site.url}#/questions`);
    await page.waitForURL(atStandIn('/authorize'));
    await page.getByTestId('stand-in-sign-in').waitFor();
    await browser.screenshot(page, '20-sign-in-stand-in');
    expect(site.apiRequests).toEqual([]);
    const [asked] = standIn.authorizeRequests;
    expect(Object.fromEntries(asked ?? [])).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: site.url,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.stringMatching(/.{16,}/),
      nonce: expect.stringMatching(/.{16,}/),
    });
    expect(asked?.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));
  }, 60_000);

  it('comes back signed in, on the page it left, showing the name the ID token carries', async () => {
    await page.getByTestId('stand-in-sign-in').click();
    await page.waitForURL((url) => url.href.startsWith(site.url));
    await expect.poll(() => page.getByTestId('user').textContent(), { timeout: 30_000 }).toBe(ANA.email);
    // The code and the state are gone from the address bar; the hash the person asked for is back.
    expect(page.url()).toBe(`${site.url}#/questions`);
    expect(await page.getByTestId('nav-questions').getAttribute('aria-current')).toBe('page');
    // One code, traded once, with the verifier whose S256 was the challenge.
    expect(standIn.tokenRequests).toEqual([{ code: expect.any(String), answered: 200 }]);
    expect(standIn.issued).toHaveLength(1);
    // The ID token carries the nonce the page sent (oidc-client-ts refuses one that does not).
    const claims = JSON.parse(Buffer.from(standIn.issued[0]?.split('.')[1] ?? '', 'base64url').toString());
    expect(claims.nonce).toBe(standIn.authorizeRequests[0]?.get('nonce'));
    await browser.screenshot(page, '21-signed-in');
  }, 60_000);

  it('calls the API with `Authorization: Bearer <id_token>`, the token the authorisation server issued', async () => {
    await vi.waitFor(
      () => expect(site.apiRequests.map((request) => request.route)).toContain('GET /questions'),
      { timeout: 30_000, interval: 100 },
    );
    expect(site.apiRequests.map((request) => request.route)).toContain('GET /session');
    for (const request of site.apiRequests) {
      expect(request).toMatchObject({ authorization: `Bearer ${standIn.issued[0]}`, status: 200 });
    }
  });

  it("records a decision made signed in as hers: the ID token's sub and email, known by the console", async () => {
    await page.getByTestId('nav-checks').click();
    const entry = page.getByTestId('check-entry').first();
    await entry.waitFor({ timeout: 30_000 });
    await entry.getByTestId('check-toggle').click();
    await entry.getByTestId('candidate').last().getByTestId('candidate-choice').check();
    await entry.getByTestId('check-decide').click();
    await page.getByTestId('check-decided').first().waitFor({ timeout: 30_000 });
    await browser.screenshot(page, '24-decided-signed-in');

    const [file] = await world.ports.objects.list(`answers/${BATCH}/`);
    expect(file).toMatch(/\/console-[0-9a-f]{16}\.csv$/);
    expect(world.ports.writers.records.map((record) => [record.key, record.person])).toEqual([
      [file, { name: ANA.email, id: ANA.sub, known_by: 'console', email: ANA.email }],
    ]);
  }, 60_000);

  it('refuses a callback whose state this tab never sent, and never trades its code', async () => {
    const code = standIn.grantCode({
      clientId: CLIENT_ID,
      redirectUri: site.url,
      challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      nonce: null,
      user: { sub: 'someone-else', email: 'mallory@example.com' },
    });
    const tokenRequestsBefore = standIn.tokenRequests.length;
    await page.goto(`${site.url}?code=${code}&state=${randomBytes(16).toString('hex')}`);
    const failed = page.getByTestId('start-failed');
    await failed.waitFor({ timeout: 30_000 });
    expect(await failed.textContent()).toMatch(/sign-in: .*state/i);
    expect(new URL(page.url()).search).toBe('');
    expect(standIn.tokenRequests).toHaveLength(tokenRequestsBefore);
    await browser.screenshot(page, '22-wrong-state-refused');
    // Nobody else was signed in: trying again finds the session as it was.
    await failed.getByRole('button').click();
    await expect.poll(() => page.getByTestId('user').textContent(), { timeout: 30_000 }).toBe(ANA.email);
  }, 60_000);

  it("signs out through Cognito's /logout (client_id, logout_uri), and the session is gone", async () => {
    expect((await pageSessionKeys()).some((key) => key.startsWith('oidc.user:'))).toBe(true);
    await page.goto(site.url);
    await page.getByTestId('sign-out').click();
    // Back from /logout the page finds no session and starts a new sign-in.
    await vi.waitFor(() => expect(standIn.logoutRequests).toHaveLength(1), {
      timeout: 30_000,
      interval: 100,
    });
    await page.waitForURL(atStandIn('/authorize'));
    await page.getByTestId('stand-in-sign-in').waitFor();
    await browser.screenshot(page, '23-signed-out');
    expect(Object.fromEntries(standIn.logoutRequests[0] ?? [])).toEqual({
      client_id: CLIENT_ID,
      logout_uri: site.url,
    });
    const keys = await pageSessionKeys();
    expect(keys.filter((key) => key.startsWith('oidc.user:') || key === 'ncm-console.signed-in-at')).toEqual(
      [],
    );
    // And the API, asked without a token, says what API Gateway says.
    const response = await fetch(`${site.url}api/session`);
    expect(response.status).toBe(401);
  }, 60_000);
});
