/**
 * What the local runtime builds, read from the synthesized templates: tables (key schemas,
 * indexes), queues (visibility, retention, redrive), buckets, the secret, the functions (bundle,
 * handler, environment, timeout, async retries), the state machines (definitions) and the rules.
 * A change to the template shows up locally because nothing here is written by hand.
 */

import { isAbsolute, join } from 'node:path';
import type { AslDefinition } from '../../infra/definitions.js';
import { HANDLER_METADATA_KEY } from '../../shared/contract.js';
import {
  type CfnResource,
  type StackResource,
  type TemplateResolver,
  UnsupportedTemplateError,
} from './template.js';

export type KeyElement = { AttributeName: string; KeyType: 'HASH' | 'RANGE' };
export type TableSpec = {
  name: string;
  attributeDefinitions: { AttributeName: string; AttributeType: 'S' | 'N' | 'B' }[];
  keySchema: KeyElement[];
  globalSecondaryIndexes: {
    IndexName: string;
    KeySchema: KeyElement[];
    Projection: Record<string, unknown>;
  }[];
  localSecondaryIndexes: {
    IndexName: string;
    KeySchema: KeyElement[];
    Projection: Record<string, unknown>;
  }[];
};

export type QueueSpec = {
  name: string;
  /** SQS attributes as CreateQueue takes them (strings). */
  attributes: Record<string, string>;
  /** The dead-letter queue's name, when the queue redrives to one. */
  deadLetterQueue: string | null;
};

export type FunctionSpec = {
  logicalId: string;
  /** The local function name: the handler name (`row-poll`). */
  name: string;
  arn: string;
  /** Absolute path of the bundle folder (asset metadata `aws:asset:path`). */
  codeDir: string;
  /** `index.handler`: module file `index` (.mjs/.js/.cjs) in `codeDir`, export `handler`. */
  handler: string;
  /** The environment exactly as the template gives it, intrinsics resolved. */
  environment: Record<string, string>;
  timeoutSeconds: number;
  memorySize: number;
  /** Retries of an asynchronous invocation (EventInvokeConfig; Lambda's default is 2). */
  asyncRetryAttempts: number;
};

export type StateMachineSpec = { logicalId: string; name: string; arn: string; definition: AslDefinition };

export type RuleTarget = {
  arn: string;
  /** Constant input (`Input`), parsed; null to deliver the event itself. */
  input: unknown | null;
  inputPath: string | null;
};
export type RuleSpec = {
  logicalId: string;
  eventBusName: string;
  eventPattern: Record<string, unknown> | null;
  scheduleExpression: string | null;
  targets: RuleTarget[];
};

export type LocalResources = {
  tables: TableSpec[];
  queues: QueueSpec[];
  buckets: string[];
  secrets: { logicalId: string; arn: string }[];
  /** The SNS topics' ARNs (the topic of notices); their subscriptions are AWS's to deliver, not read here. */
  topics: string[];
  functions: FunctionSpec[];
  stateMachines: StateMachineSpec[];
  rules: RuleSpec[];
};

const props = (resource: CfnResource): Record<string, unknown> => resource.Properties ?? {};

/** Lambda's defaults when the template leaves them out. */
const DEFAULT_TIMEOUT_SECONDS = 3;
const DEFAULT_MEMORY_MB = 128;
const DEFAULT_ASYNC_RETRIES = 2;

const readTables = (resolver: TemplateResolver): TableSpec[] =>
  resolver.resourcesOfType('AWS::DynamoDB::Table').map(({ stack, logicalId, resource }) => {
    const p = resolver.resolve(props(resource), stack) as Record<string, unknown>;
    return {
      name: resolver.localName(stack, logicalId),
      attributeDefinitions: (p.AttributeDefinitions ?? []) as TableSpec['attributeDefinitions'],
      keySchema: (p.KeySchema ?? []) as KeyElement[],
      globalSecondaryIndexes: (p.GlobalSecondaryIndexes ?? []) as TableSpec['globalSecondaryIndexes'],
      localSecondaryIndexes: (p.LocalSecondaryIndexes ?? []) as TableSpec['localSecondaryIndexes'],
    };
  });

/** CloudFormation queue properties → SQS attribute names (the ones a standard queue has). */
const QUEUE_ATTRIBUTES: Record<string, string> = {
  VisibilityTimeout: 'VisibilityTimeout',
  MessageRetentionPeriod: 'MessageRetentionPeriod',
  DelaySeconds: 'DelaySeconds',
  MaximumMessageSize: 'MaximumMessageSize',
  ReceiveMessageWaitTimeSeconds: 'ReceiveMessageWaitTimeSeconds',
};

const readQueues = (resolver: TemplateResolver): QueueSpec[] =>
  resolver.resourcesOfType('AWS::SQS::Queue').map(({ stack, logicalId, resource }) => {
    const p = props(resource);
    if (p.FifoQueue) throw new UnsupportedTemplateError(`${logicalId}: FIFO queues are not played locally`);
    const attributes: Record<string, string> = {};
    for (const [property, attribute] of Object.entries(QUEUE_ATTRIBUTES)) {
      if (p[property] !== undefined) attributes[attribute] = resolver.resolveString(p[property], stack);
    }
    let deadLetterQueue: string | null = null;
    if (p.RedrivePolicy !== undefined) {
      const redrive = resolver.resolve(p.RedrivePolicy, stack) as {
        deadLetterTargetArn: string;
        maxReceiveCount: number;
      };
      deadLetterQueue = redrive.deadLetterTargetArn.split(':').at(-1) ?? null;
      attributes.RedrivePolicy = JSON.stringify({
        deadLetterTargetArn: redrive.deadLetterTargetArn,
        maxReceiveCount: Number(redrive.maxReceiveCount),
      });
    }
    return { name: resolver.localName(stack, logicalId), attributes, deadLetterQueue };
  });

