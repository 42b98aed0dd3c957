import type { CfnElement, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANSWERS_KEY_PATTERNS, INPUT_KEY_PATTERNS } from '../../infra/pipeline-rules.js';
import { ROWS_QUEUE_VISIBILITY } from '../../infra/stateful-stack.js';
import {
  ALARM_LOG_FIELDS,
  HANDLER_NAMES,
  type HandlerName,
  PIPELINE_METRICS,
  SERVICE_NAME,
} from '../../shared/contract.js';
import {
  type CfnTemplate,
  exportsOf,
  functionLogicalIds,
  type Reach,
  reachOfRole,
  renderReference,
  resourcesOfType,
  roleOfFunction,
  type Synthesized,
  synthesize,
  TEST_CONTEXT,
} from './synth.js';

let synth: Synthesized;
let json: CfnTemplate;
let exports: Map<string, string>;
let functionIds: Record<HandlerName, string>;

const logicalId = (stack: Stack, construct: IConstruct) =>
  stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

beforeAll(() => {
  synth = synthesize();
  json = synth.pipelineJson;
  exports = exportsOf(synth.statefulJson);
  functionIds = functionLogicalIds(json);
});

const functionProperties = (name: HandlerName) => {
  const properties = json.Resources[functionIds[name]]?.Properties;
  if (!properties) throw new Error(`no function ${name}`);
  return properties as {
    Runtime: string;
    Architectures: string[];
    Handler: string;
    Timeout: number;
    Environment: { Variables: Record<string, unknown> };
    LoggingConfig: { LogGroup: unknown };
  };
};

/** shared/pipeline/README.md, "Environment of the handlers", row by row. */
const ENVIRONMENT: Record<HandlerName, string[]> = {
  'prepare-batch': [
    'BUCKET_NAME',
    'BATCH_TABLE',
    'CACHE_TABLE',
    'ROWS_QUEUE_URL',
    'DISPATCHER_FUNCTION_NAME',
    'TCS_BASE_URL',
    'TCS_API_KEY_SECRET_ARN',
    // The test context sets both: the cap sizes the window and the wait, the ceiling caps the wait.
    'CAP_OVERRIDE',
    'BATCH_TIMEOUT_HOURS',
    // A product still waiting for answers from an earlier batch: its rows join that review item.
    'REVIEW_TABLE',
  ],
  'await-rows': ['BATCH_TABLE'],
  // AUDIT_LOCK_DAYS: audit.csv's versions under Object Lock.
  // NOTICES_TOPIC_ARN: it tells the topic the batch finished, questions wait, verdicts to check.
  'finalize-batch': [
    'BUCKET_NAME',
    'BATCH_TABLE',
    'REVIEW_TABLE',
    'EVENT_BUS_NAME',
    'AUDIT_LOCK_DAYS',
    'NOTICES_TOPIC_ARN',
  ],
  'dispatch-rows': [
    'BATCH_TABLE',
    'LEASE_TABLE',
    'LEASE_SCOPE',
    'ROWS_QUEUE_URL',
    'ROW_STATE_MACHINE_ARN',
    'TCS_BASE_URL',
    'TCS_API_KEY_SECRET_ARN',
    'CAP_OVERRIDE',
  ],
  'row-submit': ['BUCKET_NAME', 'BATCH_TABLE', 'TCS_BASE_URL', 'TCS_API_KEY_SECRET_ARN'],
  'row-poll': [
    'LEASE_TABLE',
    'LEASE_SCOPE',
    'TCS_BASE_URL',
    'TCS_API_KEY_SECRET_ARN',
    'DISPATCHER_FUNCTION_NAME',
  ],
  // REVIEW_TABLE: a verdict to check gets its check item, one whose SIM openings are being verified its watch.
  'row-store': ['BUCKET_NAME', 'BATCH_TABLE', 'REVIEW_TABLE', 'TCS_BASE_URL', 'TCS_API_KEY_SECRET_ARN'],
  // Not in the README's table, but its handler reads the classification (functions/row-review).
  'row-review': ['BATCH_TABLE', 'REVIEW_TABLE', 'CACHE_TABLE', 'TCS_BASE_URL', 'TCS_API_KEY_SECRET_ARN'],
  'row-complete': [
    'BATCH_TABLE',
    'CACHE_TABLE',
    'LEASE_TABLE',
    'LEASE_SCOPE',
    'ROWS_QUEUE_URL',
    'DISPATCHER_FUNCTION_NAME',
    'PARTIAL_RESULTS_FUNCTION_NAME',
  ],
  // Completes a row with row-complete's ports (functions/catalogue.ts), cache and queue included.
  'row-execution-ended': [
    'BATCH_TABLE',
    'CACHE_TABLE',
    'LEASE_TABLE',
    'LEASE_SCOPE',
    'ROWS_QUEUE_URL',
    'DISPATCHER_FUNCTION_NAME',
    'PARTIAL_RESULTS_FUNCTION_NAME',
  ],
  // functions/prepare-answers: clock, service, objects, queue, batches, reviews, checks, cache,
  // audit, kick.
  'prepare-answers': [
    'BUCKET_NAME',
    'BATCH_TABLE',
    'REVIEW_TABLE',
    'CACHE_TABLE',
    'ROWS_QUEUE_URL',
    'DISPATCHER_FUNCTION_NAME',
    'TCS_BASE_URL',
    'TCS_API_KEY_SECRET_ARN',
  ],
  // functions/finalize-answers: clock, service, objects, batches, reviews, events.
  'finalize-answers': [
    'BUCKET_NAME',
    'BATCH_TABLE',
    'REVIEW_TABLE',
    'EVENT_BUS_NAME',
    'TCS_BASE_URL',
    'TCS_API_KEY_SECRET_ARN',
    'AUDIT_LOCK_DAYS',
  ],
  // What FinalizeAnswers needs, for each batch with abandoned rows.
  // CACHE_TABLE: a confirmed SIM opening moves the product's cached verdict forward too.
  'sweep-reviews': [
    'BUCKET_NAME',
    'BATCH_TABLE',
    'REVIEW_TABLE',
    'CACHE_TABLE',
    'EVENT_BUS_NAME',
    'TCS_BASE_URL',
    'TCS_API_KEY_SECRET_ARN',
    'AUDIT_LOCK_DAYS',
    // The reminder of questions still waiting on the reminder day.
    'NOTICES_TOPIC_ARN',
    'QUESTION_REMINDER_DAY',
  ],
  'write-partial-results': ['BUCKET_NAME', 'BATCH_TABLE'],
  'recheck-verdicts': ['BUCKET_NAME', 'CACHE_TABLE'],
  // Who wrote a dropped file, kept in the review table.
  'record-writer': ['REVIEW_TABLE'],
};

