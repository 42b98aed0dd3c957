/**
 * The bucket for the Row workflow's steps (`WholeObjects` port), on S3 by signed requests
 * (signed-requests.ts): an object read whole (GetObject) and written whole (PutObject), which is all
 * Submit and Store do, without the S3 client, whose shapes of every operation of S3 would be a
 * quarter of their bundles. A stream given to `put` is read into memory first: what these steps
 * write is a verdict PDF or a small record, and a PUT of known length is sent, and resent, whole.
 * The payload is signed (its SHA-256 in `x-amz-content-sha256`), so S3 refuses a body that changed
 * on the way.
 */
import type { ObjectStore, WholeObjects } from '../pipeline/core/ports.js';
import { AwsRequestError, type AwsRequester, type AwsService, awsRequester } from './signed-requests.js';

/** S3, as its requests are signed and addressed: a path is signed as it is sent. */
const S3_SERVICE: AwsService = { signingName: 's3', endpointKey: 'S3', pathSignedAsSent: true };

export type S3WholeObjectsConfig = {
  bucket: string;
  /** Requests to S3; by default from the process environment. */
  s3?: AwsRequester;
};

/**
 * A key as an S3 path: each segment encoded as AWS encodes it (everything but `A–Z a–z 0–9 - _ . ~`),
 * the slashes kept, so a sheet named `Ficha técnica (1).pdf` is signed and found as it was stored.
 */
const pathOf = (key: string): string =>
  `/${key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/')}`;

/** A body as bytes: text as UTF-8, a stream read to its end. */
const bytesOf = async (body: Parameters<ObjectStore['put']>[1]): Promise<Uint8Array> => {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
};

/** A missing key: GetObject's `NoSuchKey`, or a bare 404. */
const isMissing = (error: unknown): boolean =>
  error instanceof AwsRequestError && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);

/**
 * Takes the bucket (and, for tests, the requests to S3) and gives its whole-object reads and
 * writes: `getBytes` is null for a missing key; `put` answers the ETag (quotes removed) and the
 * version S3 gave the object (null where the bucket keeps none), as the SDK's store does.
 */
export const createS3WholeObjects = (config: S3WholeObjectsConfig): WholeObjects => {
  const s3 = config.s3 ?? awsRequester(S3_SERVICE);
  const { bucket } = config;
  return {
    async getBytes(key) {
      try {
        const answer = await s3({ method: 'GET', bucket, path: pathOf(key) });
        return new Uint8Array(await answer.arrayBuffer());
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async put(key, body, contentType, metadata) {
      const headers: Record<string, string> = { 'content-type': contentType };
      for (const [name, value] of Object.entries(metadata ?? {}))
        headers[`x-amz-meta-${name.toLowerCase()}`] = value;
      const answer = await s3({
        method: 'PUT',
        bucket,
        path: pathOf(key),
        headers,
        body: await bytesOf(body),
      });
      await answer.body?.cancel();
      return {
        etag: (answer.headers.get('etag') ?? '').replace(/"/g, ''),
        versionId: answer.headers.get('x-amz-version-id'),
      };
    },
  };
};

/** Takes the environment and gives requests to S3 as this module signs them (tests point them at a stand-in). */
export const s3Requester = (env: NodeJS.ProcessEnv = process.env): AwsRequester =>
  awsRequester(S3_SERVICE, env);
