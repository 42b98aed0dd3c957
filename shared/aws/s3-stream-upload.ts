/**
 * A stream of unknown length sent to S3 (results.csv and .xlsx of a large batch, plan.csv of a
 * large file, a verdict's PDF as the service sends it): a PutObject when it ends within one part,
 * else an upload in parts, which an abort cleans up. Only the functions whose bucket streams
 * (functions/catalogue.ts, `objects.streams`) give it to their store (s3-object-store.ts).
 */
import { Upload } from '@aws-sdk/lib-storage';
import type { StreamUpload } from './s3-object-store.js';

/**
 * Takes the client and a PutObject's parameters whose body is a stream, and sends it one part at a
 * time. The SDK's default of 4 parts at once would hold 4 parts of 5 MiB, and the one being filled,
 * for a body made no faster than one part is sent: with one, reading the body waits while a part
 * goes, and the writers wait with it.
 */
export const uploadStream: StreamUpload = (client, params) =>
  new Upload({ client, queueSize: 1, params }).done();