describe('pipeline stack: functions', () => {
  it('there is one per handler, Node 22 or newer on arm64, with a bounded timeout', () => {
    expect(resourcesOfType(json, 'AWS::Lambda::Function')).toHaveLength(HANDLER_NAMES.length);
    for (const name of HANDLER_NAMES) {
      const properties = functionProperties(name);
      const major = Number(/^nodejs(\d+)\.x$/.exec(properties.Runtime)?.[1]);
      expect(major, name).toBeGreaterThanOrEqual(22);
      expect(properties.Architectures, name).toEqual(['arm64']);
      expect(properties.Handler, name).toBe('index.handler');
      expect(properties.Timeout, name).toBeLessThanOrEqual(900);
    }
  });

  it('each has exactly the environment its README row names, and the service name', () => {
    for (const name of HANDLER_NAMES) {
      const variables = functionProperties(name).Environment.Variables;
      expect(Object.keys(variables).sort(), name).toEqual(
        [...ENVIRONMENT[name], 'POWERTOOLS_SERVICE_NAME', 'NODE_OPTIONS'].sort(),
      );
      expect(variables.POWERTOOLS_SERVICE_NAME).toBe(SERVICE_NAME);
    }
  });

  it('names resources by reference and carries the secret ARN, never a key', () => {
    const secretRef = `<${logicalId(synth.built.stateful, synth.built.stateful.apiKeySecret)}>`;
    for (const name of HANDLER_NAMES) {
      const variables = functionProperties(name).Environment.Variables;
      for (const [variable, value] of Object.entries(variables)) {
        expect(variable, name).not.toMatch(/API_KEY$|SECRET$|TOKEN/);
        if (typeof value === 'string') {
          // Literal values are names and settings, never a secret-looking string.
          expect(value, `${name} ${variable}`).not.toMatch(/^[A-Za-z0-9_-]{24,}$/);
          expect(value, `${name} ${variable}`).not.toMatch(/PLACEHOLDER|^sk_|^tcs_/i);
        }
      }
      if ('TCS_API_KEY_SECRET_ARN' in variables) {
        expect(renderReference(variables.TCS_API_KEY_SECRET_ARN, exports), name).toBe(secretRef);
        expect(variables.TCS_BASE_URL).toBe(TEST_CONTEXT.tcsBaseUrl);
      }
    }
    const dispatch = functionProperties('dispatch-rows').Environment.Variables;
    expect(dispatch.CAP_OVERRIDE).toBe(String(TEST_CONTEXT.capOverride));
    expect(dispatch.LEASE_SCOPE).toBe(TEST_CONTEXT.leaseScope);
    expect(renderReference(dispatch.ROW_STATE_MACHINE_ARN, exports)).toMatch(
      /:states:\{AWS::Region\}:\{AWS::AccountId\}:stateMachine:NcmBatchClassifier-Pipeline-row-workflow$/,
    );
    expect(functionProperties('finalize-batch').Environment.Variables.EVENT_BUS_NAME).toBe('default');
    expect(functionProperties('finalize-answers').Environment.Variables.EVENT_BUS_NAME).toBe('default');
  });

  it('each logs to its own log group, kept per the retention context', () => {
    const logGroups = new Set<string>();
    for (const name of HANDLER_NAMES) {
      const group = renderReference(functionProperties(name).LoggingConfig.LogGroup, exports);
      logGroups.add(group);
      const groupId = /^<(\w+)>$/.exec(group)?.[1] ?? '';
      expect(json.Resources[groupId]?.Properties?.RetentionInDays, name).toBe(TEST_CONTEXT.retentionDays);
    }
    expect(logGroups.size).toBe(HANDLER_NAMES.length);
  });

  it('the dispatcher finishes before a message it received becomes visible again, and is never retried', () => {
    expect(functionProperties('dispatch-rows').Timeout).toBeLessThan(ROWS_QUEUE_VISIBILITY.toSeconds());
    synth.pipeline.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionIds['dispatch-rows'] },
      MaximumRetryAttempts: 0,
    });
  });
});

// --- What each function's role reaches. ---------------------------------------------------------

const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const d = (...operations: string[]) => operations.map((operation) => `dynamodb:${operation}`);
const SECRET = ['secretsmanager:GetSecretValue'];
const INVOKE = ['lambda:InvokeFunction'];
const WAKE = ['states:SendTaskSuccess'];
const SEND = ['sqs:SendMessage'];

