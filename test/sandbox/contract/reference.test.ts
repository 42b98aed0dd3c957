/**
 * Contract: the reference and account lookups — GET /tariffs (three variants), GET
 * /sim-openings (verifying, none, available), GET /balance, GET /countries — and their
 * query validation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../local/sandbox/classifier/catalogue.js';
import { sandboxClassifier } from '../../../local/sandbox/classifier/index.js';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import { api, creation, expectFieldError, newKey } from '../helpers/http.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
let sb: Sandbox;
let client: ReturnType<typeof api>;

/** An NCM of the built-in catalogue for which the simulated source gives `wanted`. */
const ncmWhere = (wanted: (ncm: string) => boolean): string => {
  const found = CATALOGUE.map((entry) => entry.ncm).find(wanted);
  if (!found) throw new Error('no catalogue NCM has the wanted property');
  return found;
};
const now = new Date();
const tariffOf = (ncm: string) =>
  sandboxClassifier.lookupTariff({ ncm, country: 'CN', operation: 'import' }, now);
const simOf = (ncm: string) => sandboxClassifier.lookupSimOpenings({ ncm, operation: 'import' }, now).status;

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-reference' });
  client = api(sb);
});
afterAll(() => sb.close());

describe('GET /tariffs', () => {
  it('import, found: every field; the applicable duty follows the country (intra- or extra-zone)', async () => {
    const ncm = ncmWhere((n) => tariffOf(n).found);
    const extra = (await client.get(`/tariffs?ncm=${ncm}&country=CN&operation=import`)).body;
    expect(Object.keys(extra).sort()).toEqual(
      [
        'aec',
        'duty_kind',
        'found',
        'import_duty_applicable',
        'import_duty_extrazone',
        'import_duty_intrazone',
        'operation',
        'queried_at',
        'source',
        'statistical_rate',
      ].sort(),
    );
    expect(extra.found).toBe(true);
    expect(extra.operation).toBe('import');
    expect(extra.duty_kind).toBe('extrazone');
    expect(extra.import_duty_applicable).toBe(extra.import_duty_extrazone);
    expect(extra.aec === null || typeof extra.aec === 'number').toBe(true);
    expect(typeof extra.statistical_rate).toBe('number');
    expect(extra.source.length).toBeGreaterThan(0);
    expect(extra.queried_at).toMatch(ISO);
    const intra = (await client.get(`/tariffs?ncm=${ncm}&country=AR&operation=import`)).body;
    expect(intra.duty_kind).toBe('intrazone');
    expect(intra.import_duty_applicable).toBe(intra.import_duty_intrazone);
  });

  it('export, found: export_duty and export_refund', async () => {
    const ncm = ncmWhere((n) => tariffOf(n).found);
    const body = (await client.get(`/tariffs?ncm=${ncm}&country=CN&operation=export`)).body;
    expect(Object.keys(body).sort()).toEqual(
      ['export_duty', 'export_refund', 'found', 'operation', 'queried_at', 'source'].sort(),
    );
    expect(body).toMatchObject({ found: true, operation: 'export' });
    expect(typeof body.export_duty).toBe('number');
    expect(typeof body.export_refund).toBe('number');
  });

  it('not found is still 200: found false with reason no_data or not_available', async () => {
    const unknown = await client.get('/tariffs?ncm=99999999&country=CN&operation=import');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ found: false, reason: 'no_data' });
    expect(unknown.body.queried_at).toMatch(ISO);
    const ncm = ncmWhere((n) => {
      const t = tariffOf(n);
      return !t.found && t.reason === 'not_available';
    });
    const unavailable = await client.get(`/tariffs?ncm=${ncm}&country=BR&operation=export`);
    expect(unavailable.status).toBe(200);
    expect(unavailable.body).toMatchObject({ found: false, reason: 'not_available' });
  });

  it.each([
    ['ncm with dots', 'ncm=0901.21.00&country=CN&operation=import', 'ncm'],
    ['ncm missing', 'country=CN&operation=import', 'ncm'],
    ['country lower case', 'ncm=09012100&country=cn&operation=import', 'country'],
    ['country not accepted', 'ncm=09012100&country=ZZ&operation=import', 'country'],
    ['operation outside the enum', 'ncm=09012100&country=CN&operation=transit', 'operation'],
    ['an unknown parameter', 'ncm=09012100&country=CN&operation=import&year=2026', 'year'],
  ])('%s → 422 on %s', async (_label, query, field) => {
    expectFieldError(await client.get(`/tariffs?${query}`), field);
  });
});

describe('GET /sim-openings', () => {
  it.each(['verifying', 'none', 'available'])('status %s, with the fields it implies', async (status) => {
    const ncm = status === 'verifying' ? '99999999' : ncmWhere((n) => simOf(n) === status);
    const response = await client.get(`/sim-openings?ncm=${ncm}&operation=import`);
    expect(response.status).toBe(200);
    const body = response.body;
    expect(Object.keys(body).sort()).toEqual(['ncm', 'openings', 'operation', 'status', 'verified_at']);
    expect(body).toMatchObject({ ncm, operation: 'import', status });
    if (status === 'available') {
      expect(body.openings.length).toBeGreaterThan(0);
      for (const opening of body.openings) {
        expect(Object.keys(opening).sort()).toEqual(['code', 'description']);
        expect(opening.code).toMatch(/^\d{10}$/);
        expect(opening.code.startsWith(ncm)).toBe(true);
      }
    } else {
      expect(body.openings).toEqual([]);
    }
    if (status === 'verifying') expect(body.verified_at).toBeNull();
    else expect(body.verified_at).toMatch(ISO);
  });

  it('validates ncm and operation', async () => {
    expectFieldError(await client.get('/sim-openings?ncm=0901&operation=import'), 'ncm');
    expectFieldError(await client.get('/sim-openings?ncm=09012100'), 'operation');
  });
});

describe('GET /balance', () => {
  it('every field; in_progress_count follows the classifications in progress', async () => {
    const before = (await client.get('/balance')).body;
    expect(Object.keys(before).sort()).toEqual(
      ['api_available', 'balance_credits', 'concurrency_limit', 'in_progress_count', 'plan_tier'].sort(),
    );
    expect(Number.isInteger(before.balance_credits)).toBe(true);
    expect(before.concurrency_limit).toBe(10);
    expect(before.api_available).toBe(true);
    expect(['independiente', 'estudio', 'profesional', 'enterprise', null]).toContain(before.plan_tier);
    await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    const after = (await client.get('/balance')).body;
    expect(after.in_progress_count).toBe(before.in_progress_count + 1);
    expect(after.balance_credits).toBe(before.balance_credits);
  });
});

describe('GET /countries', () => {
  it('items of code, name and mercosur; the Mercosur members flagged', async () => {
    const { status, body } = await client.get('/countries');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['items']);
    expect(body.items.length).toBeGreaterThan(4);
    for (const country of body.items) {
      expect(Object.keys(country).sort()).toEqual(['code', 'mercosur', 'name']);
      expect(country.code).toMatch(/^[A-Z]{2}$/);
      expect(country.name.length).toBeGreaterThan(0);
    }
    const flagged = body.items
      .filter((c: { mercosur: boolean }) => c.mercosur)
      .map((c: { code: string }) => c.code);
    expect(flagged.sort()).toEqual(['AR', 'BR', 'PY', 'UY']);
  });
});
