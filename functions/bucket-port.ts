/**
 * The bucket's port, through S3, in a module of its own: its adapter imports `@aws-sdk/lib-storage`
 * (multipart uploads), a package not marked free of side effects, so esbuild keeps it, and the S3
 * client's schemas it reaches, in every bundle that imports the adapter's module, whether or not
 * the handler uses the bucket. Only the handlers that do import this module (port-builders.ts says
 * why each handler names its builders).
 */
import { createS3Client } from '../shared/aws/clients.js';
import { createS3ObjectStore } from '../shared/aws/s3-object-store.js';
import type { PipelinePorts } from '../shared/pipeline/core/ports.js';
import { ENV } from './catalogue.js';
import { once, required } from './environment.js';

const s3 = once(() => createS3Client(process.env));

/** Gives the bucket the stack names (BUCKET_NAME), through S3, built once per container. */
export const objects = once((): PipelinePorts['objects'] =>
  createS3ObjectStore({ client: s3(), bucket: required(ENV.bucketName) }),
);
