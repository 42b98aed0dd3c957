/**
 * Contract: GET /classifications — default status set, newest first, every filter, `q` over
 * product / NCM with or without dots / SIM code, every sort field, `limit`, and opaque
 * cursors bound to the filters and order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import {
  admin,
  api,
  creation,
  expectFieldError,
  type Json,
  newKey,
  PAST_ANY_RUN_SECONDS,
} from '../helpers/http.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;
/** Ids by label, in creation order. */
const ids: Record<string, string> = {};
const byId: Record<string, Json> = {};

const HISTORY: [label: string, body: Record<string, unknown>][] = [
  [
    'coffee',
    {
      operation: 'import',
      country: 'CN',
      description: 'Café torrado em grão, 1 kg',
      external_reference: 'ERP-A-1',
    },
  ],
  ['banana', { operation: 'export', country: 'AR', description: 'Bananas frescas tipo nanica' }],
  [
    'soy',
    { operation: 'import', country: 'PY', description: 'Soja em grão a granel [sandbox:sim=auto_selected]' },
  ],
  ['mate', { operation: 'export', country: 'UY', description: 'Erva-mate para chimarrão' }],
  ['asking', { operation: 'import', country: 'CL', description: 'Peças diversas [sandbox:ask]' }],
  [
    'failing',
    {
      operation: 'import',
      country: 'CN',
      description: 'Arroz branco polido [sandbox:fail=no_valid_candidates]',
    },
  ],
];

