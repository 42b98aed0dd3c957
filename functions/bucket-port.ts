/**
 * The bucket's port, through S3, in a module of its own: its adapter imports `@aws-sdk/lib-storage`
 * (multipart uploads), a package not marked free of side effects, so esbuild keeps it, and the S3
 * client's schemas it reaches, in every bundle that imports the adapter's module, whether or not
 * the handler uses the bucket. Only the handlers that do import this module (port-builders.ts says
 * why each handler names its builders).
 */
import { createS3Client } from '../shared/aws/clients.js';
import { createS3ObjectStore, type ObjectLock } from '../shared/aws/s3-object-store.js';
import { isAuditRecordKey } from '../shared/pipeline/core/bucket-layout.js';
import type { PipelinePorts } from '../shared/pipeline/core/ports.js';
import { ENV } from './catalogue.js';
import { once, required } from './environment.js';

const s3 = once(() => createS3Client(process.env));

/** With AUDIT_LOCK_DAYS (the functions that write audit.csv): audit.csv's versions under Object Lock. */
const auditLock = (): { lock?: ObjectLock } => {
  const days = Number(process.env[ENV.auditLockDays] ?? '');
  return Number.isInteger(days) && days > 0 ? { lock: { days, keys: isAuditRecordKey } } : {};
};

/**
 * Gives the bucket the stack names (BUCKET_NAME), through S3, built once per container; where the
 * function writes audit.csv, each version of it is written under Object Lock (AUDIT_LOCK_DAYS).
 */
export const objects = once((): PipelinePorts['objects'] =>
  createS3ObjectStore({ client: s3(), bucket: required(ENV.bucketName), ...auditLock() }),
);
