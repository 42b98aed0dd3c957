/**
 * An S3 client for s3rver, the local runtime's S3 stand-in, configured as the local runtime
 * configures its own (shared/aws/clients.ts with `S3_FORCE_PATH_STYLE=true`).
 */
import { S3Client } from '@aws-sdk/client-s3';

/** s3rver's one key pair: every local client signs with it. */
export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/**
 * Takes s3rver's endpoint and gives an S3 client for it: s3rver's own key pair, path-style URLs,
 * and checksums only where an operation requires one (s3rver would store a streaming checksum's
 * chunk framing in the body).
 */
export const s3rverClient = (endpoint: string): S3Client =>
  new S3Client({
    endpoint,
    region: 'us-east-1',
    credentials: S3RVER_KEYS,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
