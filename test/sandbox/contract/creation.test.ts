/**
 * Contract: POST /classifications and GET /classifications/{id} — the 202, every field of the
 * Classification per status, the run's stages and length, determinism, and each validation
 * rule of the creation body.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import {
  admin,
  api,
  creation,
  expectFieldError,
  expectProblem,
  type Json,
  newKey,
  PAST_ANY_RUN_SECONDS,
  request,
} from '../helpers/http.js';

const ID = /^cls_[23456789ABCDEFGHJKMNPQRSTVWXYZ]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const STAGES = ['answers_intake', 'extraction', 'retrieval', 'verdict', 'validation', 'sim'];
const CANDIDATE_FIELDS = [
  'applied_rules',
  'cited_notes',
  'confidence',
  'confidence_band',
  'description',
  'discarded_alternatives',
  'hierarchy',
  'is_provisional',
  'missing_data',
  'ncm',
  'product_name',
  'rank',
  'rationale',
  'sim',
];
/** Fields present on every Classification the sandbox returns, whatever the status. */
const ALWAYS_PRESENT = [
  'id',
  'status',
  'stage',
  'failure_reason',
  'title',
  'operation',
  'country',
  'description',
  'external_reference',
  'source',
  'has_file',
  'file_has_text_layer',
  'cost_credits',
  'candidates',
  'candidates_are_provisional',
  'chosen_ncm',
  'chosen_sim_code',
  'questions',
  'answers',
  'tariffs',
  'reviewed',
  'author',
  'created_at',
  'deleted_at',
];

let sb: Sandbox;
let client: ReturnType<typeof api>;

const create = (body: unknown = creation(), key = newKey('create')) =>
  client.post('/classifications', body, { idempotencyKey: key });

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-creation' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('POST /classifications answers 202 ClassificationAccepted', () => {
  it('with exactly id, status in_progress, the first stage and app_url', async () => {
    const response = await create();
    expect(response.status).toBe(202);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toMatch(/\S/);
    expect(Object.keys(response.body).sort()).toEqual(['app_url', 'id', 'stage', 'status']);
    expect(response.body.id).toMatch(ID);
    expect(response.body.status).toBe('in_progress');
    expect(response.body.stage).toBe('extraction');
    expect(response.body.app_url).toBe(`${sb.origin}/app/classifications/${response.body.id}`);
    const app = await fetch(response.body.app_url);
    expect(app.status).toBe(200);
    expect(await app.text()).toContain(response.body.id);
  });

  it('and GET shows every field with its in_progress value', async () => {
    const accepted = await create(creation({ external_reference: 'ERP-77/row 4' }));
    const { status, body } = await client.get(`/classifications/${accepted.body.id}`);
    expect(status).toBe(200);
    for (const field of ALWAYS_PRESENT) expect(body, field).toHaveProperty(field);
    expect(body).toMatchObject({
      id: accepted.body.id,
      status: 'in_progress',
      failure_reason: null,
      title: null,
      operation: 'import',
      country: 'CN',
      description: creation().description,
      external_reference: 'ERP-77/row 4',
      source: 'api',
      has_file: false,
      file_has_text_layer: null,
      cost_credits: 0,
      candidates: [],
      candidates_are_provisional: false,
      chosen_ncm: null,
      chosen_sim_code: null,
      questions: [],
      answers: [],
      tariffs: null,
      reviewed: null,
      deleted_at: null,
    });
    expect(STAGES).toContain(body.stage);
    expect(body.created_at).toMatch(ISO);
    expect(body.author.type).toBeTypeOf('string');
    expect(body.author.type).not.toBe('user');
    // pdf_url only with resolved.
    expect(body.pdf_url ?? null).toBeNull();
  });
});

