/**
 * Client of the Tariff Classification Service v1: one function per endpoint, every
 * request checked against the spec before it leaves, every response parsed with the
 * spec's schemas, one retry policy for all.
 *
 * The API key lives only in this module's closure: it is not a property of the client,
 * of a thrown error or of a log line. Signed URLs (PDF download, sheet upload) are used
 * once and never stored; when one must be named, its query string is cut.
 */
import type * as z from 'zod';
import {
  problemErrorFromResponse,
  redactUrl,
  scrubText,
  TcsNetworkError,
  TcsResponseError,
  TcsValidationError,
} from './errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, systemTimer, type Timer, withRetry } from './retry.js';
import {
  AnswerQuestionsRequest,
  Balance,
  Classification,
  ClassificationAccepted,
  ClassificationId,
  ClassificationPage,
  type Country,
  CountryList,
  CreateClassificationRequest,
  Cursor,
  IdempotencyKey,
  ListClassificationsQuery,
  SimOpenings,
  SimOpeningsQuery,
  TariffLookup,
  TariffQuery,
  toFieldErrors,
  UploadGrant,
  UploadRequest,
} from './schemas.js';

/** Structured logger port; Powertools' Logger fits it as it is. */
type TcsLogger = {
  debug(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
};

export type TcsClientConfig = {
  /** Ends with the version segment, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** Limit for one HTTP exchange (headers and body), in milliseconds. Default 30 s. */
  requestTimeoutMs?: number;
  /** How long the country list is kept before it is fetched again. Default one day. */
  countriesTtlMs?: number;
  timer?: Timer;
  logger?: TcsLogger;
  userAgent?: string;
};

type CallOptions = {
  signal?: AbortSignal;
  /** Overrides of the client's retry policy for this call. */
  retry?: Partial<RetryPolicy>;
};

type IdempotentCallOptions = CallOptions & {
  /** `^[A-Za-z0-9_-]{16,128}$`; reused unchanged on every retry of this call. */
  idempotencyKey: string;
};

/** Result of the two idempotent POSTs. */
type Accepted = {
  classification: ClassificationAccepted;
  /** True when the service answered `Idempotent-Replayed: true`: nothing new was created. */
  replayed: boolean;
  requestId: string | null;
};

type VerdictPdf = {
  contentType: string;
  /** From `Content-Length`, when the server sent one. */
  byteLength: number | null;
  /** The PDF's bytes, streamed; read it once. */
  body: ReadableStream<Uint8Array>;
};

type SheetUpload = { fileUrl: string; expiresAt: string };

export type TcsClient = {
  createClassification(body: CreateClassificationRequest, options: IdempotentCallOptions): Promise<Accepted>;
  answerQuestions(
    id: string,
    body: AnswerQuestionsRequest,
    options: IdempotentCallOptions,
  ): Promise<Accepted>;
  getClassification(id: string, options?: CallOptions): Promise<Classification>;
  /** One page of the history. */
  listClassificationsPage(
    query?: ListClassificationsQuery,
    cursor?: string | null,
    options?: CallOptions,
  ): Promise<ClassificationPage>;
  /** The whole history matching `query`, following `next_cursor` with the same filters and order. */
  listClassifications(query?: ListClassificationsQuery, options?: CallOptions): AsyncIterable<Classification>;
  /** Follows the 302 to the signed URL and streams the verdict PDF. */
  downloadVerdictPdf(id: string, options?: CallOptions): Promise<VerdictPdf>;
  requestUpload(body: UploadRequest, options?: CallOptions): Promise<UploadGrant>;
  /** PUTs the PDF bytes to the grant's signed URL. */
  putSheet(grant: UploadGrant, bytes: Uint8Array, options?: CallOptions): Promise<void>;
  /** Checks the bytes are a PDF within the size limit, requests a grant and PUTs them. */
  uploadSheet(sheet: { filename: string; bytes: Uint8Array }, options?: CallOptions): Promise<SheetUpload>;
  getTariffs(query: TariffQuery, options?: CallOptions): Promise<TariffLookup>;
  getSimOpenings(query: SimOpeningsQuery, options?: CallOptions): Promise<SimOpenings>;
  getBalance(options?: CallOptions): Promise<Balance>;
  /** Accepted countries; cached and fetched again once a day (spec, GET /countries). */
  listCountries(options?: CallOptions): Promise<readonly Country[]>;
};

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"
const looksLikePdf = (bytes: Uint8Array): boolean => PDF_MAGIC.every((b, i) => bytes[i] === b);

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

type HttpExchange = {
  operation: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Absolute URL. */
  url: string;
  /** Whether to send the API key (never to a signed URL). */
  authenticated: boolean;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** 'manual' to see a redirect instead of following it. */
  redirect?: 'manual' | 'follow';
  signal?: AbortSignal;
};

/**
 * What every call shares: where the service is, the key, the retry policy and the clock.
 * Held only in the closures of the client's methods, never returned.
 */
type Connection = {
  baseUrl: string;
  apiKey: string;
  policy: RetryPolicy;
  timer: Timer;
  requestTimeoutMs: number;
  logger: TcsLogger | undefined;
  userAgent: string;
};

/** A `TcsClient` method that takes the connection first. */
type OnConnection<F> = F extends (...args: infer A) => infer R ? (conn: Connection, ...args: A) => R : never;

/** The config checked and its defaults filled in. */
const connectionOf = (config: TcsClientConfig): Connection => {
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+(\/.*)?\/v1$/.test(baseUrl)) {
    throw new Error(`TCS base URL must be an http(s) URL ending with /v1, got ${redactUrl(config.baseUrl)}`);
  }
  const apiKey = config.apiKey;
  if (!apiKey) throw new Error('TCS API key is empty');
  return {
    baseUrl,
    apiKey,
    policy: { ...DEFAULT_RETRY_POLICY, ...config.retry },
    timer: config.timer ?? systemTimer,
    requestTimeoutMs: config.requestTimeoutMs ?? 30_000,
    logger: config.logger,
    userAgent: config.userAgent ?? 'ncm-batch-classifier/0.1',
  };
};

