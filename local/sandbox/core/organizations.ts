/**
 * The sandbox's organisations and API keys. Keys are derived from the seed so the same
 * seed always prints the same keys (a test or a `.env` can keep them).
 */
import type { ProblemName } from '../../../shared/tcs/schemas.js';
import { hashHex } from './random.js';

export const PRIMARY_ORG = 'org_sandbox';
const OTHER_ORG = 'org_other';

/** The 403s that answer every call of an organisation whose account is not in good standing. */
type AccountDenial = Extract<
  ProblemName,
  | 'plan-without-api'
  | 'api-suspended'
  | 'subscription-inactive'
  | 'organization-archived'
  | 'terms-acceptance-required'
>;

export type Organization = {
  id: string;
  name: string;
  /** null when the account may use the API. */
  denial: AccountDenial | null;
  planTier: 'independiente' | 'estudio' | 'profesional' | 'enterprise' | null;
  balanceCredits: number;
};

const KEY_NAMES = [
  'classify',
  'read',
  'other_org_classify',
  'revoked',
  'plan_without_api',
  'api_suspended',
  'subscription_inactive',
  'organization_archived',
  'terms_acceptance_required',
] as const;
type KeyName = (typeof KEY_NAMES)[number];
export type SandboxKeys = Record<KeyName, string>;

export type ApiKey = {
  name: KeyName;
  /** Public id of the key (shown as the author of what it creates); never the secret. */
  keyId: string;
  secret: string;
  orgId: string;
  scope: 'classify' | 'read';
  revoked: boolean;
};

const DENIED: readonly { key: KeyName; denial: AccountDenial }[] = [
  { key: 'plan_without_api', denial: 'plan-without-api' },
  { key: 'api_suspended', denial: 'api-suspended' },
  { key: 'subscription_inactive', denial: 'subscription-inactive' },
  { key: 'organization_archived', denial: 'organization-archived' },
  { key: 'terms_acceptance_required', denial: 'terms-acceptance-required' },
];

export const ORGANIZATIONS: readonly Organization[] = [
  { id: PRIMARY_ORG, name: 'Sandbox Importadora', denial: null, planTier: 'profesional', balanceCredits: 0 },
  { id: OTHER_ORG, name: 'Outra Organização', denial: null, planTier: 'estudio', balanceCredits: 12 },
  ...DENIED.map(({ key, denial }) => ({
    id: `org_${key}`,
    name: `Sandbox ${denial}`,
    denial,
    // A plan without the API still is a plan; the others keep theirs while blocked.
    planTier: 'independiente' as const,
    balanceCredits: 0,
  })),
];

const keyOrg = (name: KeyName): string => {
  if (name === 'classify' || name === 'read' || name === 'revoked') return PRIMARY_ORG;
  if (name === 'other_org_classify') return OTHER_ORG;
  return `org_${name}`;
};

/** The nine keys of a seed, each bound to its organisation and scope. */
export const deriveApiKeys = (seed: string): ApiKey[] =>
  KEY_NAMES.map((name) => ({
    name,
    keyId: `key_${hashHex(12, seed, 'key-id', name)}`,
    secret: `tcs_sbx_${name}_${hashHex(32, seed, 'api-key', name)}`,
    orgId: keyOrg(name),
    scope: name === 'read' ? 'read' : 'classify',
    revoked: name === 'revoked',
  }));

export const keysByName = (keys: readonly ApiKey[]): SandboxKeys =>
  Object.fromEntries(keys.map((k) => [k.name, k.secret])) as SandboxKeys;
