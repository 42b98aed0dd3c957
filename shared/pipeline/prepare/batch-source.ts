/**
 * Which S3 object starts a batch, and its identity, from EventBridge's "Object Created" event.
 *
 * Only `inbox/<batch-name>/<file>.csv|.txt|.tsv|.xlsx|.xml|.zip` (exactly one folder level) is a batch
 * file (`.txt` and `.tsv`: Excel's "Unicode Text" and "Text (tab delimited)", SPED EFD too; `.xml` and
 * `.zip`: NF-e invoices; all read by their content):
 * `batch.json`, the sheets and anything deeper in the folder are read by the batch, they do
 * not start one.
 *
 * Key encoding. S3's classic notifications (SQS, SNS, Lambda) URL-encode the key, form style:
 * `red flower.jpg` arrives as `red+flower.jpg`, `+` as `%2B` (S3 user guide, "Event message
 * structure"). The EventBridge page of the guide shows plain keys and says nothing either way.
 * So we never guess: the event's key is kept as given, `inputKeyCandidates` adds its form-decoded
 * spelling, and Prepare reads the first candidate that exists. The batch id is derived from the
 * key exactly as the event gave it, so every delivery of the same event, and Finalize reading the
 * same event, derive the same id without any I/O.
 */
import * as z from 'zod';
import { type DropArea, dropFolder, droppedFileExtensions } from '../core/bucket-layout.js';
import { deriveBatchId } from '../core/keys.js';
import type { BatchSource } from '../core/records.js';

/** The fields of the EventBridge event we use; everything else (and any workflow state) passes. */
const ObjectCreatedEvent = z.object({
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

/** The batch file an event names: where it is, its batch's name (its folder's), and the batch's id. */
export type BatchSourceFromEvent = { source: BatchSource; batchName: string; batchId: string };

/** A spreadsheet dropped exactly one folder below a top folder: `<top>/<folder>/<file>.csv|.xlsx`. */
export type DroppedFileKey = { folderName: string; folder: string; fileName: string };

/**
 * Splits a dropped file's key, `<top>/<folder name>/<file>.csv|.xlsx`, into its parts; null for any
 * other key. Excel's lock files (`~$catalogo.xlsx`) and hidden files (`.catalogo.csv`) are what
 * sync tools upload beside a workbook that is open: they start nothing. Shared by batches
 * (`inbox/`) and answers (`answers/`).
 */
export const parseDroppedFileKey = (top: DropArea, key: string): DroppedFileKey | null => {
  const match = new RegExp(
    `^${top}/([^/]+)/([^/]+\\.(?:${droppedFileExtensions(top).join('|')}))$`,
    'i',
  ).exec(key);
  if (!match) return null;
  const [, folderName = '', fileName = ''] = match;
  if (fileName.startsWith('~$') || fileName.startsWith('.')) return null;
  if (folderName.trim() === '' || folderName === '.' || folderName === '..') return null;
  return { folderName, folder: dropFolder(top, folderName), fileName };
};

/**
 * Splits a batch file's key, `inbox/<name>/<file>.csv|.xlsx`, into its batch name, folder and file
 * name; null for any other key.
 */
export const parseInboxKey = (
  key: string,
): { batchName: string; folder: string; fileName: string } | null => {
  const parsed = parseDroppedFileKey('inbox', key);
  return parsed && { batchName: parsed.folderName, folder: parsed.folder, fileName: parsed.fileName };
};

/** `a+b%C3%A9.csv` → `a bé.csv`; null when the text is not valid percent-encoding. */
const formDecode = (key: string): string | null => {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return null;
  }
};

/**
 * Gives the spellings an event's key may stand for, as given first, then form-decoded: Prepare
 * reads the first that exists.
 */
export const inputKeyCandidates = (key: string): string[] => {
  const decoded = formDecode(key);
  return decoded === null || decoded === key ? [key] : [key, decoded];
};

type ObjectIdentity = { bucket: string; version_or_etag: string };

/**
 * Gives the source record of a dropped file under `top`, for one spelling of its key; null when it
 * is none.
 */
export const droppedSourceForKey = (
  top: 'inbox' | 'answers',
  key: string,
  identity: ObjectIdentity,
): BatchSource | null => {
  const parsed = parseDroppedFileKey(top, key);
  if (!parsed) return null;
  return {
    bucket: identity.bucket,
    key,
    version_or_etag: identity.version_or_etag,
    folder: parsed.folder,
    file_name: parsed.fileName,
  };
};

/** Gives the batch source record for one spelling of the key, or null when that spelling is no batch file. */
export const sourceForKey = (key: string, identity: ObjectIdentity): BatchSource | null =>
  droppedSourceForKey('inbox', key, identity);

/**
 * Gives the file an "Object Created" event names under `top`: its source (the first spelling of the key
 * that is a dropped file), its folder's name, and the identity to derive ids from (the key exactly
 * as the event gave it). Null for another event, another key, or an object without a version or ETag.
 */
export const droppedFileFromEvent = (
  top: 'inbox' | 'answers',
  event: unknown,
): {
  source: BatchSource;
  folderName: string;
  identity: { bucket: string; key: string; versionOrEtag: string };
} | null => {
  const parsed = ObjectCreatedEvent.safeParse(event);
  if (!parsed.success) return null;
  const { 'detail-type': detailType, detail } = parsed.data;
  if (detailType !== undefined && detailType !== 'Object Created') return null;
  const { key: eventKey, etag, 'version-id': versionId, sequencer } = detail.object;
  // A versioned bucket names each upload by its version; otherwise the ETag tells contents apart.
  const versionOrEtag = versionId ?? etag ?? sequencer;
  if (!versionOrEtag) return null;

  for (const key of inputKeyCandidates(eventKey)) {
    const source = droppedSourceForKey(top, key, {
      bucket: detail.bucket.name,
      version_or_etag: versionOrEtag,
    });
    if (!source) continue;
    const folderName = parseDroppedFileKey(top, key)!.folderName;
    return { source, folderName, identity: { bucket: detail.bucket.name, key: eventKey, versionOrEtag } };
  }
  return null;
};

/**
 * Gives the batch file an "Object Created" event names, with its batch's name and id; null when
 * the event names no batch file. Pure: every delivery of the same event gives the same id.
 */
export const batchSourceFromEvent = (event: unknown): BatchSourceFromEvent | null => {
  const found = droppedFileFromEvent('inbox', event);
  if (!found) return null;
  const { source, folderName: batchName, identity } = found;
  return { source, batchName, batchId: deriveBatchId(batchName, identity) };
};
