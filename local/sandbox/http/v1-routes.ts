/** The `/v1` endpoints of the spec. */
import {
  AnswerQuestionsRequest,
  CLASSIFICATION_ID_PATTERN,
  CreateClassificationRequest,
  Cursor,
  type FieldError,
  LIMITS,
  ListClassificationsQuery,
  SimOpeningsQuery,
  TariffQuery,
  toFieldErrors,
  UploadRequest,
} from '../../../shared/tcs/schemas.js';
import { requestFingerprint } from '../core/idempotency.js';
import { listClassifications } from '../core/listing.js';
import type { SheetRef } from '../core/records.js';
import { renderAccepted, renderClassification } from '../core/render.js';
import {
  authenticate,
  delay,
  type Handler,
  idempotencyKeyOf,
  invalidField,
  jsonReply,
  type RequestContext,
  readJsonBody,
  validate,
} from './context.js';
import { fail, type Reply } from './problems.js';

/** Where a granted upload's bytes end up; what `file_url` points to. */
const SHEET_PATH_PREFIX = '/__files/sheets/';
const SHEET_PATH = /^\/__files\/sheets\/(upl_[23456789ABCDEFGHJKMNPQRSTVWXYZ]{12})$/;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A `file_url` must be one this sandbox granted to this organisation, and uploaded. */
const sheetOf = (ctx: RequestContext, orgId: string, fileUrl: string | null | undefined): SheetRef | null => {
  if (fileUrl == null) return null;
  let url: URL;
  try {
    url = new URL(fileUrl);
  } catch {
    return invalidField('file_url', 'invalid_url', 'is not a URL');
  }
  const match = SHEET_PATH.exec(url.pathname);
  const upload = match && LOOPBACK_HOSTS.has(url.hostname) ? ctx.deps.engine.upload(match[1]!) : undefined;
  if (!upload || upload.orgId !== orgId) {
    return invalidField(
      'file_url',
      'unknown_file',
      'is not a file_url returned by POST /uploads to this organization',
    );
  }
  if (!upload.sheet) {
    return invalidField('file_url', 'not_uploaded', 'has no file yet: PUT the PDF to the upload_url first');
  }
  const { uploadId, sha256, text } = upload.sheet;
  return { uploadId, sha256, text };
};

const knownCountry = (ctx: RequestContext, country: string): void => {
  if (!ctx.deps.classifier.countries.some((c) => c.code === country)) {
    invalidField('country', 'unknown_country', 'is not an accepted country (see GET /countries)');
  }
};

const classificationIdOf = (ctx: RequestContext): string => {
  const id = ctx.params[0]!;
  // A malformed id cannot exist: the same 404 as an absent one.
  if (!CLASSIFICATION_ID_PATTERN.test(id)) fail('not-found', `Classification ${id} does not exist.`);
  return id;
};

const notFound = (id: string): never =>
  fail('not-found', `Classification ${id} does not exist or belongs to another organization.`);

/**
 * The two idempotent POSTs share this frame: key check, replay / reuse / in-flight, then
 * the work (which must leave the key reserved only if it succeeded).
 */
const idempotent = async (
  ctx: RequestContext,
  orgId: string,
  body: unknown,
  work: () => Promise<Reply>,
): Promise<Reply> => {
  const key = idempotencyKeyOf(ctx);
  const { engine } = ctx.deps;
  const fingerprint = requestFingerprint('POST', ctx.path, body);
  const reservation = engine.idempotency.reserve(orgId, key, fingerprint, engine.advance());
  switch (reservation.outcome) {
    case 'replay':
      return jsonReply(reservation.response.status, reservation.response.body, {
        'Idempotent-Replayed': 'true',
      });
    case 'reused':
      return fail(
        'idempotency-key-reused',
        'This Idempotency-Key was used with a different request body; use a new key for a new request.',
      );
    case 'in_flight':
      return fail(
        'idempotency-key-in-flight',
        'An earlier request with this Idempotency-Key is still running.',
        {
          retryAfterSeconds: 1,
        },
      );
    case 'reserved':
      break;
  }
  try {
    const reply = await work();
    engine.idempotency.complete(orgId, key, { status: reply.status, body: reply.body });
    return reply;
  } catch (error) {
    engine.idempotency.release(orgId, key);
    throw error;
  }
};

