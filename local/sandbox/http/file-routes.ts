/**
 * Routes outside `/v1`: the signed URLs (sheet upload, verdict download) — which carry
 * their own authorisation, never the API key — and the web-app link of `app_url`.
 * Faults never apply here.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../../shared/tcs/schemas.js';
import { extractPdfText, UnreadablePdfError } from '../pdf/sheet-text.js';
import { renderVerdictPdf } from '../pdf/verdict-pdf.js';
import { type Handler, hasMediaType, invalidField, type RequestContext } from './context.js';
import { fail } from './problems.js';

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

const checkSignature = (ctx: RequestContext): void => {
  const verdict = ctx.deps.signer.verify(ctx.path, ctx.query, ctx.deps.clock.now());
  if (verdict === 'expired') fail('forbidden', 'This signed URL has expired; request a new one.');
  if (verdict === 'invalid') fail('forbidden', 'The signature of this URL is not valid.');
};

/** `PUT {upload_url}`: the PDF sheet's bytes. */
export const putSheet: Handler = async (ctx) => {
  checkSignature(ctx);
  const upload = ctx.deps.engine.upload(ctx.params[0]!) ?? fail('not-found', 'This upload does not exist.');
  if (!hasMediaType(ctx, 'application/pdf')) {
    fail('unsupported-media-type', 'Send the sheet with "Content-Type: application/pdf".');
  }
  if (ctx.body.tooLarge) {
    fail('payload-too-large', `The file is over the ${LIMITS.sheetMaxBytes}-byte (10 MB) limit.`);
  }
  const bytes = ctx.body.bytes;
  if (bytes.length !== upload.declaredBytes) {
    invalidField(
      'byte_size',
      'size_mismatch',
      `the body has ${bytes.length} bytes but POST /uploads announced ${upload.declaredBytes}`,
    );
  }
  if (!bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    invalidField('(body)', 'not_pdf', 'is not a PDF (it does not start with %PDF-)');
  }
  let text: string;
  try {
    text = await extractPdfText(bytes);
  } catch (error) {
    if (error instanceof UnreadablePdfError) {
      return invalidField('(body)', 'unreadable_pdf', `is not a readable PDF: ${error.message}`);
    }
    throw error;
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  ctx.deps.engine.storeSheet(upload.id, { sha256, text, bytes: bytes.length });
  ctx.deps.log('sheet uploaded', {
    upload_id: upload.id,
    bytes: bytes.length,
    text_layer: text.trim() !== '',
  });
  return { status: 200, headers: { ETag: `"${sha256}"` } };
};

/** `GET` of the signed URL behind `GET /v1/classifications/{id}/pdf`. */
export const getVerdictPdf: Handler = async (ctx) => {
  checkSignature(ctx);
  const id = ctx.params[0]!;
  const record = ctx.deps.engine.find(id) ?? fail('not-found', `No verdict for ${id}.`);
  if (record.status !== 'resolved') fail('conflict', `Classification ${id} is not resolved.`);
  const pdf = await renderVerdictPdf(record);
  return {
    status: 200,
    contentType: 'application/pdf',
    headers: { 'Content-Disposition': `inline; filename="${id}.pdf"` },
    body: pdf,
  };
};

/** `app_url`: the web app is not simulated; the page says so and links the API resource. */
export const appPage: Handler = (ctx) => {
  const id = ctx.params[0]!;
  const html = `<!doctype html><meta charset="utf-8"><title>${id} — TCS sandbox</title>
<h1>Classification ${id}</h1>
<p>This is the sandbox of the Tariff Classification Service. The web app is not simulated:
read the classification with <code>GET ${ctx.deps.urls().apiBase}/classifications/${id}</code>.</p>`;
  return { status: 200, contentType: 'text/html; charset=utf-8', body: Buffer.from(html, 'utf8') };
};
