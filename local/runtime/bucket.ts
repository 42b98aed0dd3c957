/**
 * The bucket as a user (or the ERP export) sees it: dropping a batch folder into `inbox/`, a
 * filled review file into `answers/<batch-id>/`, and fetching `outbox/<batch-id>/` back. Objects go in the order a person uploads them,
 * options and sheets first and the spreadsheet last, because the spreadsheet is what starts
 * the batch.
 */
import { randomBytes } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { answersFolder, dropFolder, outboxKey } from '../../shared/pipeline/core/bucket-layout.js';
import { NOT_FOLLOWED_METADATA } from '../../shared/pipeline/core/ports.js';
import { PARTIAL_FILES } from '../../shared/pipeline/outbox/results-files.js';
import type { EventEnvelope } from '../aws/eventbridge.js';
import { envelope } from './rules.js';
import { LOCAL_ACCOUNT } from './template.js';

const CONTENT_TYPES: Record<string, string> = {
  '.csv': 'text/csv',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pdf': 'application/pdf',
  '.json': 'application/json',
};
const contentTypeOf = (file: string) =>
  CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';

/** How deep and how many sheets are looked for: the sheets folder defaults to the file's own. */
const SHEET_SEARCH_DEPTH = 4;
const MAX_SHEETS = 10_000;
const UPLOADS_IN_FLIGHT = 8;

/** A sheet to upload: its path relative to the folder (`/`-separated), and what to put there. */
type SheetFile = {
  path: string;
  /** The file whose bytes go up; null for a link to a file outside the folder, not followed. */
  source: string | null;
};

/** Whether `path` is `root` or under it (both real paths). */
const isWithin = (root: string, path: string): boolean => path === root || path.startsWith(`${root}${sep}`);

/**
 * What a path under `root` gives the bucket: the file itself; for a link (symlink), the file it
 * leads to when that is inside `root` too, else nothing is read through it (`source` null: a link
 * out of the catalogue's folder is not followed, and the row naming it is told so); undefined when
 * there is no file there (a link to nothing, a folder). A file is judged by its real path too: a
 * path an answers file names may pass through a linked folder (`fichas/` leading elsewhere).
 */
const sheetSourceOf = (root: string, path: string): string | null | undefined => {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isFile() && !stat.isSymbolicLink()) return undefined;
  let target: string;
  try {
    target = realpathSync(path);
  } catch {
    return undefined; // a link to nothing
  }
  if (!isWithin(realpathSync(root), target)) return null;
  return statSync(target).isFile() ? target : undefined;
};

/**
 * The PDF files under `dir`: what a user drops next to the spreadsheet. Hidden folders and
 * node_modules are skipped; a link is followed only to a file inside `dir`.
 */
const findSheets = (dir: string): SheetFile[] => {
  const found: SheetFile[] = [];
  const walk = (folder: string, depth: number) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory() && depth < SHEET_SEARCH_DEPTH) walk(path, depth + 1);
      else if (extname(entry.name).toLowerCase() === '.pdf') {
        const source = sheetSourceOf(dir, path);
        if (source === undefined) continue;
        found.push({ path: relative(dir, path).split(sep).join('/'), source });
        if (found.length > MAX_SHEETS) {
          throw new Error(
            `More than ${MAX_SHEETS} PDF files under ${dir}: give the sheets folder explicitly`,
          );
        }
      }
    }
  };
  walk(dir, 0);
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
};

const putFile = async (s3: S3Client, bucket: string, key: string, file: string) => {
  const body = readFileSync(file);
  const response = await s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentTypeOf(file) }),
  );
  return { size: body.byteLength, etag: (response.ETag ?? '').replace(/"/g, '') };
};

/**
 * A sheet into the bucket: the file's bytes, or, for a link out of the folder, an empty object
 * marked as such (NOT_FOLLOWED_METADATA), so that the row naming it says why its sheet is not
 * there rather than that it was not found.
 */
const putSheet = async (s3: S3Client, bucket: string, key: string, sheet: SheetFile) => {
  if (sheet.source !== null) return putFile(s3, bucket, key, sheet.source);
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: new Uint8Array(),
      ContentType: 'application/octet-stream',
      Metadata: { [NOT_FOLLOWED_METADATA.name]: NOT_FOLLOWED_METADATA.linkOutsideFolder },
    }),
  );
};

export type DropInput = {
  file: string;
  sheetsDir?: string;
  optionsFile?: string;
  batchName: string;
  /** The event's `requester`: the account, or `cli:<user>` for a batch this machine's CLI sends. */
  requester?: string;
};

/**
 * Uploads the batch folder and returns the EventBridge "Object Created" event S3 sends for the
 * spreadsheet. The real bucket is versioned, so each drop carries a new `version-id`: dropping
 * the same file again is a new batch, as on AWS (s3rver keeps no versions; the id is made here).
 */
