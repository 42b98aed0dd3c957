/**
 * Sign-in on AWS: OAuth 2.0 authorization code with PKCE against the Cognito hosted UI, by hand.
 *
 *   1. signIn(): a verifier and a state go to sessionStorage; the browser goes to
 *      `${domain}/oauth2/authorize?…&code_challenge=S256(verifier)&state=…`.
 *   2. Cognito sends it back to redirectUri with `?code=…&state=…`; completeSignIn() checks the
 *      state, trades the code and the verifier at `${domain}/oauth2/token` for tokens, keeps
 *      them in sessionStorage (gone when the tab closes) and puts back the page the person was on.
 *   3. Every API call carries `Authorization: Bearer <id_token>`; a 401 starts again at 1.
 *
 * Locally (config.auth null) none of this runs.
 */
import type { CognitoConfig } from './config.js';
import { challengeOf, randomToken } from './pkce.js';

const KEYS = {
  tokens: 'ncm-console.tokens',
  verifier: 'ncm-console.pkce-verifier',
  state: 'ncm-console.oauth-state',
  returnTo: 'ncm-console.return-to',
  signedInAt: 'ncm-console.signed-in-at',
} as const;

/** A 401 this soon after signing in is not an expired token: signing in again would loop. */
const FRESH_MS = 60_000;

type Tokens = { id_token: string; expires_at: number };

const readTokens = (): Tokens | null => {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEYS.tokens) ?? 'null') as Tokens | null;
    return value && typeof value.id_token === 'string' && typeof value.expires_at === 'number' ? value : null;
  } catch {
    return null;
  }
};

/** The ID token while it has a minute left, else null. */
export const idToken = (): string | null => {
  const tokens = readTokens();
  return tokens && tokens.expires_at - 60_000 > Date.now() ? tokens.id_token : null;
};

/** Leaves for the hosted UI; the promise never settles (the page unloads). */
export const signIn = async (auth: CognitoConfig): Promise<never> => {
  const verifier = randomToken();
  const state = randomToken();
  sessionStorage.setItem(KEYS.verifier, verifier);
  sessionStorage.setItem(KEYS.state, state);
  sessionStorage.setItem(KEYS.returnTo, window.location.hash);
  sessionStorage.removeItem(KEYS.tokens);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: auth.clientId,
    redirect_uri: auth.redirectUri,
    scope: 'openid email profile',
    code_challenge_method: 'S256',
    code_challenge: await challengeOf(verifier),
    state,
  });
  // URLSearchParams writes spaces as `+`: scope=openid+email+profile.
  window.location.assign(`${auth.domain}/oauth2/authorize?${query.toString()}`);
  return new Promise<never>(() => {});
};

const exchangeCode = async (auth: CognitoConfig, code: string, verifier: string): Promise<Tokens> => {
  const response = await fetch(`${auth.domain}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: auth.clientId,
      code,
      redirect_uri: auth.redirectUri,
      code_verifier: verifier,
    }),
  });
  if (!response.ok) throw new Error(`sign-in: the token endpoint answered HTTP ${response.status}`);
  const body = (await response.json()) as { id_token?: unknown; expires_in?: unknown };
  if (typeof body.id_token !== 'string') throw new Error('sign-in: the token endpoint gave no id_token');
  const seconds = typeof body.expires_in === 'number' ? body.expires_in : 3600;
  return { id_token: body.id_token, expires_at: Date.now() + seconds * 1000 };
};

/**
 * At start: finishes a sign-in when the URL carries Cognito's answer, then makes sure there is a
 * token (else leaves for the hosted UI). Resolves once the page may call the API.
 */
export const ensureSignedIn = async (auth: CognitoConfig): Promise<void> => {
  const url = new URL(window.location.href);
  const code = url.searchParams.get('code');
  const state = url.searchParams.get('state');
  const error = url.searchParams.get('error');
  if (code !== null || error !== null) {
    const expected = sessionStorage.getItem(KEYS.state);
    const verifier = sessionStorage.getItem(KEYS.verifier);
    const returnTo = sessionStorage.getItem(KEYS.returnTo) ?? '';
    sessionStorage.removeItem(KEYS.state);
    sessionStorage.removeItem(KEYS.verifier);
    sessionStorage.removeItem(KEYS.returnTo);
    window.history.replaceState(null, '', `${url.origin}${url.pathname}${returnTo}`);
    if (error !== null) throw new Error(`sign-in: ${url.searchParams.get('error_description') ?? error}`);
    if (code !== null && state !== null && state === expected && verifier !== null) {
      sessionStorage.setItem(KEYS.tokens, JSON.stringify(await exchangeCode(auth, code, verifier)));
      sessionStorage.setItem(KEYS.signedInAt, String(Date.now()));
    }
  }
  if (idToken() === null) await signIn(auth);
};

/** After a 401: signs in again, unless the sign-in was just now (then the caller reports the 401). */
export const signInAgain = async (auth: CognitoConfig): Promise<false> => {
  const at = Number(sessionStorage.getItem(KEYS.signedInAt) ?? 0);
  if (Date.now() - at < FRESH_MS) return false;
  return signIn(auth);
};

/** Forgets the tokens and signs out of the hosted UI, which comes back to redirectUri. */
export const signOut = (auth: CognitoConfig): void => {
  sessionStorage.removeItem(KEYS.tokens);
  const query = new URLSearchParams({ client_id: auth.clientId, logout_uri: auth.redirectUri });
  window.location.assign(`${auth.domain}/logout?${query.toString()}`);
};
