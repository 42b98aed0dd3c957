/**
 * What must survive a redeploy of the logic: the bucket, the tables, the rows queue and the
 * API key's secret. The pipeline stack receives them as props (cross-stack references), so
 * replacing a function or a workflow never touches the data.
 */
import { Duration, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, type TableProps } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  type LifecycleRule,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { BUCKET_PREFIXES } from '../shared/pipeline/core/index.js';
import type { PipelineConfig } from './config.js';
import { acknowledge } from './nag.js';

export type StatefulStackProps = StackProps & { config: PipelineConfig };

/**
 * What the pipeline stack needs of this one, as imports of explicitly named CloudFormation
 * exports (`<stack name>:BucketArn`, …). Named, not automatic: the names are this stack's
 * interface, stable across refactors of either stack (and stable finding ids for cdk-nag).
 */
export type StatefulExports = {
  bucketName: string;
  bucketArn: string;
  batchTableName: string;
  reviewTableName: string;
  cacheTableName: string;
  leaseTableName: string;
  rowsQueueArn: string;
  rowsQueueUrl: string;
  rowsDeadLetterQueueArn: string;
  apiKeySecretArn: string;
};

/**
 * The rows queue's visibility timeout. It must outlast the dispatcher's run (a message it
 * received must not reappear while it is still starting that row's execution); the pipeline
 * stack checks its dispatcher timeout against this.
 */
export const ROWS_QUEUE_VISIBILITY = Duration.minutes(3);

/**
 * Receives of one message before SQS moves it to the DLQ. The dispatcher only receives as
 * many messages as it has free slots, and a message it loses a slot race for goes back as a
 * fresh copy, so a message is received again only after a crash or a failed StartExecution;
 * ten of those in a row is a fault worth an alarm.
 */
export const ROWS_MAX_RECEIVE_COUNT = 10;

/** The review table's index of a batch's items in row order (review.csv). */
export const REVIEW_BY_BATCH_INDEX = 'by-batch';

export class StatefulStack extends Stack {
  /** Input (`inbox/`) and output (`outbox/`), versioned: the batch id includes the version id. */
  readonly bucket: Bucket;
  /** Server access logs of {@link bucket}. */
  readonly accessLogsBucket: Bucket;
  readonly batchTable: Table;
  readonly reviewTable: Table;
  readonly cacheTable: Table;
  readonly leaseTable: Table;
  readonly rowsQueue: Queue;
  readonly rowsDeadLetterQueue: Queue;
  /** The TCS API key. Created with a placeholder; see infra/README.md for putting the key. */
  readonly apiKeySecret: Secret;
  /** Imports for the pipeline stack; see {@link StatefulExports}. */
  readonly exported: StatefulExports;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;

