/**
 * What the console's use cases need, as small ports over the pipeline's own: they read the
 * same batch, review and lease records the pipeline writes, and reach the bucket only to read
 * an outbox file, to drop a file exactly where a person would (inbox/, answers/), and to make
 * short-lived links for the browser. No service client: the TCS API key never comes near the
 * console.
 */
import {
  ANSWERED_BY_METADATA,
  type AuditLog,
  type BatchStore,
  type CheckStore,
  type Clock,
  type ObjectStore,
  type ReviewStore,
} from '../pipeline/core/ports.js';
import type { SlotLeases } from '../pipeline/core/slot-leases.js';

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
  /** The cap override in force, if the stack sets one (else the organisation's cap of 10 applies). */
  capOverride: number | null;
};

/** Who is asking: API Gateway's JWT authorizer checked the token; these are its claims. */
export type ConsoleUser = { name: string; where: 'local' | 'aws' };

/** The metadata of a file the console drops into `answers/`: the person, URI-encoded (S3 metadata is ASCII). */
export const answeredByMetadata = (user: ConsoleUser): Record<string, string> => ({
  [ANSWERED_BY_METADATA]: encodeURIComponent(user.name),
});
