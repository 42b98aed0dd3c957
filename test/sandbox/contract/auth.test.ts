/**
 * Contract: Authentication (401s, the five account 403s on every call, scopes), another
 * organisation's ids answering 404, and the Problem record on every error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import {
  admin,
  api,
  creation,
  expectProblem,
  newKey,
  PAST_ANY_RUN_SECONDS,
  request,
} from '../helpers/http.js';

let sb: Sandbox;
const SOME_ID = 'cls_222222222222';

/** Every /v1 operation, with a body where it takes one. */
const OPERATIONS: { method: string; path: string; json?: unknown; idempotent?: boolean }[] = [
  { method: 'POST', path: '/classifications', json: creation(), idempotent: true },
  { method: 'GET', path: '/classifications' },
  { method: 'GET', path: `/classifications/${SOME_ID}` },
  {
    method: 'POST',
    path: `/classifications/${SOME_ID}/answers`,
    json: { answers: [{ question_id: 'q1', answer: 'x' }] },
    idempotent: true,
  },
  { method: 'GET', path: `/classifications/${SOME_ID}/pdf` },
  {
    method: 'POST',
    path: '/uploads',
    json: { content_type: 'application/pdf', byte_size: 1000, filename: 'a.pdf' },
  },
  { method: 'GET', path: '/tariffs?ncm=09012100&country=CN&operation=import' },
  { method: 'GET', path: '/sim-openings?ncm=09012100&operation=import' },
  { method: 'GET', path: '/balance' },
  { method: 'GET', path: '/countries' },
];

const call = (operation: (typeof OPERATIONS)[number], key: string | null, headers?: Record<string, string>) =>
  request(sb.baseUrl, operation.method, operation.path, {
    key,
    json: operation.json,
    headers,
    idempotencyKey: operation.idempotent ? newKey() : undefined,
  });

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-auth' });
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('401 unauthenticated', () => {
  it.each(OPERATIONS)(
    '$method $path without a key, with an unknown key, a revoked key or a non-Bearer header',
    async (operation) => {
      expectProblem(await call(operation, null), 'unauthenticated', 401);
      expectProblem(await call(operation, 'tcs_sbx_classify_0000000000000000'), 'unauthenticated', 401);
      expectProblem(await call(operation, sb.keys.revoked), 'unauthenticated', 401);
      expectProblem(
        await call(operation, null, { Authorization: `Basic ${sb.keys.classify}` }),
        'unauthenticated',
        401,
      );
    },
  );

  it('the key in the query string is not a key', async () => {
    const response = await request(sb.baseUrl, 'GET', `/balance?api_key=${sb.keys.classify}`, {});
    expectProblem(response, 'unauthenticated', 401);
  });
});

describe('the five account 403s answer every call', () => {
  const accounts = [
    ['plan_without_api', 'plan-without-api'],
    ['api_suspended', 'api-suspended'],
    ['subscription_inactive', 'subscription-inactive'],
    ['organization_archived', 'organization-archived'],
    ['terms_acceptance_required', 'terms-acceptance-required'],
  ] as const;
  it.each(accounts)('%s → 403 %s', async (keyName, problem) => {
    for (const operation of OPERATIONS) {
      expectProblem(await call(operation, sb.keys[keyName]), problem, 403);
    }
    expect((await admin(sb).stats()).by_organization).toEqual({});
  });
});

describe('scopes', () => {
  it('a read key gets 403 insufficient-scope on the three classify operations', async () => {
    for (const operation of OPERATIONS.filter((o) => o.method === 'POST')) {
      expectProblem(await call(operation, sb.keys.read), 'insufficient-scope', 403);
    }
    expect((await admin(sb).stats()).created).toBe(0);
  });

  it('a read key reads: list, get, balance, countries, tariffs, SIM openings', async () => {
    const created = await api(sb).post('/classifications', creation(), { idempotencyKey: newKey() });
    const reader = api(sb, sb.keys.read);
    expect((await reader.get('/classifications')).body.items.map((c: { id: string }) => c.id)).toEqual([
      created.body.id,
    ]);
    expect((await reader.get(`/classifications/${created.body.id}`)).status).toBe(200);
    for (const path of ['/balance', '/countries', '/tariffs?ncm=09012100&country=CN&operation=import']) {
      expect((await reader.get(path)).status, path).toBe(200);
    }
    expect((await reader.get('/sim-openings?ncm=09012100&operation=import')).status).toBe(200);
  });
});

describe("another organization's classifications are 404 not-found", () => {
  it('on get, pdf and answers, and never listed', async () => {
    const mine = await api(sb).post('/classifications', creation(), { idempotencyKey: newKey() });
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    expect((await api(sb).get(`/classifications/${mine.body.id}`)).body.status).toBe('resolved');
    const stranger = api(sb, sb.keys.other_org_classify);
    expectProblem(await stranger.get(`/classifications/${mine.body.id}`), 'not-found', 404);
    expectProblem(await stranger.get(`/classifications/${mine.body.id}/pdf`), 'not-found', 404);
    expectProblem(
      await stranger.post(
        `/classifications/${mine.body.id}/answers`,
        { answers: [{ question_id: 'q1', answer: 'x' }] },
        { idempotencyKey: newKey() },
      ),
      'not-found',
      404,
    );
    expect((await stranger.get('/classifications?status=resolved,in_progress,failed')).body.items).toEqual(
      [],
    );
    const theirs = await stranger.post('/classifications', creation(), { idempotencyKey: newKey() });
    expect(theirs.status).toBe(202);
    expectProblem(await api(sb).get(`/classifications/${theirs.body.id}`), 'not-found', 404);
  });
});

describe('problem bodies and request ids', () => {
  it('every response, success included, carries X-Request-Id; each request gets its own', async () => {
    const a = await api(sb).get('/balance');
    const b = await api(sb).get('/balance');
    expect(a.headers.get('x-request-id')).toMatch(/\S/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('an unknown route or method under /v1 is a 404 Problem', async () => {
    expectProblem(await api(sb).get('/nothing-here'), 'not-found', 404);
    expectProblem(await api(sb).send('DELETE', '/balance'), 'not-found', 404);
  });

  it('the instance is the path of the request, without the query string', async () => {
    const response = await api(sb).get('/tariffs?ncm=0901.21.00&country=CN&operation=import');
    expectProblem(response, 'validation-error', 422);
    expect(response.body.instance).toBe('/v1/tariffs');
  });
});