/**
 * resource → actions, per function, written out: exactly the operations each function's code
 * calls (the grant usage test fails on one no run uses; the permission checks on one missing).
 * `ownLogs` is the function's own log group.
 */
const EXPECTED_REACH: Record<HandlerName, Record<string, string[]>> = {
  'prepare-batch': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    // The NCM table in force, which the rows' codes are checked against.
    'bucket/reference/*': ['s3:GetObject'],
    'bucket/inbox/*': ['s3:GetObject'],
    // A plan-only batch's plan.json and plan.csv (in parts when large).
    'bucket/outbox/*': ['s3:AbortMultipartUpload', 's3:PutObject'],
    batchTable: d('BatchWriteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'),
    // A retried first leg sends its window again, read in send order.
    'batchTable/index/by-send-order': ['dynamodb:Query'],
    cacheTable: d('BatchGetItem'),
    // Rows of a product still waiting for answers join its review item (a conditional update);
    // GetItem: who wrote the file (the writer records).
    reviewTable: d('GetItem', 'PutItem', 'UpdateItem'),
    'reviewTable/index/*': d('GetItem', 'PutItem', 'UpdateItem'),
    rowsQueue: SEND,
    'dispatch-rows': INVOKE,
    apiKeySecret: SECRET,
  },
  // Wakes a round as it wakes a batch: WaitForAnswers is await-rows too.
  'await-rows': {
    ownLogs: LOGS,
    batchTable: d('UpdateItem'),
    batchWorkflow: WAKE,
    answersWorkflow: WAKE,
  },
  'finalize-batch': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    // The NCM table in force, which the rows' codes are checked against.
    'bucket/reference/*': ['s3:GetObject'],
    // The results files go up in parts across its legs, review.xlsx as it is written.
    // PutObjectRetention: audit.csv's versions under Object Lock.
    'bucket/outbox/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject', 's3:PutObjectRetention'],
    // What one leg hands the next: the tally, the bytes of a file not yet a part.
    'bucket/work/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
    // Audit events recorded late: recorded (PutItem), then settled by audit.csv's write (GetItem, UpdateItem, DeleteItem).
    batchTable: d('BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'),
    // BatchGetItem: the items rows of this batch joined, listed under it by reference; GetItem:
    // who sent the batch (the writer records).
    reviewTable: d('BatchGetItem', 'GetItem', 'Query'),
    'reviewTable/index/*': d('BatchGetItem', 'GetItem', 'Query'),
    defaultBus: ['events:PutEvents'],
    noticesTopic: ['sns:Publish'],
  },
  'dispatch-rows': {
    ownLogs: LOGS,
    // Query: a batch's window of the rows queue is counted and topped up a page of rows at a time.
    batchTable: d('GetItem', 'Query', 'UpdateItem'),
    // In exposure order the window is read in send order, from its index.
    'batchTable/index/by-send-order': ['dynamodb:Query'],
    leaseTable: d('GetItem', 'PutItem', 'UpdateItem'),
    rowsQueue: ['sqs:DeleteMessage', 'sqs:ReceiveMessage', 'sqs:SendMessage'],
    apiKeySecret: SECRET,
    rowWorkflow: ['states:StartExecution'],
    batchWorkflow: WAKE,
    answersWorkflow: WAKE,
  },
  'row-submit': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    'bucket/inbox/*': ['s3:GetObject'],
    'bucket/answers/*': ['s3:GetObject'], // a resumed row's new sheet, beside the answers file
    'bucket/work/*': ['s3:GetObject', 's3:PutObject'],
    // BatchWriteItem: the audit events it records (`audit#…` items beside the rows).
    // PutItem: an audit event recorded late (its marker, then the event if new).
    batchTable: d('BatchWriteItem', 'GetItem', 'PutItem', 'UpdateItem'),
    apiKeySecret: SECRET,
  },
  'row-poll': {
    ownLogs: LOGS,
    leaseTable: d('UpdateItem'),
    apiKeySecret: SECRET,
    'dispatch-rows': INVOKE,
  },
  'row-store': {
    ownLogs: LOGS,
    'bucket/outbox/*': ['s3:PutObject'],
    batchTable: d('GetItem'),
    // A verdict under the batch's check_below gets its check item; one whose SIM openings are
    // still being verified, its watch: each written once (a conditional put).
    reviewTable: d('PutItem'),
    'reviewTable/index/*': d('PutItem'),
    apiKeySecret: SECRET,
  },
  'row-review': {
    ownLogs: LOGS,
    // PutItem: an audit event recorded late (its marker, then the event if new).
    batchTable: d('BatchWriteItem', 'GetItem', 'PutItem'),
    // Where the next night's Prepare finds the product's open classification.
    cacheTable: d('PutItem'),
    reviewTable: d('GetItem', 'PutItem'),
    'reviewTable/index/*': d('GetItem', 'PutItem'),
    apiKeySecret: SECRET,
  },
  'row-complete': {
    ownLogs: LOGS,
    // PutItem: an audit event recorded late (its marker, then the event if new).
    batchTable: d('BatchWriteItem', 'GetItem', 'PutItem', 'UpdateItem'),
    cacheTable: d('PutItem'),
    leaseTable: d('UpdateItem'),
    rowsQueue: SEND,
    'dispatch-rows': INVOKE,
    batchWorkflow: WAKE,
    answersWorkflow: WAKE,
    'write-partial-results': INVOKE,
  },
  'row-execution-ended': {
    ownLogs: LOGS,
    // PutItem: an audit event recorded late (its marker, then the event if new).
    batchTable: d('BatchWriteItem', 'GetItem', 'PutItem', 'UpdateItem'),
    cacheTable: d('PutItem'),
    leaseTable: d('UpdateItem'),
    rowsQueue: SEND,
    'dispatch-rows': INVOKE,
    batchWorkflow: WAKE,
    answersWorkflow: WAKE,
    'write-partial-results': INVOKE,
  },
  'prepare-answers': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    'bucket/answers/*': ['s3:GetObject'],
    // The NCM table in force, which a decided NCM typed is checked against.
    'bucket/reference/*': ['s3:GetObject'],
    'bucket/outbox/*': ['s3:PutObject'],
    // BatchWriteItem: the audit events (answered, decided), beside the rows.
    // PutItem: an audit event recorded late (its marker, then the event if new).
    batchTable: d('BatchWriteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'),
    // GetItem: a verdict to check another round decided meanwhile (the check items), and who
    // wrote the answers file (the writer records).
    reviewTable: d('BatchGetItem', 'GetItem', 'Query', 'UpdateItem'),
    'reviewTable/index/*': d('BatchGetItem', 'GetItem', 'Query', 'UpdateItem'),
    // The approved columns on the cached verdict a decision settles.
    cacheTable: d('BatchGetItem', 'PutItem'),
    rowsQueue: SEND,
    'dispatch-rows': INVOKE,
    apiKeySecret: SECRET,
  },
  'finalize-answers': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    // The NCM table in force, which the rows' codes are checked against.
    'bucket/reference/*': ['s3:GetObject'],
    // The results files go up in parts across its legs, review.xlsx as it is written.
    // PutObjectRetention: audit.csv's versions under Object Lock.
    'bucket/outbox/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject', 's3:PutObjectRetention'],
    // The new results.csv written aside, and what one leg hands the next.
    'bucket/work/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
    // Audit events recorded late: recorded (PutItem), then settled by audit.csv's write (GetItem, UpdateItem, DeleteItem).
    batchTable: d('BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'),
    // PutItem: the check item of a verdict a row took elsewhere, under its batch's check_below.
    reviewTable: d('BatchGetItem', 'PutItem', 'Query', 'UpdateItem'),
    'reviewTable/index/*': d('BatchGetItem', 'PutItem', 'Query', 'UpdateItem'),
    defaultBus: ['events:PutEvents'],
    apiKeySecret: SECRET,
  },
  // The daily sweep finalizes batches with abandoned rows as FinalizeAnswers does, and scans for them.
  'sweep-reviews': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    // The NCM table in force, which the rows' codes are checked against.
    'bucket/reference/*': ['s3:GetObject'],
    // The results files go up in parts across its legs, review.xlsx as it is written.
    // PutObjectRetention: audit.csv's versions under Object Lock.
    'bucket/outbox/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject', 's3:PutObjectRetention'],
    // The new results.csv written aside, and what one leg hands the next.
    'bucket/work/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
    // Audit events recorded late: recorded (PutItem), then settled by audit.csv's write (GetItem, UpdateItem, DeleteItem).
    batchTable: d('BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'),
    // PutItem: a confirmed SIM opening's check item, when one must now be chosen.
    reviewTable: d('BatchGetItem', 'PutItem', 'Query', 'Scan', 'UpdateItem'),
    'reviewTable/index/*': d('BatchGetItem', 'PutItem', 'Query', 'Scan', 'UpdateItem'),
    defaultBus: ['events:PutEvents'],
    // The reminder of questions still waiting.
    noticesTopic: ['sns:Publish'],
    apiKeySecret: SECRET,
    // The product's cached verdict, moved forward with its confirmed SIM opening.
    cacheTable: d('BatchGetItem', 'PutItem'),
  },
  'write-partial-results': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    // The NCM table in force, which the rows' codes are checked against.
    'bucket/reference/*': ['s3:GetObject'],
    // The partial files go up in parts across its legs.
    'bucket/outbox/*': ['s3:AbortMultipartUpload', 's3:PutObject'],
    // What one leg hands the next: the tally and unsent bytes in work/, a request object that calls it again.
    'bucket/work/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
    'bucket/requests/*': ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
    batchTable: d('GetItem', 'Query'),
  },
  // Reads the table in force and every cached verdict; the list goes to the outbox, in parts.
  'recheck-verdicts': {
    ownLogs: LOGS,
    bucket: ['s3:ListBucket'],
    'bucket/reference/*': ['s3:GetObject'],
    'bucket/outbox/*': ['s3:PutObject'],
    // What one leg hands the next: its progress (whose drop calls it again) and unsent bytes.
    'bucket/work/*': ['s3:GetObject', 's3:PutObject'],
    cacheTable: d('Scan'),
  },
  // CloudTrail's record of a write into answers/ or inbox/: the principal, kept once.
  'record-writer': {
    ownLogs: LOGS,
    reviewTable: d('PutItem'),
    'reviewTable/index/*': d('PutItem'),
  },
};

