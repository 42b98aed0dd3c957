/**
 * Which grants the runs used. Every Allow statement of every function's role, action pattern by
 * action pattern, is a grant; a request the policy check allowed marks the grants that allowed
 * it. A run writes what it saw to a folder (`NCM_GRANT_USAGE_DIR`); the report merges the
 * folder's files, so a grant counts as used when any run of the suite used it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import type { GrantUse } from './policy-check.js';
import type { FunctionRole } from './role-policies.js';

/** Where the test suite records the grants its runs used (git-ignored). */
export const GRANT_USAGE_DIR = '.grant-usage';

export const Grant = z.object({
  role: z.string(),
  function: z.string(),
  policy: z.string(),
  statement: z.number().int().nonnegative(),
  sid: z.string().nullable(),
  actionPattern: z.string(),
  resources: z.array(z.string()),
});
export type Grant = z.infer<typeof Grant>;

const UsageFile = z.object({
  grants: z.array(Grant),
  /** `grantKey`s of the grants some request used. */
  used: z.array(z.string()),
});
type UsageFile = z.infer<typeof UsageFile>;

export const grantKey = (grant: Pick<Grant, 'role' | 'policy' | 'statement' | 'actionPattern'>): string =>
  `${grant.role} ${grant.policy}#${grant.statement} ${grant.actionPattern}`;

const asList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Every grant the roles hold: each action pattern of each Allow statement. */
const grantsOf = (roles: Iterable<FunctionRole>): Grant[] =>
  [...roles].flatMap((role) =>
    role.policies.flatMap((policy) =>
      policy.document.Statement.flatMap((statement, index) =>
        statement.Effect !== 'Allow'
          ? []
          : asList(statement.Action).map((actionPattern) => ({
              role: role.roleName,
              function: role.functionName,
              policy: policy.name,
              statement: index,
              sid: statement.Sid ?? null,
              actionPattern,
              resources: asList(statement.Resource),
            })),
      ),
    ),
  );

export type GrantUsage = {
  record(grants: readonly GrantUse[]): void;
  snapshot(): UsageFile;
  /** Writes the snapshot as a new file in `dir`. */
  writeTo(dir: string): string;
};

export const createGrantUsage = (roles: Iterable<FunctionRole>): GrantUsage => {
  const grants = grantsOf(roles);
  const used = new Set<string>();
  const snapshot = (): UsageFile => ({ grants, used: [...used].sort() });
  return {
    record: (uses) => {
      for (const use of uses) used.add(grantKey(use));
    },
    snapshot,
    writeTo: (dir) => {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `usage-${process.pid}-${randomBytes(4).toString('hex')}.json`);
      writeFileSync(file, JSON.stringify(snapshot()));
      return file;
    },
  };
};

/** Every usage file in `dir`, merged: the grants (as the newest template has them) and what was used. */
export const readUsageFolder = (dir: string): { runs: number; grants: Grant[]; used: Set<string> } => {
  const files = readdirSync(dir).filter((name) => name.startsWith('usage-') && name.endsWith('.json'));
  const grants = new Map<string, Grant>();
  const used = new Set<string>();
  for (const name of files) {
    const file = UsageFile.parse(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    for (const grant of file.grants) grants.set(grantKey(grant), grant);
    for (const key of file.used) used.add(key);
  }
  return { runs: files.length, grants: [...grants.values()], used };
};

/** The grants no run used. */
export const unusedGrants = (grants: readonly Grant[], used: ReadonlySet<string>): Grant[] =>
  grants.filter((grant) => !used.has(grantKey(grant)));