describe('a run', () => {
  it('moves through the stages in order and resolves after 45–75 s of sandbox time (scale 1)', async () => {
    const { body } = await create();
    const seen: { at: number; status: string; stage: string | null }[] = [];
    for (let at = 0; at <= PAST_ANY_RUN_SECONDS; at += 3) {
      const current = await client.get(`/classifications/${body.id}`);
      seen.push({ at, status: current.body.status, stage: current.body.stage });
      if (current.body.status !== 'in_progress') break;
      await admin(sb).advance(3);
    }
    const running = seen.filter((s) => s.status === 'in_progress');
    const order = ['extraction', 'retrieval', 'verdict', 'validation', 'sim'];
    const indices = running.map((s) => order.indexOf(s.stage!));
    expect(indices.every((i) => i >= 0)).toBe(true);
    expect(indices).toEqual([...indices].sort((a, b) => a - b));
    expect(new Set(running.map((s) => s.stage))).toEqual(new Set(order));
    const end = seen.at(-1)!;
    expect(end.status).toBe('resolved');
    expect(end.stage).toBeNull();
    expect(end.at).toBeGreaterThanOrEqual(45);
    expect(end.at).toBeLessThanOrEqual(78);
  });

  it('a resolved classification carries candidates, chosen NCM, SIM, tariffs and pdf_url', async () => {
    const { body: accepted } = await create();
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const { body } = await client.get(`/classifications/${accepted.id}`);
    expect(body.status).toBe('resolved');
    expect(body.stage).toBeNull();
    expect(body.failure_reason).toBeNull();
    expect(body.chosen_ncm).toMatch(/^[0-9]{8}$/);
    expect(body.chosen_sim_code === null || /^[0-9]{10}$/.test(body.chosen_sim_code)).toBe(true);
    expect(body.candidates.length).toBeGreaterThanOrEqual(1);
    expect(body.candidates.length).toBeLessThanOrEqual(3);
    expect(body.candidates_are_provisional).toBe(false);
    body.candidates.forEach((candidate: Record<string, Json>, i: number) => {
      expect(Object.keys(candidate).sort()).toEqual(CANDIDATE_FIELDS);
      expect(candidate.rank).toBe(i + 1);
      expect(candidate.ncm).toMatch(/^[0-9]{8}$/);
      expect(candidate.is_provisional).toBe(false);
      expect(Number.isInteger(candidate.confidence)).toBe(true);
      expect(['high', 'medium', 'low']).toContain(candidate.confidence_band);
      expect(Object.keys(candidate.hierarchy).sort()).toEqual([
        'chapter',
        'heading',
        'section',
        'subheading',
      ]);
      expect(candidate.discarded_alternatives.length).toBeLessThanOrEqual(5);
      expect(candidate.missing_data.length).toBeLessThanOrEqual(5);
      expect(Object.keys(candidate.sim).sort()).toEqual(['code', 'options', 'status', 'verified_at']);
    });
    expect(body.candidates.map((c: { ncm: string }) => c.ncm)).toContain(body.chosen_ncm);
    expect(body.tariffs.found).toBeTypeOf('boolean');
    expect(body.tariffs.source).toBeTypeOf('string');
    expect(body.tariffs.queried_at).toMatch(ISO);
    expect(body.pdf_url).toBe(`${sb.baseUrl}/classifications/${accepted.id}/pdf`);
    expect(body.questions).toEqual([]);
    expect(Date.parse(body.resolved_at)).toBeGreaterThan(Date.parse(body.created_at));
    expect(body.deleted_at).toBeNull();
  });

  it('lasts about 60 s × time scale of real time (scale 0.002: 90–150 ms)', async () => {
    const fast = await startSandbox({ log: 'silent', timeScale: 0.002, seed: 'contract-creation' });
    try {
      const started = Date.now();
      const { body } = await api(fast).post('/classifications', creation(), { idempotencyKey: newKey() });
      // The run ends on real time alone: nothing moves the sandbox clock here.
      const final = await vi.waitFor(
        async () => {
          const current = await api(fast).get(`/classifications/${body.id}`);
          expect(current.body.status, 'run end').not.toBe('in_progress');
          return current.body;
        },
        { timeout: 5_000, interval: 20 },
      );
      expect(final.status).toBe('resolved');
      // It took real time (a lower bound only: how much longer a busy machine takes to look is
      // not the sandbox's doing); its length is read off the record's own timestamps.
      expect(Date.now() - started).toBeGreaterThanOrEqual(85);
      const run = Date.parse(final.resolved_at) - Date.parse(final.created_at);
      expect(run).toBeGreaterThanOrEqual(89);
      expect(run).toBeLessThanOrEqual(151);
    } finally {
      await fast.close();
    }
  });

  it('is deterministic: same seed and input, same ids and outcome; another seed, other keys', async () => {
    const outcome = async (target: Sandbox) => {
      const created = await api(target).post('/classifications', creation(), { idempotencyKey: newKey() });
      await admin(target).advance(PAST_ANY_RUN_SECONDS);
      const { body } = await api(target).get(`/classifications/${created.body.id}`);
      // Dates and URLs (which carry the port) differ between two servers; nothing else may.
      const { created_at, resolved_at, pdf_url, tariffs, candidates, ...rest } = body;
      return {
        ...rest,
        candidates: candidates.map(({ sim, ...c }: Record<string, Json>) => ({
          ...c,
          sim: { ...sim, verified_at: null },
        })),
        tariffs: { ...tariffs, queried_at: null },
      };
    };
    const twinA = await startSandbox({ log: 'silent', seed: 'contract-creation' });
    const twinB = await startSandbox({ log: 'silent', seed: 'contract-creation' });
    const other = await startSandbox({ log: 'silent', seed: 'another-seed' });
    try {
      const [a, b, here] = [await outcome(twinA), await outcome(twinB), await outcome(sb)];
      // Two fresh servers of one seed issue the same ids and verdicts.
      expect(b.id).toBe(a.id);
      expect(b).toEqual(a);
      // After resets ids move on (never reused), but the verdict for the input is the same.
      expect({ ...here, id: a.id }).toEqual(a);
      expect(twinB.keys).toEqual(twinA.keys);
      expect(other.keys.classify).not.toBe(twinA.keys.classify);
    } finally {
      await Promise.all([twinA.close(), twinB.close(), other.close()]);
    }
  });
});

