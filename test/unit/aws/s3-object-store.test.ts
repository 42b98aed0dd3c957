/** The S3 adapter with a mocked client: the exact requests, and how a missing object reads. */
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { copySourceOf, createS3ObjectStore } from '../../../shared/aws/s3-object-store.js';
import { uploadStream } from '../../../shared/aws/s3-stream-upload.js';

const s3 = mockClient(S3Client);
const store = createS3ObjectStore({
  client: new S3Client({ region: 'us-east-1' }),
  bucket: 'the-bucket',
  uploadStream,
});

const metadata = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
/** A GetObject body as the SDK hands it out; only the method the adapter calls. */
const bodyOf = (bytes: Uint8Array | string) =>
  ({
    transformToByteArray: async () => (typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes),
  }) as unknown as GetObjectCommandOutput['Body'];
const serviceError = (name: string, status: number) =>
  new S3ServiceException({ name, $fault: 'client', message: name, ...metadata(status) });

beforeEach(() => s3.reset());

describe('head', () => {
  it('asks HeadObject and maps size, etag and version', async () => {
    s3.on(HeadObjectCommand).resolves({ ContentLength: 42, ETag: '"abc"', VersionId: 'v1' });
    expect(await store.head('inbox/n/batch.json')).toEqual({ size: 42, etag: '"abc"', versionId: 'v1' });
    expect(s3.commandCalls(HeadObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'the-bucket',
      Key: 'inbox/n/batch.json',
    });
  });

  it('reads null for a missing object, versionId null on an unversioned bucket', async () => {
    s3.on(HeadObjectCommand, { Key: 'missing' })
      .rejects(new NotFound({ message: 'Not Found', ...metadata(404) }))
      .on(HeadObjectCommand, { Key: 'present' })
      .resolves({ ContentLength: 0, ETag: '"e"' });
    expect(await store.head('missing')).toBeNull();
    expect(await store.head('present')).toEqual({ size: 0, etag: '"e"', versionId: null });
  });

  it('lets any other failure through', async () => {
    s3.on(HeadObjectCommand).rejects(serviceError('AccessDenied', 403));
    await expect(store.head('k')).rejects.toThrow('AccessDenied');
  });
});

describe('getBytes', () => {
  it('returns the whole body', async () => {
    s3.on(GetObjectCommand).resolves({ Body: bodyOf('sku;descrição\n') });
    expect(new TextDecoder().decode((await store.getBytes('inbox/n/p.csv')) ?? undefined)).toBe(
      'sku;descrição\n',
    );
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'the-bucket',
      Key: 'inbox/n/p.csv',
    });
  });

  it('reads null for NoSuchKey and lets other failures through', async () => {
    s3.on(GetObjectCommand, { Key: 'missing' })
      .rejects(new NoSuchKey({ message: 'The specified key does not exist.', ...metadata(404) }))
      .on(GetObjectCommand, { Key: 'denied' })
      .rejects(serviceError('AccessDenied', 403));
    expect(await store.getBytes('missing')).toBeNull();
    await expect(store.getBytes('denied')).rejects.toThrow('AccessDenied');
  });
});

describe('getPrefix', () => {
  it('asks for the first n bytes with a Range', async () => {
    s3.on(GetObjectCommand).resolves({ Body: bodyOf(new Uint8Array([0x50, 0x4b, 0x03, 0x04])) });
    expect(await store.getPrefix('inbox/n/p.xlsx', 4)).toEqual(new Uint8Array([0x50, 0x4b, 0x03, 0x04]));
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'the-bucket',
      Key: 'inbox/n/p.xlsx',
      Range: 'bytes=0-3',
    });
  });

  it('cuts a body sent whole by a store that ignores Range', async () => {
    s3.on(GetObjectCommand).resolves({ Body: bodyOf('abcdefgh') });
    expect(new TextDecoder().decode((await store.getPrefix('k', 3)) ?? undefined)).toBe('abc');
  });

  it('reads an empty object as no bytes (S3 answers 416) and a missing one as null', async () => {
    s3.on(GetObjectCommand, { Key: 'empty' })
      .rejects(serviceError('InvalidRange', 416))
      .on(GetObjectCommand, { Key: 'missing' })
      .rejects(new NoSuchKey({ message: 'no', ...metadata(404) }));
    expect(await store.getPrefix('empty', 8)).toEqual(new Uint8Array());
    expect(await store.getPrefix('missing', 8)).toBeNull();
  });
});

