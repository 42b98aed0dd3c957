/**
 * What a request to an AWS API asks IAM for: the actions and the resources it is authorized
 * against, as the Service Authorization Reference lists them for each operation the functions
 * call (and the ones around them, so a new call is checked too, not waved through).
 *
 *   DynamoDB   x-amz-target DynamoDB_20120810.<Op>    dynamodb:<Op> on table/<T>[/index/<I>], one per table of a batch
 *   SQS        x-amz-target AmazonSQS.<Op>            sqs:<Op> on the queue (…Batch → the single action)
 *   Steps      x-amz-target AWSStepFunctions.<Op>     states:<Op> on the state machine or execution
 *   Secrets    x-amz-target secretsmanager.<Op>       secretsmanager:<Op> on the secret
 *   Events     x-amz-target AWSEvents.<Op>            events:<Op> on each entry's bus
 *   Lambda     POST /2015-03-31/functions/<f>/invocations   lambda:InvokeFunction on the function
 *   SNS        POST / Action=Publish (Query protocol)      sns:Publish on the topic
 *   S3         REST, path style                       s3:GetObject, PutObject, ListBucket, … on the bucket or object
 *
 * An operation this file does not know is refused by the gate rather than let through.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../template.js';

export type RequestedAction = {
  action: string;
  resource: string;
  /** Request context keys IAM fills in for this action (condition keys). */
  context?: Record<string, string | string[]>;
};

export type ApiRequest = {
  method: string;
  /** The path, percent-decoded per segment. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body, for the JSON protocols and S3's form uploads; null when not read. */
  body: Buffer | null;
};

/** What the gate knows of the local resources, to name a request's resource by its ARN. */
export type ResourceNames = {
  /** The state machine whose execution issued a task token; null for a token never issued. */
  stateMachineOfTaskToken(token: string): string | null;
};

export class UnknownOperationError extends Error {
  override readonly name = 'UnknownOperationError';
}

const arn = (service: string, resource: string) =>
  `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${resource}`;