export const dropBatch = async (s3: S3Client, bucket: string, input: DropInput): Promise<EventEnvelope> => {
  const folder = dropFolder('inbox', input.batchName);
  // The folder as it is on disk: without options, an earlier drop's batch.json (a plan-only one,
  // say) must not apply to this batch.
  if (input.optionsFile) await putFile(s3, bucket, `${folder}batch.json`, input.optionsFile);
  else await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${folder}batch.json` }));
  if (input.sheetsDir) {
    const sheets = findSheets(input.sheetsDir);
    for (let i = 0; i < sheets.length; i += UPLOADS_IN_FLIGHT) {
      await Promise.all(
        sheets
          .slice(i, i + UPLOADS_IN_FLIGHT)
          .map((sheet) => putSheet(s3, bucket, `${folder}${sheet.path}`, sheet)),
      );
    }
  }
  const key = `${folder}${basename(input.file)}`;
  const { size, etag } = await putFile(s3, bucket, key, input.file);
  return objectCreated(bucket, key, { size, etag }, input.requester ?? LOCAL_ACCOUNT);
};

export type AnswersDropInput = {
  /** The filled review file. */
  file: string;
  batchId: string;
  /** The sheet cells the file names (paths relative to `answers/<batch-id>/`), found under `sheetsDir`. */
  sheets: readonly string[];
  sheetsDir: string;
  /** Who answers: the event's `requester`, which PrepareAnswers records on the review items. */
  requester: string;
};

/**
 * Drops a filled review file into `answers/<batch-id>/`, the sheets it names first, and returns
 * the "Object Created" event that starts the Answers workflow. Only the sheets named are
 * uploaded (the file often sits beside the batch's verdict PDFs); one not found locally is left
 * out, and the answers report says so for its row.
 */
export const dropAnswers = async (
  s3: S3Client,
  bucket: string,
  input: AnswersDropInput,
): Promise<{ event: EventEnvelope; missingSheets: string[] }> => {
  const folder = answersFolder(input.batchId);
  const missingSheets: string[] = [];
  const named = [...new Set(input.sheets)];
  for (let i = 0; i < named.length; i += UPLOADS_IN_FLIGHT) {
    await Promise.all(
      named.slice(i, i + UPLOADS_IN_FLIGHT).map(async (sheet) => {
        const local = resolve(input.sheetsDir, sheet);
        const inside = local.startsWith(`${resolve(input.sheetsDir)}${sep}`);
        // As a batch's sheets: a link is followed only to a file inside the folder.
        const source = inside ? sheetSourceOf(input.sheetsDir, local) : undefined;
        if (source === undefined) {
          missingSheets.push(sheet);
          return;
        }
        await putSheet(s3, bucket, `${folder}${sheet.split(sep).join('/')}`, { path: sheet, source });
      }),
    );
  }
  const key = `${folder}${basename(input.file)}`;
  const { size, etag } = await putFile(s3, bucket, key, input.file);
  return {
    event: objectCreated(bucket, key, { size, etag }, input.requester),
    missingSheets: missingSheets.sort(),
  };
};

/**
 * S3's EventBridge "Object Created" event. The real bucket is versioned, so each put carries a
 * new `version-id` (s3rver keeps no versions; the id is made here).
 */
export const objectCreated = (
  bucket: string,
  key: string,
  object: { size: number; etag: string },
  requester: string,
  reason: 'PutObject' | 'PostObject' | 'CopyObject' = 'PutObject',
): EventEnvelope => {
  const { size, etag } = object;
  const now = new Date();
  return envelope({
    source: 'aws.s3',
    detailType: 'Object Created',
    resources: [`arn:aws:s3:::${bucket}`],
    time: now,
    detail: {
      version: '0',
      bucket: { name: bucket },
      object: {
        key,
        size,
        etag,
        'version-id': randomBytes(24).toString('base64url'),
        sequencer: now.getTime().toString(16).toUpperCase().padStart(18, '0'),
      },
      'request-id': randomBytes(8).toString('hex').toUpperCase(),
      requester,
      'source-ip-address': '127.0.0.1',
      reason,
    },
  });
};

export const listKeys = async (s3: S3Client, bucket: string, prefix: string): Promise<string[]> => {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ...(token ? { ContinuationToken: token } : {}),
      }),
    );
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
};

export const getBytes = async (s3: S3Client, bucket: string, key: string): Promise<Uint8Array | null> => {
  try {
    const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await response.Body?.transformToByteArray()) ?? new Uint8Array();
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return null;
    throw error;
  }
};

/** Copies every object under `prefix` to `outDir`, keeping the relative layout; returns the paths written. */
export const copyPrefix = async (
  s3: S3Client,
  bucket: string,
  prefix: string,
  outDir: string,
  /** Keys (relative to `prefix`) that are the pipeline's own, not the reader's: left in the bucket. */
  skip: (relative: string) => boolean = () => false,
): Promise<string[]> => {
  const root = resolve(outDir);
  const written: string[] = [];
  for (const key of await listKeys(s3, bucket, prefix)) {
    if (skip(key.slice(prefix.length))) continue;
    const target = resolve(root, key.slice(prefix.length));
    if (target !== root && !target.startsWith(`${root}${sep}`)) continue; // a key that would climb out
    const bytes = await getBytes(s3, bucket, key);
    if (!bytes) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
    written.push(target);
  }
  return written;
};

/** The partial files of a batch's outbox to outDir, summary last; their `as_of`, or null when absent. */
export const copyPartialFiles = async (
  s3: S3Client,
  bucket: string,
  batchId: string,
  outDir: string,
): Promise<string | null> => {
  const summary = await getBytes(s3, bucket, outboxKey(batchId, PARTIAL_FILES.summary));
  const results = await getBytes(s3, bucket, outboxKey(batchId, PARTIAL_FILES.results));
  if (!summary || !results) return null;
  // Absent when an older run wrote the partial files: the CSV and the summary still go out.
  const workbook = await getBytes(s3, bucket, outboxKey(batchId, PARTIAL_FILES.results_workbook));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, PARTIAL_FILES.results), results);
  if (workbook) writeFileSync(join(outDir, PARTIAL_FILES.results_workbook), workbook);
  writeFileSync(join(outDir, PARTIAL_FILES.summary), summary);
  const asOf = (JSON.parse(new TextDecoder().decode(summary)) as { as_of?: unknown }).as_of;
  return typeof asOf === 'string' ? asOf : null;
};