describe('put', () => {
  it('sends text and bytes as they are, with the content type', async () => {
    s3.on(PutObjectCommand).resolves({});
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46]);
    await store.put('outbox/b/results.csv', 'row,status\n', 'text/csv; charset=utf-8');
    await store.put('outbox/b/pdfs/00001.pdf', pdf, 'application/pdf');
    expect(s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input)).toEqual([
      {
        Bucket: 'the-bucket',
        Key: 'outbox/b/results.csv',
        Body: 'row,status\n',
        ContentType: 'text/csv; charset=utf-8',
      },
      { Bucket: 'the-bucket', Key: 'outbox/b/pdfs/00001.pdf', Body: pdf, ContentType: 'application/pdf' },
    ]);
  });

  it('buffers a stream of unknown length into one body', async () => {
    s3.on(PutObjectCommand).resolves({});
    const stream = Readable.from([Buffer.from('%PDF-'), '1.7', Buffer.from(' end')]);
    await store.put('outbox/b/pdfs/00002.pdf', stream, 'application/pdf');
    const body = s3.commandCalls(PutObjectCommand)[0]?.args[0].input.Body;
    expect(body).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(body as Uint8Array)).toBe('%PDF-1.7 end');
  });

  it('refuses a stream before sending anything when the store was given no upload of streams', async () => {
    s3.on(PutObjectCommand).resolves({});
    const wholeBodies = createS3ObjectStore({
      client: new S3Client({ region: 'us-east-1' }),
      bucket: 'the-bucket',
    });
    await expect(
      wholeBodies.put('outbox/b/pdfs/00003.pdf', Readable.from([Buffer.from('%PDF-')]), 'application/pdf'),
    ).rejects.toThrow(/outbox\/b\/pdfs\/00003\.pdf: a stream of unknown length/);
    await wholeBodies.put('outbox/b/results.csv', 'row\n', 'text/csv');
    expect(s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input.Key)).toEqual([
      'outbox/b/results.csv',
    ]);
  });
});

describe('copy', () => {
  it('names the source as bucket/key with each segment URL-encoded', async () => {
    s3.on(CopyObjectCommand).resolves({});
    await store.copy('outbox/old batch/pdfs/00001-Ficha técnica+1.pdf', 'outbox/new/pdfs/00001.pdf');
    expect(s3.commandCalls(CopyObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'the-bucket',
      Key: 'outbox/new/pdfs/00001.pdf',
      CopySource: 'the-bucket/outbox/old%20batch/pdfs/00001-Ficha%20t%C3%A9cnica%2B1.pdf',
    });
  });

  it('keeps the slashes of the key', () => {
    expect(copySourceOf('b', 'a/b c/d?e#f.pdf')).toBe('b/a/b%20c/d%3Fe%23f.pdf');
  });
});

describe('list', () => {
  it('follows continuation tokens and returns every key in key order', async () => {
    s3.on(ListObjectsV2Command, { ContinuationToken: undefined })
      .resolves({ IsTruncated: true, NextContinuationToken: 't1', Contents: [{ Key: 'inbox/n/a.pdf' }] })
      .on(ListObjectsV2Command, { ContinuationToken: 't1' })
      .resolves({ IsTruncated: false, Contents: [{ Key: 'inbox/n/c.pdf' }, { Key: 'inbox/n/b.pdf' }] });

    expect(await store.list('inbox/n/')).toEqual(['inbox/n/a.pdf', 'inbox/n/b.pdf', 'inbox/n/c.pdf']);
    expect(s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input)).toEqual([
      { Bucket: 'the-bucket', Prefix: 'inbox/n/', ContinuationToken: undefined },
      { Bucket: 'the-bucket', Prefix: 'inbox/n/', ContinuationToken: 't1' },
    ]);
  });

  it('returns [] for an empty prefix', async () => {
    s3.on(ListObjectsV2Command).resolves({ IsTruncated: false });
    expect(await store.list('outbox/none/')).toEqual([]);
  });
});

describe('Object Lock on the keys it names', () => {
  const NOW = Date.parse('2026-12-03T12:00:00.000Z');
  const locked = createS3ObjectStore({
    client: new S3Client({ region: 'us-east-1' }),
    bucket: 'the-bucket',
    lock: { days: 1826, keys: (key) => key.endsWith('/audit.csv'), now: () => new Date(NOW) },
  });
  const retention = {
    ObjectLockMode: 'GOVERNANCE',
    ObjectLockRetainUntilDate: new Date(NOW + 1826 * 86_400_000),
  };

  it('copies audit.csv into place under governance retention, on the condition asked, and nothing else', async () => {
    s3.on(CopyObjectCommand).resolves({});
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u1' });

    expect(await locked.copyIfUnchanged('outbox/b/.audit/x.csv', 'outbox/b/audit.csv', '"e1"')).toBe(true);
    await locked.copy('outbox/b/results.csv', 'outbox/b/results.rev1.csv');
    await locked.startUpload('outbox/b/audit.csv', 'text/csv');

    const [audit, results] = s3.commandCalls(CopyObjectCommand).map((call) => call.args[0].input);
    expect(audit).toEqual({
      Bucket: 'the-bucket',
      Key: 'outbox/b/audit.csv',
      CopySource: 'the-bucket/outbox/b/.audit/x.csv',
      IfMatch: '"e1"',
      ...retention,
    });
    expect(results).not.toHaveProperty('ObjectLockMode');
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]?.args[0].input).toMatchObject(retention);
  });

  it('says false when S3 refuses the condition (412), and asks again after a conflict (409)', async () => {
    s3.on(CopyObjectCommand)
      .rejectsOnce(serviceError('ConditionalRequestConflict', 409))
      .rejectsOnce(serviceError('PreconditionFailed', 412));

    expect(await locked.copyIfUnchanged('outbox/b/.audit/x.csv', 'outbox/b/audit.csv', null)).toBe(false);
    expect(s3.commandCalls(CopyObjectCommand).map((call) => call.args[0].input.IfNoneMatch)).toEqual([
      '*',
      '*',
    ]);
  });
});
