/**
 * The console's own CDK context, read apart from the pipeline's (config.ts) because both the
 * stateful stack (the site's security headers) and the console stack (the hosted UI) need it:
 *
 *   consoleGeoAllowlist        countries the console's page is served to (CloudFront geo allowlist)
 *   consoleAuthDomainPrefix    the Cognito hosted UI's domain prefix
 *
 * The hosted UI's domain is a name chosen here, not one AWS generates: the page's Content
 * Security Policy (stateful stack) names it exactly, while the user pool that owns it is made
 * later, in the console stack.
 */
import { Aws, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import * as z from 'zod';
import { InvalidContextError } from './config.js';

/** Mercosur and the US (where an operator may travel or an AWS support engineer sits). */
export const DEFAULT_GEO_ALLOWLIST = ['BR', 'AR', 'UY', 'PY', 'US'] as const;

const countryList = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((code) => code.trim().toUpperCase())
          .filter((code) => code !== '')
      : value,
  z
    .array(z.string().regex(/^[A-Z]{2}$/, 'must be ISO 3166-1 alpha-2 country codes, e.g. BR,AR'))
    .min(1, 'must name at least one country'),
);

const ConsoleContext = z.object({
  /** `-c consoleGeoAllowlist=BR,AR` or an array in cdk.json. */
  consoleGeoAllowlist: z.preprocess(
    (value) => (value === undefined || value === '' ? [...DEFAULT_GEO_ALLOWLIST] : value),
    countryList,
  ),
  /**
   * Lowercase letters, digits and hyphens; Cognito reserves `aws`, `amazon` and `cognito`.
   * Default `ncm-console-<account id>`: unique per account in a region, as the prefix must be.
   */
  consoleAuthDomainPrefix: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be 1–63 lowercase letters, digits or hyphens')
      .refine((prefix) => !/aws|amazon|cognito/.test(prefix), 'must not contain aws, amazon or cognito')
      .optional(),
  ),
});

export type ConsoleConfig = {
  geoAllowlist: string[];
  /** A token (default) or the literal prefix. */
  authDomainPrefix: string;
};

/** Reads the console's context keys; throws InvalidContextError listing every problem. */
export const readConsoleConfig = (scope: IConstruct): ConsoleConfig => {
  const parsed = ConsoleContext.safeParse({
    consoleGeoAllowlist: scope.node.tryGetContext('consoleGeoAllowlist'),
    consoleAuthDomainPrefix: scope.node.tryGetContext('consoleAuthDomainPrefix'),
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new InvalidContextError(
      `Invalid CDK context (infra/README.md, "Console"); give it with -c key=value:\n${problems.join('\n')}`,
    );
  }
  return {
    geoAllowlist: parsed.data.consoleGeoAllowlist,
    authDomainPrefix: parsed.data.consoleAuthDomainPrefix ?? `ncm-console-${Aws.ACCOUNT_ID}`,
  };
};

/** The hosted UI's base URL, `https://<prefix>.auth.<region>.amazoncognito.com`, in `scope`'s stack. */
export const hostedUiBaseUrl = (scope: IConstruct, config: ConsoleConfig): string =>
  `https://${config.authDomainPrefix}.auth.${Stack.of(scope).region}.amazoncognito.com`;
