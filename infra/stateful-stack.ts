/**
 * What must survive a redeploy of the logic: the bucket, the tables, the rows queue and the
 * API key's secret. The pipeline stack receives them as props (cross-stack references), so
 * replacing a function or a workflow never touches the data.
 */
import { Duration, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import { ReadWriteType, Trail } from 'aws-cdk-lib/aws-cloudtrail';
import { AttributeType, BillingMode, ProjectionType, Table, type TableProps } from 'aws-cdk-lib/aws-dynamodb';
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
import { BUCKET_PREFIXES } from '../shared/pipeline/core/bucket-layout.js';
import type { PipelineConfig } from './config.js';
import type { ConsoleConfig } from './console-config.js';
import { ConsoleSite, type ConsoleSiteExports, exportForConsole } from './console-site.js';
import { acknowledge } from './nag.js';

export type StatefulStackProps = StackProps & { config: PipelineConfig; console: ConsoleConfig };

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
/** The batch table's sparse GSI listing batches newest first (shared/aws/dynamo-batch-store.ts). */
export const BATCHES_BY_START_INDEX = 'by-start';
/**
 * The batch table's sparse GSI of a batch's rows queued in exposure order, in that order: the
 * dispatcher tops a window up from it (shared/pipeline/dispatch/rows-window.ts). It projects only
 * what a top-up reads, so a row's other writes cost the index nothing but its status moves.
 */
export const ROWS_BY_SEND_ORDER_INDEX = 'by-send-order';

// SSE-S3 rather than KMS: every reader and writer (operators' uploads, the ERP export, every
// function that reads or writes objects) would need kms:Decrypt/GenerateDataKey grants and each
// request a KMS call, for no gain in who can read the objects, which IAM and the bucket policy
// already decide.
// Access-log delivery also only accepts SSE-S3 targets.
const createAccessLogsBucket = (scope: Construct, config: PipelineConfig) =>
  new Bucket(scope, 'AccessLogsBucket', {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    // ACLs off (the S3 default, said out loud): log delivery is allowed by bucket policy.
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(config.retentionDays) }],
    removalPolicy: RemovalPolicy.RETAIN,
  });

/**
 * A trail of the writes into `answers/` and `inbox/` (data events, writes only, no management
 * events): CloudTrail hands each to EventBridge, where the pipeline stack's RecordWriterRule keeps
 * who wrote the object (the principal S3 authenticated; shared/pipeline/people/). Its log files go
 * to the access-logs bucket, under `cloudtrail/`, kept as long as the access logs.
 */
const recordWritesOfDrops = (scope: Construct, bucket: Bucket, logsBucket: Bucket): Trail => {
  const trail = new Trail(scope, 'WritesTrail', {
    bucket: logsBucket,
    s3KeyPrefix: 'cloudtrail',
    managementEvents: ReadWriteType.NONE,
    includeGlobalServiceEvents: false,
    isMultiRegionTrail: false,
    enableFileValidation: true,
  });
  trail.addS3EventSelector(
    [
      { bucket, objectPrefix: BUCKET_PREFIXES.answers },
      { bucket, objectPrefix: BUCKET_PREFIXES.inbox },
    ],
    { readWriteType: ReadWriteType.WRITE_ONLY, includeManagementEvents: false },
  );
  return trail;
};

const bucketLifecycleRules = (config: PipelineConfig): LifecycleRule[] => {
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
  // A request for partial results has done its work once the function has run.
  lifecycleRules.push({
    id: 'expire-requests',
    prefix: BUCKET_PREFIXES.requests,
    expiration: Duration.days(1),
  });
  if (config.outboxRetentionDays !== undefined) {
    lifecycleRules.push({
      id: 'expire-outbox',
      prefix: BUCKET_PREFIXES.outbox,
      expiration: Duration.days(config.outboxRetentionDays),
    });
  }
  return lifecycleRules;
};

