/**
 * The console as AWS serves it, on loopback, for the sign-in's browser tests: the built page and
 * the config.json the stack writes (infra/console-deployment.ts), as CloudFront serves them, and
 * under `/api` the console's routes behind a JWT check, as API Gateway's authorizer does it
 * (signature by the issuer's JWKS, issuer, audience, expiry; else 401 `Unauthorized`), answered
 * in-process by the console functions' handler over ports in memory (console-world.ts).
 *
 * The page is built by vite into a temporary folder first (`npm run console:build`'s command).
 */
import { execFile } from 'node:child_process';
import { createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { matchRoute } from '../../local/runtime/console-gateway.js';
import type { ConsolePorts } from '../../shared/console/ports.js';
import { consoleHandlerOf } from './console-routes.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

/** Builds web/ into `outDir` as the CDK asset's bundling does. */
export const buildPage = async (outDir: string): Promise<void> => {
  await promisify(execFile)(
    'npx',
    [
      'vite',
      'build',
      '--config',
      'web/vite.config.ts',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'error',
    ],
    { cwd: process.cwd() },
  );
};

type Claims = Record<string, unknown>;

/** API Gateway's JWT authorizer, its checks on an ID token: the issuer's key, iss, aud, exp. */
const jwtAuthorizer = async (options: { jwksUrl: string; issuer: string; audience: string }) => {
  const { keys } = (await (await fetch(options.jwksUrl)).json()) as {
    keys: (JsonWebKey & { kid: string })[];
  };
  const byKid = new Map<string, KeyObject>(
    keys.map((jwk) => [jwk.kid, createPublicKey({ key: jwk, format: 'jwk' })]),
  );
  return (authorization: string | undefined): Claims | null => {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const [header, payload, signature] = token?.split('.') ?? [];
    if (!header || !payload || !signature) return null;
    const parsed = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Claims;
    const key = byKid.get(String(parsed(header).kid));
    const signed = Buffer.from(`${header}.${payload}`);
    if (!key || !verify('sha256', signed, key, Buffer.from(signature, 'base64url'))) return null;
    const claims = parsed(payload);
    const fresh = typeof claims.exp === 'number' && claims.exp * 1000 > Date.now();
    return claims.iss === options.issuer && claims.aud === options.audience && fresh ? claims : null;
  };
};

const send = (response: ServerResponse, status: number, body: string | Buffer, type: string) => {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
};

const readBody = async (request: IncomingMessage): Promise<string | null> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return chunks.length === 0 ? null : Buffer.concat(chunks).toString('utf8');
};

const isFile = async (path: string) => (await stat(path).catch(() => null))?.isFile() ?? false;

export const startSignedInConsole = async (options: {
  siteDir: string;
  ports: ConsolePorts;
  /** The stand-in's URL: its discovery, its JWKS. */
  authority: string;
  issuer: string;
  clientId: string;
}) => {
  const authorize = await jwtAuthorizer({
    jwksUrl: `${options.authority}/jwks`,
    issuer: options.issuer,
    audience: options.clientId,
  });
  /** The Authorization header of every API request, in order, and whether it passed. */
  const apiRequests: { route: string; authorization: string | undefined; status: number }[] = [];
  let origin = '';

  const answerApi = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    const path = url.pathname.slice('/api'.length) || '/';
    const route = `${request.method} ${path}`;
    const claims = authorize(request.headers.authorization);
    if (!claims) {
      apiRequests.push({ route, authorization: request.headers.authorization, status: 401 });
      return send(response, 401, JSON.stringify({ message: 'Unauthorized' }), 'application/json');
    }
    const matched = matchRoute(request.method ?? 'GET', path);
    if (!matched) return send(response, 404, JSON.stringify({ message: 'Not Found' }), 'application/json');
    const result = await consoleHandlerOf(
      matched.route.handler,
      () => options.ports,
    )({
      routeKey: matched.route.routeKey,
      pathParameters: matched.params,
      queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : null,
      body: await readBody(request),
      isBase64Encoded: false,
      requestContext: { authorizer: { jwt: { claims } } },
    });
    apiRequests.push({ route, authorization: request.headers.authorization, status: result.statusCode });
    response.writeHead(result.statusCode, result.headers);
    response.end(result.body);
  };

  const answerSite = async (response: ServerResponse, url: URL) => {
    if (url.pathname === '/config.json') {
      const config = {
        apiUrl: `${origin}/api`,
        auth: {
          authority: options.authority,
          clientId: options.clientId,
          domain: options.authority,
          redirectUri: `${origin}/`,
        },
      };
      return send(response, 200, JSON.stringify(config), 'application/json');
    }
    const root = resolve(options.siteDir);
    const wanted = resolve(root, `.${decodeURIComponent(url.pathname)}`);
    const file =
      wanted.startsWith(`${root}${sep}`) && (await isFile(wanted)) ? wanted : join(root, 'index.html');
    send(response, 200, await readFile(file), TYPES[extname(file)] ?? 'application/octet-stream');
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', origin);
    const work = url.pathname.startsWith('/api/')
      ? answerApi(request, response, url)
      : answerSite(response, url);
    work.catch((error: unknown) => send(response, 500, String(error), 'text/plain'));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    apiRequests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
