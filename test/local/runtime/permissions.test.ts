/**
 * IAM played locally: what each request asks IAM for (the Service Authorization Reference's
 * actions and resources), how the evaluator decides it against a role and a resource policy,
 * and the gate in front of real stand-ins (dynalite, s3rver): an allowed call goes through
 * signed as it was, a denied one gets the service's AccessDenied as the SDK raises it, and a
 * missing key is a 404 only to a caller that may list the bucket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CopyObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../../local/runtime/loopback.js';
import { createGrantUsage, grantKey, unusedGrants } from '../../../local/runtime/permissions/grant-usage.js';
import { machineUserArn, type ObjectWritten } from '../../../local/runtime/permissions/object-writes.js';
import { startPermissionGate } from '../../../local/runtime/permissions/permission-gate.js';
import { actionMatches, createPolicyCheck } from '../../../local/runtime/permissions/policy-check.js';
import {
  type ApiRequest,
  dynamodbRequestActions,
  localAwsActions,
  s3Actions,
  UnknownOperationError,
} from '../../../local/runtime/permissions/requested-actions.js';
import type { FunctionRole, PolicyDocument } from '../../../local/runtime/permissions/role-policies.js';
import {
  ensureTables,
  type RunningS3,
  type RunningServer,
  startDynamo,
  startS3,
} from '../../../local/runtime/stand-ins.js';

const ARN = 'arn:aws:%s:us-east-1:000000000000:';
const arn = (service: string, rest: string) => ARN.replace('%s', service) + rest;

const jsonRequest = (target: string, body: unknown, path = '/'): ApiRequest => ({
  method: 'POST',
  path,
  query: new URLSearchParams(),
  headers: { 'x-amz-target': target },
  body: Buffer.from(JSON.stringify(body)),
});

const restRequest = (
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
): ApiRequest => {
  const url = new URL(pathAndQuery, 'http://local');
  return { method, path: decodeURIComponent(url.pathname), query: url.searchParams, headers, body: null };
};

const noTokens = { stateMachineOfTaskToken: () => null };

describe('what a request asks IAM for', () => {
  it('names DynamoDB actions on the table, the index, and every table of a batch', () => {
    expect(dynamodbRequestActions(jsonRequest('DynamoDB_20120810.GetItem', { TableName: 'T' }))).toEqual([
      { action: 'dynamodb:GetItem', resource: arn('dynamodb', 'table/T') },
    ]);
    expect(
      dynamodbRequestActions(
        jsonRequest('DynamoDB_20120810.Query', { TableName: 'T', IndexName: 'by-batch' }),
      ),
    ).toEqual([{ action: 'dynamodb:Query', resource: arn('dynamodb', 'table/T/index/by-batch') }]);
    expect(
      dynamodbRequestActions(
        jsonRequest('DynamoDB_20120810.BatchWriteItem', { RequestItems: { A: [], B: [] } }),
      ),
    ).toEqual([
      { action: 'dynamodb:BatchWriteItem', resource: arn('dynamodb', 'table/A') },
      { action: 'dynamodb:BatchWriteItem', resource: arn('dynamodb', 'table/B') },
    ]);
    expect(
      dynamodbRequestActions(
        jsonRequest('DynamoDB_20120810.TransactWriteItems', {
          TransactItems: [{ Put: { TableName: 'A' } }, { ConditionCheck: { TableName: 'B' } }],
        }),
      ).map((asked) => asked.action),
    ).toEqual(['dynamodb:PutItem', 'dynamodb:ConditionCheckItem']);
  });

  it('names SQS batches by their single action, queues by their URL, and task tokens by their workflow', () => {
    const queueUrl = 'http://127.0.0.1:9/000000000000/rows';
    expect(
      localAwsActions(jsonRequest('AmazonSQS.SendMessageBatch', { QueueUrl: queueUrl }), noTokens),
    ).toEqual([{ action: 'sqs:SendMessage', resource: arn('sqs', 'rows') }]);
    const machine = arn('states', 'stateMachine:batch');
    expect(
      localAwsActions(jsonRequest('AWSStepFunctions.SendTaskSuccess', { taskToken: 't' }), {
        stateMachineOfTaskToken: (token) => (token === 't' ? machine : null),
      }),
    ).toEqual([{ action: 'states:SendTaskSuccess', resource: machine }]);
    expect(
      localAwsActions(
        jsonRequest('AWSEvents.PutEvents', { Entries: [{ Source: 'x' }, { EventBusName: 'default' }] }),
        noTokens,
      ),
    ).toEqual([{ action: 'events:PutEvents', resource: arn('events', 'event-bus/default') }]);
    expect(
      localAwsActions(restRequest('POST', '/2015-03-31/functions/dispatch-rows/invocations'), noTokens),
    ).toEqual([{ action: 'lambda:InvokeFunction', resource: arn('lambda', 'function:dispatch-rows') }]);
  });

  it('names S3 object, copy, listing and form-upload actions, and refuses an operation it does not know', () => {
    expect(s3Actions(restRequest('GET', '/b/inbox/a%20b.csv?x-id=GetObject'))).toEqual([
      { action: 's3:GetObject', resource: 'arn:aws:s3:::b/inbox/a b.csv' },
    ]);
    expect(
      s3Actions(
        restRequest('PUT', '/b/outbox/x.pdf', { 'x-amz-copy-source': '/b/outbox/old%20x.pdf?versionId=3' }),
      ),
    ).toEqual([
      { action: 's3:PutObject', resource: 'arn:aws:s3:::b/outbox/x.pdf' },
      { action: 's3:GetObjectVersion', resource: 'arn:aws:s3:::b/outbox/old x.pdf' },
    ]);
    expect(s3Actions(restRequest('GET', '/b?list-type=2&prefix=outbox%2F'))).toEqual([
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::b', context: { 's3:prefix': 'outbox/' } },
    ]);
    expect(s3Actions(restRequest('POST', '/b'), 'inbox/x/products.csv')).toEqual([
      { action: 's3:PutObject', resource: 'arn:aws:s3:::b/inbox/x/products.csv' },
    ]);
    expect(() => s3Actions(restRequest('PUT', '/b?policy'))).toThrow(UnknownOperationError);
  });
});

const role = (statements: PolicyDocument['Statement']): FunctionRole => ({
  functionName: 'row-store',
  roleName: 'Pipeline-RowStoreRole',
  principalArn: 'arn:aws:sts::000000000000:assumed-role/Pipeline-RowStoreRole/row-store',
  policies: [{ name: 'RowStoreDefaultPolicy', document: { Version: '2012-10-17', Statement: statements } }],
  managedPolicyArns: [],
});

/** The deny of plain HTTP every bucket of the app carries. */
const TLS_ONLY: PolicyDocument = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:*',
      Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'],
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    },
  ],
};