describe('creation body validation (422 validation-error with per-field errors)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['operation outside the enum', { operation: 'transit' }, 'operation'],
    ['operation missing', { operation: undefined }, 'operation'],
    ['country not two capitals', { country: 'br' }, 'country'],
    ['country missing', { country: undefined }, 'country'],
    ['country not an accepted one', { country: 'ZZ' }, 'country'],
    ['description under 10 characters', { description: 'Café tost' }, 'description'],
    ['description over 5000 characters', { description: 'x'.repeat(5001) }, 'description'],
    ['neither description nor file_url', { description: null, file_url: null }, 'description'],
    ['external_reference over 100 characters', { external_reference: 'r'.repeat(101) }, 'external_reference'],
    ['file_url not a URL', { file_url: 'not a url' }, 'file_url'],
    ['file_url not issued by POST /uploads', { file_url: 'https://example.com/sheet.pdf' }, 'file_url'],
    ['a field outside the spec', { priority: 'high' }, 'priority'],
    ['description of the wrong type', { description: 42 }, 'description'],
  ];
  it.each(cases)('%s', async (_label, overrides, field) => {
    const response = await create(creation(overrides));
    const error = expectFieldError(response, field);
    if (field === 'priority') expect(error.code).toBe('unknown_field');
    expect((await admin(sb).stats()).created).toBe(0);
  });

  it('counts characters, not UTF-16 units: 10 accented letters or emoji pass, 9 do not', async () => {
    expect((await create(creation({ description: 'ãçéõúâêôàü' }))).status).toBe(202);
    expect((await create(creation({ description: '📦'.repeat(10) }))).status).toBe(202);
    expectFieldError(await create(creation({ description: '📦'.repeat(9) })), 'description');
    expect((await create(creation({ description: 'é'.repeat(5000) }))).status).toBe(202);
  });

  it('accepts omitted nullable fields as null', async () => {
    const response = await create({
      operation: 'export',
      country: 'AR',
      description: 'Soja em grão a granel',
    });
    expect(response.status).toBe(202);
  });

  it('a body that is not a JSON object is 422 on (body)', async () => {
    expectFieldError(await create([creation()]), '(body)');
  });
});

describe('415 unsupported-media-type', () => {
  it('for a body that is not JSON', async () => {
    const response = await client.send('POST', '/classifications', {
      raw: '{"operation": "import",',
      headers: { 'Content-Type': 'application/json' },
      idempotencyKey: newKey(),
    });
    expectProblem(response, 'unsupported-media-type', 415);
  });

  it('for JSON sent with another Content-Type, or none', async () => {
    const text = JSON.stringify(creation());
    const variants: Record<string, string>[] = [{ 'Content-Type': 'text/plain' }, {}];
    for (const headers of variants) {
      const response = await client.send('POST', '/classifications', {
        raw: text,
        headers,
        idempotencyKey: newKey(),
      });
      expectProblem(response, 'unsupported-media-type', 415);
    }
    expect((await admin(sb).stats()).created).toBe(0);
  });

  it('accepts a charset parameter on application/json', async () => {
    const response = await request(sb.baseUrl, 'POST', '/classifications', {
      key: sb.keys.classify,
      raw: JSON.stringify(creation()),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      idempotencyKey: newKey(),
    });
    expect(response.status).toBe(202);
  });
});

describe('GET /classifications/{id}', () => {
  it('404 not-found for an id that does not exist or is malformed', async () => {
    expectProblem(await client.get('/classifications/cls_222222222222'), 'not-found', 404);
    expectProblem(await client.get('/classifications/not-an-id'), 'not-found', 404);
  });
});
