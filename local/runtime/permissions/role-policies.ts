/**
 * What each function may do, read from the synthesized templates as IAM will read them once
 * deployed: the identity policies attached to the function's role (the role's inline policies,
 * every AWS::IAM::Policy and AWS::IAM::ManagedPolicy naming it), and the resource policies of
 * the buckets and queues. Intrinsics are resolved to the local ARNs the stand-ins answer to, so
 * a request's resource compares with a statement's exactly as it would on AWS.
 */
import type { FunctionSpec } from '../resources.js';
import { LOCAL_ACCOUNT, type StackTemplate, type TemplateResolver } from '../template.js';

export type PolicyStatement = {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};
export type PolicyDocument = { Version?: string; Statement: PolicyStatement[] };

/** One policy of a role, named by its logical id (and the inline policy's name, if any). */
type NamedPolicy = { name: string; document: PolicyDocument };

export type FunctionRole = {
  functionName: string;
  /** `<stack>-<logical id>` of the AWS::IAM::Role, as the runtime names roles. */
  roleName: string;
  /** The caller as IAM sees a Lambda function: the role assumed by a session named after it. */
  principalArn: string;
  policies: NamedPolicy[];
  /** AWS managed policies the role lists: their documents are not in the template. */
  managedPolicyArns: string[];
};

export type ResourcePolicies = { byResourceArn: ReadonlyMap<string, PolicyDocument> };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{ "Fn::GetAtt": ["XRole", "Arn"] }` or `{ "Ref": "XRole" }` → `XRole`. */
const logicalIdIn = (value: unknown): string | null => {
  if (!isObject(value)) return null;
  if (typeof value.Ref === 'string') return value.Ref;
  const getAtt = value['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  return null;
};

const asList = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === undefined ? [] : [value];

const resolveDocument = (
  resolver: TemplateResolver,
  document: unknown,
  stack: StackTemplate,
): PolicyDocument => {
  const resolved = resolver.resolve(document, stack) as PolicyDocument;
  if (!Array.isArray(resolved.Statement)) {
    return { ...resolved, Statement: asList(resolved.Statement) as PolicyStatement[] };
  }
  return resolved;
};

/** Every function's role and the identity policies attached to it. */
export const readFunctionRoles = (
  resolver: TemplateResolver,
  functions: readonly FunctionSpec[],
): Map<string, FunctionRole> => {
  const roles = new Map<string, FunctionRole>();
  const functionResources = resolver.resourcesOfType('AWS::Lambda::Function');
  for (const fn of functions) {
    const found = functionResources.find(({ logicalId }) => logicalId === fn.logicalId);
    if (!found) throw new Error(`No AWS::Lambda::Function ${fn.logicalId} in the templates`);
    const roleId = logicalIdIn(found.resource.Properties?.Role);
    if (!roleId) throw new Error(`${fn.name}: its Role is not a role of the templates`);
    const { stack } = found;
    const role = stack.template.Resources?.[roleId];
    if (role?.Type !== 'AWS::IAM::Role') throw new Error(`${fn.name}: ${roleId} is not an AWS::IAM::Role`);
    const roleName = resolver.localName(stack, roleId);
    const inline = asList(role.Properties?.Policies).map((entry) => {
      const { PolicyName, PolicyDocument } = entry as { PolicyName: unknown; PolicyDocument: unknown };
      return {
        name: `${roleId}/${resolver.resolveString(PolicyName, stack)}`,
        document: resolveDocument(resolver, PolicyDocument, stack),
      };
    });
    const attached = ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'].flatMap((type) =>
      resolver
        .resourcesOfType(type)
        .filter(
          (policy) =>
            policy.stack === stack &&
            asList(policy.resource.Properties?.Roles).some((entry) => logicalIdIn(entry) === roleId),
        )
        .map((policy) => ({
          name: policy.logicalId,
          document: resolveDocument(resolver, policy.resource.Properties?.PolicyDocument, stack),
        })),
    );
    roles.set(fn.name, {
      functionName: fn.name,
      roleName,
      principalArn: `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${roleName}/${fn.name}`,
      policies: [...inline, ...attached],
      managedPolicyArns: asList(role.Properties?.ManagedPolicyArns).map((arn) =>
        resolver.resolveString(arn, stack),
      ),
    });
  }
  return roles;
};

/** The buckets' and queues' resource policies, by the resource ARN each applies to. */
export const readResourcePolicies = (resolver: TemplateResolver): ResourcePolicies => {
  const byResourceArn = new Map<string, PolicyDocument>();
  for (const { stack, resource } of resolver.resourcesOfType('AWS::S3::BucketPolicy')) {
    const bucket = resolver.resolveString(resource.Properties?.Bucket, stack);
    byResourceArn.set(
      `arn:aws:s3:::${bucket}`,
      resolveDocument(resolver, resource.Properties?.PolicyDocument, stack),
    );
  }
  for (const { stack, resource } of resolver.resourcesOfType('AWS::SQS::QueuePolicy')) {
    const document = resolveDocument(resolver, resource.Properties?.PolicyDocument, stack);
    for (const queue of asList(resource.Properties?.Queues)) {
      const queueId = logicalIdIn(queue);
      if (queueId) byResourceArn.set(resolver.getAtt(stack, queueId, 'Arn'), document);
    }
  }
  return { byResourceArn };
};
