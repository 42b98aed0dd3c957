/**
 * IAM, played locally: every request a function's process makes to a stand-in is weighed
 * against that function's role as the synthesized template grants it, and refused with AWS's
 * AccessDenied when IAM would refuse it. A missing grant fails here, in a test or a local run,
 * not in the first deployed batch; a grant no run uses shows up in the usage report.
 *
 *   function process ──(its session token)──▶ gate ──allowed──▶ dynalite · s3rver · local/aws
 *                                              └──denied──▶ AccessDenied in the service's shape
 */
import { randomBytes } from 'node:crypto';
import type { FunctionSpec } from '../resources.js';
import type { RunningServer } from '../stand-ins.js';
import type { TemplateResolver } from '../template.js';
import { createGrantUsage, type GrantUsage } from './grant-usage.js';
import type { ObjectWritten } from './object-writes.js';
import { startPermissionGate } from './permission-gate.js';
import { createPolicyCheck } from './policy-check.js';
import { createRequestCounts, type RequestCounts } from './request-counts.js';
import { dynamodbRequestActions, localAwsActions, s3Actions } from './requested-actions.js';
import { type FunctionRole, readFunctionRoles, readResourcePolicies } from './role-policies.js';

/** The folder each run writes the grants it used to, when set (the test suite sets it). */
export const GRANT_USAGE_DIR_VARIABLE = 'NCM_GRANT_USAGE_DIR';

export type PermissionGates = {
  /** Where a function's process sends its calls: the gates, not the stand-ins. */
  endpoints: { dynamodb: string; s3: string; aws: string };
  /** The session token a function's process signs with: it names the function to the gates. */
  sessionTokenOf(functionName: string): string;
  usage: GrantUsage;
  /** The requests each function made through the gates, by API operation (request-counts.ts). */
  requests: RequestCounts;
  roles: ReadonlyMap<string, FunctionRole>;
  close(): Promise<void>;
};

export type PermissionGatesInput = {
  resolver: TemplateResolver;
  functions: readonly FunctionSpec[];
  upstreams: { dynamodb: string; s3: string; aws: string };
  stateMachineOfTaskToken(token: string): string | null;
  /** Told of each object write the S3 gate saw succeed, with who made it. */
  onObjectWritten?: (written: ObjectWritten) => void;
  log: (line: string) => void;
};

export const startPermissionGates = async (input: PermissionGatesInput): Promise<PermissionGates> => {
  const roles = readFunctionRoles(input.resolver, input.functions);
  const check = createPolicyCheck(readResourcePolicies(input.resolver));
  const usage = createGrantUsage(roles.values());
  // A token per function per run: a process left from another run is not taken for this one's.
  const run = randomBytes(6).toString('hex');
  const tokens = new Map([...roles.keys()].map((name) => [`ncm-local.${run}.${name}`, name]));
  const roleOfSession = (token: string) => {
    const name = tokens.get(token);
    return name === undefined ? null : (roles.get(name) ?? null);
  };
  const requests = createRequestCounts();
  const common = { roleOfSession, check, usage, counts: requests, log: input.log };
  const started: RunningServer[] = [];
  try {
    const gate = async (server: Promise<RunningServer>) => {
      const running = await server;
      started.push(running);
      return running.endpoint;
    };
    const endpoints = {
      dynamodb: await gate(
        startPermissionGate({
          ...common,
          protocol: 'dynamodb',
          upstream: input.upstreams.dynamodb,
          actionsOf: dynamodbRequestActions,
        }),
      ),
      s3: await gate(
        startPermissionGate({
          ...common,
          protocol: 's3',
          upstream: input.upstreams.s3,
          actionsOf: s3Actions,
          ...(input.onObjectWritten ? { onObjectWritten: input.onObjectWritten } : {}),
        }),
      ),
      aws: await gate(
        startPermissionGate({
          ...common,
          protocol: 'local-aws',
          upstream: input.upstreams.aws,
          actionsOf: (request) => localAwsActions(request, input),
        }),
      ),
    };
    return {
      endpoints,
      sessionTokenOf: (functionName) => `ncm-local.${run}.${functionName}`,
      usage,
      requests,
      roles,
      close: async () => {
        await Promise.all(started.map((server) => server.close()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((server) => server.close()));
    throw error;
  }
};
