/**
 * The page's config.json, fetched beside index.html at start: where the API is and how to sign
 * in. Locally (loopback) `auth` is null and nobody signs in; on AWS it names the Cognito user
 * pool's app client and hosted UI.
 */
import { z } from 'zod';

export const CognitoConfig = z.object({
  region: z.string().min(1),
  userPoolId: z.string().min(1),
  clientId: z.string().min(1),
  /** The hosted UI's base URL, `https://<prefix>.auth.<region>.amazoncognito.com`, no trailing slash needed. */
  domain: z.url().transform((url) => url.replace(/\/+$/, '')),
  /** Where Cognito sends the browser back after sign-in and sign-out: this page's URL. */
  redirectUri: z.url(),
});
export type CognitoConfig = z.infer<typeof CognitoConfig>;

export const ConsoleConfig = z.object({
  /** The API's base URL, no trailing slash needed: `${apiUrl}/batches`. */
  apiUrl: z
    .string()
    .min(1)
    .transform((url) => url.replace(/\/+$/, '')),
  auth: CognitoConfig.nullable(),
});
export type ConsoleConfig = z.infer<typeof ConsoleConfig>;
