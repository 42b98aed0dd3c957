/**
 * The bucket (`ObjectStore` port) on S3: `inbox/` holds what operators drop, `outbox/` what
 * the pipeline writes. A missing object is `null`, not an error: Prepare asks for sheets
 * that may not be there, and the caller decides what that means for the row.
 */

import type { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import {
  NOT_FOLLOWED_METADATA,
  type ObjectHead,
  type ObjectStore,
  type PutObjectVersion,
} from '../pipeline/core/ports.js';

/**
 * Keys written under S3 Object Lock, governance mode, and for how long: every write of such a key
 * (a put, the start of an upload in parts, a copy) carries the retention, so each version it makes
 * cannot be deleted or overwritten before, except by someone granted to bypass governance.
 */
export type ObjectLock = { days: number; keys: (key: string) => boolean; now?: () => Date };

/**
 * Sends a stream of unknown length and gives the ETag and version S3 answered (s3-stream-upload.ts
 * sends it in parts). A store is given one only where its function's bucket streams
 * (functions/catalogue.ts, `objects.streams`): the package that does it is not small.
 */
export type StreamUpload = (
  client: S3Client,
  params: PutObjectCommandInput & { Body: Readable },
) => Promise<{ ETag?: string | undefined; VersionId?: string | undefined }>;

export type S3ObjectStoreConfig = {
  client: S3Client;
  bucket: string;
  lock?: ObjectLock;
  uploadStream?: StreamUpload;
};

/** The Object Lock parameters of a write of `key`: none unless the lock names the key. */
const lockOf = (lock: ObjectLock | undefined, key: string) =>
  lock?.keys(key)
    ? {
        ObjectLockMode: 'GOVERNANCE' as const,
        ObjectLockRetainUntilDate: new Date((lock.now?.() ?? new Date()).getTime() + lock.days * 86_400_000),
      }
    : {};

type AwsError = { name?: string; $metadata?: { httpStatusCode?: number } };

/**
 * HeadObject answers a missing key with a bare 404 (`NotFound`), GetObject with `NoSuchKey`.
 * (Without s3:ListBucket S3 answers 403 instead: the functions' roles grant it.)
 */
const isMissing = (error: unknown): boolean => {
  const { name, $metadata } = (error ?? {}) as AwsError;
  return name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404;
};

/** A Range request on an empty object: there is no byte 0 to start from. */
const isUnsatisfiableRange = (error: unknown): boolean => {
  const { name, $metadata } = (error ?? {}) as AwsError;
  return name === 'InvalidRange' || $metadata?.httpStatusCode === 416;
};

/**
 * `CopySource` is `<bucket>/<key>` URL-encoded; each segment is encoded and the slashes
 * kept, so keys with spaces, accents or `+` (operators name files freely) copy correctly.
 */
export const copySourceOf = (bucket: string, key: string): string =>
  `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

/**
 * How much of an object one ranged GET reads when a file is read in chunks. Each range is read
 * whole before its bytes are handed on: a connection is never left idle while Prepare writes rows
 * (S3 closes idle ones), and memory holds one range, whatever the file's size.
 */
const RANGE_BYTES = 1024 * 1024;
/** An object's size, ETag, version and user metadata; null when absent. */
const headOf = async (client: S3Client, Bucket: string, key: string): Promise<ObjectHead | null> => {
  try {
    const found = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
    const head = {
      size: found.ContentLength ?? 0,
      etag: found.ETag ?? '',
      versionId: found.VersionId ?? null,
    };
    const metadata =
      found.Metadata && Object.keys(found.Metadata).length > 0 ? { metadata: found.Metadata } : {};
    const linkNotFollowed =
      found.Metadata?.[NOT_FOLLOWED_METADATA.name] === NOT_FOLLOWED_METADATA.linkOutsideFolder;
    return linkNotFollowed
      ? { ...head, ...metadata, notFollowed: 'link_outside_folder' }
      : { ...head, ...metadata };
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
};

/**
 * CopyObject of `fromKey` over `toKey` on the condition that `toKey` is the object whose ETag is
 * `expected` (`If-Match`), or that there is none (`If-None-Match: *`); false when S3 refuses it (412).
 */
const conditionalCopy = async (
  client: S3Client,
  Bucket: string,
  copy: { fromKey: string; toKey: string; expected: string | null; lock?: ObjectLock | undefined },
): Promise<boolean> => {
  const { fromKey, toKey, expected, lock } = copy;
  const condition = {
    ...(expected === null ? { IfNoneMatch: '*' } : { IfMatch: expected }),
    ...lockOf(lock, toKey),
  };
  const CopySource = copySourceOf(Bucket, fromKey);
  // 409: another conditional write to the key was in flight; S3 asks for the request again, and
  // the second answer says which of the two stood.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.send(new CopyObjectCommand({ Bucket, Key: toKey, CopySource, ...condition }));
      return true;
    } catch (error) {
      const { name, $metadata } = (error ?? {}) as AwsError;
      if (name === 'PreconditionFailed' || $metadata?.httpStatusCode === 412) return false;
      const conflict = name === 'ConditionalRequestConflict' || $metadata?.httpStatusCode === 409;
      if (!conflict || attempt >= 5) throw error;
    }
  }
};

/**
 * A PutObject, or for a stream of unknown length the store's upload of streams, with the key's
 * Object Lock; a stream given to a store without one is refused before anything is sent.
 */
const putObject = async (
  client: S3Client,
  Bucket: string,
  put: {
    key: string;
    body: Uint8Array | string | NodeJS.ReadableStream;
    contentType: string;
    metadata: Readonly<Record<string, string>> | undefined;
    lock: ObjectLock | undefined;
    uploadStream: StreamUpload | undefined;
  },
): Promise<PutObjectVersion> => {
  const { key, body, metadata } = put;
  const params = {
    Bucket,
    Key: key,
    ContentType: put.contentType,
    ...(metadata && Object.keys(metadata).length > 0 ? { Metadata: { ...metadata } } : {}),
    ...lockOf(put.lock, key),
  };
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const output = await client.send(new PutObjectCommand({ ...params, Body: body }));
    return versionOf(output);
  }
  if (!put.uploadStream)
    throw new Error(
      `${key}: a stream of unknown length, and this bucket takes none (its function's objects do not stream)`,
    );
  return versionOf(await put.uploadStream(client, { ...params, Body: body as Readable }));
};

