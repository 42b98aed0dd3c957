/**
 * The Row workflow's bucket by signed requests (shared/aws/s3-whole-objects.ts) on s3rver, the S3
 * stand-in of the local runtime: whole objects written and
 * read back, and read by the SDK's store as if the S3 client had written them (and the other way).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startS3 } from '../../local/runtime/stand-ins.js';
import { createS3ObjectStore } from '../../shared/aws/s3-object-store.js';
import { createS3WholeObjects, s3Requester } from '../../shared/aws/s3-whole-objects.js';
import { AwsRequestError } from '../../shared/aws/signed-requests.js';
import type { ObjectStore, WholeObjects } from '../../shared/pipeline/core/ports.js';
import { S3RVER_KEYS, s3rverClient } from '../helpers/s3rver-client.js';

const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: S3RVER_KEYS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: S3RVER_KEYS.secretAccessKey,
  AWS_REGION: 'us-east-1',
};
const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));

describe('whole objects by signed requests, on s3rver', () => {
  let dataDir = '';
  let server: RunningServer;
  let client: S3Client;
  let buckets = 0;
  let whole: WholeObjects;
  let sdk: ObjectStore;
  let bucket = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'whole-objects-'));
    server = await startS3(dataDir, []);
    client = s3rverClient(server.endpoint);
  });

  afterAll(async () => {
    client?.destroy();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    bucket = `whole-${++buckets}`;
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    whole = createS3WholeObjects({
      bucket,
      s3: s3Requester({ ...CREDENTIALS, AWS_ENDPOINT_URL_S3: server.endpoint }),
    });
    sdk = createS3ObjectStore({ client, bucket });
  });

  it('writes text, bytes and a stream whole and reads each back as given', async () => {
    // Prepare
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0a, 0x80]);
    const stream = Readable.from([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2]), 'fim']);

    // Act
    await whole.put('work/b/uploads/1-a1.json', '{"file_url":"https://x/é"}', 'application/json');
    await whole.put('outbox/b/pdfs/1.pdf', bytes, 'application/pdf');
    await whole.put('outbox/b/pdfs/2.pdf', stream, 'application/pdf');
    await whole.put('outbox/b/empty.txt', '', 'text/plain');

    // Assess
    expect(text(await whole.getBytes('work/b/uploads/1-a1.json'))).toBe('{"file_url":"https://x/é"}');
    expect(await whole.getBytes('outbox/b/pdfs/1.pdf')).toEqual(bytes);
    expect(text(await whole.getBytes('outbox/b/pdfs/2.pdf'))).toBe('%PDF-1.7\n\u0000\u0001\u0002fim');
    expect(await whole.getBytes('outbox/b/empty.txt')).toEqual(new Uint8Array());
    const head = await sdk.head('outbox/b/pdfs/2.pdf');
    expect(head?.size).toBe(15);
  });

  it('finds a key with accents, spaces, parentheses and a plus as the S3 client stored it, and the other way', async () => {
    // Prepare
    const key = 'inbox/nightly/sheets/Ficha técnica (1) + anexo!.pdf';
    await sdk.put(key, '%PDF sdk', 'application/pdf');

    // Act
    const read = await whole.getBytes(key);
    await whole.put(`${key}.copy`, '%PDF signed', 'application/pdf', { 'sheet-sha256': 'abc' });

    // Assess
    expect(text(read)).toBe('%PDF sdk');
    expect(text(await sdk.getBytes(`${key}.copy`))).toBe('%PDF signed');
    expect((await sdk.head(`${key}.copy`))?.metadata).toEqual({ 'sheet-sha256': 'abc' });
  });

  it('answers the ETag S3 gave, without quotes, and null for a key that is not there', async () => {
    // Act
    const version = await whole.put('outbox/b/summary.json', '{"rows":1}', 'application/json');

    // Assess
    expect(version.etag).toMatch(/^[0-9a-f]{32}$/);
    expect((await sdk.head('outbox/b/summary.json'))?.etag.replace(/"/g, '')).toBe(version.etag);
    expect(version.versionId).toBeNull();
    expect(await whole.getBytes('outbox/b/missing.json')).toBeNull();
  });

  it('throws the error S3 gave, by its code, for a request it refuses', async () => {
    // Prepare (s3rver knows one key pair; it checks a V4 signature's key, not its value:
    // test/unit/aws/signed-requests.test.ts checks the signature against AWS's own example)
    const forged = createS3WholeObjects({
      bucket,
      s3: s3Requester({ ...CREDENTIALS, AWS_ACCESS_KEY_ID: 'UNKNOWN', AWS_ENDPOINT_URL_S3: server.endpoint }),
    });

    // Act
    const error = await forged.put('outbox/b/x.txt', 'x', 'text/plain').catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(AwsRequestError);
    expect((error as AwsRequestError).name).toBe('InvalidAccessKeyId');
    expect((error as AwsRequestError).$metadata.httpStatusCode).toBe(403);
    expect(await sdk.getBytes('outbox/b/x.txt')).toBeNull();
  });
});
