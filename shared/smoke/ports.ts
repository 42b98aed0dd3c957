/**
 * The smoke test's ports (docs/architecture.md, property 8, as for the pipeline's use cases): the
 * core reads a deployed stack, drops a catalogue into its bucket and reads back what the pipeline
 * made, without importing an SDK. `aws.ts` wires them to CloudFormation, S3 and DynamoDB; the
 * end-to-end test to the local runtime; the unit tests to memory.
 */
import * as z from 'zod';
import type { BatchStore, Clock, ObjectStore, ReviewStore } from '../pipeline/core/ports.js';

/** A stack as CloudFormation's DescribeStacks describes it: the fields the smoke reads. */
export const DescribedStack = z.object({
  StackName: z.string().min(1),
  StackStatus: z.string().min(1),
  Outputs: z
    .array(
      z.object({
        OutputKey: z.string().optional(),
        OutputValue: z.string().optional(),
        ExportName: z.string().optional(),
      }),
    )
    .default([]),
});
export type DescribedStack = z.infer<typeof DescribedStack>;

/** CloudFormation: one stack by name; null when there is no such stack. */
export type StackLookup = { describe(stackName: string): Promise<DescribedStack | null> };

/** What the smoke works on, found from the stack's exports. */
export type Deployment = {
  stackName: string;
  bucket: string;
  batchTable: string;
  reviewTable: string;
};

/** The deployment's bucket and tables, opened: only the calls the smoke makes. */
export type DeploymentData = {
  objects: Pick<ObjectStore, 'put' | 'head' | 'getBytes' | 'getPrefix' | 'list'>;
  batches: Pick<BatchStore, 'getBatch' | 'listBatches' | 'listRows'>;
  reviews: Pick<ReviewStore, 'listByBatch'>;
};

/**
 * Wall-clock time (the smoke watches a deployment on AWS, where spans are production ones), and
 * a wait between two looks at the deployment (an abort ends the wait early).
 */
export type SmokeClock = Pick<Clock, 'now'> & { sleep(ms: number, signal?: AbortSignal): Promise<void> };

export type SmokePorts = {
  stacks: StackLookup;
  open(deployment: Deployment): DeploymentData;
  clock: SmokeClock;
  /** One line for the person running the smoke. */
  say(line: string): void;
};
