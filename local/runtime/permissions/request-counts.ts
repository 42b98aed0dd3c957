/**
 * How many requests each function made to the stand-ins, by service and API operation, counted
 * as they pass the permission gate (the benchmark reports DynamoDB and S3 requests per row).
 *
 * A request is named here by the operation the SDK called, not by its IAM action: IAM calls a
 * CopyObject `s3:PutObject` plus `s3:GetObject`, and an UploadPart or a HeadObject plain
 * `s3:PutObject` or `s3:GetObject`, which would hide what a request costs. Naming never throws:
 * an operation nobody listed is counted under its method and query, and the gate decides as
 * it would without the count.
 */
import type { ApiRequest } from './requested-actions.js';

/** The protocol family behind a gate (permission-gate.ts's `GateProtocol`). */
type Protocol = 'dynamodb' | 's3' | 'local-aws';

export type ApiOperation = { service: string; operation: string };

export type RequestCount = ApiOperation & { function: string; count: number };

/** The JSON services behind local/aws, by their x-amz-target prefix. */
const TARGET_SERVICES: Record<string, string> = {
  DynamoDB_20120810: 'DynamoDB',
  AmazonSQS: 'SQS',
  AWSStepFunctions: 'StepFunctions',
  secretsmanager: 'SecretsManager',
  AWSEvents: 'EventBridge',
};

const headerText = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? (value[0] ?? '') : (value ?? '');

/** An operation no rule below names: its method and query parameters, still counted. */
const unnamed = (request: ApiRequest): string =>
  [request.method, ...[...request.query.keys()].filter((name) => name !== 'x-id')].join(' ');

/** Path-style S3 REST: `/<bucket>` or `/<bucket>/<key…>`. */
const s3Operation = (request: ApiRequest, isFormUpload: boolean): string => {
  const { method, query, headers } = request;
  const [, , ...key] = request.path.split('/');
  const hasKey = key.join('/') !== '';
  const copies = headerText(headers['x-amz-copy-source']) !== '';
  if (!hasKey) {
    if (method === 'POST' && isFormUpload) return 'PostObject';
    if (method === 'POST' && query.has('delete')) return 'DeleteObjects';
    if (method === 'GET' && query.has('versions')) return 'ListObjectVersions';
    if (method === 'GET') return query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects';
    if (method === 'HEAD') return 'HeadBucket';
    return unnamed(request);
  }
  switch (method) {
    case 'GET':
      return query.has('tagging') ? 'GetObjectTagging' : 'GetObject';
    case 'HEAD':
      return 'HeadObject';
    case 'PUT':
      if (query.has('tagging')) return 'PutObjectTagging';
      if (query.has('partNumber') && query.has('uploadId')) return copies ? 'UploadPartCopy' : 'UploadPart';
      return copies ? 'CopyObject' : 'PutObject';
    case 'POST':
      if (query.has('uploads')) return 'CreateMultipartUpload';
      if (query.has('uploadId')) return 'CompleteMultipartUpload';
      return unnamed(request);
    case 'DELETE':
      return query.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    default:
      return unnamed(request);
  }
};

/** The service and operation a request to a gate's stand-in calls. */
export const apiOperationOf = (
  protocol: Protocol,
  request: ApiRequest,
  isFormUpload = false,
): ApiOperation => {
  if (protocol === 's3') return { service: 'S3', operation: s3Operation(request, isFormUpload) };
  const target = headerText(request.headers['x-amz-target']);
  const dot = target.indexOf('.');
  const service = dot > 0 ? TARGET_SERVICES[target.slice(0, dot)] : undefined;
  if (service) return { service, operation: target.slice(dot + 1) };
  if (protocol === 'local-aws' && /^\/2015-03-31\/functions\/[^/]+\/invocations$/.test(request.path))
    return { service: 'Lambda', operation: 'Invoke' };
  // SNS's Query protocol names its operation in the form body.
  if (protocol === 'local-aws' && request.method === 'POST' && request.path === '/' && request.body) {
    const action = new URLSearchParams(request.body.toString('utf8')).get('Action');
    if (action) return { service: 'SNS', operation: action };
  }
  return { service: protocol === 'dynamodb' ? 'DynamoDB' : 'unknown', operation: unnamed(request) };
};

export type RequestCounts = {
  record(functionName: string, called: ApiOperation): void;
  /** Every (function, service, operation) counted since the start or the last reset, sorted. */
  snapshot(): RequestCount[];
  /** Counts from zero again (the bench's next night). */
  reset(): void;
};

export const createRequestCounts = (): RequestCounts => {
  const counts = new Map<string, RequestCount>();
  return {
    record: (functionName, { service, operation }) => {
      const key = `${functionName}\u0000${service}\u0000${operation}`;
      const found = counts.get(key);
      if (found) found.count += 1;
      else counts.set(key, { function: functionName, service, operation, count: 1 });
    },
    snapshot: () =>
      [...counts.values()]
        .map((count) => ({ ...count }))
        .sort(
          (a, b) =>
            a.function.localeCompare(b.function) ||
            a.service.localeCompare(b.service) ||
            a.operation.localeCompare(b.operation),
        ),
    reset: () => counts.clear(),
  };
};
