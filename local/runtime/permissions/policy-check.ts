/**
 * Decides a request as IAM would, with a real policy evaluator (@cloud-copilot/iam-simulate):
 * the function's identity policies, the bucket's or queue's resource policy, an explicit Deny
 * wins, nothing allowed is denied. Each allowed request names the statements and action
 * patterns that allowed it, so a run can tell which grants it used (grant-usage.ts).
 *
 * Requests come over TLS on AWS (`aws:SecureTransport` true): the buckets' and queues' deny of
 * plain HTTP does not apply to them, here either.
 */
import { runSimulation, runUnsafeSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { LOCAL_ACCOUNT } from '../template.js';
import type { RequestedAction } from './requested-actions.js';
import type { FunctionRole, PolicyDocument, PolicyStatement, ResourcePolicies } from './role-policies.js';

/** A statement of a role's policy, and the action pattern of it that matched. */
export type GrantUse = { role: string; policy: string; statement: number; actionPattern: string };

type Decision =
  | { allowed: true; grants: GrantUse[] }
  | { allowed: false; message: string; explicitDeny: boolean };

const DECISIONS_KEPT = 20_000;

const asList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** IAM's action wildcards: `*` any run of characters, `?` one; case-insensitive. */
export const actionMatches = (pattern: string, action: string): boolean => {
  const expression = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${expression}$`, 'i').test(action);
};

/** The statement a simulation names (its Sid, else its 1-based position) → its index. */
const statementIndex = (document: PolicyDocument, identifier: string): number => {
  const bySid = document.Statement.findIndex((statement) => statement.Sid === identifier);
  if (bySid >= 0) return bySid;
  return Number(identifier) - 1;
};

const resourcePolicyFor = (policies: ResourcePolicies, resource: string): PolicyDocument | undefined => {
  if (resource.startsWith('arn:aws:s3:::')) return policies.byResourceArn.get(resource.split('/')[0] ?? '');
  return policies.byResourceArn.get(resource);
};

const denialMessage = (role: FunctionRole, requested: RequestedAction, explicitDeny: boolean): string =>
  `User: ${role.principalArn} is not authorized to perform: ${requested.action} on resource: ` +
  `${requested.resource} ${explicitDeny ? 'with an explicit deny' : `because no identity-based policy allows the ${requested.action} action`}`;

export type PolicyCheck = {
  decide(role: FunctionRole, requested: RequestedAction): Promise<Decision>;
};

export const createPolicyCheck = (resourcePolicies: ResourcePolicies): PolicyCheck => {
  const decided = new Map<string, Decision>();

  const simulationOf = (
    role: FunctionRole,
    requested: RequestedAction,
    policies = role.policies,
  ): Simulation => {
    const resourcePolicy = resourcePolicyFor(resourcePolicies, requested.resource);
    return {
      identityPolicies: policies.map((policy) => ({ name: policy.name, policy: policy.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
      request: {
        action: requested.action,
        principal: role.principalArn,
        resource: { accountId: LOCAL_ACCOUNT, resource: requested.resource },
        contextVariables: { 'aws:SecureTransport': 'true', ...requested.context },
      },
    };
  };

  /**
   * An action the reference lists without resource types (SendTaskSuccess), asked for on the
   * resource the service really authorizes it against: the evaluator's checked entry refuses
   * that pairing, so each statement is weighed alone to learn which ones allow it.
   */
  const decideUnchecked = (role: FunctionRole, requested: RequestedAction): Decision => {
    const overall = runUnsafeSimulation(simulationOf(role, requested), {});
    if (overall !== 'Allowed') {
      const explicitDeny = overall === 'ExplicitlyDenied';
      return { allowed: false, explicitDeny, message: denialMessage(role, requested, explicitDeny) };
    }
    const grants: GrantUse[] = [];
    for (const policy of role.policies) {
      policy.document.Statement.forEach((statement: PolicyStatement, index) => {
        if (statement.Effect !== 'Allow') return;
        const alone = [{ name: policy.name, document: { ...policy.document, Statement: [statement] } }];
        if (runUnsafeSimulation(simulationOf(role, requested, alone), {}) !== 'Allowed') return;
        for (const actionPattern of asList(statement.Action).filter((pattern) =>
          actionMatches(pattern, requested.action),
        ))
          grants.push({ role: role.roleName, policy: policy.name, statement: index, actionPattern });
      });
    }
    return { allowed: true, grants };
  };

  const simulate = async (role: FunctionRole, requested: RequestedAction): Promise<Decision> => {
    const response = await runSimulation(simulationOf(role, requested), {});
    if (response.resultType === 'error') {
      if (response.errors.message === 'must.use.wildcard') return decideUnchecked(role, requested);
      throw new Error(
        `The policy evaluator could not weigh ${requested.action} on ${requested.resource}: ${JSON.stringify(response.errors)}`,
      );
    }
    if (response.overallResult !== 'Allowed') {
      const explicitDeny = response.overallResult === 'ExplicitlyDenied';
      return { allowed: false, explicitDeny, message: denialMessage(role, requested, explicitDeny) };
    }
    const results = response.resultType === 'single' ? [response.result] : response.results;
    const grants: GrantUse[] = [];
    for (const result of results) {
      for (const allow of result.analysis?.identityAnalysis?.allowStatements ?? []) {
        const policy = role.policies.find((candidate) => candidate.name === allow.policyId);
        if (!policy) continue;
        const statement = statementIndex(policy.document, allow.explain.identifier);
        const actions = allow.explain.actions ?? [];
        for (const action of Array.isArray(actions) ? actions : [actions]) {
          if (action.matches)
            grants.push({
              role: role.roleName,
              policy: policy.name,
              statement,
              actionPattern: action.action,
            });
        }
      }
    }
    return { allowed: true, grants };
  };

  return {
    decide: async (role, requested) => {
      const key = `${role.roleName}\n${requested.action}\n${requested.resource}\n${JSON.stringify(requested.context ?? {})}`;
      const known = decided.get(key);
      if (known) return known;
      const decision = await simulate(role, requested);
      if (decided.size >= DECISIONS_KEPT) decided.clear();
      decided.set(key, decision);
      return decision;
    },
  };
};