describe('pipeline stack: least privilege', () => {
  /** Logical id → the name the expectations use. */
  let names: Map<string, string>;
  const ARN_PREFIX = 'arn:{AWS::Partition}:';
  const REGION_ACCOUNT = ':{AWS::Region}:{AWS::AccountId}:';

  beforeAll(() => {
    const { stateful, pipeline } = synth.built;
    names = new Map([
      [logicalId(stateful, stateful.bucket), 'bucket'],
      [logicalId(stateful, stateful.batchTable), 'batchTable'],
      [logicalId(stateful, stateful.reviewTable), 'reviewTable'],
      [logicalId(stateful, stateful.cacheTable), 'cacheTable'],
      [logicalId(stateful, stateful.leaseTable), 'leaseTable'],
      [logicalId(stateful, stateful.rowsQueue), 'rowsQueue'],
      [logicalId(stateful, stateful.rowsDeadLetterQueue), 'rowsDeadLetterQueue'],
      [logicalId(stateful, stateful.apiKeySecret), 'apiKeySecret'],
      [logicalId(pipeline, pipeline.batchWorkflow), 'batchWorkflow'],
      [logicalId(pipeline, pipeline.rowWorkflow), 'rowWorkflow'],
      [logicalId(pipeline, pipeline.answersWorkflow), 'answersWorkflow'],
      [logicalId(pipeline, pipeline.noticesTopic), 'noticesTopic'],
      ...HANDLER_NAMES.map((name): [string, string] => [functionIds[name], name]),
    ]);
  });

  /** `<Bucket….Arn>/inbox/*` → `bucket/inbox/*`; a table's formatted ARN → `batchTable`. */
  const friendly = (resource: string, self: HandlerName): string => {
    const ownLogs = renderReference(functionProperties(self).LoggingConfig.LogGroup, exports);
    if (resource === ownLogs.replace(/>$/, '.Arn>')) return 'ownLogs';
    return resource
      .replace(`${ARN_PREFIX}dynamodb${REGION_ACCOUNT}table/`, '')
      .replace(
        `${ARN_PREFIX}states${REGION_ACCOUNT}stateMachine:NcmBatchClassifier-Pipeline-row-workflow`,
        'rowWorkflow',
      )
      .replace(`${ARN_PREFIX}events${REGION_ACCOUNT}event-bus/default`, 'defaultBus')
      .replace(/<(\w+)(\.Arn)?>/g, (whole, id: string) => names.get(id) ?? whole);
  };

  const reachOf = (name: HandlerName): Reach => {
    const reach = reachOfRole(json, roleOfFunction(json, functionIds[name]), exports);
    return Object.fromEntries(
      Object.entries(reach).map(([resource, actions]) => [friendly(resource, name), actions]),
    );
  };

  it.each(HANDLER_NAMES)('%s reaches only what it uses, with the narrowest grant', (name) => {
    const expected = Object.fromEntries(
      Object.entries(EXPECTED_REACH[name]).map(([resource, actions]) => [resource, [...actions].sort()]),
    );
    expect(reachOf(name)).toEqual(expected);
  });

  it('only the functions that use S3, SQS or Step Functions may call them', () => {
    const services = (name: HandlerName) =>
      new Set(
        Object.values(reachOf(name)).flatMap((actions) => actions.map((action) => action.split(':')[0])),
      );
    const using = (service: string) => HANDLER_NAMES.filter((name) => services(name).has(service));
    expect(using('s3')).toEqual([
      'prepare-batch',
      'finalize-batch',
      'row-submit',
      'row-store',
      'prepare-answers',
      'finalize-answers',
      'sweep-reviews',
      'write-partial-results',
      'recheck-verdicts',
    ]);
    expect(using('sqs')).toEqual([
      'prepare-batch',
      'dispatch-rows',
      'row-complete',
      'row-execution-ended',
      'prepare-answers',
    ]);
    expect(using('states')).toEqual(['await-rows', 'dispatch-rows', 'row-complete', 'row-execution-ended']);
    expect(using('secretsmanager')).toEqual([
      'prepare-batch',
      'dispatch-rows',
      'row-submit',
      'row-poll',
      'row-store',
      'row-review',
      'prepare-answers',
      'finalize-answers',
      'sweep-reviews',
    ]);
    // Only the dispatcher starts Row workflows, and only the Row workflow.
    expect(
      HANDLER_NAMES.filter((name) => Object.values(reachOf(name)).flat().includes('states:StartExecution')),
    ).toEqual(['dispatch-rows']);
    expect(using('events')).toEqual(['finalize-batch', 'finalize-answers', 'sweep-reviews']);
    // Only the functions that finish rows (and await-rows) wake a workflow, and only the Batch
    // and Answers workflows: SendTaskSuccess, never SendTaskFailure.
    for (const name of HANDLER_NAMES) {
      const waking = Object.entries(reachOf(name))
        .filter(([, actions]) => actions.some((action) => action.startsWith('states:SendTask')))
        .map(([resource, actions]) => [resource, actions]);
      const expected = ['await-rows', 'dispatch-rows', 'row-complete', 'row-execution-ended'].includes(name)
        ? [
            ['batchWorkflow', ['states:SendTaskSuccess']],
            ['answersWorkflow', ['states:SendTaskSuccess']],
          ]
        : [];
      expect(waking, name).toEqual(expected);
    }
    // Objects in answers/ are read by the round (and a resumed row's Submit), written by no one.
    const answersReach = HANDLER_NAMES.filter((name) => 'bucket/answers/*' in reachOf(name));
    expect(answersReach).toEqual(['row-submit', 'prepare-answers']);
    for (const name of answersReach) {
      expect(reachOf(name)['bucket/answers/*'], name).toEqual(['s3:GetObject']);
    }
  });

  it('function roles have no managed policies and no inline policies of their own', () => {
    for (const name of HANDLER_NAMES) {
      const role = json.Resources[roleOfFunction(json, functionIds[name])]?.Properties ?? {};
      expect(role.ManagedPolicyArns, name).toBeUndefined();
      expect(role.Policies, name).toBeUndefined();
    }
  });

  it("each workflow's role invokes its own functions and no others", () => {
    const { batchWorkflow, rowWorkflow, answersWorkflow } = synth.built.pipeline;
    const invoked = (machine: IConstruct & { role: IConstruct }) => {
      const reach = reachOfRole(json, logicalId(synth.built.pipeline, machine.role), exports);
      return Object.entries(reach)
        .filter(([, actions]) => actions.includes('lambda:InvokeFunction'))
        .map(([resource]) => names.get(/^<(\w+)\.Arn>/.exec(resource)?.[1] ?? '') ?? resource);
    };
    expect([...new Set(invoked(batchWorkflow))].sort()).toEqual([
      'await-rows',
      'finalize-batch',
      'prepare-batch',
    ]);
    expect([...new Set(invoked(rowWorkflow))].sort()).toEqual([
      'row-complete',
      'row-poll',
      'row-review',
      'row-store',
      'row-submit',
    ]);
    expect([...new Set(invoked(answersWorkflow))].sort()).toEqual([
      'await-rows',
      'finalize-answers',
      'prepare-answers',
    ]);
  });
});

