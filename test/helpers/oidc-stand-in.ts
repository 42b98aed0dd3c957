/**
 * A stand-in of the Cognito user pool's sign-in, on loopback, for the browser tests: the OpenID
 * endpoints the page's oidc-client-ts reads, and Cognito's own /logout.
 *
 *   GET  /.well-known/openid-configuration   the endpoints below, S256 only
 *   GET  /authorize    checks the request and shows a one-button sign-in page (the hosted UI's part)
 *   POST /authorize    the button: back to redirect_uri with `?code=…&state=…` (the state as sent)
 *   POST /token        the code once, with a code_verifier whose S256 is the code_challenge:
 *                      an RS256 ID token carrying the nonce; anything else is `invalid_grant`
 *   GET  /jwks         the public key, as API Gateway's JWT authorizer fetches it
 *   GET  /logout       Cognito's sign-out: client_id and logout_uri, then back to logout_uri
 *
 * Its tokens name a Cognito-shaped issuer (`https://cognito-idp.<region>.amazonaws.com/<pool>`),
 * as the console's functions accept only those (functions/console-runtime.ts, userOfClaims);
 * what is served, discovery included, is served here. Every request is kept for the assertions.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const STAND_IN_ISSUER = 'https://cognito-idp.sa-east-1.amazonaws.com/sa-east-1_StandIn01';
const KEY_ID = 'stand-in-1';
const ID_TOKEN_SECONDS = 3600;

export type StandInUser = { sub: string; email: string };

type Grant = {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | null;
  user: StandInUser;
};

type TokenRequest = { code: string; answered: number; error?: string };

const base64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
/** RFC 7636: 43 to 128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'content-type, accept, authorization',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
};

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...CORS });
  response.end(JSON.stringify(body));
};

const sendHtml = (response: ServerResponse, status: number, html: string) => {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(html);
};

const redirect = (response: ServerResponse, location: string) => {
  response.writeHead(302, { location, 'cache-control': 'no-store' });
  response.end();
};

const readForm = async (request: IncomingMessage): Promise<URLSearchParams> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const signInPage = (pendingId: string, user: StandInUser) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in (stand-in)</title>
<style>body{font:16px system-ui,sans-serif;display:grid;place-items:center;height:90vh;background:#f3f5f8}
form{background:#fff;padding:2rem 2.5rem;border-radius:8px;box-shadow:0 1px 4px #0002}
button{font:inherit;padding:.5rem 1.25rem}</style></head>
<body><form method="post" action="/authorize">
<h1>Sign in</h1><p>The authorisation server's stand-in signs in <b>${escapeHtml(user.email)}</b>.</p>
<input type="hidden" name="pending" value="${escapeHtml(pendingId)}">
<button type="submit" data-testid="stand-in-sign-in">Sign in</button>
</form></body></html>`;

export const startOidcStandIn = async (options: { clientId: string; user: StandInUser }) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KEY_ID, alg: 'RS256', use: 'sig' };
  const pending = new Map<string, { grant: Grant; state: string }>();
  const codes = new Map<string, Grant>();
  const authorizeRequests: URLSearchParams[] = [];
  const tokenRequests: TokenRequest[] = [];
  const logoutRequests: URLSearchParams[] = [];
  const issued: string[] = [];
  let url = '';

  const idTokenFor = (grant: Grant): string => {
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: 'RS256', kid: KEY_ID, typ: 'JWT' };
    const claims = {
      iss: STAND_IN_ISSUER,
      sub: grant.user.sub,
      aud: grant.clientId,
      token_use: 'id',
      email: grant.user.email,
      'cognito:username': grant.user.sub,
      auth_time: now,
      iat: now,
      exp: now + ID_TOKEN_SECONDS,
      ...(grant.nonce === null ? {} : { nonce: grant.nonce }),
    };
    const signed = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    return `${signed}.${base64url(sign('sha256', Buffer.from(signed), privateKey))}`;
  };

  /** GET /authorize: what Cognito checks before it shows its sign-in page. */
  const authorize = (response: ServerResponse, query: URLSearchParams) => {
    authorizeRequests.push(query);
    const problem =
      query.get('response_type') !== 'code'
        ? 'response_type must be code'
        : query.get('client_id') !== options.clientId
          ? 'unknown client_id'
          : !query.get('redirect_uri')
            ? 'no redirect_uri'
            : query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge')
              ? 'PKCE with S256 is required'
              : !query.get('state')
                ? 'no state'
                : !(query.get('scope') ?? '').split(' ').includes('openid')
                  ? 'scope must include openid'
                  : null;
    if (problem) return sendHtml(response, 400, `<p>${escapeHtml(problem)}</p>`);
    const id = randomBytes(16).toString('hex');
    pending.set(id, {
      state: query.get('state') ?? '',
      grant: {
        clientId: options.clientId,
        redirectUri: query.get('redirect_uri') ?? '',
        challenge: query.get('code_challenge') ?? '',
        nonce: query.get('nonce'),
        user: options.user,
      },
    });
    sendHtml(response, 200, signInPage(id, options.user));
  };

  /** POST /authorize: the person pressed the button. */
  const approve = async (request: IncomingMessage, response: ServerResponse) => {
    const id = (await readForm(request)).get('pending') ?? '';
    const waiting = pending.get(id);
    if (!waiting) return sendHtml(response, 400, '<p>No sign-in is waiting.</p>');
    pending.delete(id);
    const code = standIn.grantCode(waiting.grant);
    const back = new URL(waiting.grant.redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', waiting.state);
    redirect(response, back.href);
  };

  const token = async (request: IncomingMessage, response: ServerResponse) => {
    const form = await readForm(request);
    const code = form.get('code') ?? '';
    const grant = codes.get(code);
    codes.delete(code); // once, whatever the outcome
    const verifier = form.get('code_verifier') ?? '';
    const error =
      form.get('grant_type') !== 'authorization_code'
        ? 'unsupported_grant_type'
        : !grant ||
            form.get('client_id') !== grant.clientId ||
            form.get('redirect_uri') !== grant.redirectUri ||
            !VERIFIER.test(verifier) ||
            s256(verifier) !== grant.challenge
          ? 'invalid_grant'
          : undefined;
    if (error || !grant) {
      tokenRequests.push({ code, answered: 400, error });
      return sendJson(response, 400, { error });
    }
    const idToken = idTokenFor(grant);
    issued.push(idToken);
    tokenRequests.push({ code, answered: 200 });
    sendJson(response, 200, {
      id_token: idToken,
      access_token: randomBytes(24).toString('base64url'),
      token_type: 'Bearer',
      expires_in: ID_TOKEN_SECONDS,
    });
  };

  /** Cognito's /logout: not OpenID's end_session; client_id and a registered logout_uri. */
  const logout = (response: ServerResponse, query: URLSearchParams) => {
    logoutRequests.push(query);
    const back = query.get('logout_uri');
    if (query.get('client_id') !== options.clientId || !back)
      return sendHtml(response, 400, '<p>client_id and logout_uri are required.</p>');
    redirect(response, back);
  };

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const here = new URL(request.url ?? '/', url);
    const route = `${request.method} ${here.pathname}`;
    if (request.method === 'OPTIONS') {
      response.writeHead(204, CORS);
      return response.end();
    }
    switch (route) {
      case 'GET /.well-known/openid-configuration':
        return sendJson(response, 200, {
          issuer: STAND_IN_ISSUER,
          authorization_endpoint: `${url}/authorize`,
          token_endpoint: `${url}/token`,
          jwks_uri: `${url}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          scopes_supported: ['openid', 'email', 'profile'],
        });
      case 'GET /jwks':
        return sendJson(response, 200, { keys: [jwk] });
      case 'GET /authorize':
        return authorize(response, here.searchParams);
      case 'POST /authorize':
        return approve(request, response);
      case 'POST /token':
        return token(request, response);
      case 'GET /logout':
        return logout(response, here.searchParams);
      default:
        return sendJson(response, 404, { error: 'not_found' });
    }
  };

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => sendJson(response, 500, { error: String(error) }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const standIn = {
    /** The authority the page is configured with (discovery at `${url}/.well-known/…`). */
    url,
    authorizeRequests,
    tokenRequests,
    logoutRequests,
    /** Every ID token /token gave, oldest first. */
    issued,
    /** A code as the sign-in page's button would give one, for a request that never went through a browser. */
    grantCode: (grant: Grant): string => {
      const code = randomBytes(24).toString('base64url');
      codes.set(code, grant);
      return code;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  return standIn;
};
export type OidcStandIn = Awaited<ReturnType<typeof startOidcStandIn>>;
