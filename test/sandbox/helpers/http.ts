/**
 * Raw HTTP against the sandbox — deliberately not through `shared/tcs/client.ts`, so a
 * misreading of the spec shared by client and sandbox still shows in these tests.
 */
import { expect } from 'vitest';
import type { Sandbox } from '../../../local/sandbox/sandbox.js';

/** The sandbox's default problems base; asserted literally rather than imported. */
const PROBLEMS_BASE = 'https://sandbox.tcs.invalid/problems';

/**
 * A JSON value read from a response. Tests assert its fields one by one against the spec,
 * so they read it untyped on purpose (a typed read would be the shared schemas again).
 */
// biome-ignore lint/suspicious/noExplicitAny: see above.
export type Json = any;

export type RawResponse = {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
  /** Path requested (for `instance`). */
  path: string;
};

export type CallOptions = {
  key?: string | null;
  headers?: Record<string, string>;
  /** JSON body (serialised) … */
  json?: unknown;
  /** … or raw bytes/text sent as they are. */
  raw?: string | Uint8Array;
  idempotencyKey?: string;
};

export const request = async (
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<RawResponse> => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  let body: string | Uint8Array | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] ??= 'application/json';
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  const url = /^https?:/.test(path) ? path : `${baseUrl}${path}`;
  const response = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: parsed,
    path: new URL(url).pathname,
  };
};

/** A client bound to a sandbox and a key. */
export const api = (sandbox: Pick<Sandbox, 'baseUrl' | 'keys'>, key: string = sandbox.keys.classify) => ({
  get: (path: string, options: CallOptions = {}) =>
    request(sandbox.baseUrl, 'GET', path, { key, ...options }),
  post: (path: string, json: unknown, options: CallOptions = {}) =>
    request(sandbox.baseUrl, 'POST', path, { key, json, ...options }),
  send: (method: string, path: string, options: CallOptions = {}) =>
    request(sandbox.baseUrl, method, path, { key, ...options }),
});

let keyCounter = 0;
/** A fresh, valid Idempotency-Key. */
export const newKey = (label = 'test'): string =>
  `${label.replace(/[^A-Za-z0-9_-]/g, '')}-${process.pid}-${Date.now()}-${++keyCounter}`.padEnd(16, '0');

/** A valid creation body. */
export const creation = (overrides: Record<string, unknown> = {}) => ({
  operation: 'import',
  country: 'CN',
  description: 'Café torrado em grão, não descafeinado, pacote de 1 kg',
  file_url: null,
  external_reference: null,
  ...overrides,
});

/**
 * Asserts a Problem response field by field against the spec's Errors part: the status,
 * `application/problem+json`, `type` = `{problems_base}/{name}`, a Spanish `title`, `status`
 * repeated, a `detail`, `instance` = the path, `request_id` = the `X-Request-Id` header.
 */
export const expectProblem = (response: RawResponse, name: string, status: number): void => {
  expect(response.status, `${response.path}: ${response.text.slice(0, 300)}`).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = response.body;
  expect(body.type).toBe(`${PROBLEMS_BASE}/${name}`);
  expect(typeof body.title).toBe('string');
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.status).toBe(status);
  expect(typeof body.detail).toBe('string');
  expect(body.detail.length).toBeGreaterThan(0);
  expect(body.instance).toBe(response.path);
  expect(body.request_id).toBe(response.headers.get('x-request-id'));
  expect(body.request_id).toMatch(/\S/);
};

/** Asserts a 422 validation-error naming `field` (and returns that error element). */
export const expectFieldError = (response: RawResponse, field: string) => {
  expectProblem(response, 'validation-error', 422);
  const errors = response.body.errors as { field: string; code: string; message: string }[];
  expect(Array.isArray(errors)).toBe(true);
  const match = errors.find((e) => e.field === field);
  expect(match, `no error on ${field}: ${JSON.stringify(errors)}`).toBeDefined();
  expect(typeof match!.code).toBe('string');
  expect(typeof match!.message).toBe('string');
  return match!;
};

/** The admin API, over HTTP too. */
export const admin = (sandbox: Pick<Sandbox, 'adminUrl'>) => {
  const call = async (method: string, path: string, json?: unknown) => {
    const response = await fetch(`${sandbox.adminUrl}${path}`, {
      method,
      headers: json === undefined ? {} : { 'Content-Type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body: Json = await response.json();
    if (!response.ok) throw new Error(`admin ${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  return {
    call,
    stats: () => call('GET', '/stats'),
    reset: () => call('POST', '/reset'),
    advance: (seconds: number) => call('POST', '/clock', { advance_seconds: seconds }),
    faults: (settings: Record<string, unknown>) => call('POST', '/faults', settings),
    classifications: async () => (await call('GET', '/classifications')).items as Record<string, Json>[],
  };
};

/** Runs last 45–75 s before the time scale; at scale 1 this is past the end of any run. */
export const PAST_ANY_RUN_SECONDS = 80;