const scrub = (conn: Connection, text: string) => scrubText(text, conn.apiKey);

const checkRequest = <S extends z.ZodType>(operation: string, schema: S, value: unknown): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) throw TcsValidationError.fromZod(operation, result.error);
  return result.data;
};

const checkId = (operation: string, id: string): string => {
  if (!ClassificationId.safeParse(id).success) {
    throw new TcsValidationError(operation, [
      {
        field: 'id',
        code: 'invalid_format',
        message: 'must match ^cls_[23456789ABCDEFGHJKMNPQRSTVWXYZ]{12}$',
      },
    ]);
  }
  return id;
};

const checkIdempotencyKey = (operation: string, key: string): string => {
  if (!IdempotencyKey.safeParse(key).success) {
    throw new TcsValidationError(operation, [
      {
        field: 'Idempotency-Key',
        code: 'invalid_format',
        message: 'must be 16 to 128 characters of A-Z, a-z, 0-9, - and _',
      },
    ]);
  }
  return key;
};

const toNetworkError = (conn: Connection, operation: string, error: unknown): TcsNetworkError => {
  const err = error as {
    name?: string;
    message?: string;
    code?: string;
    cause?: { code?: string; message?: string };
  };
  if (err?.name === 'TimeoutError') {
    return new TcsNetworkError(operation, 'TIMEOUT', `no response within ${conn.requestTimeoutMs} ms`);
  }
  const code = err?.cause?.code ?? err?.code ?? 'NETWORK';
  const message = err?.cause?.message ?? err?.message ?? String(error);
  return new TcsNetworkError(operation, code, scrub(conn, message));
};

/** One HTTP exchange; a non-2xx (and non-redirect when manual) becomes a TcsProblemError. */
const exchange = async (conn: Connection, x: HttpExchange, attempt: number): Promise<Response> => {
  const { baseUrl, apiKey, timer } = conn;
  const headers: Record<string, string> = { 'User-Agent': conn.userAgent, ...x.headers };
  if (x.authenticated) headers.Authorization = `Bearer ${apiKey}`;
  const timeout = AbortSignal.timeout(conn.requestTimeoutMs);
  const signal = x.signal ? AbortSignal.any([x.signal, timeout]) : timeout;
  const loggedUrl = x.authenticated ? x.url.replace(baseUrl, '') : redactUrl(x.url);
  const started = timer.now();
  let response: Response;
  try {
    response = await fetch(x.url, {
      method: x.method,
      headers,
      body: x.body,
      redirect: x.redirect ?? 'follow',
      signal,
    });
  } catch (error) {
    if (x.signal?.aborted) throw x.signal.reason;
    throw toNetworkError(conn, x.operation, error);
  }
  const requestId = response.headers.get('x-request-id');
  conn.logger?.debug('tcs http', {
    operation: x.operation,
    method: x.method,
    url: loggedUrl,
    status: response.status,
    attempt,
    request_id: requestId,
    duration_ms: timer.now() - started,
  });
  const isRedirect = x.redirect === 'manual' && response.status >= 300 && response.status < 400;
  if (response.ok || isRedirect) return response;
  let bodyText = '';
  try {
    bodyText = await response.text();
  } catch {
    // The error body was cut off; the status alone still makes a usable error.
  }
  throw problemErrorFromResponse({
    status: response.status,
    statusText: response.statusText,
    bodyText,
    requestIdHeader: requestId,
    retryAfterHeader: response.headers.get('retry-after'),
    path: x.authenticated ? new URL(x.url).pathname : redactUrl(x.url),
    now: timer.now(),
    secret: apiKey,
  });
};

