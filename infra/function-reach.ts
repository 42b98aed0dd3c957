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
import { type IStateMachine, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import {
  describeFunction,
  ENV,
  type EnvName,
  environmentOf,
  type PortName,
  type PortUses,
  type Prefix,
} from '../functions/catalogue.js';
import { HANDLER_NAMES, type HandlerName } from '../shared/contract.js';
import type { PipelineConfig } from './config.js';
import { acknowledge, inFinding, wildcardAction, wildcardResource } from './nag.js';
import type { PipelineData } from './pipeline-data.js';

export type FunctionReachProps = {
  functions: Readonly<Record<HandlerName, NodejsFunction>>;
  data: PipelineData;
  config: PipelineConfig;
  /** The Row workflow's ARN, built from its fixed name: the workflow itself depends on the functions. */
  rowWorkflowArn: string;
};

type PortGrants = { [P in PortName]-?: (fn: NodejsFunction, use: NonNullable<PortUses[P]>) => void };

/** Sets every function's environment and grants its role what its ports reach. */
export const grantFunctionReach = (scope: Stack, props: FunctionReachProps): void => {
  // The account's default bus: consumers subscribe with a rule; a custom bus adds nothing here.
  const defaultBus = EventBus.fromEventBusName(scope, 'DefaultBus', 'default');
  const values = environmentValues(props, defaultBus.eventBusName);
  const grants = portGrants(scope, props, defaultBus);
  const configured = { capOverride: props.config.capOverride !== undefined };
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
  { functions, data, config, rowWorkflowArn }: FunctionReachProps,
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
});

/** One grant per port, at the reach the catalogue gives it. */
const portGrants = (
  scope: Stack,
  { functions, data, rowWorkflowArn }: FunctionReachProps,
  defaultBus: IEventBus,
): PortGrants => {
  const rowWorkflow = StateMachine.fromStateMachineArn(scope, 'RowWorkflowByName', rowWorkflowArn);
  const table = (source: ITable) => (fn: NodejsFunction, use: 'read' | 'readWrite') =>
    grantTable(scope, data, source, fn, use);
  return {
    clock: () => undefined,
    service: (fn) => data.apiKeySecret.grantRead(fn),
    objects: (fn, { read = [], write = [] }) => {
      for (const prefix of read) grantObjectRead(scope, data, fn, prefix);
      for (const prefix of write) grantObjectPut(scope, data, fn, prefix);
    },
    queue: (fn, uses) => {
      for (const use of uses) {
        if (use === 'send') data.rowsQueue.grantSendMessages(fn);
        else data.rowsQueue.grantConsumeMessages(fn);
      }
    },
    batches: table(data.batchTable),
    reviews: table(data.reviewTable),
    cache: table(data.cacheTable),
    leases: table(data.leaseTable),
    workflows: (fn) => rowWorkflow.grantStartExecution(fn),
    // Granted once the workflows exist (allowWakingWorkflows): a policy of its own.
    waiters: () => undefined,
    events: (fn) => defaultBus.grantPutEventsTo(fn),
    kick: (fn) => grantInvokeOf(scope, functions['dispatch-rows'], fn),
    partials: (fn) => grantInvokeOf(scope, functions['write-partial-results'], fn),
  };
};

const roleOf = (fn: NodejsFunction): IRole => {
  if (!fn.role) throw new Error(`${fn.node.path} has no role`);
  return fn.role;
};

/** Object grants are scoped to the one prefix the function works in (inbox/, outbox/, work/, answers/). */
export const grantObjectRead = (scope: Stack, data: PipelineData, fn: NodejsFunction, prefix: Prefix) => {
  data.bucket.grantRead(fn, prefix);
  acknowledge(
    roleOf(fn),
    `grantRead's action set (GetObject* covers GetObjectVersion for a given version; List* makes a ` +
      `missing key a 404, not a 403) on ${prefix} only.`,
    wildcardAction('s3:GetObject*'),
    wildcardAction('s3:GetBucket*'),
    wildcardAction('s3:List*'),
    wildcardResource(`${inFinding(scope, data.bucket.bucketArn)}/${prefix}`),
  );
};

export const grantObjectPut = (scope: Stack, data: PipelineData, fn: NodejsFunction, prefix: Prefix) => {
  data.bucket.grantPut(fn, prefix);
  acknowledge(
    roleOf(fn),
    `grantPut on ${prefix} only: object keys are per batch; Abort* ends its own multipart uploads.`,
    wildcardAction('s3:Abort*'),
    wildcardResource(`${inFinding(scope, data.bucket.bucketArn)}/${prefix}`),
  );
};

export const grantTable = (
  scope: Stack,
  data: PipelineData,
  table: ITable,
  fn: NodejsFunction,
  use: 'read' | 'readWrite',
) => {
  if (use === 'read') table.grantReadData(fn);
  else table.grantReadWriteData(fn);
  if (table === data.reviewTable) {
    acknowledge(
      roleOf(fn),
      "The review table's indexes (by-batch is queried for review.csv); CDK grants them as <table>/index/*.",
      wildcardResource(`${inFinding(scope, data.reviewTable.tableArn)}/index/*`),
    );
  }
};

/** The kick (dispatch-rows) and the request for partial results (write-partial-results). */
const grantInvokeOf = (scope: Stack, target: NodejsFunction, fn: NodejsFunction) => {
  target.grantInvoke(fn);
  acknowledge(
    roleOf(fn),
    'grantInvoke adds <function>:* for versions and aliases of the function it invokes; no other function.',
    wildcardResource(`${inFinding(scope, target.functionArn)}:*`),
  );
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
          actions: ['states:SendTaskSuccess'],
          resources: workflows.map((workflow) => workflow.stateMachineArn),
        }),
      ],
    });
  }
};
