/**
 * The smoke's ports on AWS: CloudFormation's DescribeStacks for the stack, and for the bucket and
 * the tables the pipeline's own adapters (shared/aws), so the smoke reads the items exactly as the
 * pipeline writes them (each parsed by its zod schema). Clients come from the caller: the command
 * builds them from the SDK's default chain, the end-to-end test points them at the local runtime.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { createDynamoBatchStore } from '../aws/dynamo-batch-store.js';
import { createDynamoReviewStore } from '../aws/dynamo-review-store.js';
import { createS3ObjectStore } from '../aws/s3-object-store.js';
import { DescribedStack, type SmokeClock, type SmokePorts, type StackLookup } from './ports.js';

/** A lookup over anything that answers as DescribeStacks' `Stacks[0]` does, parsed on the way in. */
export const stackLookupOf = (describe: (stackName: string) => Promise<unknown>): StackLookup => ({
  describe: async (stackName) => {
    const found = await describe(stackName);
    return found === null || found === undefined ? null : DescribedStack.parse(found);
  },
});

/** DescribeStacks answers a stack that is not there with `ValidationError: Stack with id X does not exist`. */
const isMissingStack = (error: unknown): boolean => {
  const { name, message } = (error ?? {}) as { name?: string; message?: string };
  return name === 'ValidationError' && /does not exist/.test(message ?? '');
};

export const cloudFormationStacks = (client: CloudFormationClient): StackLookup =>
  stackLookupOf(async (StackName) => {
    try {
      const { Stacks } = await client.send(new DescribeStacksCommand({ StackName }));
      return Stacks?.[0] ?? null;
    } catch (error) {
      if (isMissingStack(error)) return null;
      throw error;
    }
  });

/** Wall-clock time; an abort (Ctrl-C) ends a wait early instead of failing it. */
export const systemClock: SmokeClock = {
  now: () => new Date(),
  sleep: (ms, signal) => wait(ms, undefined, signal ? { signal } : {}).catch(() => undefined),
};

export const awsSmokePorts = (input: {
  stacks: StackLookup;
  s3: S3Client;
  dynamo: DynamoDBClient;
  say: (line: string) => void;
  clock?: SmokeClock;
}): SmokePorts => ({
  stacks: input.stacks,
  open: (deployment) => ({
    objects: createS3ObjectStore({ client: input.s3, bucket: deployment.bucket }),
    batches: createDynamoBatchStore({ client: input.dynamo, tableName: deployment.batchTable }),
    reviews: createDynamoReviewStore({ client: input.dynamo, tableName: deployment.reviewTable }),
  }),
  clock: input.clock ?? systemClock,
  say: input.say,
});
