/**
 * Which S3 object starts a batch, and its identity, from EventBridge's "Object Created" event.
 *
 * Only `inbox/<batch-name>/<file>.csv|.xlsx` (exactly one folder level) is a batch file:
 * `batch.json`, the sheets and anything deeper in the folder are read by the batch, they do
 * not start one.
 *
 * Key encoding. S3's classic notifications (SQS, SNS, Lambda) URL-encode the key, form style:
 * `red flower.jpg` arrives as `red+flower.jpg`, `+` as `%2B` (S3 user guide, "Event message
 * structure"; aws/aws-sdk-js#837). The EventBridge page of the guide shows plain keys and says
 * nothing either way. So we never guess: the event's key is kept as given, `inputKeyCandidates`
 * adds its form-decoded spelling, and Prepare reads the first candidate that exists. The batch
 * id is derived from the key exactly as the event gave it, so every delivery of the same event,
 * and Finalize reading the same event, derive the same id without any I/O.
 */
import { z } from 'zod';
import { deriveBatchId } from './keys.js';
import type { BatchSource } from './records.js';

/** The fields of the EventBridge event we use; everything else (and any workflow state) passes. */
export const ObjectCreatedEvent = z.object({
  'detail-type': z.string().optional(),
  detail: z.object({
    bucket: z.object({ name: z.string().min(1) }),
    object: z.object({
      key: z.string().min(1),
      etag: z.string().optional(),
      'version-id': z.string().optional(),
      size: z.number().optional(),
      sequencer: z.string().optional(),
    }),
  }),
});
export type ObjectCreatedEvent = z.infer<typeof ObjectCreatedEvent>;

export type BatchSourceFromEvent = { source: BatchSource; batchName: string; batchId: string };

const INBOX_FILE = /^inbox\/([^/]+)\/([^/]+\.(?:csv|xlsx))$/i;

/**
 * `inbox/<name>/<file>.csv|.xlsx` → its parts; null for any other key. Excel's lock files
 * (`~$catalogo.xlsx`) and hidden files (`.catalogo.csv`) are what sync tools upload beside a
 * workbook that is open: they are no batch.
 */
export const parseInboxKey = (
  key: string,
): { batchName: string; folder: string; fileName: string } | null => {
  const match = INBOX_FILE.exec(key);
  if (!match) return null;
  const [, batchName = '', fileName = ''] = match;
  if (fileName.startsWith('~$') || fileName.startsWith('.')) return null;
  if (batchName.trim() === '' || batchName === '.' || batchName === '..') return null;
  return { batchName, folder: `inbox/${batchName}/`, fileName };
};

/** `a+b%C3%A9.csv` → `a bé.csv`; null when the text is not valid percent-encoding. */
const formDecode = (key: string): string | null => {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return null;
  }
};

/** The spellings an event's key may stand for, as given first: Prepare reads the first that exists. */
export const inputKeyCandidates = (key: string): string[] => {
  const decoded = formDecode(key);
  return decoded === null || decoded === key ? [key] : [key, decoded];
};

/** The source record for one spelling of the key, or null when that spelling is no batch file. */
export const sourceForKey = (
  key: string,
  identity: { bucket: string; version_or_etag: string },
): BatchSource | null => {
  const parsed = parseInboxKey(key);
  if (!parsed) return null;
  return {
    bucket: identity.bucket,
    key,
    version_or_etag: identity.version_or_etag,
    folder: parsed.folder,
    file_name: parsed.fileName,
  };
};

export const batchSourceFromEvent = (event: unknown): BatchSourceFromEvent | null => {
  const parsed = ObjectCreatedEvent.safeParse(event);
  if (!parsed.success) return null;
  const { 'detail-type': detailType, detail } = parsed.data;
  if (detailType !== undefined && detailType !== 'Object Created') return null;
  const { key: eventKey, etag, 'version-id': versionId, sequencer } = detail.object;
  // A versioned bucket names each upload by its version; otherwise the ETag tells contents apart.
  const versionOrEtag = versionId ?? etag ?? sequencer;
  if (!versionOrEtag) return null;

  for (const key of inputKeyCandidates(eventKey)) {
    const source = sourceForKey(key, { bucket: detail.bucket.name, version_or_etag: versionOrEtag });
    if (!source) continue;
    const batchName = parseInboxKey(key)!.batchName;
    const batchId = deriveBatchId(batchName, {
      bucket: detail.bucket.name,
      key: eventKey,
      versionOrEtag,
    });
    return { source, batchName, batchId };
  }
  return null;
};