const createBucket = (scope: Construct, config: PipelineConfig, accessLogsBucket: Bucket): Bucket => {
  const bucket = new Bucket(scope, 'Bucket', {
    versioned: true,
    // No default retention: only audit.csv's versions are locked, each as it is written
    // (functions/bucket-port.ts), for `auditLockDays`; the rest of the bucket keeps its lifecycle.
    objectLockEnabled: true,
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    serverAccessLogsBucket: accessLogsBucket,
    serverAccessLogsPrefix: 'bucket/',
    lifecycleRules: bucketLifecycleRules(config),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // EventBridge, not S3 notifications: a rule can match key wildcards and start the workflow
  // directly, and other consumers can listen without editing the bucket. Set on the
  // CloudFormation resource itself: the L2's `eventBridgeEnabled` deploys it through a
  // custom-resource Lambda, one more function and role for a plain property.
  (bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
    eventBridgeConfiguration: { eventBridgeEnabled: true },
  };
  return bucket;
};

const createTables = (scope: Construct) => {
  const table = (id: string, props: Omit<TableProps, 'billingMode'>) =>
    new Table(scope, id, {
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
      ...props,
    });
  const batchTable = table('BatchTable', {
    partitionKey: { name: 'pk', type: AttributeType.STRING },
    sortKey: { name: 'sk', type: AttributeType.STRING },
  });
  batchTable.addGlobalSecondaryIndex({
    indexName: BATCHES_BY_START_INDEX,
    partitionKey: { name: 'listed', type: AttributeType.STRING },
    sortKey: { name: 'started_at', type: AttributeType.STRING },
  });
  batchTable.addGlobalSecondaryIndex({
    indexName: ROWS_BY_SEND_ORDER_INDEX,
    partitionKey: { name: 'pk', type: AttributeType.STRING },
    sortKey: { name: 'send_order', type: AttributeType.NUMBER },
    projectionType: ProjectionType.INCLUDE,
    nonKeyAttributes: ['row', 'status', 'round', 'attempt', 'dispatch'],
  });
  const reviewTable = table('ReviewTable', {
    partitionKey: { name: 'classification_id', type: AttributeType.STRING },
  });
  reviewTable.addGlobalSecondaryIndex({
    indexName: REVIEW_BY_BATCH_INDEX,
    partitionKey: { name: 'batch_id', type: AttributeType.STRING },
    sortKey: { name: 'row', type: AttributeType.NUMBER },
  });
  const cacheTable = table('ProductCacheTable', {
    partitionKey: { name: 'product_key', type: AttributeType.STRING },
  });
  // One item per cap scope: losing it only loses leases in flight, which expire anyway,
  // but it is kept like the others so a stack deletion never frees slots mid-batch.
  const leaseTable = table('LeaseTable', {
    partitionKey: { name: 'pk', type: AttributeType.STRING },
  });
  return { batchTable, reviewTable, cacheTable, leaseTable };
};

const createRowsQueues = (scope: Construct) => {
  const rowsDeadLetterQueue = new Queue(scope, 'RowsDeadLetterQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const rowsQueue = new Queue(scope, 'RowsQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: ROWS_QUEUE_VISIBILITY,
    // A large batch drains at the cap's pace (10 rows a minute or so): rows may wait hours.
    retentionPeriod: Duration.days(14),
    deadLetterQueue: { queue: rowsDeadLetterQueue, maxReceiveCount: ROWS_MAX_RECEIVE_COUNT },
  });
  return { rowsDeadLetterQueue, rowsQueue };
};

const createApiKeySecret = (scope: Construct): Secret => {
  // A placeholder, never the key: the key goes in with `aws secretsmanager put-secret-value`
  // (infra/README.md). CloudFormation rewrites the value only when this text changes, so a
  // redeploy keeps the key that was put.
  const apiKeySecret = new Secret(scope, 'TcsApiKeySecret', {
    description: 'Tariff Classification Service API key (scope classify). Put the key with put-secret-value.',
    secretStringValue: SecretValue.unsafePlainText('PLACEHOLDER: put the TCS API key here'),
  });
  acknowledge(
    apiKeySecret,
    'TCS API keys are issued and revoked in the service web app; there is no API to rotate them, so a ' +
      'rotation Lambda has nothing to call. Rotate by issuing a key and putting it (infra/README.md).',
    'AwsSolutions-SMG4',
  );
  return apiKeySecret;
};

/** Exports each value under `<stack name>:<name>`; see {@link StatefulExports}. */
const exportForPipeline = (stack: StatefulStack): StatefulExports => {
  const exportAs = (name: string, value: string) =>
    stack.exportValue(value, { name: `${stack.stackName}:${name}` });
  return {
    bucketName: exportAs('BucketName', stack.bucket.bucketName),
    bucketArn: exportAs('BucketArn', stack.bucket.bucketArn),
    batchTableName: exportAs('BatchTableName', stack.batchTable.tableName),
    reviewTableName: exportAs('ReviewTableName', stack.reviewTable.tableName),
    cacheTableName: exportAs('ProductCacheTableName', stack.cacheTable.tableName),
    leaseTableName: exportAs('LeaseTableName', stack.leaseTable.tableName),
    rowsQueueArn: exportAs('RowsQueueArn', stack.rowsQueue.queueArn),
    rowsQueueUrl: exportAs('RowsQueueUrl', stack.rowsQueue.queueUrl),
    rowsDeadLetterQueueArn: exportAs('RowsDeadLetterQueueArn', stack.rowsDeadLetterQueue.queueArn),
    apiKeySecretArn: exportAs('TcsApiKeySecretArn', stack.apiKeySecret.secretArn),
  };
};

export class StatefulStack extends Stack {
  /** Input (`inbox/`) and output (`outbox/`), versioned: the batch id includes the version id. */
  readonly bucket: Bucket;
  /** CloudTrail's record of each write into answers/ and inbox/: who wrote what (recordWritesOfDrops). */
  readonly writesTrail: Trail;
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
  /** The console's page: site bucket, distribution, the data bucket's CORS rule (console-site.ts says why here). */
  readonly consoleSite: ConsoleSite;
  /** Imports for the console stack. */
  readonly consoleExported: ConsoleSiteExports;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.accessLogsBucket = createAccessLogsBucket(this, config);
    this.bucket = createBucket(this, config, this.accessLogsBucket);
    this.writesTrail = recordWritesOfDrops(this, this.bucket, this.accessLogsBucket);
    const tables = createTables(this);
    this.batchTable = tables.batchTable;
    this.reviewTable = tables.reviewTable;
    this.cacheTable = tables.cacheTable;
    this.leaseTable = tables.leaseTable;
    const queues = createRowsQueues(this);
    this.rowsDeadLetterQueue = queues.rowsDeadLetterQueue;
    this.rowsQueue = queues.rowsQueue;
    this.apiKeySecret = createApiKeySecret(this);
    this.exported = exportForPipeline(this);
    this.consoleSite = new ConsoleSite(this, 'ConsoleSite', {
      config,
      console: props.console,
      dataBucket: this.bucket,
      accessLogsBucket: this.accessLogsBucket,
    });
    this.consoleExported = exportForConsole(this, this.consoleSite);
  }
}
