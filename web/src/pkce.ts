/**
 * PKCE (RFC 7636) for the sign-in: a random verifier and its S256 challenge,
 * BASE64URL(SHA-256(verifier)). Web Crypto only, so the unit tests run it under Node.
 */

export const base64url = (bytes: Uint8Array): string => {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

/** 32 random bytes as base64url: 43 characters of the unreserved set, as RFC 7636 asks. */
export const randomToken = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

export const challengeOf = async (verifier: string): Promise<string> => {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
};