describe('pipeline stack: rules', () => {
  const rule = (construct: IConstruct) => {
    const properties = json.Resources[logicalId(synth.built.pipeline, construct)]?.Properties;
    if (!properties) throw new Error('no rule');
    return properties as {
      EventPattern?: Record<string, unknown>;
      ScheduleExpression?: string;
      Targets: { Arn: unknown; Input?: string; RetryPolicy?: unknown; DeadLetterConfig?: { Arn: unknown } }[];
    };
  };

  it('a spreadsheet under inbox/<name>/ in the bucket starts the Batch workflow', () => {
    const { batchStartRule, batchWorkflow, batchStartDeadLetterQueue } = synth.built.pipeline;
    const properties = rule(batchStartRule);
    const bucketName = `<${logicalId(synth.built.stateful, synth.built.stateful.bucket)}>`;
    expect(properties.EventPattern).toMatchObject({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: { object: { key: INPUT_KEY_PATTERNS.map((wildcard) => ({ wildcard })) } },
    });
    const detail = properties.EventPattern?.detail as { bucket: { name: unknown[] } };
    expect(detail.bucket.name.map((name) => renderReference(name, exports))).toEqual([bucketName]);
    expect(properties.Targets).toHaveLength(1);
    expect(properties.Targets[0]?.Arn).toEqual({ Ref: logicalId(synth.built.pipeline, batchWorkflow) });
    expect(properties.Targets[0]?.DeadLetterConfig?.Arn).toEqual({
      'Fn::GetAtt': [logicalId(synth.built.pipeline, batchStartDeadLetterQueue), 'Arn'],
    });
  });

  it('the key patterns take a batch folder, every extension in both cases, and nothing from the outbox', () => {
    // EventBridge wildcards: `*` matches any characters, `/` included.
    const matches = (key: string) =>
      INPUT_KEY_PATTERNS.some((pattern) =>
        new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`).test(key),
      );
    expect(matches('inbox/nightly/products.csv')).toBe(true);
    expect(matches('inbox/nightly/PRODUCTS.CSV')).toBe(true);
    expect(matches('inbox/nightly/catalogue.xlsx')).toBe(true);
    expect(matches('inbox/nightly/catalogue.XLSX')).toBe(true);
    // Excel's "Unicode Text" and "Text (tab delimited)" saves, read by their content.
    expect(matches('inbox/nightly/catalogue.txt')).toBe(true);
    expect(matches('inbox/nightly/CATALOGUE.TXT')).toBe(true);
    expect(matches('inbox/nightly/catalogue.tsv')).toBe(true);
    expect(matches('inbox/nightly/catalogue.TSV')).toBe(true);
    // NF-e invoices, one XML or a ZIP of them, read by their content.
    expect(matches('inbox/nightly/nota.xml')).toBe(true);
    expect(matches('inbox/nightly/notas-2026-10.ZIP')).toBe(true);
    expect(matches('inbox/nightly/catalogue.xls')).toBe(false);
    expect(matches('inbox/products.csv')).toBe(false);
    expect(matches('inbox/nightly/sheets/a.pdf')).toBe(false);
    expect(matches('inbox/nightly/batch.json')).toBe(false);
    expect(matches('outbox/b1/results.csv')).toBe(false);
  });

  it('a filled review file under answers/<batch-id>/ in the bucket starts the Answers workflow', () => {
    const { answersStartRule, answersWorkflow, answersStartDeadLetterQueue, batchStartDeadLetterQueue } =
      synth.built.pipeline;
    const properties = rule(answersStartRule);
    const bucketName = `<${logicalId(synth.built.stateful, synth.built.stateful.bucket)}>`;
    expect(properties.EventPattern).toMatchObject({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: { object: { key: ANSWERS_KEY_PATTERNS.map((wildcard) => ({ wildcard })) } },
    });
    expect(ANSWERS_KEY_PATTERNS).toEqual([
      'answers/*/*.csv',
      'answers/*/*.CSV',
      'answers/*/*.txt',
      'answers/*/*.TXT',
      'answers/*/*.tsv',
      'answers/*/*.TSV',
      'answers/*/*.xlsx',
      'answers/*/*.XLSX',
    ]);
    const detail = properties.EventPattern?.detail as { bucket: { name: unknown[] } };
    expect(detail.bucket.name.map((name) => renderReference(name, exports))).toEqual([bucketName]);
    expect(properties.Targets).toHaveLength(1);
    expect(properties.Targets[0]?.Arn).toEqual({ Ref: logicalId(synth.built.pipeline, answersWorkflow) });
    // The event itself is the input (PrepareAnswers reads bucket, key, version and requester).
    expect(properties.Targets[0]?.Input).toBeUndefined();
    expect(properties.Targets[0]?.RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: 24 * 3600,
      MaximumRetryAttempts: 185,
    });
    expect(properties.Targets[0]?.DeadLetterConfig?.Arn).toEqual({
      'Fn::GetAtt': [logicalId(synth.built.pipeline, answersStartDeadLetterQueue), 'Arn'],
    });
    expect(answersStartDeadLetterQueue).not.toBe(batchStartDeadLetterQueue);
    synth.pipeline.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('the answers patterns take a file one folder below answers/, and no inbox, outbox or sheet', () => {
    const matches = (patterns: readonly string[], key: string) =>
      patterns.some((pattern) =>
        new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`).test(key),
      );
    expect(matches(ANSWERS_KEY_PATTERNS, 'answers/nightly-0705-ab12/review.csv')).toBe(true);
    expect(matches(ANSWERS_KEY_PATTERNS, 'answers/b1/REVIEW.CSV')).toBe(true);
    expect(matches(ANSWERS_KEY_PATTERNS, 'answers/b1/review.xlsx')).toBe(true);
    expect(matches(ANSWERS_KEY_PATTERNS, 'answers/b1/review.XLSX')).toBe(true);
    expect(matches(ANSWERS_KEY_PATTERNS, 'answers/review.csv')).toBe(false);
    expect(matches(ANSWERS_KEY_PATTERNS, 'answers/b1/sheets/a.pdf')).toBe(false);
    expect(matches(ANSWERS_KEY_PATTERNS, 'inbox/nightly/products.csv')).toBe(false);
    expect(matches(ANSWERS_KEY_PATTERNS, 'outbox/b1/review.csv')).toBe(false);
    // The two rules never both fire for one object.
    expect(matches(INPUT_KEY_PATTERNS, 'answers/b1/review.csv')).toBe(false);
  });

  it('a Row workflow that failed, timed out or was aborted runs row-execution-ended', () => {
    const properties = rule(synth.built.pipeline.rowEndedRule);
    expect(properties.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {
        status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
        stateMachineArn: [{ Ref: logicalId(synth.built.pipeline, synth.built.pipeline.rowWorkflow) }],
      },
    });
    expect(properties.Targets.map((target) => target.Arn)).toEqual([
      { 'Fn::GetAtt': [functionIds['row-execution-ended'], 'Arn'] },
    ]);
  });

  it('the dispatcher runs every minute', () => {
    const properties = rule(synth.built.pipeline.dispatchScheduleRule);
    expect(properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(properties.Targets.map((target) => target.Arn)).toEqual([
      { 'Fn::GetAtt': [functionIds['dispatch-rows'], 'Arn'] },
    ]);
    expect(JSON.parse(properties.Targets[0]?.Input ?? '{}')).toEqual({ source: 'schedule' });
  });

  it('the review sweep runs once a day', () => {
    const properties = rule(synth.built.pipeline.reviewSweepRule);
    expect(properties.ScheduleExpression).toBe('rate(1 day)');
    expect(properties.Targets.map((target) => target.Arn)).toEqual([
      { 'Fn::GetAtt': [functionIds['sweep-reviews'], 'Arn'] },
    ]);
  });

  it('a table dropped under reference/ncm/, or a recheck leg handing on, runs recheck-verdicts', () => {
    const properties = rule(synth.built.pipeline.recheckVerdictsRule);
    expect(properties.EventPattern).toMatchObject({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: { object: { key: [{ prefix: 'reference/ncm/' }, { wildcard: 'work/rechecks/*.leg-*.json' }] } },
    });
    expect(properties.Targets.map((target) => target.Arn)).toEqual([
      { 'Fn::GetAtt': [functionIds['recheck-verdicts'], 'Arn'] },
    ]);
  });

  it("CloudTrail's record of a write into answers/ or inbox/ runs record-writer, retried for a day", () => {
    const properties = rule(synth.built.pipeline.recordWriterRule);
    expect(properties.EventPattern).toMatchObject({
      source: ['aws.s3'],
      'detail-type': ['AWS API Call via CloudTrail'],
      detail: {
        eventSource: ['s3.amazonaws.com'],
        eventName: ['PutObject', 'CopyObject', 'PostObject', 'CompleteMultipartUpload'],
        requestParameters: { key: [{ prefix: 'answers/' }, { prefix: 'inbox/' }] },
      },
    });
    expect(properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [functionIds['record-writer'], 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 86_400 },
      }),
    ]);
  });

  it('an object dropped under requests/ runs write-partial-results', () => {
    const properties = rule(synth.built.pipeline.partialResultsRequestRule);
    expect(properties.EventPattern).toMatchObject({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: { object: { key: [{ prefix: 'requests/' }] } },
    });
    expect(properties.Targets.map((target) => target.Arn)).toEqual([
      { 'Fn::GetAtt': [functionIds['write-partial-results'], 'Arn'] },
    ]);
  });
});

