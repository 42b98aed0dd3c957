/**
 * The bucket's port, through S3, in a module of its own so that the S3 client stays out of the
 * bundles that do not use it. This builder puts whole bodies only; a function whose bucket streams
 * (`objects.streams` in catalogue.ts) names streaming-bucket-port.ts's instead, whose upload of
 * streams brings a package the others leave out. The type of each builder says which functions may
 * name it.
 */
import { createS3Client } from '../shared/aws/clients.js';
import { createS3ObjectStore, type ObjectLock, type StreamUpload } from '../shared/aws/s3-object-store.js';
import { isAuditRecordKey } from '../shared/pipeline/core/bucket-layout.js';
import type { PipelinePorts } from '../shared/pipeline/core/ports.js';
import { ENV, type PortUses } from './catalogue.js';
import { once, required } from './environment.js';

const s3 = once(() => createS3Client(process.env));

/** With AUDIT_LOCK_DAYS (the functions that write audit.csv): audit.csv's versions under Object Lock. */
const auditLock = (): { lock?: ObjectLock } => {
  const days = Number(process.env[ENV.auditLockDays] ?? '');
  return Number.isInteger(days) && days > 0 ? { lock: { days, keys: isAuditRecordKey } } : {};
};

/**
 * Takes how streams are sent, if the function's bucket streams, and gives the bucket the stack
 * names (BUCKET_NAME), through S3; where the function writes audit.csv, each version of it is
 * written under Object Lock (AUDIT_LOCK_DAYS).
 */
export const bucketStore = (uploadStream?: StreamUpload): PipelinePorts['objects'] =>
  createS3ObjectStore({
    client: s3(),
    bucket: required(ENV.bucketName),
    ...auditLock(),
    ...(uploadStream ? { uploadStream } : {}),
  });

/** How a function uses the bucket when it puts whole bodies only: its catalogue entry has no `streams`. */
type WholeBodies = NonNullable<PortUses['objects']> & { streams?: never; whole?: never };

/** The bucket of a function that puts whole bodies only, built once per container. */
export const objects: (use: WholeBodies) => PipelinePorts['objects'] = once(() => bucketStore());
