/**
 * Which S3 object starts an answers round (docs/answers-round.md), and its identity, from
 * EventBridge's "Object Created" event: the filled review.csv dropped into `answers/<batch-id>/`.
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
import { shortDigest } from '../core/keys.js';
import { ANSWERED_BY_METADATA, type ObjectHead } from '../core/ports.js';
import type { BatchSource } from '../core/records.js';
import { droppedFileFromEvent, droppedSourceForKey, parseDroppedFileKey } from '../prepare/batch-source.js';

/** The answers round an event starts: the batch it answers, the round's id, and the dropped file. */
export type AnswersSourceFromEvent = { batchId: string; roundId: string; source: BatchSource };

/**
 * `answers/<batch-id>/<file>.csv|.xlsx` → its parts; null for any other key, a sheet in a subfolder
 * included.
 */
export const parseAnswersKey = (
  key: string,
): { batchId: string; folder: string; fileName: string } | null => {
  const parsed = parseDroppedFileKey('answers', key);
  return parsed && { batchId: parsed.folderName, folder: parsed.folder, fileName: parsed.fileName };
};

const deriveRoundId = (
  batchId: string,
  identity: { bucket: string; key: string; versionOrEtag: string },
): string =>
  `${batchId}~${shortDigest(JSON.stringify([identity.bucket, identity.key, identity.versionOrEtag]))}`;

/** The source record for one spelling of the key, or null when that spelling is no answers file. */
export const answersSourceForKey = (
  key: string,
  identity: { bucket: string; version_or_etag: string },
): BatchSource | null => droppedSourceForKey('answers', key, identity);

/**
 * The answers round an Object Created event starts, its round id derived from the event alone (the
 * same for every delivery); null when the event is not a file dropped one folder below `answers/`.
 */
export const answersSourceFromEvent = (event: unknown): AnswersSourceFromEvent | null => {
  const found = droppedFileFromEvent('answers', event);
  if (!found) return null;
  const { source, folderName: batchId, identity } = found;
  return { batchId, roundId: deriveRoundId(batchId, identity), source };
};

/**
 * The name an answers file states about its writer, from its `answered-by` metadata (URI-encoded);
 * null when absent or unreadable. Anyone who writes the file can set it: it is kept as `stated_by`,
 * never taken for the person (answers-writer.ts).
 */
export const statedByOfHead = (head: ObjectHead | null): string | null => {
  const value = head?.metadata?.[ANSWERED_BY_METADATA];
  if (!value) return null;
  try {
    return decodeURIComponent(value).trim() || null;
  } catch {
    return null;
  }
};
