/**
 * One synthesis per test process, shared by every test in it, and the readers the infra
 * tests use on the templates: who may do what, with resources named as people say them.
 *
 * Bundling is skipped (`aws:cdk:bundling-stacks: []`): template assertions need no bundle, and
 * the one test that needs bundles (workflows.test.ts) synthesizes with them on purpose.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { type BuiltApp, buildApp } from '../../infra/app.js';
import { HANDLER_METADATA_KEY, HANDLER_NAMES, type HandlerName } from '../../shared/contract.js';

/** Every optional path on: a real-looking base URL, a cap override, an alarm email. */
export const TEST_CONTEXT = {
  tcsBaseUrl: 'https://api.example.com/v1',
  capOverride: 4,
  alarmEmail: 'ops@example.com',
  retentionDays: 30,
  outboxRetentionDays: 400,
  batchTimeoutHours: 48,
  leaseScope: 'acme',
  noticeEmails: ['compras@example.com', 'fiscal@example.com'],
  questionReminderDay: 20,
  'aws:cdk:bundling-stacks': [],
} as const;

export type Synthesized = {
  built: BuiltApp;
  stateful: Template;
  pipeline: Template;
  console: Template;
  statefulJson: CfnTemplate;
  pipelineJson: CfnTemplate;
  consoleJson: CfnTemplate;
};

export type CfnResource = {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
};
export type CfnTemplate = {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: string } }>;
};

let shared: Synthesized | undefined;

/** The app with {@link TEST_CONTEXT} and cdk-nag on (an unacknowledged finding fails synthesis). */
export const synthesize = (): Synthesized => {
  if (!shared) {
    const built = buildApp({ context: { ...TEST_CONTEXT }, nag: true });
    const stateful = Template.fromStack(built.stateful);
    const pipeline = Template.fromStack(built.pipeline);
    const consoleTemplate = Template.fromStack(built.console);
    shared = {
      built,
      stateful,
      pipeline,
      console: consoleTemplate,
      statefulJson: stateful.toJSON() as CfnTemplate,
      pipelineJson: pipeline.toJSON() as CfnTemplate,
      consoleJson: consoleTemplate.toJSON() as CfnTemplate,
    };
  }
  return shared;
};

export const resourcesOfType = (template: CfnTemplate, type: string): [string, CfnResource][] =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The logical id of each handler's AWS::Lambda::Function, from its template metadata. */
export const functionLogicalIds = (template: CfnTemplate): Record<HandlerName, string> => {
  const ids: Partial<Record<HandlerName, string>> = {};
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
    const name = resource.Metadata?.[HANDLER_METADATA_KEY] as HandlerName | undefined;
    if (name) ids[name] = logicalId;
  }
  for (const name of HANDLER_NAMES) if (!ids[name]) throw new Error(`no function for ${name}`);
  return ids as Record<HandlerName, string>;
};

/**
 * Renders a policy resource as text: `<LogicalId>` for Ref, `<LogicalId.Attr>` for GetAtt,
 * `{AWS::Region}` for pseudo parameters; an import from the stateful stack becomes the
 * exporting resource's reference, so both stacks speak of the same `<BatchTable….Arn>`.
 */
export const renderReference = (value: unknown, exports: Map<string, string>): string => {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if (typeof node.Ref === 'string') return node.Ref.startsWith('AWS::') ? `{${node.Ref}}` : `<${node.Ref}>`;
  if (Array.isArray(node['Fn::GetAtt'])) return `<${(node['Fn::GetAtt'] as string[]).join('.')}>`;
  if (typeof node['Fn::Sub'] === 'string') return node['Fn::Sub'].replace(/\$\{(AWS::\w+)\}/g, '{$1}');
  if (Array.isArray(node['Fn::Join'])) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => renderReference(part, exports)).join(separator);
  }
  if (typeof node['Fn::ImportValue'] === 'string') {
    const exported = exports.get(node['Fn::ImportValue']);
    if (!exported) throw new Error(`unknown import ${node['Fn::ImportValue']}`);
    return exported;
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
};

/** Export name → the reference it exports, read from the exporting template's Outputs. */
export const exportsOf = (template: CfnTemplate): Map<string, string> => {
  const exports = new Map<string, string>();
  for (const output of Object.values(template.Outputs ?? {})) {
    if (output.Export) exports.set(output.Export.Name, renderReference(output.Value, new Map()));
  }
  return exports;
};

/** resource (as rendered) → the actions allowed on it. */
export type Reach = Record<string, string[]>;

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

/** Everything the role `roleLogicalId` is allowed, from every policy attached to it. */
export const reachOfRole = (
  template: CfnTemplate,
  roleLogicalId: string,
  exports: Map<string, string>,
): Reach => {
  const reach: Reach = {};
  for (const [, policy] of resourcesOfType(template, 'AWS::IAM::Policy')) {
    const roles = asArray(policy.Properties?.Roles as unknown[]).map((role) =>
      renderReference(role, exports),
    );
    if (!roles.includes(`<${roleLogicalId}>`)) continue;
    const document = policy.Properties?.PolicyDocument as { Statement: Statement[] };
    for (const statement of document.Statement) {
      if (statement.Effect !== 'Allow') throw new Error('only Allow statements are expected');
      for (const resource of asArray(statement.Resource)) {
        const key = renderReference(resource, exports);
        reach[key] = [...new Set([...(reach[key] ?? []), ...asArray(statement.Action)])].sort();
      }
    }
  }
  return reach;
};

export const roleOfFunction = (template: CfnTemplate, functionLogicalId: string): string => {
  const role = template.Resources[functionLogicalId]?.Properties?.Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
};
