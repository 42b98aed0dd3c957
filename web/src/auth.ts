/**
 * Sign-in on AWS: OpenID Connect's authorization code flow with PKCE against the Cognito user
 * pool, through oidc-client-ts (the state, the nonce, the S256 challenge, the code exchange and
 * the tokens' expiry are its work, not this page's).
 *
 *   1. At start, a callback in the URL (`?code=…&state=…`, or `?error=…`) is finished: the state
 *      must be one this tab stored, the code is traded with its verifier at the token endpoint,
 *      the ID token must carry the nonce sent. Then, with no live ID token, the browser leaves
 *      for the hosted UI, and comes back to the hash it was on.
 *   2. Every API call carries `Authorization: Bearer <id_token>`; a 401 signs in again.
 *   3. Sign-out forgets the tokens and leaves through the hosted UI's /logout.
 *
 * Tokens and pending sign-ins live in sessionStorage: gone when the tab closes. Locally
 * (config.auth null) none of this runs.
 */
import { UserManager, WebStorageStateStore } from 'oidc-client-ts';
import type { CognitoConfig } from './config.js';

const SIGNED_IN_AT = 'ncm-console.signed-in-at';

/** A 401 this soon after signing in is not an expired token: signing in again would loop. */
const FRESH_MS = 60_000;

/** An ID token with less left than this is not sent: the call could outlive it. */
const MIN_SECONDS_LEFT = 60;

const managerFor = (auth: CognitoConfig): UserManager => {
  const store = new WebStorageStateStore({ store: window.sessionStorage });
  return new UserManager({
    authority: auth.authority,
    client_id: auth.clientId,
    redirect_uri: auth.redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    userStore: store,
    stateStore: store,
    // Cognito's discovery document names no end_session_endpoint: its hosted UI's /logout is
    // Cognito's own (client_id and logout_uri, see signOut).
    metadataSeed: { end_session_endpoint: `${auth.domain}/logout` },
    // Cognito has no prompt=none to renew in a hidden frame, and the page's CSP allows no frame:
    // when the ID token runs out, the page signs in again.
    automaticSilentRenew: false,
    monitorSession: false,
    loadUserInfo: false,
  });
};

/** A one-off value the ID token must carry back (OpenID Connect's nonce): replay protection. */
const newNonce = (): string => crypto.randomUUID();

/** The sign-in of one page load (on AWS only: locally main.tsx makes none). */
export const createSignIn = (auth: CognitoConfig) => {
  const manager = managerFor(auth);

  /** Leaves for the hosted UI; the promise never settles (the page unloads). */
  const leaveToSignIn = async (): Promise<never> => {
    await manager.signinRedirect({ nonce: newNonce(), state: window.location.hash });
    return new Promise<never>(() => {});
  };

  /** The ID token while it has a minute left, else null. */
  const idToken = async (): Promise<string | null> => {
    const user = await manager.getUser();
    const left = user?.expires_in ?? 0;
    return user?.id_token && left > MIN_SECONDS_LEFT ? user.id_token : null;
  };

  const finishSignIn = async (url: URL): Promise<void> => {
    // The code and the state leave the address bar whatever happens: a reload must not replay them.
    const page = `${url.origin}${url.pathname}`;
    try {
      const user = await manager.signinRedirectCallback(url.href);
      sessionStorage.setItem(SIGNED_IN_AT, String(Date.now()));
      window.history.replaceState(null, '', `${page}${typeof user.state === 'string' ? user.state : ''}`);
    } catch (error) {
      window.history.replaceState(null, '', page);
      throw new Error(`sign-in: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  return {
    idToken,
    leaveToSignIn,

    /**
     * At start: finishes a sign-in when the URL carries the hosted UI's answer (a state this tab
     * did not send is refused: it throws), then makes sure there is an ID token (else leaves for
     * the hosted UI). Resolves once the page may call the API.
     */
    ensureSignedIn: async (): Promise<void> => {
      const url = new URL(window.location.href);
      const answered = url.searchParams.has('code') || url.searchParams.has('error');
      if (answered && url.searchParams.has('state')) await finishSignIn(url);
      if ((await idToken()) === null) await leaveToSignIn();
    },

    /** After a 401: signs in again, unless the sign-in was just now (then the caller reports the 401). */
    signInAgain: async (): Promise<false> => {
      const at = Number(sessionStorage.getItem(SIGNED_IN_AT) ?? 0);
      if (Date.now() - at < FRESH_MS) return false;
      await manager.removeUser();
      return leaveToSignIn();
    },

    /**
     * Forgets the tokens, then leaves through the hosted UI's /logout, which comes back to
     * redirectUri. The user is removed first so oidc-client-ts adds no id_token_hint: Cognito's
     * /logout takes client_id and logout_uri, and the ID token stays out of URLs and their logs.
     */
    signOut: async (): Promise<void> => {
      await manager.removeUser();
      sessionStorage.removeItem(SIGNED_IN_AT);
      try {
        await manager.signoutRedirect({
          extraQueryParams: { client_id: auth.clientId, logout_uri: auth.redirectUri },
        });
      } catch {
        // The discovery document did not answer: the tokens are gone all the same, and the
        // page, reloaded, starts a new sign-in.
        window.location.assign(auth.redirectUri);
      }
    },
  };
};
export type SignIn = ReturnType<typeof createSignIn>;
