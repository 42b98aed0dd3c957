/**
 * The page's config.json, fetched beside index.html at start: where the API is and how to sign
 * in. Locally (loopback) `auth` is null and nobody signs in; on AWS it names the Cognito user
 * pool's issuer, its app client and its hosted UI.
 */
import * as z from 'zod';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

export const CognitoConfig = z.object({
  /**
   * The user pool's issuer, `https://cognito-idp.<region>.amazonaws.com/<userPoolId>`: its
   * OpenID discovery document (`/.well-known/openid-configuration`) names the hosted UI's
   * authorize and token endpoints.
   */
  authority: z.url().transform(withoutTrailingSlash),
  clientId: z.string().min(1),
  /** The hosted UI's base URL, `https://<prefix>.auth.<region>.amazoncognito.com`: sign-out goes to its /logout. */
  domain: z.url().transform(withoutTrailingSlash),
  /** Where Cognito sends the browser back after sign-in and sign-out: this page's URL. */
  redirectUri: z.url(),
});
export type CognitoConfig = z.infer<typeof CognitoConfig>;

export const ConsoleConfig = z.object({
  /** The API's base URL, no trailing slash needed: `${apiUrl}/batches`. */
  apiUrl: z.string().min(1).transform(withoutTrailingSlash),
  auth: CognitoConfig.nullable(),
});
export type ConsoleConfig = z.infer<typeof ConsoleConfig>;