/** Dead-letter queues first: a queue's redrive names one that must exist. */
export const queuesInCreationOrder = (queues: readonly QueueSpec[]): QueueSpec[] => [
  ...queues.filter((queue) => queue.deadLetterQueue === null),
  ...queues.filter((queue) => queue.deadLetterQueue !== null),
];

const assetPathOf = (assemblyDir: string, { logicalId, resource }: StackResource): string => {
  const path = resource.Metadata?.['aws:asset:path'];
  if (typeof path !== 'string') {
    throw new UnsupportedTemplateError(
      `${logicalId} has no aws:asset:path metadata: synthesize with context aws:cdk:enable-asset-metadata`,
    );
  }
  return isAbsolute(path) ? path : join(assemblyDir, path);
};

const readFunctions = (resolver: TemplateResolver, assemblyDir: string): FunctionSpec[] => {
  const asyncRetries = new Map<string, number>();
  for (const { stack, resource } of resolver.resourcesOfType('AWS::Lambda::EventInvokeConfig')) {
    const p = props(resource);
    const name = resolver.resolveString(p.FunctionName, stack);
    if (p.MaximumRetryAttempts !== undefined) asyncRetries.set(name, Number(p.MaximumRetryAttempts));
  }
  // Only the app's own handlers (named by their metadata): CDK's custom-resource functions (the
  // console's BucketDeployment) deploy things, and nothing is deployed locally.
  const handlers = resolver
    .resourcesOfType('AWS::Lambda::Function')
    .filter(({ resource }) => typeof resource.Metadata?.[HANDLER_METADATA_KEY] === 'string');
  return handlers.map((found) => {
    const { stack, logicalId, resource } = found;
    const p = props(resource);
    const variables = (p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const environment: Record<string, string> = {};
    for (const [key, value] of Object.entries(variables)) {
      const resolved = resolver.resolve(value, stack);
      if (resolved !== undefined) environment[key] = String(resolved);
    }
    const name = resolver.localName(stack, logicalId);
    return {
      logicalId,
      name,
      arn: resolver.getAtt(stack, logicalId, 'Arn'),
      codeDir: assetPathOf(assemblyDir, found),
      handler: typeof p.Handler === 'string' ? p.Handler : 'index.handler',
      environment,
      timeoutSeconds: Number(p.Timeout ?? DEFAULT_TIMEOUT_SECONDS),
      memorySize: Number(p.MemorySize ?? DEFAULT_MEMORY_MB),
      asyncRetryAttempts: asyncRetries.get(name) ?? DEFAULT_ASYNC_RETRIES,
    };
  });
};

const readStateMachines = (resolver: TemplateResolver): StateMachineSpec[] =>
  resolver.resourcesOfType('AWS::StepFunctions::StateMachine').map(({ stack, logicalId, resource }) => {
    const p = props(resource);
    const definition =
      p.Definition !== undefined
        ? (resolver.resolve(p.Definition, stack) as AslDefinition)
        : (JSON.parse(resolver.resolveString(p.DefinitionString, stack)) as AslDefinition);
    return {
      logicalId,
      name: resolver.localName(stack, logicalId),
      arn: String(resolver.ref(logicalId, stack)),
      definition,
    };
  });

const readRules = (resolver: TemplateResolver): RuleSpec[] =>
  resolver.resourcesOfType('AWS::Events::Rule').flatMap(({ stack, logicalId, resource }) => {
    const p = props(resource);
    if (p.State !== undefined && p.State !== 'ENABLED') return [];
    const targets = ((p.Targets ?? []) as Record<string, unknown>[]).map((target) => {
      if (target.InputTransformer !== undefined) {
        throw new UnsupportedTemplateError(`${logicalId}: InputTransformer is not played locally`);
      }
      return {
        arn: resolver.resolveString(target.Arn, stack),
        input: typeof target.Input === 'string' ? (JSON.parse(target.Input) as unknown) : null,
        inputPath: typeof target.InputPath === 'string' ? target.InputPath : null,
      };
    });
    return [
      {
        logicalId,
        eventBusName:
          p.EventBusName === undefined ? 'default' : resolver.resolveString(p.EventBusName, stack),
        eventPattern:
          p.EventPattern === undefined
            ? null
            : (resolver.resolve(p.EventPattern, stack) as Record<string, unknown>),
        scheduleExpression:
          p.ScheduleExpression === undefined ? null : resolver.resolveString(p.ScheduleExpression, stack),
        targets,
      },
    ];
  });

export const readLocalResources = (resolver: TemplateResolver, assemblyDir: string): LocalResources => ({
  tables: readTables(resolver),
  queues: readQueues(resolver),
  buckets: resolver
    .resourcesOfType('AWS::S3::Bucket')
    .map(({ stack, logicalId }) => resolver.localName(stack, logicalId)),
  secrets: resolver
    .resourcesOfType('AWS::SecretsManager::Secret')
    .map(({ stack, logicalId }) => ({ logicalId, arn: String(resolver.ref(logicalId, stack)) })),
  topics: resolver
    .resourcesOfType('AWS::SNS::Topic')
    .map(({ stack, logicalId }) => String(resolver.ref(logicalId, stack))),
  functions: readFunctions(resolver, assemblyDir),
  stateMachines: readStateMachines(resolver),
  rules: readRules(resolver),
});
