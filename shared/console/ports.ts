/**
 * What the console's use cases need, as small ports over the pipeline's own: they read the
 * same batch, review and lease records the pipeline writes, and reach the bucket only to read
 * an outbox file, to drop a file exactly where a person would (inbox/, answers/), and to make
 * short-lived links for the browser. No service client: the TCS API key never comes near the
 * console.
 */

import { createHash } from 'node:crypto';
import { answersFolder } from '../pipeline/core/bucket-layout.js';
import type { Person } from '../pipeline/core/people.js';
import {
  ANSWERED_BY_METADATA,
  type AuditLog,
  type BatchStore,
  type CheckStore,
  type Clock,
  type ObjectStore,
  type ReviewStore,
  type WriterRecords,
} from '../pipeline/core/ports.js';
import type { SlotLeases } from '../pipeline/core/slot-leases.js';
import { CSV_CONTENT_TYPE } from '../pipeline/outbox/results-files.js';
import { ConsoleRefusal } from './refusals.js';

/** Presigned requests, made with the function's own role: the browser can do no more than it. */
export type FileLinks = {
  /** A POST form for exactly `key`, of `contentType`, of 1..maxBytes bytes. */
  uploadForm(input: {
    key: string;
    contentType: string;
    maxBytes: number;
    expiresSeconds: number;
  }): Promise<{ url: string; fields: Record<string, string> }>;
  /** A GET of `key` that the browser saves as `fileName` (`attachment`) or shows (`inline`). */
  downloadUrl(input: {
    key: string;
    fileName: string;
    disposition: 'attachment' | 'inline';
    contentType: string;
    expiresSeconds: number;
  }): Promise<string>;
};

export type ConsolePorts = {
  /** Wall-clock time only: the console compares dates people read, no production spans. */
  clock: Pick<Clock, 'now'>;
  /**
   * A batch's page reads its counters (`finishedRows`) and its rows a page at a time; only the
   * questions inbox reads the rows of its batches whole (`listRows`).
   */
  batches: Pick<BatchStore, 'getBatch' | 'listBatches' | 'getRow' | 'rowsPage' | 'finishedRows' | 'listRows'>;
  reviews: Pick<ReviewStore, 'get' | 'listPending' | 'listByBatch'>;
  /** The "To check" list: every open item across batches, and one to decide. */
  checks: Pick<CheckStore, 'listOpen' | 'get'>;
  /** A batch's audit events, a page at a time. */
  audit: Pick<AuditLog, 'page'>;
  leases: Pick<SlotLeases, 'list'>;
  /** `list` and `copy`: a plan run copies the plan's files into a folder of its own (plan-run.ts). */
  objects: Pick<ObjectStore, 'head' | 'getBytes' | 'put' | 'list' | 'copy'>;
  links: FileLinks;
  /** Who wrote each file the console drops into `answers/`: the signed-in person, recorded by the console itself. */
  /** Who wrote a file: recorded for each file the console writes; read for a sender proven late. */
  writers: Pick<WriterRecords, 'record' | 'find'>;
  /** The cap override in force, if the stack sets one (else the organisation's cap of 10 applies). */
  capOverride: number | null;
};

/** Who is asking: API Gateway's JWT authorizer checked the token; these are its claims (`sub`: the pool's id of the person). */
export type ConsoleUser = { name: string; sub: string; email?: string; where: 'local' | 'aws' };

/** The signed-in person as the pipeline records them (core/people.ts): known by the console, told apart by `sub`. */
export const personOfUser = (user: ConsoleUser): Person => ({
  name: user.name,
  id: user.sub,
  known_by: 'console',
  ...(user.email ? { email: user.email } : {}),
});

/**
 * Takes a file of answers or decisions and the signed-in person, records the person as who wrote
 * it, then puts it at `key`: PrepareAnswers takes that record over anything the file says. The
 * record comes first, under the ETag S3 gives a single-part put to this SSE-S3 bucket (the MD5 of
 * the bytes), so the round that the object's event starts always finds it; should S3 answer
 * another ETag, or a version, it is recorded under those too. The name also goes in the
 * `answered-by` metadata for people reading the bucket, where it is only ever a stated name.
 */
const dropAsUser = async (
  ports: Pick<ConsolePorts, 'objects' | 'writers' | 'clock'>,
  file: { key: string; bytes: Uint8Array | string; contentType: string },
  user: ConsoleUser,
): Promise<void> => {
  const record = { key: file.key, person: personOfUser(user), at: ports.clock.now().toISOString() };
  const md5 = createHash('md5').update(file.bytes).digest('hex');
  await ports.writers.record({ ...record, etag: md5, version_id: null });
  const written = await ports.objects.put(file.key, file.bytes, file.contentType, {
    [ANSWERED_BY_METADATA]: encodeURIComponent(user.name),
  });
  if (written.etag !== md5 || written.versionId !== null)
    await ports.writers.record({ ...record, etag: written.etag, version_id: written.versionId });
};

/**
 * Takes rows of one or more batches, how one batch's rows become a CSV, and the signed-in person,
 * and drops one file per batch into its answers folder as that person (`dropAsUser`), named by a
 * hash of what it says, so the same rows sent twice are the same file; gives each file's key and rows.
 */
export const dropPerBatch = async <R extends { item: { batch_id: string; row: number } }>(
  ports: Pick<ConsolePorts, 'objects' | 'writers' | 'clock'>,
  rows: readonly R[],
  csvOf: (batchRows: R[]) => Buffer,
  user: ConsoleUser,
): Promise<{ batch_id: string; key: string; rows: number[] }[]> => {
  const byBatch = new Map<string, R[]>();
  for (const row of rows) byBatch.set(row.item.batch_id, [...(byBatch.get(row.item.batch_id) ?? []), row]);
  const files: { batch_id: string; key: string; rows: number[] }[] = [];
  for (const [batchId, batchRows] of byBatch) {
    const bytes = csvOf(batchRows);
    const key = `${answersFolder(batchId)}console-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.csv`;
    await dropAsUser(ports, { key, bytes, contentType: CSV_CONTENT_TYPE }, user);
    files.push({ batch_id: batchId, key, rows: batchRows.map((row) => row.item.row).sort((a, b) => a - b) });
  }
  return files;
};

/**
 * Takes a new sheet's path as POST /answer-sheets named it, its batch and where the person sent it
 * (row, batch name), and refuses it (`sheet_not_uploaded`) unless it is a path inside the batch's
 * answers folder (no absolute path, no `..`) and the file is there: answers and rows sent again
 * name sheets the same way.
 */
export const checkUploadedSheet = async (
  ports: Pick<ConsolePorts, 'objects'>,
  batchId: string,
  sheet: string,
  where: { row: number; batchName: string },
): Promise<void> => {
  const safe = /^[^/\\]+(\/[^/\\]+)*$/.test(sheet) && !sheet.split('/').includes('..');
  if (!safe || !(await ports.objects.head(`${answersFolder(batchId)}${sheet}`)))
    throw new ConsoleRefusal(
      400,
      'sheet_not_uploaded',
      `Row ${where.row} of batch ${where.batchName}: the new sheet "${sheet}" was not uploaded; send it again.`,
      { row: where.row, sheet },
    );
};