describe('pipeline stack: alarms', () => {
  const alarms = () =>
    resourcesOfType(json, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties ?? {});

  it('alarm on any message in any dead-letter queue (rows, batch start, answers start)', () => {
    const depth = alarms().filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible');
    expect(depth).toHaveLength(3);
    for (const alarm of depth) {
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('rows ending in error are counted from row-complete and row-execution-ended logs', () => {
    for (const name of ['row-complete', 'row-execution-ended'] as const) {
      synth.pipeline.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: {
          Ref: renderReference(functionProperties(name).LoggingConfig.LogGroup, exports).slice(1, -1),
        },
        FilterPattern: `{ $.${ALARM_LOG_FIELDS.rowStatus} = "error" }`,
        MetricTransformations: [
          {
            MetricNamespace: PIPELINE_METRICS.namespace,
            MetricName: PIPELINE_METRICS.rowsEndedInError,
            MetricValue: '1',
          },
        ],
      });
    }
    expect(alarms().filter((alarm) => alarm.MetricName === PIPELINE_METRICS.rowsEndedInError)).toHaveLength(
      1,
    );
  });

  it('leases held past their expiry are counted from the dispatcher logs', () => {
    synth.pipeline.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: {
        Ref: renderReference(functionProperties('dispatch-rows').LoggingConfig.LogGroup, exports).slice(
          1,
          -1,
        ),
      },
      FilterPattern: `{ $.${ALARM_LOG_FIELDS.leasesRecovered} > 0 }`,
      MetricTransformations: [
        {
          MetricNamespace: PIPELINE_METRICS.namespace,
          MetricName: PIPELINE_METRICS.leasesRecovered,
          MetricValue: `$.${ALARM_LOG_FIELDS.leasesRecovered}`,
        },
      ],
    });
    expect(alarms().filter((alarm) => alarm.MetricName === PIPELINE_METRICS.leasesRecovered)).toHaveLength(1);
  });

  it('workflow failures and Lambda errors alarm too, and every alarm emails through an encrypted topic', () => {
    const all = alarms();
    expect(all).toHaveLength(10);
    const noticesTopicId = logicalId(synth.built.pipeline, synth.built.pipeline.noticesTopic);
    const topics = resourcesOfType(json, 'AWS::SNS::Topic').filter(([id]) => id !== noticesTopicId);
    expect(topics).toHaveLength(1);
    const [topicId, topic] = topics[0] ?? [];
    expect(topic?.Properties?.KmsMasterKeyId).toBeDefined();
    for (const alarm of all) expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
    synth.pipeline.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: TEST_CONTEXT.alarmEmail,
    });
    synth.pipeline.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    synth.pipeline.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: Match.stringLikeRegexp('FILL\\(e0, 0\\)') })]),
      Threshold: 5,
    });
  });

  it('the topic of notices is always there, encrypted, TLS only, emailing each configured address', () => {
    const noticesTopicId = logicalId(synth.built.pipeline, synth.built.pipeline.noticesTopic);
    // The AWS managed key, by its alias's ARN: publishers need no key grant for it.
    expect(JSON.stringify(json.Resources[noticesTopicId]?.Properties?.KmsMasterKeyId)).toContain(
      ':alias/aws/sns',
    );
    const subscriptions = resourcesOfType(json, 'AWS::SNS::Subscription')
      .map(([, resource]) => resource.Properties)
      .filter((p) => JSON.stringify(p?.TopicArn) === JSON.stringify({ Ref: noticesTopicId }));
    expect(subscriptions.map((p) => [p?.Protocol, p?.Endpoint])).toEqual(
      TEST_CONTEXT.noticeEmails.map((address) => ['email', address]),
    );
    synth.pipeline.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: noticesTopicId }],
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      }),
    });
    synth.pipeline.hasOutput('NoticesTopicArn', { Value: { Ref: noticesTopicId } });
    expect(functionProperties('sweep-reviews').Environment.Variables.QUESTION_REMINDER_DAY).toBe(
      String(TEST_CONTEXT.questionReminderDay),
    );
  });

  it('a failed, timed out or aborted Answers workflow alarms', () => {
    const answersWorkflow = logicalId(synth.built.pipeline, synth.built.pipeline.answersWorkflow);
    const watched = alarms().filter((alarm) =>
      JSON.stringify(alarm.Metrics ?? []).includes(`"Ref":"${answersWorkflow}"`),
    );
    expect(watched).toHaveLength(1);
    const metrics = (watched[0]?.Metrics ?? []) as { MetricStat?: { Metric: { MetricName: string } } }[];
    expect(
      metrics.flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric.MetricName] : [])).sort(),
    ).toEqual(['ExecutionsAborted', 'ExecutionsFailed', 'ExecutionsTimedOut']);
  });

  it("Lambda errors of every function are summed, each alarm within CloudWatch's ten metrics", () => {
    const errorAlarms = alarms().filter((alarm) => JSON.stringify(alarm.Metrics ?? []).includes('"Errors"'));
    expect(errorAlarms).toHaveLength(2);
    const summed: string[] = [];
    for (const alarm of errorAlarms) {
      const metrics = (alarm.Metrics ?? []) as {
        MetricStat?: { Metric: { MetricName: string; Dimensions: { Value: { Ref: string } }[] } };
      }[];
      const stats = metrics.flatMap((metric) => (metric.MetricStat ? [metric.MetricStat] : []));
      expect(stats.length).toBeLessThanOrEqual(10);
      for (const stat of stats) {
        expect(stat.Metric.MetricName).toBe('Errors');
        summed.push(stat.Metric.Dimensions[0]?.Value.Ref ?? '');
      }
    }
    expect(summed.sort()).toEqual(HANDLER_NAMES.map((name) => functionIds[name]).sort());
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
