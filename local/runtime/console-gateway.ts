/**
 * The console on this machine: API Gateway's part played on loopback. One HTTP server serves
 * the built page (the site the CDK app deploys to S3 behind CloudFront) and, under `/api`, the
 * console's routes (shared/console/api.ts, CONSOLE_ROUTES), each turned into the HTTP API event
 * API Gateway would send (payload 2.0) and answered by the console function the template names,
 * in its own process in the Lambda pool, with the synthesized bundle.
 *
 *   browser ──GET /, /assets/…──▶ the built site           (CloudFront + S3 on AWS)
 *           ──GET /config.json──▶ { apiUrl, auth: null }   (BucketDeployment's config.json)
 *           ──/api/<route>──────▶ console-* function        (HTTP API + JWT authorizer)
 *           ──POST form────────▶ s3rver (presigned)         (S3)
 *
 * No sign-in: the server listens on 127.0.0.1 only and answers only requests addressed to it
 * (a page elsewhere cannot reach it by a DNS name that resolves here). Each request carries
 * the claims of a `local operator`, as the JWT authorizer passes a signed-in user's, named as
 * the person at this machine (`operator`: `npm run console -- --by`, else the OS user), so
 * answers and decisions given here are theirs, as a Cognito user's are on AWS.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { CONSOLE_ROUTES, type ConsoleHandlerName } from '../../shared/console/api.js';
import type { StackTemplate } from './template.js';

/** What the local authorizer vouches for (functions/console-runtime.ts reads these claims). */
const LOCAL_OPERATOR_CLAIMS = {
  sub: 'local-operator',
  iss: 'local',
  token_use: 'id',
  'cognito:username': 'local operator',
} as const;

/** API Gateway refuses larger payloads; the console's own bodies are a few kilobytes. */
const MAX_BODY_BYTES = 1024 * 1024;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

type Route = { routeKey: string; method: string; segments: string[]; handler: ConsoleHandlerName };

const ROUTES: Route[] = Object.entries(CONSOLE_ROUTES).map(([routeKey, handler]) => {
  const [method = '', path = ''] = routeKey.split(' ');
  return { routeKey, method, segments: path.split('/').slice(1), handler };
});

/** The route a method and path match, with its path parameters (still URL-encoded, as API Gateway gives them). */
export const matchRoute = (method: string, path: string) => {
  const parts = path.split('/').slice(1);
  for (const route of ROUTES) {
    if (route.method !== method || route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const fits = route.segments.every((segment, i) => {
      const part = parts[i] ?? '';
      if (segment.startsWith('{')) {
        params[segment.slice(1, -1)] = part;
        return part !== '';
      }
      return segment === part;
    });
    if (fits) return { route, params };
  }
  return null;
};

export type ConsoleGatewayInput = {
  /** The folder of the built page (index.html, assets/). */
  siteDir: string;
  /** Invokes a console function synchronously (the Lambda pool). */
  invoke: (handler: ConsoleHandlerName, event: unknown) => Promise<unknown>;
  /** 0: any free port. */
  port: number;
  /** The person at this machine, the claims' `name`; none: the `local operator`. */
  operator?: string;
  log: (line: string) => void;
};

export type ConsoleGateway = { url: string; close(): Promise<void> };

const send = (response: ServerResponse, status: number, body: string | Buffer, type: string) => {
  response.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
};

const problem = (response: ServerResponse, status: number, code: string, detail: string) =>
  send(
    response,
    status,
    JSON.stringify({ status, code, title: 'Refused', detail, params: {} }),
    'application/problem+json',
  );

const readBody = async (request: IncomingMessage): Promise<string | null> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RangeError('body too large');
    chunks.push(chunk);
  }
  return chunks.length === 0 ? null : Buffer.concat(chunks).toString('utf8');
};

type LambdaHttpResult = { statusCode?: number; headers?: Record<string, string>; body?: string };

