/**
 * Contract: GET /classifications/{id}/pdf — 302 to a temporary signed URL outside /v1 that
 * serves a real PDF naming the NCM and the rationale; 409 unless resolved; the signed URL
 * expires and cannot be forged.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import { admin, api, creation, expectProblem, newKey, PAST_ANY_RUN_SECONDS } from '../helpers/http.js';
import { readPdfText } from '../helpers/pdf.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;

const resolved = async (description = 'Café torrado em grão, não descafeinado') => {
  const created = await client.post('/classifications', creation({ description }), {
    idempotencyKey: newKey(),
  });
  await admin(sb).advance(PAST_ANY_RUN_SECONDS);
  const { body } = await client.get(`/classifications/${created.body.id}`);
  expect(body.status).toBe('resolved');
  return body;
};

/** Collapses whitespace (pdf.js splits runs of text at will). */
const squash = (text: string) => text.replace(/\s+/g, ' ');

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-pdf' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('GET /classifications/{id}/pdf', () => {
  it('302 to a signed URL outside /v1 serving a real PDF that names the NCM, the rationale and the id', async () => {
    const body = await resolved();
    const redirect = await client.get(`/classifications/${body.id}/pdf`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('x-request-id')).toMatch(/\S/);
    const location = new URL(redirect.headers.get('location')!, sb.baseUrl);
    expect(location.pathname.startsWith('/v1/')).toBe(false);
    expect(location.searchParams.get('signature')).toBeTruthy();

    // Downloaded without the API key, as a client following the redirect must.
    const pdf = await fetch(location);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await pdf.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
    expect(Number(pdf.headers.get('content-length'))).toBe(bytes.byteLength);

    const { pages, text } = await readPdfText(bytes);
    expect(pages).toBeGreaterThanOrEqual(1);
    const flat = squash(text);
    const ncm: string = body.chosen_ncm;
    expect(flat).toContain(`${ncm.slice(0, 4)}.${ncm.slice(4, 6)}.${ncm.slice(6)}`);
    expect(flat).toContain(body.id);
    const chosen = body.candidates.find((c: { ncm: string }) => c.ncm === ncm);
    expect(flat).toContain(squash(chosen.rationale).slice(0, 60));
    expect(flat).toContain('SANDBOX');
  });

  it('409 conflict while in progress, pending or failed', async () => {
    const running = await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    expectProblem(await client.get(`/classifications/${running.body.id}/pdf`), 'conflict', 409);
    const failing = await client.post(
      '/classifications',
      creation({ description: 'Café torrado [sandbox:fail=persist_failed]' }),
      { idempotencyKey: newKey() },
    );
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    expect((await client.get(`/classifications/${failing.body.id}`)).body.status).toBe('failed');
    expectProblem(await client.get(`/classifications/${failing.body.id}/pdf`), 'conflict', 409);
  });

  it('the signed URL expires (sandbox clock) and cannot be tampered with: 403', async () => {
    const body = await resolved();
    const location = (await client.get(`/classifications/${body.id}/pdf`)).headers.get('location')!;
    const tampered = new URL(location);
    tampered.searchParams.set('signature', `${tampered.searchParams.get('signature')!.slice(0, -2)}xx`);
    const forged = await fetch(tampered);
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { type: string }).type).toMatch(/\/forbidden$/);
    // Another classification's path with this signature.
    const other = new URL(location.replace(body.id, 'cls_222222222222'));
    expect((await fetch(other)).status).toBe(403);
    await admin(sb).advance(301);
    const expired = await fetch(location);
    expect(expired.status).toBe(403);
    // A fresh redirect works again.
    const fresh = (await client.get(`/classifications/${body.id}/pdf`)).headers.get('location')!;
    expect((await fetch(fresh)).status).toBe(200);
  });
});
