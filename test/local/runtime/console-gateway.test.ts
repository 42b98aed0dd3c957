/**
 * The local stand-in of API Gateway and CloudFront for the console: each route of the table
 * reaches its function as a payload 2.0 event with the local operator's claims; the page and
 * its config are served; nothing outside the site folder, and nothing to a request addressed
 * to another host name.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleGateway,
  matchRoute,
  startConsoleGateway,
} from '../../../local/runtime/console-gateway.js';
import { CONSOLE_ROUTES } from '../../../shared/console/api.js';

// biome-ignore lint/suspicious/noExplicitAny: events are read loosely
const invoked: { handler: string; event: Record<string, any> }[] = [];
let gateway: ConsoleGateway;

beforeAll(async () => {
  const site = mkdtempSync(join(tmpdir(), 'console-site-'));
  mkdirSync(join(site, 'assets'));
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>NCM</title>');
  writeFileSync(join(site, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(tmpdir(), 'outside-the-site.txt'), 'secret');
  gateway = await startConsoleGateway({
    siteDir: site,
    port: 0,
    log: () => undefined,
    invoke: async (handler, event) => {
      invoked.push({ handler, event: event as (typeof invoked)[number]['event'] });
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
    },
  });
});
afterAll(() => gateway.close());

const get = (path: string, init: { method?: string; host?: string; body?: string } = {}) =>
  new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const url = new URL(gateway.url);
    const req = request(
      {
        host: '127.0.0.1',
        port: url.port,
        path,
        method: init.method ?? 'GET',
        headers: { host: init.host ?? url.host },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });

describe('the local console gateway', () => {
  it('matches every route of the table, and only those', () => {
    for (const routeKey of Object.keys(CONSOLE_ROUTES)) {
      const [method = '', path = ''] = routeKey.split(' ');
      const concrete = path.replace(/\{(\w+)\}/g, 'x-$1');
      expect(matchRoute(method, concrete)?.route.routeKey).toBe(routeKey);
    }
    expect(matchRoute('GET', '/batches/b1/rows/7/verdict')?.params).toEqual({ batchId: 'b1', row: '7' });
    expect(matchRoute('DELETE', '/batches/b1')).toBeNull();
    expect(matchRoute('GET', '/batches//rows')).toBeNull();
  });

  it('sends a route to its function as API Gateway would, with the local operator as the signed-in user', async () => {
    const response = await get('/api/batches/b%201/rows?status=resolved&q=caf%C3%A9', { method: 'GET' });
    expect(response).toMatchObject({ status: 200, body: '{"ok":true}' });
    expect(invoked.at(-1)).toMatchObject({
      handler: 'console-read',
      event: {
        version: '2.0',
        routeKey: 'GET /batches/{batchId}/rows',
        pathParameters: { batchId: 'b%201' },
        queryStringParameters: { status: 'resolved', q: 'café' },
        requestContext: { authorizer: { jwt: { claims: { iss: 'local', token_use: 'id' } } } },
      },
    });
    await get('/api/answers', { method: 'POST', body: '{"rows":[]}' });
    expect(invoked.at(-1)).toMatchObject({ handler: 'console-answers', event: { body: '{"rows":[]}' } });
  });

  it('answers an unknown route with a 404 problem, without invoking anything', async () => {
    const before = invoked.length;
    const response = await get('/api/batches/b1', { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'not_found' });
    expect(invoked.length).toBe(before);
  });

  it('serves the page, its assets and a config naming its own API, and index.html for any other path', async () => {
    expect((await get('/')).body).toContain('<title>NCM</title>');
    expect(await get('/assets/app.js')).toMatchObject({
      status: 200,
      type: 'text/javascript; charset=utf-8',
    });
    const config = JSON.parse((await get('/config.json')).body);
    expect(config).toEqual({ apiUrl: `${gateway.url}api`, auth: null });
    expect((await get('/batches/b1')).body).toContain('<title>NCM</title>');
  });

  it('serves nothing outside the site folder', async () => {
    for (const path of [
      '/../outside-the-site.txt',
      '/%2e%2e/outside-the-site.txt',
      '/assets/..%2f..%2foutside-the-site.txt',
    ]) {
      const response = await get(path);
      expect(response.body).not.toContain('secret');
    }
  });

  it('answers an address that is not valid percent-encoding with a 400 problem', async () => {
    const response = await get('/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(response.type).toContain('application/problem+json');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'invalid_request' });
  });

  it('refuses a request addressed to another host name (DNS rebinding)', async () => {
    const response = await get('/api/batches', { host: 'attacker.example:80' });
    expect(response.status).toBe(403);
  });
});
