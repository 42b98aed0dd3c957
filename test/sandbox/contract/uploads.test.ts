/**
 * Contract: POST /uploads and the signed PUT — the grant, 10 minutes of validity,
 * Content-Type application/pdf, 10 MB (413), PDF bytes, the signature — and sheets in
 * classifications (has_file, file_has_text_layer for text and scanned sheets).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import {
  admin,
  api,
  creation,
  expectFieldError,
  expectProblem,
  newKey,
  PAST_ANY_RUN_SECONDS,
  request,
} from '../helpers/http.js';
import { scanPdf, textPdf } from '../helpers/pdf.js';

const TEN_MB = 10 * 1024 * 1024;
let sb: Sandbox;
let client: ReturnType<typeof api>;

const grant = async (byteSize: number, key = sb.keys.classify) => {
  const response = await api(sb, key).post('/uploads', {
    content_type: 'application/pdf',
    byte_size: byteSize,
    filename: 'ficha-técnica.pdf',
  });
  expect(response.status, response.text).toBe(201);
  return response.body as { upload_url: string; file_url: string; expires_at: string };
};

const put = (url: string, bytes: Uint8Array, contentType: string | null = 'application/pdf') =>
  request('', 'PUT', url, { raw: bytes, headers: contentType ? { 'Content-Type': contentType } : {} });

/** Grants and uploads; returns the file_url. */
const upload = async (bytes: Uint8Array, key = sb.keys.classify) => {
  const g = await grant(bytes.byteLength, key);
  const response = await put(g.upload_url, bytes);
  expect(response.status, response.text).toBe(200);
  return g.file_url;
};

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-uploads' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('POST /uploads', () => {
  it('grants upload_url, file_url and expires_at 10 minutes ahead', async () => {
    const before = sb.now().getTime();
    const g = await grant(1234);
    const after = sb.now().getTime();
    expect(Object.keys(g).sort()).toEqual(['expires_at', 'file_url', 'upload_url']);
    expect(new URL(g.upload_url).protocol).toBe('http:');
    expect(new URL(g.upload_url).pathname.startsWith('/v1/')).toBe(false);
    expect(new URL(g.upload_url).searchParams.get('signature')).toBeTruthy();
    expect(new URL(g.file_url).protocol).toBe('http:');
    // Ten minutes from the grant, by the sandbox clock.
    const expires = Date.parse(g.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 600_000);
    expect(expires).toBeLessThanOrEqual(after + 600_000);
  });

  it('413 payload-too-large for a byte_size over 10 MB; exactly 10 MB is granted', async () => {
    const response = await client.post('/uploads', {
      content_type: 'application/pdf',
      byte_size: TEN_MB + 1,
      filename: 'big.pdf',
    });
    expectProblem(response, 'payload-too-large', 413);
    await grant(TEN_MB);
  });

  it.each([
    ['content_type other than application/pdf', { content_type: 'image/png' }, 'content_type'],
    ['byte_size not an integer', { byte_size: 10.5 }, 'byte_size'],
    ['byte_size zero', { byte_size: 0 }, 'byte_size'],
    ['filename missing', { filename: undefined }, 'filename'],
    ['a field outside the spec', { checksum: 'abc' }, 'checksum'],
  ])('%s → 422 on %s', async (_label, overrides, field) => {
    const body = { content_type: 'application/pdf', byte_size: 100, filename: 'a.pdf', ...overrides };
    expectFieldError(await client.post('/uploads', body), field);
  });

  it('415 for a body that is not JSON', async () => {
    const response = await client.send('POST', '/uploads', { raw: 'content_type=application/pdf' });
    expectProblem(response, 'unsupported-media-type', 415);
  });
});

