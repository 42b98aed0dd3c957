/**
 * S3's record of who wrote an object, as CloudTrail keeps it on AWS: the permission gate in front
 * of the local S3 sees every write and who signed it, so it tells of each one that succeeded, with
 * the principal (a function's role session, or this machine's user for a request no function
 * signed) and the object's ETag (the local S3 keeps no versions). pipeline.ts turns each into the
 * "AWS API Call via CloudTrail" event the template's RecordWriterRule takes.
 */
import { userInfo } from 'node:os';
import { LOCAL_ACCOUNT } from '../template.js';
import type { ApiRequest } from './requested-actions.js';

/** One write the local S3 accepted: the call as CloudTrail names it, the object, and who made it. */
export type ObjectWritten = {
  call: 'PutObject' | 'CopyObject' | 'PostObject' | 'CompleteMultipartUpload';
  bucket: string;
  key: string;
  etag: string;
  principalArn: string;
};

/** The principal of a request no function signed: this machine's user, as an IAM user of the local account. */
export const machineUserArn = (): string => `arn:aws:iam::${LOCAL_ACCOUNT}:user/${userInfo().username}`;

/** The write a request makes, before its answer (`etag` comes with it); null when it writes no object. */
export const objectWriteOf = (
  request: ApiRequest,
  formKey: string | null,
): Omit<ObjectWritten, 'etag' | 'principalArn'> | null => {
  const [, bucket = '', ...rest] = request.path.split('/');
  const key = rest.join('/');
  if (!bucket) return null;
  if (request.method === 'POST' && !key && formKey !== null)
    return { call: 'PostObject', bucket, key: formKey };
  if (!key) return null;
  if (request.method === 'POST' && request.query.has('uploadId'))
    return { call: 'CompleteMultipartUpload', bucket, key };
  if (request.method !== 'PUT' || request.query.has('tagging') || request.query.has('partNumber'))
    return null;
  return { call: request.headers['x-amz-copy-source'] ? 'CopyObject' : 'PutObject', bucket, key };
};

/** The ETag a write's answer gives: its header (a put, a form upload), else its XML body (a copy, a completed upload). */
export const etagOfAnswer = (header: string | undefined, body: string): string =>
  (header ?? /<ETag>([^<]*)<\/ETag>/.exec(body)?.[1] ?? '').replace(/&quot;|"/g, '');
