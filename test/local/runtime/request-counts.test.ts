/**
 * The requests each function makes, counted at the permission gate by the API operation the SDK
 * called (the benchmark's requests per row): how a request is named, and a gate in front of real
 * stand-ins (dynalite, s3rver) counting allowed and denied calls alike without changing what it
 * decides, leaving the runtime's own unsigned calls out, and counting from zero after a reset.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../../local/runtime/loopback.js';
import { createGrantUsage } from '../../../local/runtime/permissions/grant-usage.js';
import { startPermissionGate } from '../../../local/runtime/permissions/permission-gate.js';
import { createPolicyCheck } from '../../../local/runtime/permissions/policy-check.js';
import {
  apiOperationOf,
  createRequestCounts,
  type RequestCounts,
} from '../../../local/runtime/permissions/request-counts.js';
import {
  type ApiRequest,
  dynamodbRequestActions,
  s3Actions,
} from '../../../local/runtime/permissions/requested-actions.js';
import type { FunctionRole } from '../../../local/runtime/permissions/role-policies.js';
import {
  ensureTables,
  type RunningS3,
  type RunningServer,
  startDynamo,
  startS3,
} from '../../../local/runtime/stand-ins.js';

const rest = (method: string, pathAndQuery: string, headers: Record<string, string> = {}): ApiRequest => {
  const url = new URL(pathAndQuery, 'http://local');
  return { method, path: decodeURIComponent(url.pathname), query: url.searchParams, headers, body: null };
};

const json = (target: string, path = '/'): ApiRequest => ({
  method: 'POST',
  path,
  query: new URLSearchParams(),
  headers: { 'x-amz-target': target },
  body: Buffer.from('{}'),
});

describe('naming a request by its API operation', () => {
  it('tells apart the S3 calls IAM names alike', () => {
    const copy = { 'x-amz-copy-source': '/b/outbox/a.pdf' };
    const named = [
      rest('GET', '/b/outbox/a.pdf?x-id=GetObject'),
      rest('HEAD', '/b/outbox/a.pdf'),
      rest('PUT', '/b/outbox/a.pdf?x-id=PutObject'),
      rest('PUT', '/b/outbox/b.pdf?x-id=CopyObject', copy),
      rest('POST', '/b/outbox/big.csv?uploads'),
      rest('PUT', '/b/outbox/big.csv?partNumber=1&uploadId=u'),
      rest('PUT', '/b/outbox/big.csv?partNumber=2&uploadId=u', copy),
      rest('POST', '/b/outbox/big.csv?uploadId=u'),
      rest('DELETE', '/b/outbox/big.csv?uploadId=u'),
      rest('DELETE', '/b/outbox/a.pdf'),
      rest('GET', '/b?list-type=2&prefix=outbox%2F'),
      rest('GET', '/b/outbox/a.pdf?tagging'),
    ].map((request) => apiOperationOf('s3', request).operation);
    expect(named).toEqual([
      'GetObject',
      'HeadObject',
      'PutObject',
      'CopyObject',
      'CreateMultipartUpload',
      'UploadPart',
      'UploadPartCopy',
      'CompleteMultipartUpload',
      'AbortMultipartUpload',
      'DeleteObject',
      'ListObjectsV2',
      'GetObjectTagging',
    ]);
    expect(apiOperationOf('s3', rest('POST', '/b'), true)).toEqual({
      service: 'S3',
      operation: 'PostObject',
    });
  });

  it('names the JSON services by their target, Lambda by its path, and counts what it cannot name', () => {
    expect(apiOperationOf('dynamodb', json('DynamoDB_20120810.BatchWriteItem'))).toEqual({
      service: 'DynamoDB',
      operation: 'BatchWriteItem',
    });
    expect(apiOperationOf('local-aws', json('AmazonSQS.SendMessageBatch'))).toEqual({
      service: 'SQS',
      operation: 'SendMessageBatch',
    });
    expect(apiOperationOf('local-aws', json('AWSStepFunctions.SendTaskSuccess')).service).toBe(
      'StepFunctions',
    );
    expect(
      apiOperationOf('local-aws', rest('POST', '/2015-03-31/functions/dispatch-rows/invocations')),
    ).toEqual({ service: 'Lambda', operation: 'Invoke' });
    expect(apiOperationOf('s3', rest('PUT', '/b?policy'))).toEqual({
      service: 'S3',
      operation: 'PUT policy',
    });
  });
});

describe('the counts', () => {
  it('adds up by function, service and operation, sorted, and start again from zero after a reset', () => {
    const counts = createRequestCounts();
    counts.record('row-store', { service: 'S3', operation: 'PutObject' });
    counts.record('prepare-batch', { service: 'DynamoDB', operation: 'BatchWriteItem' });
    counts.record('row-store', { service: 'S3', operation: 'PutObject' });
    counts.record('row-store', { service: 'DynamoDB', operation: 'UpdateItem' });
    expect(counts.snapshot()).toEqual([
      { function: 'prepare-batch', service: 'DynamoDB', operation: 'BatchWriteItem', count: 1 },
      { function: 'row-store', service: 'DynamoDB', operation: 'UpdateItem', count: 1 },
      { function: 'row-store', service: 'S3', operation: 'PutObject', count: 2 },
    ]);
    counts.reset();
    expect(counts.snapshot()).toEqual([]);
  });
});

describe('a gate counting in front of real stand-ins', () => {
  const TOKEN = 'session-of-row-store';
  const dataDir = mkdtempSync(join(tmpdir(), 'request-counts-'));
  const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/Things';
  const gateRole: FunctionRole = {
    functionName: 'row-store',
    roleName: 'Pipeline-RowStoreRole',
    principalArn: 'arn:aws:sts::000000000000:assumed-role/Pipeline-RowStoreRole/row-store',
    policies: [
      {
        name: 'RowStoreDefaultPolicy',
        document: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: table },
            {
              Effect: 'Allow',
              Action: ['s3:GetObject', 's3:PutObject', 's3:ListBucket'],
              Resource: ['arn:aws:s3:::count-bucket', 'arn:aws:s3:::count-bucket/outbox/*'],
            },
          ],
        },
      },
    ],
    managedPolicyArns: [],
  };
  let counts: RequestCounts;
  let dynamo: RunningServer;
  let s3: RunningS3;
  let gates: RunningServer[] = [];
  const clients: { dynamo?: DynamoDBClient; s3?: S3Client; unsigned?: S3Client } = {};

  const s3Client = (endpoint: string | undefined, sessionToken?: string) =>
    new S3Client({
      region: 'us-east-1',
      credentials: { ...LOCAL_CREDENTIALS, ...(sessionToken ? { sessionToken } : {}) },
      endpoint,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });

  beforeAll(async () => {
    dynamo = await startDynamo(dataDir);
    s3 = await startS3(dataDir, ['count-bucket']);
    counts = createRequestCounts();
    const common = {
      roleOfSession: (token: string) => (token === TOKEN ? gateRole : null),
      check: createPolicyCheck({ byResourceArn: new Map() }),
      usage: createGrantUsage([gateRole]),
      counts,
      log: () => undefined,
    };
    gates = [
      await startPermissionGate({
        ...common,
        protocol: 'dynamodb',
        upstream: dynamo.endpoint,
        actionsOf: dynamodbRequestActions,
      }),
      await startPermissionGate({ ...common, protocol: 's3', upstream: s3.endpoint, actionsOf: s3Actions }),
    ];
    const admin = new DynamoDBClient({
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      endpoint: dynamo.endpoint,
    });
    await ensureTables(admin, [
      {
        name: 'Things',
        attributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        keySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        globalSecondaryIndexes: [],
        localSecondaryIndexes: [],
      },
    ]);
    admin.destroy();
    clients.dynamo = new DynamoDBClient({
      region: 'us-east-1',
      credentials: { ...LOCAL_CREDENTIALS, sessionToken: TOKEN },
      endpoint: gates[0]?.endpoint,
    });
    clients.s3 = s3Client(gates[1]?.endpoint, TOKEN);
    clients.unsigned = s3Client(gates[1]?.endpoint);
  });
  afterAll(async () => {
    for (const client of Object.values(clients)) client?.destroy();
    await Promise.all(gates.map((gate) => gate.close()));
    await s3?.close();
    await dynamo?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("counts every call a function makes, a denied one too, and leaves the gate's answers as they were", async () => {
    const { dynamo: db, s3: objects, unsigned } = clients as Required<typeof clients>;
    // Arrange: the runtime's own call (no function's token) goes through unchecked and uncounted.
    await unsigned.send(new PutObjectCommand({ Bucket: 'count-bucket', Key: 'outbox/a.pdf', Body: 'pdf' }));

    // Act
    await db.send(new GetItemCommand({ TableName: 'Things', Key: { pk: { S: 'a' } } }));
    await db.send(
      new QueryCommand({
        TableName: 'Things',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'a' } },
      }),
    );
    const denied = await db.send(new PutItemCommand({ TableName: 'Things', Item: { pk: { S: 'a' } } })).then(
      () => null,
      (error: unknown) => error,
    );
    await objects.send(new HeadObjectCommand({ Bucket: 'count-bucket', Key: 'outbox/a.pdf' }));
    await objects.send(
      new CopyObjectCommand({
        Bucket: 'count-bucket',
        Key: 'outbox/b.pdf',
        CopySource: 'count-bucket/outbox/a.pdf',
      }),
    );
    const copied = await objects.send(new GetObjectCommand({ Bucket: 'count-bucket', Key: 'outbox/b.pdf' }));

    // Assert
    expect(denied).toMatchObject({ name: 'AccessDeniedException' });
    expect(await copied.Body?.transformToString()).toBe('pdf');
    expect(counts.snapshot()).toEqual([
      { function: 'row-store', service: 'DynamoDB', operation: 'GetItem', count: 1 },
      { function: 'row-store', service: 'DynamoDB', operation: 'PutItem', count: 1 },
      { function: 'row-store', service: 'DynamoDB', operation: 'Query', count: 1 },
      { function: 'row-store', service: 'S3', operation: 'CopyObject', count: 1 },
      { function: 'row-store', service: 'S3', operation: 'GetObject', count: 1 },
      { function: 'row-store', service: 'S3', operation: 'HeadObject', count: 1 },
    ]);
  });

  it('counts from zero after a reset', async () => {
    counts.reset();
    await clients.s3?.send(new PutObjectCommand({ Bucket: 'count-bucket', Key: 'outbox/c.pdf', Body: 'c' }));
    expect(counts.snapshot()).toEqual([
      { function: 'row-store', service: 'S3', operation: 'PutObject', count: 1 },
    ]);
  });
});
