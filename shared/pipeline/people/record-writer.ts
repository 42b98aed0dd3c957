/**
 * S3's record of a write, kept as who wrote the object (core/people.ts): CloudTrail's data event
 * for a PutObject, CopyObject, PostObject or CompleteMultipartUpload into `answers/` or `inbox/`,
 * as EventBridge delivers it ("AWS API Call via CloudTrail"). The principal is the one S3
 * authenticated; no part of the request the writer chose (metadata, the file) is read.
 *
 * On AWS the event names the object's new version (`responseElements.x-amz-version-id`); the local
 * S3 keeps no versions, and its gate names the ETag instead (`responseElements.ETag`).
 */
import * as z from 'zod';
import { bareEtag, personOfPrincipal, type WriterRecord } from '../core/people.js';
import type { PipelinePorts } from '../core/ports.js';

/** The part of CloudTrail's event this reads. */
const CloudTrailWrite = z.object({
  time: z.string().optional(),
  detail: z.object({
    eventTime: z.string().optional(),
    eventName: z.string(),
    errorCode: z.string().optional(),
    userIdentity: z.object({ arn: z.string().optional(), principalId: z.string().optional() }),
    requestParameters: z.object({ bucketName: z.string(), key: z.string() }),
    responseElements: z
      .object({ 'x-amz-version-id': z.string().optional(), ETag: z.string().optional() })
      .nullable()
      .optional(),
  }),
});

/** What recording a write did: the record kept, or why nothing was. */
export type RecordWriterResult = { recorded: WriterRecord } | { skipped: string };

/**
 * Takes CloudTrail's event of a write into the bucket and keeps who wrote the object under its key
 * and version (or ETag), once; a failed call or an event naming neither is skipped, said why.
 */
export const recordWriter = async (
  ports: Pick<PipelinePorts, 'writers'>,
  event: unknown,
): Promise<RecordWriterResult> => {
  const parsed = CloudTrailWrite.safeParse(event);
  if (!parsed.success) return { skipped: 'not a CloudTrail record of a write to S3' };
  const { detail } = parsed.data;
  if (detail.errorCode) return { skipped: `the ${detail.eventName} failed (${detail.errorCode})` };
  const principal = detail.userIdentity.arn ?? detail.userIdentity.principalId;
  if (!principal) return { skipped: 'the record names no principal' };
  const versionId = detail.responseElements?.['x-amz-version-id'] ?? null;
  const etag = detail.responseElements?.ETag ? bareEtag(detail.responseElements.ETag) : null;
  if (versionId === null && etag === null) return { skipped: 'the record names no version of the object' };
  const recorded: WriterRecord = {
    key: detail.requestParameters.key,
    version_id: versionId,
    etag,
    person: personOfPrincipal(principal),
    at: detail.eventTime ?? parsed.data.time ?? new Date(0).toISOString(),
  };
  await ports.writers.record(recorded);
  return { recorded };
};