const answerApi = async (
  input: ConsoleGatewayInput,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
) => {
  const path = url.pathname.slice('/api'.length) || '/';
  const matched = matchRoute(request.method ?? 'GET', path);
  if (!matched) return problem(response, 404, 'not_found', `No route ${request.method} ${path}.`);
  let body: string | null;
  try {
    body = await readBody(request);
  } catch {
    return problem(response, 413, 'invalid_request', 'The request body is over 1 MB.');
  }
  const event = {
    version: '2.0',
    routeKey: matched.route.routeKey,
    rawPath: path,
    rawQueryString: url.search.slice(1),
    headers: { 'content-type': request.headers['content-type'] ?? '' },
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    pathParameters: Object.keys(matched.params).length > 0 ? matched.params : undefined,
    body,
    isBase64Encoded: false,
    requestContext: {
      http: { method: request.method, path, sourceIp: '127.0.0.1' },
      authorizer: {
        jwt: {
          // Each person at this machine their own `sub`: two of them are two people in the audit.
          claims: input.operator
            ? { ...LOCAL_OPERATOR_CLAIMS, name: input.operator, sub: `local:${input.operator}` }
            : LOCAL_OPERATOR_CLAIMS,
          scopes: null,
        },
      },
    },
  };
  const result = (await input.invoke(matched.route.handler, event)) as LambdaHttpResult;
  response.writeHead(result.statusCode ?? 200, result.headers ?? { 'content-type': 'application/json' });
  response.end(result.body ?? '');
};

const answerSite = async (siteDir: string, response: ServerResponse, url: URL, origin: string) => {
  if (url.pathname === '/config.json')
    return send(response, 200, JSON.stringify({ apiUrl: `${origin}/api`, auth: null }), 'application/json');
  const root = resolve(siteDir);
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return problem(response, 400, 'invalid_request', 'The address is not valid percent-encoding.');
  }
  const wanted = resolve(root, `.${path}`);
  const inside = wanted === root || wanted.startsWith(`${root}${sep}`);
  const file = inside && (await isFile(wanted)) ? wanted : join(root, 'index.html');
  send(response, 200, await readFile(file), TYPES[extname(file)] ?? 'application/octet-stream');
};

const isFile = async (path: string): Promise<boolean> => {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
};

export const startConsoleGateway = async (input: ConsoleGatewayInput): Promise<ConsoleGateway> => {
  let origin = '';
  const server = createServer((request, response) => {
    // Only requests addressed to this server by its loopback address (no DNS rebinding).
    if (request.headers.host !== new URL(origin).host)
      return problem(response, 403, 'forbidden', 'Use the address the console printed.');
    const url = new URL(request.url ?? '/', origin);
    const work =
      url.pathname === '/api' || url.pathname.startsWith('/api/')
        ? answerApi(input, request, response, url)
        : request.method === 'GET' || request.method === 'HEAD'
          ? answerSite(input.siteDir, response, url, origin)
          : Promise.resolve(problem(response, 405, 'not_found', 'The site is read only.'));
    work.catch((error: unknown) => {
      input.log(`console: ${request.method} ${url.pathname} failed: ${String(error)}`);
      if (!response.headersSent) problem(response, 502, 'internal', 'The console function did not answer.');
      else response.end();
    });
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(input.port, '127.0.0.1', () => done());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};

/**
 * The folder of the page as the CDK app staged it for its BucketDeployment: the asset of a
 * `Custom::CDKBucketDeployment` source that holds an index.html (the other source is the
 * config.json the stack writes, which the gateway writes here instead). Null when the
 * assembly has no console site.
 */
export const findConsoleSite = async (
  assemblyDir: string,
  stacks: readonly StackTemplate[],
): Promise<string | null> => {
  const assetDirs = new Map<string, string>();
  for (const name of await readdir(assemblyDir)) {
    if (!name.endsWith('.assets.json')) continue;
    const manifest = JSON.parse(await readFile(join(assemblyDir, name), 'utf8')) as AssetManifest;
    for (const asset of Object.values(manifest.files ?? {}))
      for (const destination of Object.values(asset.destinations ?? {}))
        if (asset.source?.path) assetDirs.set(destination.objectKey, join(assemblyDir, asset.source.path));
  }
  for (const stack of stacks)
    for (const resource of Object.values(stack.template.Resources ?? {})) {
      if (resource.Type !== 'Custom::CDKBucketDeployment') continue;
      const keys =
        (resource.Properties as { SourceObjectKeys?: unknown[] } | undefined)?.SourceObjectKeys ?? [];
      for (const key of keys) {
        const dir = typeof key === 'string' ? assetDirs.get(key) : undefined;
        if (dir && (await isFile(join(dir, 'index.html')))) return dir;
      }
    }
  return null;
};

type AssetManifest = {
  files?: Record<
    string,
    { source?: { path?: string }; destinations?: Record<string, { objectKey: string }> }
  >;
};
