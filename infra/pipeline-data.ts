/**
 * The stateful stack's resources as the pipeline stack sees them: imported by export name
 * (StatefulExports), never by automatic cross-stack reference (infra/nag.ts says why).
 */
import { type ITable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { REVIEW_BY_BATCH_INDEX, type StatefulExports } from './stateful-stack.js';

export type PipelineData = {
  bucket: IBucket;
  batchTable: ITable;
  reviewTable: ITable;
  cacheTable: ITable;
  leaseTable: ITable;
  rowsQueue: IQueue;
  rowsDeadLetterQueue: IQueue;
  apiKeySecret: ISecret;
};

export const importData = (scope: Construct, exported: StatefulExports): PipelineData => ({
  bucket: Bucket.fromBucketAttributes(scope, 'DataBucket', {
    bucketName: exported.bucketName,
    bucketArn: exported.bucketArn,
  }),
  batchTable: Table.fromTableName(scope, 'BatchTable', exported.batchTableName),
  reviewTable: Table.fromTableAttributes(scope, 'ReviewTable', {
    tableName: exported.reviewTableName,
    globalIndexes: [REVIEW_BY_BATCH_INDEX],
  }),
  cacheTable: Table.fromTableName(scope, 'ProductCacheTable', exported.cacheTableName),
  leaseTable: Table.fromTableName(scope, 'LeaseTable', exported.leaseTableName),
  rowsQueue: Queue.fromQueueAttributes(scope, 'RowsQueue', {
    queueArn: exported.rowsQueueArn,
    queueUrl: exported.rowsQueueUrl,
  }),
  rowsDeadLetterQueue: Queue.fromQueueArn(scope, 'RowsDeadLetterQueue', exported.rowsDeadLetterQueueArn),
  apiKeySecret: Secret.fromSecretCompleteArn(scope, 'TcsApiKeySecret', exported.apiKeySecretArn),
});