const listIds = async (query: string, key = sb.keys.classify): Promise<string[]> => {
  const response = await api(sb, key).get(`/classifications${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body.items.map((c: { id: string }) => c.id);
};

const idsOf = (...labels: string[]) => labels.map((label) => ids[label]);

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-list', concurrencyLimit: 100 });
  client = api(sb);
  for (const [label, body] of HISTORY) {
    const response = await client.post('/classifications', creation(body), { idempotencyKey: newKey(label) });
    expect(response.status).toBe(202);
    ids[label] = response.body.id;
    await admin(sb).advance(1); // distinct creation times, so "newest first" is unambiguous
  }
  await admin(sb).advance(PAST_ANY_RUN_SECONDS);
  const running = await client.post('/classifications', creation({ description: 'Uvas frescas de mesa' }), {
    idempotencyKey: newKey('running'),
  });
  ids.running = running.body.id;
  for (const id of Object.values(ids)) byId[id] = (await client.get(`/classifications/${id}`)).body;
  expect(HISTORY.map(([label]) => byId[ids[label]!].status)).toEqual([
    'resolved',
    'resolved',
    'resolved',
    'resolved',
    'pending_data',
    'failed',
  ]);
});
afterAll(() => sb.close());

describe('defaults', () => {
  it('resolved, pending_data and in_progress only, newest first; a page is exactly items and next_cursor', async () => {
    const response = await client.get('/classifications');
    expect(Object.keys(response.body).sort()).toEqual(['items', 'next_cursor']);
    expect(response.body.next_cursor).toBeNull();
    expect(response.body.items.map((c: { id: string }) => c.id)).toEqual(
      idsOf('running', 'asking', 'mate', 'soy', 'banana', 'coffee'),
    );
    // Items are full Classifications.
    const coffee = response.body.items.find((c: { id: string }) => c.id === ids.coffee);
    expect(coffee).toEqual(byId[ids.coffee!]);
  });

  it('limit defaults to 25 and goes from 1 to 100', async () => {
    const many = await startSandbox({ log: 'silent', concurrencyLimit: 100 });
    try {
      for (let i = 0; i < 27; i++) {
        await api(many).post('/classifications', creation(), { idempotencyKey: newKey('many') });
      }
      const first = await api(many).get('/classifications');
      expect(first.body.items).toHaveLength(25);
      expect(first.body.next_cursor).toBeTypeOf('string');
      expect((await api(many).get('/classifications?limit=100')).body.items).toHaveLength(27);
      expect((await api(many).get('/classifications?limit=1')).body.items).toHaveLength(1);
    } finally {
      await many.close();
    }
  });

  it.each(['0', '101', 'abc', '2.5', '-1'])('limit=%s → 422 on limit', async (limit) => {
    expectFieldError(await client.get(`/classifications?limit=${limit}`), 'limit');
  });
});

describe('filters', () => {
  it('status: a comma-separated list of the five statuses', async () => {
    expect(await listIds('?status=failed')).toEqual(idsOf('failing'));
    expect(await listIds('?status=pending_data,in_progress')).toEqual(idsOf('running', 'asking'));
    expect(await listIds('?status=abandoned')).toEqual([]);
    expect((await listIds('?status=in_progress,pending_data,resolved,failed,abandoned')).length).toBe(7);
  });

  it.each(['bogus', 'resolved,bogus', ''])('status=%s → 422', async (status) => {
    const response = await client.get(`/classifications?status=${status}`);
    expect(response.status).toBe(422);
    expect(response.body.errors.some((e: { field: string }) => e.field.startsWith('status'))).toBe(true);
  });

  it('operation and country', async () => {
    expect(await listIds('?operation=export')).toEqual(idsOf('mate', 'banana'));
    expect(await listIds('?country=CN&status=resolved,failed')).toEqual(idsOf('failing', 'coffee'));
    expect(await listIds('?country=AR&operation=import')).toEqual([]);
    expectFieldError(await client.get('/classifications?operation=both'), 'operation');
    expectFieldError(await client.get('/classifications?country=ar'), 'country');
  });

  it('reviewed: nothing is reviewed in the sandbox', async () => {
    expect(await listIds('?reviewed=true')).toEqual([]);
    expect(await listIds('?reviewed=false')).toEqual(await listIds(''));
    expectFieldError(await client.get('/classifications?reviewed=yes'), 'reviewed');
  });

  it('created_after and created_before are inclusive calendar dates (UTC)', async () => {
    const today = sb.now().toISOString().slice(0, 10);
    const day = (offset: number) =>
      new Date(Date.parse(today) + offset * 86_400_000).toISOString().slice(0, 10);
    const all = await listIds('');
    expect(await listIds(`?created_after=${today}&created_before=${today}`)).toEqual(all);
    expect(await listIds(`?created_after=${day(1)}`)).toEqual([]);
    expect(await listIds(`?created_before=${day(-1)}`)).toEqual([]);
    expectFieldError(await client.get('/classifications?created_after=2026-02-30'), 'created_after');
    expectFieldError(await client.get('/classifications?created_before=yesterday'), 'created_before');
  });

  it('q searches product, description and reference, case- and accent-insensitively', async () => {
    expect(await listIds('?q=bananas')).toEqual(idsOf('banana'));
    expect(await listIds(`?q=${encodeURIComponent('CAFE TORRADO')}`)).toEqual(idsOf('coffee'));
    expect(await listIds(`?q=${encodeURIComponent(byId[ids.mate!].title)}`)).toEqual(idsOf('mate'));
    expect(await listIds('?q=ERP-A-1')).toEqual(idsOf('coffee'));
    expect(await listIds('?q=nothing-like-this')).toEqual([]);
  });

  it('q finds the chosen NCM with or without dots, and the SIM code', async () => {
    const ncm: string = byId[ids.coffee!].chosen_ncm;
    const dotted = `${ncm.slice(0, 4)}.${ncm.slice(4, 6)}.${ncm.slice(6)}`;
    expect(await listIds(`?q=${ncm}`)).toEqual(idsOf('coffee'));
    expect(await listIds(`?q=${dotted}`)).toEqual(idsOf('coffee'));
    expect(await listIds(`?q=${ncm.slice(0, 4)}`)).toEqual(idsOf('coffee'));
    const sim: string = byId[ids.soy!].chosen_sim_code;
    expect(sim).toMatch(/^\d{10}$/);
    expect(await listIds(`?q=${sim}`)).toEqual(idsOf('soy'));
  });

  it('q longer than 120 characters → 422', async () => {
    expectFieldError(await client.get(`/classifications?q=${'a'.repeat(121)}`), 'q');
    expect((await client.get(`/classifications?q=${'a'.repeat(120)}`)).status).toBe(200);
  });

  it('unknown or repeated parameters → 422', async () => {
    expectFieldError(await client.get('/classifications?order=asc'), 'order');
    expectFieldError(await client.get('/classifications?country=CN&country=AR'), 'country');
  });
});

describe('sort', () => {
  const ALL = '?status=in_progress,pending_data,resolved,failed,abandoned';
  const keyOf: Record<string, (c: Json) => string | number | null> = {
    created_at: (c) => Date.parse(c.created_at),
    title: (c) => (c.title === null ? null : fold(c.title)),
    ncm: (c) => c.chosen_ncm,
    confidence: (c) => c.candidates[0]?.confidence ?? null,
    status: (c) => c.status,
    author: (c) => c.author.name,
    country: (c) => c.country,
    operation: (c) => c.operation,
  };

  it.each(Object.keys(keyOf).flatMap((field) => [`${field}:asc`, `${field}:desc`]))(
    'sort=%s orders every item by that field (nulls last)',
    async (sort) => {
      const [field, direction] = sort.split(':') as [string, 'asc' | 'desc'];
      const response = await client.get(`/classifications${ALL}&sort=${sort}`);
      expect(response.status).toBe(200);
      const values = response.body.items.map(keyOf[field]!);
      expect(values).toHaveLength(7);
      const present = values.filter((v: unknown) => v !== null);
      const nulls = values.filter((v: unknown) => v === null);
      expect(values).toEqual([...present, ...nulls]);
      const sorted = [...present].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(present).toEqual(direction === 'asc' ? sorted : sorted.reverse());
    },
  );

  it.each(['bogus:asc', 'country', 'country:up', 'created_at:DESC'])(
    'sort=%s → 422 on sort',
    async (sort) => {
      expectFieldError(await client.get(`/classifications?sort=${sort}`), 'sort');
    },
  );
});

describe('cursors', () => {
  const walk = async (query: string) => {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const separator = query.includes('?') ? '&' : '?';
      const path: string = `/classifications${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await client.get(path);
      expect(response.status, response.text).toBe(200);
      pages.push(response.body.items.map((c: { id: string }) => c.id));
      cursor = response.body.next_cursor;
      if (cursor !== null) expect(cursor.length).toBeLessThanOrEqual(512);
    } while (cursor !== null);
    return pages;
  };

  it('following next_cursor with the same filters and order walks the whole list once', async () => {
    for (const query of [
      '?limit=2',
      '?limit=3&sort=title:asc&status=resolved,failed,pending_data',
      '?limit=1&sort=confidence:desc',
    ]) {
      const pages = await walk(query);
      const whole = await listIds(query.replace(/limit=\d+/, 'limit=100'));
      expect(pages.flat()).toEqual(whole);
      expect(new Set(pages.flat()).size).toBe(whole.length);
      expect(pages.at(-1)!.length).toBeGreaterThan(0);
    }
  });

  it('the page size may change between pages; newer classifications do not shift the rest', async () => {
    const first = await client.get('/classifications?limit=2');
    const newer = await client.post('/classifications', creation(), { idempotencyKey: newKey('newer') });
    const second = await client.get(`/classifications?limit=10&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    const seen = [...first.body.items, ...second.body.items].map((c: { id: string }) => c.id);
    expect(seen).toEqual(idsOf('running', 'asking', 'mate', 'soy', 'banana', 'coffee'));
    expect(seen).not.toContain(newer.body.id);
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
  });

  it.each([
    ['another filter', '&operation=import'],
    ['another status set', '&status=resolved'],
    ['another order', '&sort=created_at:asc'],
    ['another q', '&q=cafe'],
  ])('a cursor sent with %s → 422 on cursor', async (_label, change) => {
    const first = await client.get('/classifications?limit=2');
    const response = await client.get(`/classifications?limit=2${change}&cursor=${first.body.next_cursor}`);
    expectFieldError(response, 'cursor');
  });

  it('the explicit default order is the same order as none', async () => {
    const first = await client.get('/classifications?limit=2');
    const response = await client.get(
      `/classifications?limit=2&sort=created_at:desc&cursor=${first.body.next_cursor}`,
    );
    expect(response.status).toBe(200);
  });

  it('a cursor that is not one, too long, or from another organisation → 422 on cursor', async () => {
    expectFieldError(await client.get('/classifications?cursor=not-a-cursor'), 'cursor');
    expectFieldError(await client.get(`/classifications?cursor=${'A'.repeat(513)}`), 'cursor');
    const first = await client.get('/classifications?limit=2');
    expectFieldError(
      await api(sb, sb.keys.other_org_classify).get(
        `/classifications?limit=2&cursor=${first.body.next_cursor}`,
      ),
      'cursor',
    );
  });
});
