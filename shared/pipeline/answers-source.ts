/**
 * Which S3 object starts an answers round (issue 6), and its identity, from EventBridge's
 * "Object Created" event: the filled review.csv dropped into `answers/<batch-id>/`.
 *
 *   answers/<batch-id>/<file>.csv|.xlsx ──▶ batch id (the folder), round id, source
 *
 * Only a file exactly one folder below `answers/` is an answers file: sheets named by its
 * `sheet` column sit beside it or deeper, and are read by the round, they do not start one.
 *
 * Round id: `<batch-id>~<hash of bucket, key as the event gave it, version or ETag>`. As for a
 * batch (batch-source.ts), the key is hashed exactly as the event spelt it, so every delivery of
 * one event, and FinalizeAnswers reading the same event, derive the same round without I/O. The
 * same file dropped again is a new object version: a new round, in which every row comes out
 * `already_answered`.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { inputKeyCandidates, ObjectCreatedEvent } from './batch-source.js';
import type { BatchSource } from './records.js';

export type AnswersSourceFromEvent = { batchId: string; roundId: string; source: BatchSource };

/** The answers folder of a batch: the answers file and the sheets it names live here. */
export const answersFolder = (batchId: string): string => `answers/${batchId}/`;

const ANSWERS_FILE = /^answers\/([^/]+)\/([^/]+\.(?:csv|xlsx))$/i;

/**
 * `answers/<batch-id>/<file>.csv|.xlsx` → its parts; null for any other key. Excel's lock files
 * (`~$review.xlsx`) and hidden files (`.review.csv`) are what sync tools upload beside a
 * workbook that is open: they are no answers.
 */
export const parseAnswersKey = (
  key: string,
): { batchId: string; folder: string; fileName: string } | null => {
  const match = ANSWERS_FILE.exec(key);
  if (!match) return null;
  const [, batchId = '', fileName = ''] = match;
  if (fileName.startsWith('~$') || fileName.startsWith('.')) return null;
  if (batchId.trim() === '' || batchId === '.' || batchId === '..') return null;
  return { batchId, folder: answersFolder(batchId), fileName };
};

/** Ten characters of `[A-Za-z0-9]`: safe in a DynamoDB key, an S3 key and an execution name. */
const shortHash = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 10).replace(/[-_]/g, 'x');

export const deriveRoundId = (
  batchId: string,
  identity: { bucket: string; key: string; versionOrEtag: string },
): string =>
  `${batchId}~${shortHash(JSON.stringify([identity.bucket, identity.key, identity.versionOrEtag]))}`;

/** The source record for one spelling of the key, or null when that spelling is no answers file. */
export const answersSourceForKey = (
  key: string,
  identity: { bucket: string; version_or_etag: string },
): BatchSource | null => {
  const parsed = parseAnswersKey(key);
  if (!parsed) return null;
  return {
    bucket: identity.bucket,
    key,
    version_or_etag: identity.version_or_etag,
    folder: parsed.folder,
    file_name: parsed.fileName,
  };
};

const parseEvent = (event: unknown) => {
  const parsed = ObjectCreatedEvent.safeParse(event);
  if (!parsed.success) return null;
  const { 'detail-type': detailType } = parsed.data;
  if (detailType !== undefined && detailType !== 'Object Created') return null;
  return parsed.data;
};

export const answersSourceFromEvent = (event: unknown): AnswersSourceFromEvent | null => {
  const parsed = parseEvent(event);
  if (!parsed) return null;
  const { bucket, object } = parsed.detail;
  const { key: eventKey, etag, 'version-id': versionId, sequencer } = object;
  // A versioned bucket names each upload by its version; otherwise the ETag tells contents apart.
  const versionOrEtag = versionId ?? etag ?? sequencer;
  if (!versionOrEtag) return null;

  for (const key of inputKeyCandidates(eventKey)) {
    const source = answersSourceForKey(key, { bucket: bucket.name, version_or_etag: versionOrEtag });
    if (!source) continue;
    const batchId = parseAnswersKey(key)!.batchId;
    const roundId = deriveRoundId(batchId, { bucket: bucket.name, key: eventKey, versionOrEtag });
    return { batchId, roundId, source };
  }
  return null;
};

const RequesterDetail = z.object({ detail: z.object({ requester: z.string().min(1).optional() }) });

/**
 * Who dropped the file, as S3 reports it (`detail.requester`: an account id or a service
 * principal), or null. Recorded on the review items as who answered, when the caller knows no
 * better (a person's name from the CLI).
 */
export const requesterFromEvent = (event: unknown): string | null => {
  const parsed = RequesterDetail.safeParse(event);
  return parsed.success ? (parsed.data.detail.requester ?? null) : null;
};
