/**
 * How long a leg of Finalize, FinalizeAnswers or the partial results works before handing on,
 * and how much it reads and sends at once: the same for the three, since the same Lambda limit
 * (15 minutes) and the same S3 rule (parts of at least 5 MiB) bound them.
 */
import { ROWS_PER_PAGE } from './standing-rows.js';

export type FinalizeSettings = {
  /** How long one leg settles rows or writes files before handing on (a Lambda runs for 15 min at most). */
  legMs: number;
  /** Rows read a page. */
  pageSize: number;
  /** A part of a results file's upload: at least S3's least part size. */
  partBytes: number;
};

export const FINALIZE_SETTINGS: FinalizeSettings = {
  legMs: 8 * 60_000,
  pageSize: ROWS_PER_PAGE,
  partBytes: 8 * 1024 * 1024,
};
