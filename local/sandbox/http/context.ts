/** What every route handler receives, and the helpers they share (auth, JSON bodies, validation). */
import type { IncomingHttpHeaders } from 'node:http';
import type * as z from 'zod';
import { IDEMPOTENCY_KEY_PATTERN, toFieldErrors } from '../../../shared/tcs/schemas.js';
import type { ClassifierPort } from '../classifier/contract.js';
import type { MonotonicClock } from '../core/clock.js';
import type { ClassificationEngine } from '../core/engine.js';
import { type ApiKey, ORGANIZATIONS, type Organization } from '../core/organizations.js';
import type { PublicUrls } from '../core/render.js';
import { fail, type Reply } from './problems.js';
import type { UrlSigner } from './signing.js';

export type SandboxLog = (event: string, fields?: Record<string, unknown>) => void;

/** Shared by all handlers of one server. */
export type ServerDeps = {
  engine: ClassificationEngine;
  clock: MonotonicClock;
  classifier: ClassifierPort;
  keys: readonly ApiKey[];
  signer: UrlSigner;
  problemsBase: string;
  /** Processing time of a creation or an answer, during which its idempotency key is in flight. */
  creationDelayMs: number;
  /** Signed verdict URLs live this long (sandbox clock). */
  pdfUrlValidityMs: number;
  /** `Retry-After` of a `maintenance` answer, in seconds. */
  maintenanceRetryAfterSeconds: number;
  urls(): PublicUrls;
  log: SandboxLog;
};

export type RequestContext = {
  deps: ServerDeps;
  requestId: string;
  method: string;
  /** Path without the query string (the problem's `instance`). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Captures of the route's pattern. */
  params: string[];
  /** The request body, read up to the route's limit; `tooLarge` when it went past it. */
  body: { bytes: Buffer; tooLarge: boolean };
};

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

export const jsonReply = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});

export const delay = (ms: number): Promise<void> =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

const ORGANIZATIONS_BY_ID = new Map(ORGANIZATIONS.map((o) => [o.id, o]));

export type Principal = { key: ApiKey; org: Organization };

/**
 * Spec, Authentication: 401 for a missing, unknown or revoked key; then the account's
 * standing (403 by name); then the key's scope (403 `insufficient-scope`).
 */
export const authenticate = (ctx: RequestContext, scope: 'read' | 'classify'): Principal => {
  const header = ctx.headers.authorization;
  if (header === undefined || header.trim() === '') {
    return fail(
      'unauthenticated',
      'The Authorization header is missing; send "Authorization: Bearer <API_KEY>".',
    );
  }
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) return fail('unauthenticated', 'The Authorization header must be "Bearer <API_KEY>".');
  const key = ctx.deps.keys.find((k) => k.secret === match[1]);
  if (!key) return fail('unauthenticated', 'The API key is not known.');
  if (key.revoked) return fail('unauthenticated', 'The API key has been revoked.');
  const org = ORGANIZATIONS_BY_ID.get(key.orgId)!;
  if (org.denial) return fail(org.denial, ACCOUNT_DENIAL_DETAILS[org.denial]);
  if (scope === 'classify' && key.scope !== 'classify') {
    return fail('insufficient-scope', 'This API key has scope read; the operation needs scope classify.');
  }
  return { key, org };
};

const ACCOUNT_DENIAL_DETAILS: Record<NonNullable<Organization['denial']>, string> = {
  'plan-without-api': "The organization's plan does not include the API.",
  'api-suspended': "The organization's API access is suspended.",
  'subscription-inactive': "The organization's subscription is not active.",
  'organization-archived': 'The organization is archived.',
  'terms-acceptance-required': 'New terms of service must be accepted in the web app before using the API.',
};

/** The media type of a header value, without parameters, lower case. */
const mediaType = (value: string | undefined): string => (value ?? '').split(';')[0]!.trim().toLowerCase();

export const hasMediaType = (ctx: RequestContext, expected: string): boolean =>
  mediaType(ctx.headers['content-type']) === expected;

/** Spec: a body that is not JSON answers 415; so does a JSON POST declared as something else. */
export const readJsonBody = (ctx: RequestContext): unknown => {
  if (ctx.body.tooLarge) return fail('payload-too-large', 'The request body is too large.');
  if (!hasMediaType(ctx, 'application/json')) {
    return fail('unsupported-media-type', 'Send the body as JSON with "Content-Type: application/json".');
  }
  try {
    return JSON.parse(ctx.body.bytes.toString('utf8'));
  } catch {
    return fail('unsupported-media-type', 'The request body is not valid JSON.');
  }
};

/** Parses with a shared request schema; a failure is `422 validation-error` with per-field `errors`. */
export const validate = <S extends z.ZodType>(schema: S, value: unknown, detail: string): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) {
    const errors = toFieldErrors(result.error);
    return fail('validation-error', `${detail}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, {
      errors,
    });
  }
  return result.data;
};

export const invalidField = (field: string, code: string, message: string): never =>
  fail('validation-error', `${field} ${message}`, { errors: [{ field, code, message }] });

/** Spec, Idempotency: `Idempotency-Key` is required, `^[A-Za-z0-9_-]{16,128}$`. */
export const idempotencyKeyOf = (ctx: RequestContext): string => {
  const key = ctx.headers['idempotency-key'];
  if (typeof key !== 'string' || key === '') {
    return fail('idempotency-key-invalid', 'The Idempotency-Key header is required.');
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    return fail(
      'idempotency-key-invalid',
      'The Idempotency-Key must be 16 to 128 characters of A-Z, a-z, 0-9, "-" and "_".',
    );
  }
  return key;
};