    // SSE-S3 rather than KMS: every reader and writer (operators' uploads, the ERP export,
    // six functions) would need kms:Decrypt/GenerateDataKey grants and each request a KMS call,
    // for no gain in who can read the objects, which IAM and the bucket policy already decide.
    // Access-log delivery also only accepts SSE-S3 targets.
    this.accessLogsBucket = new Bucket(this, 'AccessLogsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // ACLs off (the S3 default, said out loud): log delivery is allowed by bucket policy.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(config.retentionDays) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const lifecycleRules: LifecycleRule[] = [
      // Re-dropping a file makes a new version (a new batch); old versions only serve audits.
      {
        id: 'expire-noncurrent-versions',
        noncurrentVersionExpiration: Duration.days(config.retentionDays),
        abortIncompleteMultipartUploadAfter: Duration.days(7),
      },
    ];
    // Upload records of row attempts: needed while an attempt can still be retried (hours).
    lifecycleRules.push({ id: 'expire-work', prefix: BUCKET_PREFIXES.work, expiration: Duration.days(7) });
    if (config.outboxRetentionDays !== undefined) {
      lifecycleRules.push({
        id: 'expire-outbox',
        prefix: BUCKET_PREFIXES.outbox,
        expiration: Duration.days(config.outboxRetentionDays),
      });
    }
    this.bucket = new Bucket(this, 'Bucket', {
      versioned: true,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'bucket/',
      lifecycleRules,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // EventBridge, not S3 notifications: a rule can match key wildcards and start the workflow
    // directly, and other consumers can listen without editing the bucket. Set on the
    // CloudFormation resource itself: the L2's `eventBridgeEnabled` deploys it through a
    // custom-resource Lambda, one more function and role for a plain property.
    (this.bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
      eventBridgeConfiguration: { eventBridgeEnabled: true },
    };

    const table = (id: string, props: Omit<TableProps, 'billingMode'>) =>
      new Table(this, id, {
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        removalPolicy: RemovalPolicy.RETAIN,
        ...props,
      });
    this.batchTable = table('BatchTable', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
    });
    this.reviewTable = table('ReviewTable', {
      partitionKey: { name: 'classification_id', type: AttributeType.STRING },
    });
    this.reviewTable.addGlobalSecondaryIndex({
      indexName: REVIEW_BY_BATCH_INDEX,
      partitionKey: { name: 'batch_id', type: AttributeType.STRING },
      sortKey: { name: 'row', type: AttributeType.NUMBER },
    });
    this.cacheTable = table('ProductCacheTable', {
      partitionKey: { name: 'product_key', type: AttributeType.STRING },
    });
    // One item per cap scope: losing it only loses leases in flight, which expire anyway,
    // but it is kept like the others so a stack deletion never frees slots mid-batch.
    this.leaseTable = table('LeaseTable', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });

    this.rowsDeadLetterQueue = new Queue(this, 'RowsDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.rowsQueue = new Queue(this, 'RowsQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: ROWS_QUEUE_VISIBILITY,
      // A large batch drains at the cap's pace (10 rows a minute or so): rows may wait hours.
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: this.rowsDeadLetterQueue, maxReceiveCount: ROWS_MAX_RECEIVE_COUNT },
    });

    // A placeholder, never the key: the key goes in with `aws secretsmanager put-secret-value`
    // (infra/README.md). CloudFormation rewrites the value only when this text changes, so a
    // redeploy keeps the key that was put.
    this.apiKeySecret = new Secret(this, 'TcsApiKeySecret', {
      description:
        'Tariff Classification Service API key (scope classify). Put the key with put-secret-value.',
      secretStringValue: SecretValue.unsafePlainText('PLACEHOLDER: put the TCS API key here'),
    });
    acknowledge(
      this.apiKeySecret,
      'TCS API keys are issued and revoked in the service web app; there is no API to rotate them, so a ' +
        'rotation Lambda has nothing to call. Rotate by issuing a key and putting it (infra/README.md).',
      'AwsSolutions-SMG4',
    );

    const exportAs = (name: string, value: string) =>
      this.exportValue(value, { name: `${this.stackName}:${name}` });
    this.exported = {
      bucketName: exportAs('BucketName', this.bucket.bucketName),
      bucketArn: exportAs('BucketArn', this.bucket.bucketArn),
      batchTableName: exportAs('BatchTableName', this.batchTable.tableName),
      reviewTableName: exportAs('ReviewTableName', this.reviewTable.tableName),
      cacheTableName: exportAs('ProductCacheTableName', this.cacheTable.tableName),
      leaseTableName: exportAs('LeaseTableName', this.leaseTable.tableName),
      rowsQueueArn: exportAs('RowsQueueArn', this.rowsQueue.queueArn),
      rowsQueueUrl: exportAs('RowsQueueUrl', this.rowsQueue.queueUrl),
      rowsDeadLetterQueueArn: exportAs('RowsDeadLetterQueueArn', this.rowsDeadLetterQueue.queueArn),
      apiKeySecretArn: exportAs('TcsApiKeySecretArn', this.apiKeySecret.secretArn),
    };
  }
}
