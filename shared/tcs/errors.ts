/**
 * Errors raised by the service client. Every one of them is safe to log whole: none holds
 * the API key (messages and details are scrubbed, headers are never kept) nor a signed
 * URL's query string.
 */
import type * as z from 'zod';
import { type FieldError, isProblemName, Problem, type ProblemName, toFieldErrors } from './schemas.js';

/** Base of every error the client throws. */
export abstract class TcsError extends Error {
  /** How many HTTP attempts were made before this error was thrown (0 if none left the process). */
  attempts = 0;
  abstract readonly retryable: boolean;
}

/**
 * The service answered with an error status. `name` is the catalogue name when the
 * `type` is known; an unknown type is handled by its HTTP `status` (spec, Errors rule 1).
 */
export class TcsProblemError extends TcsError {
  override readonly name = 'TcsProblemError';
  /** Catalogue name (`rate-limited`, `not-found`…), or null when the type is not in the catalogue. */
  readonly problem: ProblemName | null;
  /** The `type` URI as received (already scrubbed), or null when the body was not a Problem. */
  readonly type: string | null;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly instance: string;
  readonly requestId: string | null;
  readonly errors: readonly FieldError[];
  /** Wait asked for by `Retry-After`, in milliseconds, if the response carried one. */
  readonly retryAfterMs: number | null;

  constructor(init: {
    problem: ProblemName | null;
    type: string | null;
    status: number;
    title: string;
    detail: string;
    instance: string;
    requestId: string | null;
    errors: readonly FieldError[];
    retryAfterMs: number | null;
  }) {
    const label = init.problem ?? init.type ?? `HTTP ${init.status}`;
    super(
      `${init.status} ${label}: ${init.detail || init.title}${init.requestId ? ` (request ${init.requestId})` : ''}`,
    );
    this.problem = init.problem;
    this.type = init.type;
    this.status = init.status;
    this.title = init.title;
    this.detail = init.detail;
    this.instance = init.instance;
    this.requestId = init.requestId;
    this.errors = init.errors;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** True when this is the named catalogue type, or an unknown type with that type's status. */
  is(name: ProblemName): boolean {
    return this.problem === name;
  }

  /**
   * Spec, Errors rules 2 and 3: 5xx retry; 4xx do not, except `409 idempotency-key-in-flight`
   * and 429. Unknown types fall back to their status, so an unknown 409 is not retried.
   */
  get retryable(): boolean {
    if (this.status >= 500) return true;
    if (this.status === 429) return true;
    return this.status === 409 && this.problem === 'idempotency-key-in-flight';
  }
}

/** A request that failed our own check of the spec's rules; it never left the process. */
export class TcsValidationError extends TcsError {
  override readonly name = 'TcsValidationError';
  readonly retryable = false;
  constructor(
    readonly operation: string,
    readonly errors: readonly FieldError[],
  ) {
    super(`${operation}: invalid request: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  }

  static fromZod(operation: string, error: z.ZodError): TcsValidationError {
    return new TcsValidationError(operation, toFieldErrors(error));
  }
}

/** The connection failed or timed out before a response arrived: the outcome is unknown. */
export class TcsNetworkError extends TcsError {
  override readonly name = 'TcsNetworkError';
  readonly retryable = true;
  constructor(
    readonly operation: string,
    /** Low-level code such as ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET or TIMEOUT. */
    readonly code: string,
    message: string,
  ) {
    super(`${operation}: network failure (${code}): ${message}`);
  }
}

/** A 2xx response whose body does not match the spec. Not retried: the same body would come back. */
export class TcsResponseError extends TcsError {
  override readonly name = 'TcsResponseError';
  readonly retryable = false;
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly requestId: string | null,
    readonly errors: readonly FieldError[],
  ) {
    super(
      `${operation}: response does not match the spec: ${errors
        .slice(0, 5)
        .map((e) => `${e.field} ${e.message}`)
        .join('; ')}${errors.length > 5 ? ` (+${errors.length - 5} more)` : ''}`,
    );
  }
}

// ---------------------------------------------------------------------------
// Redaction
// ---------------------------------------------------------------------------

/** A URL without its query string and fragment: safe to log even when it is a signed URL. */
export const redactUrl = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    const cut = url.search(/[?#]/);
    return cut === -1 ? url : `${url.slice(0, cut)}?…`;
  }
};

/** Removes every occurrence of the secret and any URL query strings from a text. */
export const scrubText = (text: string, secret: string): string => {
  let out = secret.length > 0 ? text.split(secret).join('[redacted]') : text;
  out = out.replace(/(https?:\/\/[^\s"'<>?#]+)\?[^\s"'<>]*/g, '$1?…');
  return out;
};

// ---------------------------------------------------------------------------
// Building a Problem error from a response
// ---------------------------------------------------------------------------

/** `Retry-After` as delta-seconds or as an HTTP date, in milliseconds from `now`. */
export const parseRetryAfter = (value: string | null, now: number): number | null => {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
};

/** The last path segment of a problem `type` URI is its catalogue name. */
export const problemNameOf = (type: string): string => {
  const withoutQuery = type.split(/[?#]/)[0] ?? type;
  const segments = withoutQuery.split('/').filter((s) => s.length > 0);
  return segments.at(-1) ?? withoutQuery;
};

export const problemErrorFromResponse = (input: {
  status: number;
  statusText: string;
  bodyText: string;
  requestIdHeader: string | null;
  retryAfterHeader: string | null;
  path: string;
  now: number;
  secret: string;
}): TcsProblemError => {
  const scrub = (s: string) => scrubText(s, input.secret);
  let parsed: Problem | null = null;
  try {
    const json: unknown = JSON.parse(input.bodyText);
    const result = Problem.safeParse(json);
    if (result.success) parsed = result.data;
  } catch {
    // Not JSON (a proxy's HTML page, an empty body): fall through to a status-based error.
  }
  const name = parsed ? problemNameOf(parsed.type) : null;
  const problem = name && isProblemName(name) ? name : null;
  const snippet = scrub(input.bodyText.replace(/\s+/g, ' ').trim().slice(0, 200));
  return new TcsProblemError({
    problem,
    type: parsed ? scrub(parsed.type) : null,
    status: input.status,
    title: scrub(parsed?.title ?? input.statusText ?? ''),
    detail: scrub(parsed?.detail ?? (snippet || input.statusText || `HTTP ${input.status}`)),
    instance: scrub(parsed?.instance ?? input.path),
    requestId: parsed?.request_id ?? input.requestIdHeader,
    errors: (parsed?.errors ?? []).map((e) => ({ field: e.field, code: e.code, message: scrub(e.message) })),
    retryAfterMs: parseRetryAfter(input.retryAfterHeader, input.now),
  });
};