const jsonBody = (request: ApiRequest): Record<string, unknown> => {
  if (!request.body || request.body.length === 0) return {};
  try {
    const parsed = JSON.parse(request.body.toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `DynamoDB_20120810.PutItem` → `PutItem`, when the target's prefix is the service's. */
const operationOf = (request: ApiRequest, prefix: string): string | null => {
  const target = request.headers['x-amz-target'];
  if (typeof target !== 'string' || !target.startsWith(`${prefix}.`)) return null;
  return target.slice(prefix.length + 1);
};

const tableArn = (table: string, index?: string) =>
  arn('dynamodb', `table/${table}${index ? `/index/${index}` : ''}`);

const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

const dynamodbActions = (operation: string, body: Record<string, unknown>): RequestedAction[] => {
  switch (operation) {
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys((body.RequestItems as Record<string, unknown>) ?? {}).map((table) => ({
        action: `dynamodb:${operation}`,
        resource: tableArn(table),
      }));
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return ((body.TransactItems as Record<string, Record<string, unknown>>[]) ?? []).flatMap((item) =>
        Object.entries(item).map(([kind, detail]) => ({
          action: `dynamodb:${TRANSACT_ACTIONS[kind] ?? kind}`,
          resource: tableArn(text(detail?.TableName)),
        })),
      );
    case 'Query':
    case 'Scan':
      return [
        {
          action: `dynamodb:${operation}`,
          resource: tableArn(text(body.TableName), text(body.IndexName) || undefined),
        },
      ];
    default:
      if (typeof body.TableName !== 'string') throw new UnknownOperationError(`DynamoDB ${operation}`);
      return [{ action: `dynamodb:${operation}`, resource: tableArn(body.TableName) }];
  }
};

/** `…/000000000000/<queue>` (the URL or its path) → the queue's ARN. */
const queueArnOfUrl = (url: string) => arn('sqs', url.split('/').filter(Boolean).at(-1) ?? '');

const SQS_BATCH_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

const sqsActions = (operation: string, body: Record<string, unknown>): RequestedAction[] => {
  const action = `sqs:${SQS_BATCH_ACTIONS[operation] ?? operation}`;
  if (operation === 'GetQueueUrl') return [{ action, resource: arn('sqs', text(body.QueueName)) }];
  if (typeof body.QueueUrl !== 'string') throw new UnknownOperationError(`SQS ${operation}`);
  return [{ action, resource: queueArnOfUrl(body.QueueUrl) }];
};

const TASK_TOKEN_OPERATIONS = new Set(['SendTaskSuccess', 'SendTaskFailure', 'SendTaskHeartbeat']);

const stepFunctionsActions = (
  operation: string,
  body: Record<string, unknown>,
  names: ResourceNames,
): RequestedAction[] => {
  const action = `states:${operation}`;
  if (TASK_TOKEN_OPERATIONS.has(operation)) {
    // The reference lists no resource type for these, yet Step Functions authorizes them against
    // the state machine whose execution issued the token (its AccessDenied names that ARN), which
    // is what a grant scoped to the workflows relies on.
    const machine = names.stateMachineOfTaskToken(text(body.taskToken));
    return [{ action, resource: machine ?? '*' }];
  }
  for (const member of ['stateMachineArn', 'executionArn']) {
    if (typeof body[member] === 'string') return [{ action, resource: body[member] as string }];
  }
  throw new UnknownOperationError(`Step Functions ${operation}`);
};

const secretsManagerActions = (operation: string, body: Record<string, unknown>): RequestedAction[] => {
  const id = text(body.SecretId);
  if (!id) throw new UnknownOperationError(`Secrets Manager ${operation}`);
  return [
    {
      action: `secretsmanager:${operation}`,
      resource: id.startsWith('arn:') ? id : arn('secretsmanager', `secret:${id}`),
    },
  ];
};

const busArn = (bus: string) =>
  bus.startsWith('arn:') ? bus : arn('events', `event-bus/${bus || 'default'}`);

const eventBridgeActions = (operation: string, body: Record<string, unknown>): RequestedAction[] => {
  if (operation === 'PutEvents') {
    const entries = (body.Entries as Record<string, unknown>[]) ?? [];
    const buses = new Set(entries.map((entry) => busArn(text(entry.EventBusName))));
    return [...buses].map((resource) => ({ action: 'events:PutEvents', resource }));
  }
  throw new UnknownOperationError(`EventBridge ${operation}`);
};

const LAMBDA_INVOKE = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

const lambdaActions = (request: ApiRequest): RequestedAction[] => {
  const match = LAMBDA_INVOKE.exec(request.path);
  if (!match?.[1] || request.method !== 'POST') {
    throw new UnknownOperationError(`Lambda ${request.method} ${request.path}`);
  }
  const name = match[1];
  const qualifier = request.query.get('Qualifier');
  const base = name.startsWith('arn:') ? name : arn('lambda', `function:${name}`);
  return [{ action: 'lambda:InvokeFunction', resource: qualifier ? `${base}:${qualifier}` : base }];
};

/** SNS speaks the Query protocol: a form-encoded POST to `/`, its operation in `Action`. */
const snsActions = (request: ApiRequest): RequestedAction[] | null => {
  const type = String(request.headers['content-type'] ?? '');
  if (
    request.method !== 'POST' ||
    request.path !== '/' ||
    !type.startsWith('application/x-www-form-urlencoded')
  )
    return null;
  const form = new URLSearchParams(request.body?.toString('utf8') ?? '');
  const action = form.get('Action');
  if (action !== 'Publish') throw new UnknownOperationError(`SNS ${action ?? 'with no Action'}`);
  return [{ action: 'sns:Publish', resource: form.get('TopicArn') ?? '' }];
};

/** The bucket and key of a path-style request: `/<bucket>/<key…>`. */
const bucketAndKey = (path: string): { bucket: string; key: string } => {
  const [, bucket = '', ...rest] = path.split('/');
  return { bucket, key: rest.join('/') };
};

/** `x-amz-copy-source: /bucket/key?versionId=…` (URL-encoded) → what the copy reads. */
const copySource = (header: string): RequestedAction => {
  const [source = '', query = ''] = header.split('?');
  const decoded = decodeURIComponent(source).replace(/^\//, '');
  const versioned = new URLSearchParams(query).has('versionId');
  return { action: versioned ? 's3:GetObjectVersion' : 's3:GetObject', resource: `arn:aws:s3:::${decoded}` };
};

/** A write that sets an Object Lock retention also needs s3:PutObjectRetention on the object. */
const retention = (headers: ApiRequest['headers'], objectArn: string): RequestedAction[] =>
  headers['x-amz-object-lock-mode'] !== undefined ||
  headers['x-amz-object-lock-retain-until-date'] !== undefined
    ? [{ action: 's3:PutObjectRetention', resource: objectArn }]
    : [];

/**
 * S3 REST calls, path style. A form upload (POST to the bucket) is authorized for the key its
 * form names: `formKey` is read from the form's fields by the gate.
 */
export const s3Actions = (request: ApiRequest, formKey: string | null = null): RequestedAction[] => {
  const { method, query, headers } = request;
  const { bucket, key } = bucketAndKey(request.path);
  if (!bucket) throw new UnknownOperationError(`S3 ${method} ${request.path}`);
  const bucketArn = `arn:aws:s3:::${bucket}`;
  const objectArn = `${bucketArn}/${key}`;
  if (!key) {
    if (method === 'POST' && formKey !== null)
      return [{ action: 's3:PutObject', resource: `${bucketArn}/${formKey}` }];
    if (
      (method === 'GET' || method === 'HEAD') &&
      [...query.keys()].every((name) => LIST_PARAMETERS.has(name))
    ) {
      return [
        {
          action: query.has('versions') ? 's3:ListBucketVersions' : 's3:ListBucket',
          resource: bucketArn,
          context: { 's3:prefix': query.get('prefix') ?? '' },
        },
      ];
    }
    throw new UnknownOperationError(
      `S3 ${method} on the bucket (${[...query.keys()].join(', ') || 'no query'})`,
    );
  }
  const versioned = query.has('versionId');
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (query.has('tagging'))
        return [
          { action: versioned ? 's3:GetObjectVersionTagging' : 's3:GetObjectTagging', resource: objectArn },
        ];
      return [{ action: versioned ? 's3:GetObjectVersion' : 's3:GetObject', resource: objectArn }];
    case 'PUT': {
      if (query.has('tagging')) return [{ action: 's3:PutObjectTagging', resource: objectArn }];
      const put: RequestedAction = { action: 's3:PutObject', resource: objectArn };
      const source = headers['x-amz-copy-source'];
      return [
        put,
        ...(typeof source === 'string' ? [copySource(source)] : []),
        ...retention(headers, objectArn),
      ];
    }
    case 'POST':
      // CreateMultipartUpload (?uploads) and CompleteMultipartUpload (?uploadId) are PutObject.
      if (query.has('uploads') || query.has('uploadId'))
        return [{ action: 's3:PutObject', resource: objectArn }, ...retention(headers, objectArn)];
      break;
    case 'DELETE':
      if (query.has('uploadId')) return [{ action: 's3:AbortMultipartUpload', resource: objectArn }];
      return [{ action: versioned ? 's3:DeleteObjectVersion' : 's3:DeleteObject', resource: objectArn }];
  }
  throw new UnknownOperationError(`S3 ${method} ${[...query.keys()].join(', ')}`);
};

/** The query parameters of ListObjects(V2) and ListObjectVersions. */
const LIST_PARAMETERS = new Set([
  'list-type',
  'prefix',
  'delimiter',
  'continuation-token',
  'start-after',
  'max-keys',
  'marker',
  'encoding-type',
  'fetch-owner',
  'versions',
  'key-marker',
  'version-id-marker',
  'x-id',
]);

/** The services behind the local/aws origin, by their x-amz-target prefix. */
const JSON_SERVICES = [
  { prefix: 'AmazonSQS', actions: sqsActions },
  { prefix: 'secretsmanager', actions: secretsManagerActions },
  { prefix: 'AWSEvents', actions: eventBridgeActions },
] as const;

/** A request to the local/aws origin (SQS, Step Functions, Secrets Manager, EventBridge, Lambda). */
export const localAwsActions = (request: ApiRequest, names: ResourceNames): RequestedAction[] => {
  const body = jsonBody(request);
  const steps = operationOf(request, 'AWSStepFunctions');
  if (steps) return stepFunctionsActions(steps, body, names);
  for (const service of JSON_SERVICES) {
    const operation = operationOf(request, service.prefix);
    if (operation) return service.actions(operation, body);
  }
  return snsActions(request) ?? lambdaActions(request);
};

export const dynamodbRequestActions = (request: ApiRequest): RequestedAction[] => {
  const operation = operationOf(request, 'DynamoDB_20120810');
  if (!operation) throw new UnknownOperationError(`DynamoDB ${request.method} ${request.path}`);
  return dynamodbActions(operation, jsonBody(request));
};