const capReply = (retryAfterSeconds: number, limit: number): never =>
  fail(
    'rate-limited',
    `The organization already has ${limit} classifications in progress through the API; retry after ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );

const authorOf = (keyName: string): string => `API key ${keyName}`;

export const createClassification: Handler = async (ctx) => {
  const { key, org } = authenticate(ctx, 'classify');
  const json = readJsonBody(ctx);
  return idempotent(ctx, org.id, json, async () => {
    const body = validate(CreateClassificationRequest, json, 'The classification request is invalid');
    knownCountry(ctx, body.country);
    const sheet = sheetOf(ctx, org.id, body.file_url);
    // "Processing": the window in which a second request with the same key meets 409.
    await delay(ctx.deps.creationDelayMs);
    const result = ctx.deps.engine.create({
      orgId: org.id,
      author: { keyId: key.keyId, name: authorOf(key.name) },
      operation: body.operation,
      country: body.country,
      description: body.description ?? null,
      externalReference: body.external_reference ?? null,
      sheet,
    });
    if (result.kind === 'cap') return capReply(result.retryAfterSeconds, ctx.deps.engine.concurrencyLimit);
    const accepted = renderAccepted(result.record, ctx.deps.urls());
    return jsonReply(202, accepted, {
      Location: `${ctx.deps.urls().apiBase}/classifications/${accepted.id}`,
    });
  });
};

export const answerQuestions: Handler = async (ctx) => {
  const { org } = authenticate(ctx, 'classify');
  const id = classificationIdOf(ctx);
  const json = readJsonBody(ctx);
  return idempotent(ctx, org.id, json, async () => {
    const body = validate(AnswerQuestionsRequest, json, 'The answers are invalid');
    const sheet = sheetOf(ctx, org.id, body.file_url);
    await delay(ctx.deps.creationDelayMs);
    const result = ctx.deps.engine.answer(org.id, id, { answers: body.answers, sheet });
    switch (result.kind) {
      case 'not_found':
        return notFound(id);
      case 'conflict':
        return fail(
          'conflict',
          `Classification ${id} is ${result.status}, not pending_data: it awaits no answers.`,
        );
      case 'invalid':
        return fail('validation-error', result.errors.map((e) => `${e.field} ${e.message}`).join('; '), {
          errors: result.errors,
        });
      case 'cap':
        return capReply(result.retryAfterSeconds, ctx.deps.engine.concurrencyLimit);
      case 'accepted':
        return jsonReply(202, renderAccepted(result.record, ctx.deps.urls()));
    }
  });
};

export const getClassification: Handler = (ctx) => {
  const { org } = authenticate(ctx, 'read');
  const id = classificationIdOf(ctx);
  const record = ctx.deps.engine.get(org.id, id) ?? notFound(id);
  return jsonReply(200, renderClassification(record, ctx.deps.clock.now(), ctx.deps.urls()));
};

/** Query string → the shape of the shared `ListClassificationsQuery` (numbers, booleans, arrays). */
const listQueryOf = (ctx: RequestContext): { query: unknown; cursor: string | undefined } => {
  const errors: FieldError[] = [];
  const raw: Record<string, unknown> = {};
  let cursor: string | undefined;
  for (const name of new Set(ctx.query.keys())) {
    const values = ctx.query.getAll(name);
    if (values.length > 1) {
      errors.push({ field: name, code: 'duplicate', message: 'must be given once' });
      continue;
    }
    const value = values[0]!;
    switch (name) {
      case 'cursor':
        cursor = value;
        break;
      case 'limit':
        raw.limit = /^-?\d+$/.test(value) ? Number(value) : value;
        break;
      case 'status':
        raw.status = value === '' ? [] : value.split(',').map((s) => s.trim());
        break;
      case 'reviewed':
        raw.reviewed = value === 'true' ? true : value === 'false' ? false : value;
        break;
      case 'sort': {
        const match = /^([a-z_]+):(asc|desc)$/.exec(value);
        if (match) raw.sort = { field: match[1], direction: match[2] };
        else
          errors.push({ field: 'sort', code: 'invalid_format', message: 'must be field:asc or field:desc' });
        break;
      }
      default:
        raw[name] = value;
    }
  }
  if (cursor !== undefined) {
    const checked = Cursor.safeParse(cursor);
    if (!checked.success) {
      errors.push({
        field: 'cursor',
        code: 'invalid_cursor',
        message: `must be 1 to ${LIMITS.cursorMax} characters`,
      });
    }
  }
  if (errors.length > 0) {
    fail('validation-error', errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
  }
  return { query: raw, cursor };
};

const isRealDate = (date: string): boolean => {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === date;
};

export const listClassificationsRoute: Handler = (ctx) => {
  const { org } = authenticate(ctx, 'read');
  const { query: raw, cursor } = listQueryOf(ctx);
  const parsed = ListClassificationsQuery.safeParse(raw);
  if (!parsed.success) {
    // `sort` is one parameter on the wire; its parts are not.
    const errors = toFieldErrors(parsed.error).map((e) =>
      e.field.startsWith('sort.') ? { ...e, field: 'sort' } : e,
    );
    return fail('validation-error', errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
  }
  const query = parsed.data;
  for (const field of ['created_after', 'created_before'] as const) {
    const value = query[field];
    if (value !== undefined && !isRealDate(value))
      invalidField(field, 'invalid_date', 'is not a calendar date');
  }
  const { engine } = ctx.deps;
  const result = listClassifications(engine.listOf(org.id), org.id, query, cursor);
  if (!result.ok) {
    return fail('validation-error', `${result.error.field} ${result.error.message}`, {
      errors: [result.error],
    });
  }
  const now = ctx.deps.clock.now();
  return jsonReply(200, {
    items: result.items.map((record) => renderClassification(record, now, ctx.deps.urls())),
    next_cursor: result.nextCursor,
  });
};

export const VERDICT_PATH_PREFIX = '/__files/verdicts/';

export const verdictPdfRedirect: Handler = (ctx) => {
  const { org } = authenticate(ctx, 'read');
  const id = classificationIdOf(ctx);
  const record = ctx.deps.engine.get(org.id, id) ?? notFound(id);
  if (record.status !== 'resolved') {
    return fail(
      'conflict',
      `Classification ${id} is ${record.status}: the verdict PDF exists only once resolved.`,
    );
  }
  const expiresAt = ctx.deps.clock.now() + ctx.deps.pdfUrlValidityMs;
  const signed = ctx.deps.signer.sign(`${VERDICT_PATH_PREFIX}${id}.pdf`, expiresAt);
  return { status: 302, headers: { Location: `${ctx.deps.urls().origin}${signed}` } };
};

export const UPLOAD_PATH_PREFIX = '/__files/upload/';

export const requestUpload: Handler = (ctx) => {
  const { org } = authenticate(ctx, 'classify');
  const json = readJsonBody(ctx);
  // Spec: a byte_size over 10 MB is 413, not a plain validation error.
  const size = (json as { byte_size?: unknown } | null)?.byte_size;
  if (typeof size === 'number' && size > LIMITS.sheetMaxBytes) {
    fail('payload-too-large', `byte_size ${size} is over the ${LIMITS.sheetMaxBytes}-byte (10 MB) limit.`);
  }
  const body = validate(UploadRequest, json, 'The upload request is invalid');
  const upload = ctx.deps.engine.grantUpload(org.id, body.filename, body.byte_size);
  const { origin } = ctx.deps.urls();
  return jsonReply(201, {
    upload_url: `${origin}${ctx.deps.signer.sign(`${UPLOAD_PATH_PREFIX}${upload.id}`, upload.expiresAt)}`,
    file_url: `${origin}${SHEET_PATH_PREFIX}${upload.id}`,
    expires_at: new Date(upload.expiresAt).toISOString(),
  });
};

/** The query string as an object, for the strict shared query schemas. */
const plainQuery = (ctx: RequestContext): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const name of new Set(ctx.query.keys())) {
    const values = ctx.query.getAll(name);
    if (values.length > 1) invalidField(name, 'duplicate', 'must be given once');
    out[name] = values[0]!;
  }
  return out;
};

export const getTariffs: Handler = (ctx) => {
  authenticate(ctx, 'read');
  const query = validate(TariffQuery, plainQuery(ctx), 'The tariff query is invalid');
  knownCountry(ctx, query.country);
  return jsonReply(200, ctx.deps.classifier.lookupTariff(query, new Date(ctx.deps.clock.now())));
};

export const getSimOpenings: Handler = (ctx) => {
  authenticate(ctx, 'read');
  const query = validate(SimOpeningsQuery, plainQuery(ctx), 'The SIM openings query is invalid');
  return jsonReply(200, ctx.deps.engine.simOpenings(query));
};

export const getBalance: Handler = (ctx) => {
  const { org } = authenticate(ctx, 'read');
  return jsonReply(200, {
    balance_credits: org.balanceCredits,
    in_progress_count: ctx.deps.engine.inProgressCount(org.id),
    concurrency_limit: ctx.deps.engine.concurrencyLimit,
    plan_tier: org.planTier,
    api_available: org.denial === null,
  });
};

export const listCountries: Handler = (ctx) => {
  authenticate(ctx, 'read');
  return jsonReply(200, { items: ctx.deps.classifier.countries });
};
