/**
 * A real HTTP server on loopback whose answers a test scripts route by route. Used to
 * drive the service client over the wire (no mocked fetch): each route holds a queue of
 * handlers, consumed in order, the last one repeating.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type RecordedRequest = {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
};

export type ScriptedHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export type ScriptedServer = {
  origin: string;
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues handlers for `METHOD /path` (path relative to the origin, e.g. `/v1/balance`). */
  on(route: string, ...handlers: ScriptedHandler[]): void;
  requestsTo(route: string): RecordedRequest[];
  close(): Promise<void>;
};

export const startScriptedServer = async (): Promise<ScriptedServer> => {
  const routes = new Map<string, ScriptedHandler[]>();
  const requests: RecordedRequest[] = [];

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(recorded);
    const queue = routes.get(`${recorded.method} ${recorded.path}`);
    const handler = queue && (queue.length > 1 ? queue.shift() : queue[0]);
    if (!handler) {
      res
        .writeHead(599, { 'content-type': 'text/plain' })
        .end(`no script for ${recorded.method} ${recorded.path}`);
      return;
    }
    await handler(recorded, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    on(route, ...handlers) {
      routes.set(route, handlers);
    },
    requestsTo(route) {
      return requests.filter((r) => `${r.method} ${r.path}` === route);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};

// ---------------------------------------------------------------------------
// Response helpers
// ---------------------------------------------------------------------------

let requestCounter = 0;
const nextRequestId = () => `req_test_${++requestCounter}`;

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): ScriptedHandler =>
  (_req, res) => {
    res
      .writeHead(status, { 'content-type': 'application/json', 'x-request-id': nextRequestId(), ...headers })
      .end(JSON.stringify(body));
  };

export const problem =
  (
    name: string,
    status: number,
    extra: {
      detail?: string;
      errors?: unknown[];
      headers?: Record<string, string>;
      contentType?: string;
    } = {},
  ): ScriptedHandler =>
  (req, res) => {
    const requestId = nextRequestId();
    res
      .writeHead(status, {
        'content-type': extra.contentType ?? 'application/problem+json',
        'x-request-id': requestId,
        ...extra.headers,
      })
      .end(
        JSON.stringify({
          type: `https://problems.example.test/${name}`,
          title: `Título de ${name}`,
          status,
          detail: extra.detail ?? `detail of ${name}`,
          instance: req.path,
          request_id: requestId,
          ...(extra.errors ? { errors: extra.errors } : {}),
        }),
      );
  };

export const text =
  (status: number, body: string, headers: Record<string, string> = {}): ScriptedHandler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html', ...headers }).end(body);
  };

/** Drops the connection without an answer: the client sees a network failure. */
export const resetConnection: ScriptedHandler = (req, res) => {
  void req;
  res.socket?.destroy();
};
