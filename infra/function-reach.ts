/**
 * Each function's reach, as functions/catalogue.ts describes it: for every port its handler is
 * given, the environment variables that port's adapter reads and the narrowest grant that lets
 * it work. Both follow from the one description, so they never drift apart, nor from the port
 * set the handler builds (functions/runtime.ts, portsFor).
 *
 * Grants land in the function's role, a sibling of the function: cdk-nag findings they cause
 * are acknowledged there, next to the grant.
 */
import type { Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { type IRole, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import {
  describeFunction,
  ENV,
  type EnvName,
  environmentOf,
  type PortName,
  type PortUses,
  type Prefix,
  type TableUse,
} from '../functions/catalogue.js';
import { HANDLER_NAMES, type HandlerName } from '../shared/contract.js';
import type { PipelineConfig } from './config.js';
import { acknowledge, inFinding, wildcardResource } from './nag.js';
import type { PipelineData } from './pipeline-data.js';
import { ROWS_BY_SEND_ORDER_INDEX } from './stateful-stack.js';

export type FunctionReachProps = {
  functions: Readonly<Record<HandlerName, NodejsFunction>>;
  data: PipelineData;
  config: PipelineConfig;
  /** The Row workflow's ARN, built from its fixed name: the workflow itself depends on the functions. */
  rowWorkflowArn: string;
  /** The topic of notices (notices-topic.ts). */
  noticesTopic: ITopic;
};

type PortGrants = { [P in PortName]-?: (fn: NodejsFunction, use: NonNullable<PortUses[P]>) => void };

/** Sets every function's environment and grants its role what its ports reach. */
export const grantFunctionReach = (scope: Stack, props: FunctionReachProps): void => {
  // The account's default bus: consumers subscribe with a rule; a custom bus adds nothing here.
  const defaultBus = EventBus.fromEventBusName(scope, 'DefaultBus', 'default');
  const values = environmentValues(props, defaultBus.eventBusName);
  const grants = portGrants(scope, props, defaultBus);
  const configured = {
    capOverride: props.config.capOverride !== undefined,
    batchTimeoutHours: props.config.batchTimeoutHours !== undefined,
    auditLockDays: true,
    questionReminderDay: true,
  };
  for (const name of HANDLER_NAMES) {
    const fn = props.functions[name];
    for (const variable of environmentOf(name, configured)) {
      const value = values[variable];
      if (value === undefined) throw new Error(`${name}: no value for ${variable}`);
      fn.addEnvironment(variable, value);
    }
    for (const [port, use] of Object.entries(describeFunction(name).ports)) {
      (grants[port as PortName] as (fn: NodejsFunction, use: unknown) => void)(fn, use);
    }
  }
};

/** What each variable the stack sets holds. */
const environmentValues = (
  { functions, data, config, rowWorkflowArn, noticesTopic }: FunctionReachProps,
  eventBusName: string,
): Partial<Record<EnvName, string>> => ({
  [ENV.bucketName]: data.bucket.bucketName,
  [ENV.batchTable]: data.batchTable.tableName,
  [ENV.reviewTable]: data.reviewTable.tableName,
  [ENV.cacheTable]: data.cacheTable.tableName,
  [ENV.leaseTable]: data.leaseTable.tableName,
  [ENV.leaseScope]: config.leaseScope,
  [ENV.rowsQueueUrl]: data.rowsQueue.queueUrl,
  [ENV.rowStateMachineArn]: rowWorkflowArn,
  [ENV.dispatcherFunctionName]: functions['dispatch-rows'].functionName,
  [ENV.partialResultsFunctionName]: functions['write-partial-results'].functionName,
  [ENV.eventBusName]: eventBusName,
  [ENV.tcsBaseUrl]: config.tcsBaseUrl,
  // The secret's ARN, never its value: the handler reads the key at cold start.
  [ENV.tcsApiKeySecretArn]: data.apiKeySecret.secretArn,
  ...(config.capOverride !== undefined ? { [ENV.capOverride]: String(config.capOverride) } : {}),
  [ENV.auditLockDays]: String(config.auditLockDays),
  [ENV.noticesTopicArn]: noticesTopic.topicArn,
  [ENV.questionReminderDay]: String(config.questionReminderDay),
  ...(config.batchTimeoutHours !== undefined
    ? { [ENV.batchTimeoutHours]: String(config.batchTimeoutHours) }
    : {}),
});

/** One statement per port (its Sid names the port), with exactly the actions the catalogue gives it. */
const portGrants = (
  scope: Stack,
  { functions, data, rowWorkflowArn, noticesTopic }: FunctionReachProps,
  defaultBus: IEventBus,
): PortGrants => {
  const table = (source: ITable, sid: string) => (fn: NodejsFunction, use: TableUse) =>
    grantTable(scope, data, source, fn, use, sid);
  return {
    clock: () => undefined,
    service: (fn) => allow(fn, 'Service', ['secretsmanager:GetSecretValue'], [data.apiKeySecret.secretArn]),
    objects: (fn, use) => grantObjects(scope, data, fn, use),
    queue: (fn, uses) =>
      allow(
        fn,
        'Queue',
        uses.flatMap((use) =>
          use === 'send' ? ['sqs:SendMessage'] : ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
        ),
        [data.rowsQueue.queueArn],
      ),
    batches: table(data.batchTable, 'Batches'),
    reviews: table(data.reviewTable, 'Reviews'),
    // The verdicts to check live in the review table too (shared/aws/dynamo-check-store.ts).
    checks: table(data.reviewTable, 'Checks'),
    // The SIM openings awaiting confirmation too (shared/aws/dynamo-sim-watch-store.ts).
    simWatches: table(data.reviewTable, 'SimWatches'),
    // Who wrote each file dropped into answers/ and inbox/ too (shared/aws/dynamo-writer-records.ts).
    writers: table(data.reviewTable, 'Writers'),
    // The audit events live in the batch table, beside the rows (shared/aws/dynamo-audit-log.ts).
    audit: table(data.batchTable, 'Audit'),
    cache: table(data.cacheTable, 'Cache'),
    leases: table(data.leaseTable, 'Leases'),
    workflows: (fn) => allow(fn, 'Workflows', ['states:StartExecution'], [rowWorkflowArn]),
    // Granted once the workflows exist (allowWakingWorkflows): a policy of its own.
    waiters: () => undefined,
    events: (fn) => allow(fn, 'Events', ['events:PutEvents'], [defaultBus.eventBusArn]),
    notifier: (fn) => allow(fn, 'Notices', ['sns:Publish'], [noticesTopic.topicArn]),
    // Invoked by name, never by version or alias: the function's ARN alone.
    kick: (fn) => allow(fn, 'Kick', ['lambda:InvokeFunction'], [functions['dispatch-rows'].functionArn]),
    partials: (fn) =>
      allow(fn, 'Partials', ['lambda:InvokeFunction'], [functions['write-partial-results'].functionArn]),
  };
};

const roleOf = (fn: NodejsFunction): IRole => {
  if (!fn.role) throw new Error(`${fn.node.path} has no role`);
  return fn.role;
};

/** A statement in the function's role; its Sid names the port, which the grant usage test reads. */
const allow = (fn: NodejsFunction, sid: string, actions: string[], resources: string[]) =>
  fn.addToRolePolicy(new PolicyStatement({ sid, actions, resources }));

/** `outbox/*` → `Outbox`, for a Sid. */
const sidOf = (prefix: Prefix) => prefix.charAt(0).toUpperCase() + prefix.slice(1, -2);

/**
 * Object grants are scoped to the prefixes the function works in (inbox/, outbox/, work/,
 * answers/); ListBucket, on the bucket, makes a missing key a 404 rather than a 403.
 */
export const grantObjects = (
  scope: Stack,
  data: PipelineData,
  fn: NodejsFunction,
  { read = [], write = [], streams, lock = [] }: NonNullable<PortUses['objects']>,
) => {
  const bucket = data.bucket.bucketArn;
  if (read.length > 0) {
    allow(fn, 'ObjectsList', ['s3:ListBucket'], [bucket]);
    allow(
      fn,
      'ObjectsRead',
      ['s3:GetObject'],
      read.map((prefix) => `${bucket}/${prefix}`),
    );
  }
  for (const prefix of write) {
    allow(
      fn,
      `ObjectsWrite${sidOf(prefix)}`,
      streams ? ['s3:PutObject', 's3:AbortMultipartUpload'] : ['s3:PutObject'],
      [`${bucket}/${prefix}`],
    );
  }
  if (lock.length > 0)
    allow(
      fn,
      'ObjectsLock',
      ['s3:PutObjectRetention'],
      lock.map((prefix) => `${bucket}/${prefix}`),
    );
  for (const prefix of [...new Set([...read, ...write])]) {
    acknowledge(
      roleOf(fn),
      `Object keys are per batch: the grant is scoped to ${prefix} only.`,
      wildcardResource(`${inFinding(scope, bucket)}/${prefix}`),
    );
  }
};

/**
 * Exactly the operations the catalogue names, on the table (and the review table's indexes); the
 * batch table's send-order index (`QueryInSendOrder`) in a statement of its own.
 */
export const grantTable = (
  scope: Stack,
  data: PipelineData,
  table: ITable,
  fn: NodejsFunction,
  use: TableUse,
  sid: string,
) => {
  const indexes = table === data.reviewTable ? [`${data.reviewTable.tableArn}/index/*`] : [];
  const operations = use.filter((operation) => operation !== 'QueryInSendOrder');
  allow(
    fn,
    sid,
    operations.map((operation) => `dynamodb:${operation}`),
    [table.tableArn, ...indexes],
  );
  // Its own statement, on that index only: the window's readers, nobody else.
  if (use.includes('QueryInSendOrder'))
    allow(
      fn,
      `${sid}InSendOrder`,
      ['dynamodb:Query'],
      [`${table.tableArn}/index/${ROWS_BY_SEND_ORDER_INDEX}`],
    );
  if (indexes.length > 0) {
    acknowledge(
      roleOf(fn),
      "The review table's indexes (by-batch is queried for review.csv); CDK names them as <table>/index/*.",
      wildcardResource(`${inFinding(scope, data.reviewTable.tableArn)}/index/*`),
    );
  }
};

/**
 * Whoever finishes the last row wakes the Batch workflow, or the Answers workflow when the row
 * belonged to an answers round, with its task token: the functions given the `waiters` port.
 * Only SendTaskSuccess: a batch (a round) always goes on to Finalize (FinalizeAnswers), never
 * fails from a row. A policy of its own, not the role's default one: each function's resource
 * depends on its default policy, and the workflows depend on await-rows, so the default policy
 * would be a cycle.
 */
export const allowWakingWorkflows = (
  scope: Stack,
  functions: Readonly<Record<HandlerName, NodejsFunction>>,
  workflows: IStateMachine[],
): void => {
  for (const name of HANDLER_NAMES.filter((handler) => 'waiters' in describeFunction(handler).ports)) {
    new Policy(scope, `${functions[name].node.id}WakesBatch`, {
      roles: [roleOf(functions[name])],
      statements: [
        new PolicyStatement({
          sid: 'Waiters',
          actions: ['states:SendTaskSuccess'],
          resources: workflows.map((workflow) => workflow.stateMachineArn),
        }),
      ],
    });
  }
};
