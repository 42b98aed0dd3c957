/**
 * What the smoke's checks look at (read back from the deployment after its batch ended) and what
 * each check says: the types checks.ts and summary-check.ts share.
 */
import type { BatchRecord, ReviewItem, RowRecord } from '../pipeline/core/records.js';
import type { SmokeCatalogue } from './catalogue.js';
import type { ResultsTable } from './results-table.js';

/** Everything the checks look at, read from the deployment after the batch ended. */
export type Observation = {
  batchId: string;
  catalogue: Pick<SmokeCatalogue, 'rows' | 'options'>;
  /** Keys under `outbox/<batch-id>/`, relative to it (`results.csv`, `pdfs/…`). */
  files: readonly string[];
  /** null: there is no results.csv. */
  results: ResultsTable | { problem: string } | null;
  /** summary.json's text; null: there is none. */
  summaryText: string | null;
  batch: BatchRecord | null;
  rows: readonly RowRecord[];
  reviews: readonly ReviewItem[];
  /** The first bytes of each verdict PDF results.csv names, by its path in the outbox; null: absent. */
  pdfs: ReadonlyMap<string, Uint8Array | null>;
};

export type SmokeCheck = { name: string; held: string; problems: string[] };
