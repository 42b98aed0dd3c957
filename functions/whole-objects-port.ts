/**
 * The bucket's port for the functions that read and write whole objects only (`objects.whole` in
 * catalogue.ts: the Row workflow's Submit and Store): signed requests to S3, so that their bundles
 * hold no S3 client (shared/aws/s3-whole-objects.ts says why).
 */
import { createS3WholeObjects } from '../shared/aws/s3-whole-objects.js';
import type { WholeObjects } from '../shared/pipeline/core/ports.js';
import { ENV, type PortUses } from './catalogue.js';
import { once, required } from './environment.js';

/** How a function uses the bucket when it reaches it whole: its catalogue entry says `whole`. */
type Whole = NonNullable<PortUses['objects']> & { whole: true; streams?: never };

/** The whole-object bucket the stack names (BUCKET_NAME), built once per container. */
export const wholeObjects: (use: Whole) => WholeObjects = once(() =>
  createS3WholeObjects({ bucket: required(ENV.bucketName) }),
);