/** The ETag (quotes removed) and version a PutObject or a completed upload answered. */
const versionOf = (output: {
  ETag?: string | undefined;
  VersionId?: string | undefined;
}): PutObjectVersion => ({
  etag: (output.ETag ?? '').replace(/"/g, ''),
  versionId: output.VersionId ?? null,
});

export const createS3ObjectStore = (config: S3ObjectStoreConfig): ObjectStore => {
  const { client } = config;
  const Bucket = config.bucket;

  const head: ObjectStore['head'] = (key) => headOf(client, Bucket, key);

  const getBytes: ObjectStore['getBytes'] = async (key) => {
    try {
      const { Body } = await client.send(new GetObjectCommand({ Bucket, Key: key }));
      return Body ? await Body.transformToByteArray() : new Uint8Array();
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };

  /** Bytes `[start, end)` of an object, in one ranged GET. */
  const readRange = async (key: string, start: number, end: number): Promise<Uint8Array> => {
    const { Body } = await client.send(
      new GetObjectCommand({ Bucket, Key: key, Range: `bytes=${start}-${end - 1}` }),
    );
    const bytes = Body ? await Body.transformToByteArray() : new Uint8Array();
    // A stand-in that ignores Range sends it all.
    return bytes.byteLength > end - start ? bytes.slice(start, end) : bytes;
  };

  const getPrefix: ObjectStore['getPrefix'] = async (key, length) => {
    if (length < 1) return (await head(key)) ? new Uint8Array() : null;
    try {
      return await readRange(key, 0, Math.floor(length));
    } catch (error) {
      if (isMissing(error)) return null;
      if (isUnsatisfiableRange(error)) return new Uint8Array();
      throw error;
    }
  };

  const put: ObjectStore['put'] = (key, body, contentType, metadata) =>
    putObject(client, Bucket, {
      key,
      body,
      contentType,
      metadata,
      lock: config.lock,
      uploadStream: config.uploadStream,
    });

  const source: ObjectStore['source'] = async (key) => {
    const found = await head(key);
    if (!found) return null;
    return {
      size: found.size,
      async *read(start, end) {
        for (let at = start; at < Math.min(end, found.size); at += RANGE_BYTES) {
          yield await readRange(key, at, Math.min(at + RANGE_BYTES, end, found.size));
        }
      },
    };
  };

  const copy: ObjectStore['copy'] = async (fromKey, toKey) => {
    const CopySource = copySourceOf(Bucket, fromKey);
    await client.send(
      new CopyObjectCommand({ Bucket, Key: toKey, CopySource, ...lockOf(config.lock, toKey) }),
    );
  };

  const list: ObjectStore['list'] = async (prefix) => {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
      for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    // S3 lists in key order already; sorting again keeps that promise with stand-ins too.
    return keys.sort();
  };

  return {
    head,
    getBytes,
    getPrefix,
    source,
    put,
    copy,
    copyIfUnchanged: (fromKey, toKey, expected) =>
      conditionalCopy(client, Bucket, { fromKey, toKey, expected, lock: config.lock }),
    list,
    ...uploadsInParts(client, Bucket, config.lock),
  };
};

/** Uploads that outlive an invocation: the upload's id and its parts' ETags travel between legs. */
const uploadsInParts = (
  client: S3Client,
  Bucket: string,
  lock: ObjectLock | undefined,
): Pick<ObjectStore, 'startUpload' | 'uploadPart' | 'copyPart' | 'completeUpload'> => {
  const startUpload: ObjectStore['startUpload'] = async (key, contentType) => {
    const started = await client.send(
      new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: contentType, ...lockOf(lock, key) }),
    );
    if (!started.UploadId) throw new Error(`S3 started no upload for ${key}`);
    return started.UploadId;
  };

  const uploadPart: ObjectStore['uploadPart'] = async (key, uploadId, partNumber, bytes) => {
    const sent = await client.send(
      new UploadPartCommand({ Bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: bytes }),
    );
    if (!sent.ETag) throw new Error(`S3 gave part ${partNumber} of ${key} no ETag`);
    return sent.ETag;
  };

  const copyPart: ObjectStore['copyPart'] = async (key, uploadId, partNumber, from) => {
    const copied = await client.send(
      new UploadPartCopyCommand({
        Bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: partNumber,
        CopySource: copySourceOf(Bucket, from.key),
        CopySourceRange: `bytes=0-${from.bytes - 1}`,
      }),
    );
    const etag = copied.CopyPartResult?.ETag;
    if (!etag) throw new Error(`S3 gave part ${partNumber} of ${key}, copied from ${from.key}, no ETag`);
    return etag;
  };

  const completeUpload: ObjectStore['completeUpload'] = async (key, uploadId, parts) => {
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.number, ETag: part.etag })) },
      }),
    );
  };
  return { startUpload, uploadPart, copyPart, completeUpload };
};