describe('the policy check', () => {
  const writer = role([
    {
      Effect: 'Allow',
      Action: ['s3:GetObject*', 's3:List*'],
      Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/inbox/*'],
    },
    { Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::b/outbox/*' },
    { Effect: 'Allow', Action: 'states:SendTaskSuccess', Resource: arn('states', 'stateMachine:batch') },
  ]);
  const check = createPolicyCheck({ byResourceArn: new Map([['arn:aws:s3:::b', TLS_ONLY]]) });

  it('allows what a statement grants and names the statement and pattern that allowed it', async () => {
    const decision = await check.decide(writer, {
      action: 's3:GetObject',
      resource: 'arn:aws:s3:::b/inbox/p.csv',
    });
    expect(decision).toEqual({
      allowed: true,
      grants: [
        {
          role: writer.roleName,
          policy: 'RowStoreDefaultPolicy',
          statement: 0,
          actionPattern: 's3:GetObject*',
        },
      ],
    });
  });

  it("denies outside the granted prefix, with IAM's words", async () => {
    const decision = await check.decide(writer, {
      action: 's3:PutObject',
      resource: 'arn:aws:s3:::b/inbox/p.csv',
    });
    expect(decision).toMatchObject({ allowed: false, explicitDeny: false });
    expect(decision.allowed ? '' : decision.message).toBe(
      `User: ${writer.principalArn} is not authorized to perform: s3:PutObject on resource: arn:aws:s3:::b/inbox/p.csv ` +
        'because no identity-based policy allows the s3:PutObject action',
    );
  });

  it('weighs SendTaskSuccess against the workflow that issued the token', async () => {
    expect(
      await check.decide(writer, {
        action: 'states:SendTaskSuccess',
        resource: arn('states', 'stateMachine:batch'),
      }),
    ).toMatchObject({ allowed: true, grants: [{ statement: 2, actionPattern: 'states:SendTaskSuccess' }] });
    expect(
      await check.decide(writer, {
        action: 'states:SendTaskSuccess',
        resource: arn('states', 'stateMachine:other'),
      }),
    ).toMatchObject({ allowed: false });
  });

  it("applies a resource policy's explicit deny", async () => {
    const plainHttp = createPolicyCheck({ byResourceArn: new Map([['arn:aws:s3:::b', TLS_ONLY]]) });
    const decision = await plainHttp.decide(writer, {
      action: 's3:PutObject',
      resource: 'arn:aws:s3:::b/outbox/x.pdf',
      context: { 'aws:SecureTransport': 'false' },
    });
    expect(decision).toMatchObject({ allowed: false, explicitDeny: true });
  });

  it('matches action wildcards as IAM does', () => {
    expect(actionMatches('s3:GetObject*', 's3:GetObjectVersion')).toBe(true);
    expect(actionMatches('s3:Get?bject', 's3:GetObject')).toBe(true);
    expect(actionMatches('s3:GetObject', 's3:GetObjectVersion')).toBe(false);
  });

  it('counts a grant used once any request used it, and reports the others', () => {
    const usage = createGrantUsage([writer]);
    usage.record([
      { role: writer.roleName, policy: 'RowStoreDefaultPolicy', statement: 1, actionPattern: 's3:PutObject' },
    ]);
    const { grants, used } = usage.snapshot();
    expect(grants).toHaveLength(4);
    expect(unusedGrants(grants, new Set(used)).map(grantKey)).toEqual([
      `${writer.roleName} RowStoreDefaultPolicy#0 s3:GetObject*`,
      `${writer.roleName} RowStoreDefaultPolicy#0 s3:List*`,
      `${writer.roleName} RowStoreDefaultPolicy#2 states:SendTaskSuccess`,
    ]);
  });
});

describe('the gate in front of real stand-ins', () => {
  const TOKEN = 'session-of-row-store';
  const dataDir = mkdtempSync(join(tmpdir(), 'permission-gate-'));
  const gateRole = role([
    { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: arn('dynamodb', 'table/Things') },
    {
      Effect: 'Allow',
      Action: ['s3:GetObject', 's3:PutObject'],
      Resource: 'arn:aws:s3:::gate-bucket/outbox/*',
    },
  ]);
  const lines: string[] = [];
  const written: ObjectWritten[] = [];
  let dynamo: RunningServer;
  let s3: RunningS3;
  let gates: RunningServer[] = [];
  let dynamoClient: DynamoDBClient;
  let s3Client: S3Client;

  beforeAll(async () => {
    dynamo = await startDynamo(dataDir);
    s3 = await startS3(dataDir, ['gate-bucket']);
    const common = {
      roleOfSession: (token: string) => (token === TOKEN ? gateRole : null),
      check: createPolicyCheck({ byResourceArn: new Map() }),
      usage: createGrantUsage([gateRole]),
      log: (line: string) => lines.push(line),
    };
    gates = [
      await startPermissionGate({
        ...common,
        protocol: 'dynamodb',
        upstream: dynamo.endpoint,
        actionsOf: dynamodbRequestActions,
      }),
      await startPermissionGate({
        ...common,
        protocol: 's3',
        upstream: s3.endpoint,
        actionsOf: s3Actions,
        onObjectWritten: (write) => written.push(write),
      }),
    ];
    const credentials = { ...LOCAL_CREDENTIALS, sessionToken: TOKEN };
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
    dynamoClient = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: gates[0]?.endpoint });
    s3Client = new S3Client({
      region: 'us-east-1',
      credentials,
      endpoint: gates[1]?.endpoint,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  });
  afterAll(async () => {
    dynamoClient?.destroy();
    s3Client?.destroy();
    await Promise.all(gates.map((gate) => gate.close()));
    await s3.close();
    await dynamo.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets an allowed DynamoDB call through and refuses a denied one as AccessDeniedException', async () => {
    const found = await dynamoClient.send(
      new GetItemCommand({ TableName: 'Things', Key: { pk: { S: 'a' } } }),
    );
    expect(found.Item).toBeUndefined();
    const put = dynamoClient.send(new PutItemCommand({ TableName: 'Things', Item: { pk: { S: 'a' } } }));
    await expect(put).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('is not authorized to perform: dynamodb:PutItem on resource:'),
    });
    expect(lines).toContain(
      `permission denied: row-store dynamodb:PutItem on ${arn('dynamodb', 'table/Things')}`,
    );
  });

  it('passes a signed S3 upload through, and answers a missing key AccessDenied to a caller that may not list', async () => {
    await s3Client.send(new PutObjectCommand({ Bucket: 'gate-bucket', Key: 'outbox/x.txt', Body: 'hello' }));
    const got = await s3Client.send(new GetObjectCommand({ Bucket: 'gate-bucket', Key: 'outbox/x.txt' }));
    expect(await got.Body?.transformToString()).toBe('hello');
    await expect(
      s3Client.send(new PutObjectCommand({ Bucket: 'gate-bucket', Key: 'inbox/x.txt', Body: 'no' })),
    ).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    // Without s3:ListBucket, S3 does not tell a caller whether a key exists.
    await expect(
      s3Client.send(new GetObjectCommand({ Bucket: 'gate-bucket', Key: 'outbox/missing.txt' })),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it("tells of each write that succeeded, who made it and its ETag: a function by its role, anyone else as this machine's user", async () => {
    written.length = 0;
    const put = await s3Client.send(
      new PutObjectCommand({ Bucket: 'gate-bucket', Key: 'outbox/who.txt', Body: 'dito' }),
    );
    await expect(
      s3Client.send(new PutObjectCommand({ Bucket: 'gate-bucket', Key: 'inbox/refused.txt', Body: 'no' })),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    const person = new S3Client({
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      endpoint: gates[1]?.endpoint,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    try {
      await person.send(new PutObjectCommand({ Bucket: 'gate-bucket', Key: 'answers/b/d.csv', Body: 'row' }));
      const copied = await person.send(
        new CopyObjectCommand({
          Bucket: 'gate-bucket',
          Key: 'answers/b/copy.csv',
          CopySource: 'gate-bucket/answers/b/d.csv',
        }),
      );
      await vi.waitFor(() => expect(written).toHaveLength(3), { timeout: 5_000, interval: 20 });
      expect(written).toEqual([
        {
          call: 'PutObject',
          bucket: 'gate-bucket',
          key: 'outbox/who.txt',
          etag: put.ETag?.replace(/"/g, ''),
          principalArn: gateRole.principalArn,
        },
        expect.objectContaining({
          call: 'PutObject',
          key: 'answers/b/d.csv',
          principalArn: machineUserArn(),
        }),
        {
          call: 'CopyObject',
          bucket: 'gate-bucket',
          key: 'answers/b/copy.csv',
          etag: copied.CopyObjectResult?.ETag?.replace(/"/g, ''),
          principalArn: machineUserArn(),
        },
      ]);
      expect(machineUserArn()).toBe(`arn:aws:iam::000000000000:user/${userInfo().username}`);
    } finally {
      person.destroy();
    }
  });
});
