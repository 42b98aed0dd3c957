/**
 * What an operator reads on AWS, read here the same way: the bucket, the batch and review
 * tables and the slot leases, found under the names the template puts in the functions'
 * environment (so a renamed table or bucket is followed, never hard-coded).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV } from '../../functions/catalogue.js';
import { createDynamoBatchStore } from '../../shared/aws/dynamo-batch-store.js';
import { createDynamoCheckStore } from '../../shared/aws/dynamo-check-store.js';
import { createDynamoReviewStore } from '../../shared/aws/dynamo-review-store.js';
import { createDynamoSlotLeases } from '../../shared/aws/dynamo-slot-leases.js';
import type { CheckItem } from '../../shared/pipeline/core/check-records.js';
import type { BatchStore, ReviewStore } from '../../shared/pipeline/core/ports.js';
import type { ReviewItem } from '../../shared/pipeline/core/records.js';
import type { SlotLeases } from '../../shared/pipeline/core/slot-leases.js';
import type { FunctionSpec } from './resources.js';

export type OperatorView = {
  bucket: string;
  batches: BatchStore;
  reviews: ReviewStore;
  /** Every review item still waiting for answers, across batches, by batch and row. */
  pendingReviews: () => Promise<ReviewItem[]>;
  /** Every verdict still waiting for a person's check, across batches, by batch and row. */
  openChecks: () => Promise<CheckItem[]>;
  leases: SlotLeases;
};

/** The value the first function that has `variable` in its environment gives it. */
const environmentValue = (functions: readonly FunctionSpec[], variable: string): string => {
  const value = functions.map((fn) => fn.environment[variable]).find((found) => found !== undefined);
  if (value === undefined) throw new Error(`No function of the template has ${variable}`);
  return value;
};

export const openOperatorView = (
  functions: readonly FunctionSpec[],
  client: DynamoDBClient,
): OperatorView => {
  const bucket = environmentValue(functions, ENV.bucketName);
  const batches = createDynamoBatchStore({ client, tableName: environmentValue(functions, ENV.batchTable) });
  const reviews = createDynamoReviewStore({
    client,
    tableName: environmentValue(functions, ENV.reviewTable),
  });
  const pendingReviews = async (): Promise<ReviewItem[]> =>
    (await reviews.listPending()).sort((a, b) => a.batch_id.localeCompare(b.batch_id) || a.row - b.row);
  const leases = createDynamoSlotLeases({
    client,
    tableName: environmentValue(functions, ENV.leaseTable),
    scope: functions.map((fn) => fn.environment[ENV.leaseScope]).find(Boolean) ?? 'org',
  });
  const checks = createDynamoCheckStore({ client, tableName: environmentValue(functions, ENV.reviewTable) });
  return { bucket, batches, reviews, pendingReviews, openChecks: () => checks.listOpen(), leases };
};