describe('PUT {upload_url}', () => {
  it('requires Content-Type: application/pdf (415)', async () => {
    const bytes = await textPdf(['Café torrado em grão']);
    const g = await grant(bytes.byteLength);
    expectProblem(await put(g.upload_url, bytes, 'application/octet-stream'), 'unsupported-media-type', 415);
    expectProblem(await put(g.upload_url, bytes, null), 'unsupported-media-type', 415);
    expect((await put(g.upload_url, bytes)).status).toBe(200);
  });

  it('413 over 10 MB', async () => {
    const big = new Uint8Array(TEN_MB + 1);
    big.set(new TextEncoder().encode('%PDF-1.4\n'));
    const g = await grant(TEN_MB);
    expectProblem(await put(g.upload_url, big), 'payload-too-large', 413);
  });

  it('422 when the bytes are not a PDF, or not as many as announced', async () => {
    const fake = new TextEncoder().encode('this is not a PDF at all, just text');
    const g = await grant(fake.byteLength);
    expectProblem(await put(g.upload_url, fake), 'validation-error', 422);
    const broken = new TextEncoder().encode('%PDF-1.7\nnothing else here that a reader could open');
    const g2 = await grant(broken.byteLength);
    expectProblem(await put(g2.upload_url, broken), 'validation-error', 422);
    const real = await textPdf(['Soja em grão']);
    const g3 = await grant(real.byteLength + 10);
    expectProblem(await put(g3.upload_url, real), 'validation-error', 422);
  });

  it('403 forbidden after 10 minutes of sandbox time, or with a tampered signature', async () => {
    const bytes = await textPdf(['Café torrado em grão']);
    const g = await grant(bytes.byteLength);
    const tampered = new URL(g.upload_url);
    tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 3_600_000));
    expectProblem(await put(tampered.toString(), bytes), 'forbidden', 403);
    await admin(sb).advance(601);
    expectProblem(await put(g.upload_url, bytes), 'forbidden', 403);
  });

  it('is not under /v1 and takes no API key', async () => {
    const bytes = await textPdf(['Café torrado em grão']);
    const g = await grant(bytes.byteLength);
    // No Authorization header at all.
    const response = await put(g.upload_url, bytes);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/\S/);
  });
});

describe('sheets in classifications', () => {
  it('a sheet with a text layer: has_file true, file_has_text_layer true, classified from the sheet alone', async () => {
    const fileUrl = await upload(
      await textPdf(['Ficha técnica', 'Produto: Café torrado em grão, não descafeinado']),
    );
    const created = await client.post(
      '/classifications',
      creation({ description: null, file_url: fileUrl }),
      { idempotencyKey: newKey() },
    );
    expect(created.status, created.text).toBe(202);
    const running = (await client.get(`/classifications/${created.body.id}`)).body;
    expect(running.has_file).toBe(true);
    expect(running.file_has_text_layer).toBe(true);
    expect(running.description).toBeNull();
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const done = (await client.get(`/classifications/${created.body.id}`)).body;
    expect(done.status).toBe('resolved');
    expect(done.chosen_ncm).toBe('09012100');
  });

  it('a scanned sheet without a text layer sets file_has_text_layer false', async () => {
    const fileUrl = await upload(await scanPdf());
    const created = await client.post(
      '/classifications',
      creation({ file_url: fileUrl, description: 'Café torrado em grão' }),
      { idempotencyKey: newKey() },
    );
    const body = (await client.get(`/classifications/${created.body.id}`)).body;
    expect(body.has_file).toBe(true);
    expect(body.file_has_text_layer).toBe(false);
  });

  it('the file_url must be uploaded, and belong to the organisation', async () => {
    const bytes = await textPdf(['Café']);
    const notYet = await grant(bytes.byteLength);
    expectFieldError(
      await client.post('/classifications', creation({ file_url: notYet.file_url }), {
        idempotencyKey: newKey(),
      }),
      'file_url',
    );
    const theirs = await upload(bytes, sb.keys.other_org_classify);
    expectFieldError(
      await client.post('/classifications', creation({ file_url: theirs }), { idempotencyKey: newKey() }),
      'file_url',
    );
  });

  it('a new sheet may come with the answers', async () => {
    const created = await client.post(
      '/classifications',
      creation({ description: 'Peças diversas [sandbox:ask=1]' }),
      {
        idempotencyKey: newKey(),
      },
    );
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const pending = (await client.get(`/classifications/${created.body.id}`)).body;
    expect(pending.has_file).toBe(false);
    const fileUrl = await upload(await scanPdf());
    const answered = await client.post(
      `/classifications/${created.body.id}/answers`,
      { answers: [{ question_id: pending.questions[0].id, answer: 'Café torrado' }], file_url: fileUrl },
      { idempotencyKey: newKey() },
    );
    expect(answered.status, answered.text).toBe(202);
    const body = (await client.get(`/classifications/${created.body.id}`)).body;
    expect(body.has_file).toBe(true);
    expect(body.file_has_text_layer).toBe(false);
  });
});
