import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROWS_MAX_RECEIVE_COUNT } from '../../infra/stateful-stack.js';
import { type CfnTemplate, resourcesOfType, type Synthesized, synthesize, TEST_CONTEXT } from './synth.js';

let synth: Synthesized;
let stateful: Template;
let json: CfnTemplate;
const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  synth.built.stateful.getLogicalId(construct.node.defaultChild as never);

beforeAll(() => {
  synth = synthesize();
  stateful = synth.stateful;
  json = synth.statefulJson;
});

describe('stateful stack: bucket', () => {
  it('is versioned, Object Lock enabled, SSE-S3 encrypted, private and sends its events to EventBridge', () => {
    const bucket = json.Resources[logicalId(synth.built.stateful.bucket)];
    expect(bucket?.Properties).toMatchObject({
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
      LoggingConfiguration: { LogFilePrefix: 'bucket/' },
    });
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    // Object Lock on, with no default retention: only audit.csv's versions are locked, as written.
    expect(bucket?.Properties?.ObjectLockEnabled).toBe(true);
    expect(bucket?.Properties?.ObjectLockConfiguration).toBeUndefined();
    // Natively, not through CDK's notifications custom resource (one Lambda less).
    expect(resourcesOfType(json, 'Custom::S3BucketNotifications')).toEqual([]);
    expect(resourcesOfType(json, 'AWS::Lambda::Function')).toEqual([]);
  });

  it('logs access to a private bucket that takes the logs by bucket policy, not by ACL', () => {
    const logs = json.Resources[logicalId(synth.built.stateful.accessLogsBucket)];
    expect(logs?.Properties?.AccessControl).toBeUndefined();
    expect(logs?.Properties).toMatchObject({
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, RestrictPublicBuckets: true },
    });
    stateful.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logicalId(synth.built.stateful.accessLogsBucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: 's3:PutObject',
            Principal: { Service: 'logging.s3.amazonaws.com' },
          }),
        ]),
      },
    });
  });

  it('expires noncurrent versions and the outbox per the retention context', () => {
    stateful.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Id: 'expire-noncurrent-versions',
            NoncurrentVersionExpiration: { NoncurrentDays: TEST_CONTEXT.retentionDays },
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
          }),
          Match.objectLike({ Id: 'expire-requests', Prefix: 'requests/', ExpirationInDays: 1 }),
          Match.objectLike({
            Id: 'expire-outbox',
            Prefix: 'outbox/',
            ExpirationInDays: TEST_CONTEXT.outboxRetentionDays,
          }),
        ]),
      },
    });
  });

  it('denies every request without TLS, on both buckets', () => {
    for (const bucket of [synth.built.stateful.bucket, synth.built.stateful.accessLogsBucket]) {
      stateful.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalId(bucket) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });
});

describe('stateful stack: the trail of who wrote each dropped file', () => {
  it("records only the writes into answers/ and inbox/, no management events, into the access logs' cloudtrail/", () => {
    const trails = resourcesOfType(json, 'AWS::CloudTrail::Trail');
    expect(trails).toHaveLength(1);
    const bucketArn = { 'Fn::GetAtt': [logicalId(synth.built.stateful.bucket), 'Arn'] };
    expect(trails[0]?.[1].Properties).toMatchObject({
      IsLogging: true,
      IsMultiRegionTrail: false,
      IncludeGlobalServiceEvents: false,
      EnableLogFileValidation: true,
      S3BucketName: { Ref: logicalId(synth.built.stateful.accessLogsBucket) },
      S3KeyPrefix: 'cloudtrail',
      EventSelectors: [
        {
          ReadWriteType: 'WriteOnly',
          IncludeManagementEvents: false,
          DataResources: [
            {
              Type: 'AWS::S3::Object',
              Values: [
                { 'Fn::Join': ['', [bucketArn, '/answers/']] },
                { 'Fn::Join': ['', [bucketArn, '/inbox/']] },
              ],
            },
          ],
        },
      ],
    });
  });
});

describe('stateful stack: tables', () => {
  const table = (construct: { node: { defaultChild?: unknown } }) => json.Resources[logicalId(construct)];

  it('each is on-demand, point-in-time recoverable and retained', () => {
    const tables = resourcesOfType(json, 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(4);
    for (const [, resource] of tables) {
      expect(resource.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
      expect(resource).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('have the keys shared/pipeline/README.md names', () => {
    const { batchTable, reviewTable, cacheTable, leaseTable } = synth.built.stateful;
    expect(table(batchTable)?.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      // Sparse: only batch items carry `listed`, so the index lists batches and nothing else.
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by-start',
          KeySchema: [
            { AttributeName: 'listed', KeyType: 'HASH' },
            { AttributeName: 'started_at', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        // Sparse too: only rows queued in exposure order carry `send_order`; a top-up reads no more.
        {
          IndexName: 'by-send-order',
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'send_order', KeyType: 'RANGE' },
          ],
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: ['row', 'status', 'round', 'attempt', 'dispatch'],
          },
        },
      ],
    });
    expect(table(reviewTable)?.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'classification_id', KeyType: 'HASH' }],
      AttributeDefinitions: expect.arrayContaining([
        { AttributeName: 'classification_id', AttributeType: 'S' },
        { AttributeName: 'batch_id', AttributeType: 'S' },
        { AttributeName: 'row', AttributeType: 'N' },
      ]),
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by-batch',
          KeySchema: [
            { AttributeName: 'batch_id', KeyType: 'HASH' },
            { AttributeName: 'row', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
    expect(table(cacheTable)?.Properties?.KeySchema).toEqual([
      { AttributeName: 'product_key', KeyType: 'HASH' },
    ]);
    expect(table(leaseTable)?.Properties?.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
  });
});

describe('stateful stack: queues and secret', () => {
  it('the rows queue is encrypted and redrives to its DLQ after a bounded number of receives', () => {
    const { rowsQueue, rowsDeadLetterQueue } = synth.built.stateful;
    expect(json.Resources[logicalId(rowsQueue)]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      MessageRetentionPeriod: 14 * 24 * 3600,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(rowsDeadLetterQueue), 'Arn'] },
        maxReceiveCount: ROWS_MAX_RECEIVE_COUNT,
      },
    });
    expect(json.Resources[logicalId(rowsDeadLetterQueue)]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
    });
  });

  it('both queues refuse requests without TLS', () => {
    const { rowsQueue, rowsDeadLetterQueue } = synth.built.stateful;
    for (const queue of [rowsQueue, rowsDeadLetterQueue]) {
      stateful.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('the API key secret holds a placeholder, never a generated or real key', () => {
    const secrets = resourcesOfType(json, 'AWS::SecretsManager::Secret');
    expect(secrets).toHaveLength(1);
    const properties = secrets[0]?.[1].Properties;
    expect(properties?.GenerateSecretString).toBeUndefined();
    expect(properties?.SecretString).toMatch(/^PLACEHOLDER/);
  });
});