/** Reads and parses a 2xx JSON body; a body that breaks the spec is a TcsResponseError. */
const readJson = async <S extends z.ZodType>(
  conn: Connection,
  operation: string,
  response: Response,
  schema: S,
): Promise<z.output<S>> => {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // Connection dropped mid-body: the outcome is unknown, as for any network failure.
    throw toNetworkError(conn, operation, error);
  }
  const requestId = response.headers.get('x-request-id');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TcsResponseError(operation, response.status, requestId, [
      { field: '(body)', code: 'invalid_json', message: `is not JSON: ${scrub(conn, text.slice(0, 80))}` },
    ]);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    throw new TcsResponseError(operation, response.status, requestId, toFieldErrors(result.error));
  }
  return result.data;
};

const retrying = <T>(
  conn: Connection,
  operation: string,
  options: CallOptions | undefined,
  run: (attempt: number) => Promise<T>,
) =>
  withRetry({ ...conn.policy, ...options?.retry }, conn.timer, run, {
    signal: options?.signal,
    onRetry: ({ attempt, delayMs, error }) =>
      conn.logger?.warn('tcs retry', { operation, attempt, delay_ms: delayMs, error: error.message }),
  });

const getJson = <S extends z.ZodType>(
  conn: Connection,
  operation: string,
  path: string,
  schema: S,
  options?: CallOptions,
  query?: URLSearchParams,
): Promise<z.output<S>> => {
  const qs = query?.toString();
  const url = `${conn.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  return retrying(conn, operation, options, async (attempt) => {
    const response = await exchange(
      conn,
      {
        operation,
        method: 'GET',
        url,
        authenticated: true,
        headers: { Accept: 'application/json' },
        signal: options?.signal,
      },
      attempt,
    );
    return readJson(conn, operation, response, schema);
  });
};

const postJson = async <S extends z.ZodType>(
  conn: Connection,
  operation: string,
  path: string,
  body: unknown,
  schema: S,
  options: CallOptions | undefined,
  idempotencyKey?: string,
): Promise<{ data: z.output<S>; replayed: boolean; requestId: string | null }> => {
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Content-Type': 'application/json',
  };
  // The same key on every try: that is what makes a retried POST safe (spec, Idempotency).
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  return retrying(conn, operation, options, async (attempt) => {
    const response = await exchange(
      conn,
      {
        operation,
        method: 'POST',
        url: `${conn.baseUrl}${path}`,
        authenticated: true,
        headers,
        body: payload,
        signal: options?.signal,
      },
      attempt,
    );
    const data = await readJson(conn, operation, response, schema);
    return {
      data,
      replayed: response.headers.get('idempotent-replayed')?.toLowerCase() === 'true',
      requestId: response.headers.get('x-request-id'),
    };
  });
};

const createClassification: OnConnection<TcsClient['createClassification']> = async (conn, body, options) => {
  const operation = 'POST /classifications';
  const key = checkIdempotencyKey(operation, options.idempotencyKey);
  const checked = checkRequest(operation, CreateClassificationRequest, body);
  // Every field sent, absent ones as null: the spec documents null, not omission.
  const wire = {
    operation: checked.operation,
    country: checked.country,
    description: checked.description ?? null,
    file_url: checked.file_url ?? null,
    external_reference: checked.external_reference ?? null,
  };
  const { data, replayed, requestId } = await postJson(
    conn,
    operation,
    '/classifications',
    wire,
    ClassificationAccepted,
    options,
    key,
  );
  return { classification: data, replayed, requestId };
};

const answerQuestions: OnConnection<TcsClient['answerQuestions']> = async (conn, id, body, options) => {
  const operation = `POST /classifications/${id}/answers`;
  checkId(operation, id);
  const key = checkIdempotencyKey(operation, options.idempotencyKey);
  const checked = checkRequest(operation, AnswerQuestionsRequest, body);
  const wire = { answers: checked.answers, file_url: checked.file_url ?? null };
  const { data, replayed, requestId } = await postJson(
    conn,
    operation,
    `/classifications/${id}/answers`,
    wire,
    ClassificationAccepted,
    options,
    key,
  );
  return { classification: data, replayed, requestId };
};

const getClassification: OnConnection<TcsClient['getClassification']> = async (conn, id, options) => {
  const operation = `GET /classifications/${id}`;
  checkId(operation, id);
  return getJson(conn, operation, `/classifications/${id}`, Classification, options);
};

const listQueryParams = (query: ListClassificationsQuery | undefined): URLSearchParams => {
  const q = checkRequest('GET /classifications', ListClassificationsQuery, query ?? {});
  const params = new URLSearchParams();
  if (q.limit !== undefined) params.set('limit', String(q.limit));
  if (q.q !== undefined) params.set('q', q.q);
  if (q.operation) params.set('operation', q.operation);
  if (q.country) params.set('country', q.country);
  if (q.status) params.set('status', q.status.join(','));
  if (q.reviewed !== undefined) params.set('reviewed', String(q.reviewed));
  if (q.created_after) params.set('created_after', q.created_after);
  if (q.created_before) params.set('created_before', q.created_before);
  if (q.sort) params.set('sort', `${q.sort.field}:${q.sort.direction}`);
  return params;
};

const listClassificationsPage: OnConnection<TcsClient['listClassificationsPage']> = async (
  conn,
  query,
  cursor,
  options,
) => {
  const operation = 'GET /classifications';
  const params = listQueryParams(query);
  if (cursor != null) params.set('cursor', checkRequest(operation, Cursor, cursor));
  return getJson(conn, operation, '/classifications', ClassificationPage, options, params);
};

const listClassifications: OnConnection<TcsClient['listClassifications']> = (conn, query, options) => {
  // Validate now, so a bad query fails at the call and not at the first iteration.
  listQueryParams(query);
  return {
    async *[Symbol.asyncIterator]() {
      let cursor: string | null = null;
      do {
        // Same filters and order on every page (spec, GET /classifications rule 2).
        const page: ClassificationPage = await listClassificationsPage(conn, query, cursor, options);
        yield* page.items;
        cursor = page.next_cursor;
      } while (cursor !== null);
    },
  };
};

const downloadVerdictPdf: OnConnection<TcsClient['downloadVerdictPdf']> = async (conn, id, options) => {
  const operation = `GET /classifications/${id}/pdf`;
  checkId(operation, id);
  // Both hops retried together: a signed URL is temporary, so a failed download asks
  // for a fresh one rather than reusing the old one.
  return retrying(conn, operation, options, async (attempt) => {
    const first = await exchange(
      conn,
      {
        operation,
        method: 'GET',
        url: `${conn.baseUrl}/classifications/${id}/pdf`,
        authenticated: true,
        headers: { Accept: 'application/pdf' },
        redirect: 'manual',
        signal: options?.signal,
      },
      attempt,
    );
    let pdf = first;
    if (first.status >= 300 && first.status < 400) {
      const location = first.headers.get('location');
      await first.body?.cancel();
      if (!location) {
        throw new TcsResponseError(operation, first.status, first.headers.get('x-request-id'), [
          { field: 'Location', code: 'missing', message: 'redirect without a Location header' },
        ]);
      }
      const signedUrl = new URL(location, `${conn.baseUrl}/`).toString();
      // The signed URL carries its own authorisation: the API key is not sent there.
      pdf = await exchange(
        conn,
        {
          operation,
          method: 'GET',
          url: signedUrl,
          authenticated: false,
          headers: { Accept: 'application/pdf' },
          signal: options?.signal,
        },
        attempt,
      );
    }
    if (!pdf.body) {
      throw new TcsResponseError(operation, pdf.status, pdf.headers.get('x-request-id'), [
        { field: '(body)', code: 'missing', message: 'the PDF response has no body' },
      ]);
    }
    const length = pdf.headers.get('content-length');
    return {
      contentType: pdf.headers.get('content-type') ?? 'application/pdf',
      byteLength: length === null ? null : Number(length),
      body: pdf.body as ReadableStream<Uint8Array>,
    };
  });
};

const requestUpload: OnConnection<TcsClient['requestUpload']> = async (conn, body, options) => {
  const operation = 'POST /uploads';
  const checked = checkRequest(operation, UploadRequest, body);
  const { data } = await postJson(conn, operation, '/uploads', checked, UploadGrant, options);
  return data;
};

const putSheet: OnConnection<TcsClient['putSheet']> = async (conn, grant, bytes, options) => {
  const operation = `PUT ${redactUrl(grant.upload_url)}`;
  if (Date.parse(grant.expires_at) <= conn.timer.now()) {
    throw new TcsValidationError(operation, [
      { field: 'expires_at', code: 'expired', message: 'the upload grant has expired; request a new one' },
    ]);
  }
  await retrying(conn, operation, options, async (attempt) => {
    const response = await exchange(
      conn,
      {
        operation,
        method: 'PUT',
        url: grant.upload_url,
        authenticated: false,
        headers: { 'Content-Type': 'application/pdf' },
        body: bytes,
        signal: options?.signal,
      },
      attempt,
    );
    await response.body?.cancel();
  });
};

const uploadSheet: OnConnection<TcsClient['uploadSheet']> = async (conn, { filename, bytes }, options) => {
  const operation = 'POST /uploads';
  if (!looksLikePdf(bytes)) {
    throw new TcsValidationError(operation, [
      { field: 'content_type', code: 'not_pdf', message: `${filename} is not a PDF (no %PDF- header)` },
    ]);
  }
  const grant = await requestUpload(
    conn,
    { content_type: 'application/pdf', byte_size: bytes.byteLength, filename },
    options,
  );
  await putSheet(conn, grant, bytes, options);
  return { fileUrl: grant.file_url, expiresAt: grant.expires_at };
};

const getTariffs: OnConnection<TcsClient['getTariffs']> = async (conn, query, options) => {
  const operation = 'GET /tariffs';
  const q = checkRequest(operation, TariffQuery, query);
  const params = new URLSearchParams({ ncm: q.ncm, country: q.country, operation: q.operation });
  return getJson(conn, operation, '/tariffs', TariffLookup, options, params);
};

const getSimOpenings: OnConnection<TcsClient['getSimOpenings']> = async (conn, query, options) => {
  const operation = 'GET /sim-openings';
  const q = checkRequest(operation, SimOpeningsQuery, query);
  const params = new URLSearchParams({ ncm: q.ncm, operation: q.operation });
  return getJson(conn, operation, '/sim-openings', SimOpenings, options, params);
};

const getBalance: OnConnection<TcsClient['getBalance']> = async (conn, options) =>
  getJson(conn, 'GET /balance', '/balance', Balance, options);

/** `listCountries` with its own cache, kept for `ttlMs`. */
const cachedListCountries = (conn: Connection, ttlMs: number): TcsClient['listCountries'] => {
  let countries: { fetchedAt: number; items: Promise<readonly Country[]> } | null = null;
  return (options) => {
    const now = conn.timer.now();
    if (countries && now - countries.fetchedAt < ttlMs) return countries.items;
    // Concurrent callers share one request; a failed fetch is not cached.
    const items = getJson(conn, 'GET /countries', '/countries', CountryList, options).then(
      (list) => list.items,
    );
    const entry = { fetchedAt: now, items };
    countries = entry;
    items.catch(() => {
      if (countries === entry) countries = null;
    });
    return items;
  };
};

export const createTcsClient = (config: TcsClientConfig): TcsClient => {
  const conn = connectionOf(config);
  return {
    createClassification: (body, options) => createClassification(conn, body, options),
    answerQuestions: (id, body, options) => answerQuestions(conn, id, body, options),
    getClassification: (id, options) => getClassification(conn, id, options),
    listClassificationsPage: (query, cursor, options) =>
      listClassificationsPage(conn, query, cursor, options),
    listClassifications: (query, options) => listClassifications(conn, query, options),
    downloadVerdictPdf: (id, options) => downloadVerdictPdf(conn, id, options),
    requestUpload: (body, options) => requestUpload(conn, body, options),
    putSheet: (grant, bytes, options) => putSheet(conn, grant, bytes, options),
    uploadSheet: (sheet, options) => uploadSheet(conn, sheet, options),
    getTariffs: (query, options) => getTariffs(conn, query, options),
    getSimOpenings: (query, options) => getSimOpenings(conn, query, options),
    getBalance: (options) => getBalance(conn, options),
    listCountries: cachedListCountries(conn, config.countriesTtlMs ?? ONE_DAY_MS),
  };
};
