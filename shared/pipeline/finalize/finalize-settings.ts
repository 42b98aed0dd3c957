/**
 * How long one leg of Finalize, FinalizeAnswers or the partial results works before it returns
 * where it stopped, and how much it reads and sends at once: the same for the three, since the
 * same Lambda limit (15 minutes) and the same S3 rule (parts of at least 5 MiB) bound them.
 */
import { ROWS_PER_PAGE } from './standing-rows.js';

/** How long a leg works, how many rows it reads a page, and how large a part of an uploaded file is. */
export type FinalizeSettings = {
  /**
   * How long one leg settles rows or writes files before it stops and says where (a Lambda runs 15 min
   * at most).
   */
  legMs: number;
  /** Rows read a page. */
  pageSize: number;
  /** A part of a results file's upload: at least S3's least part size. */
  partBytes: number;
};

/** The settings in production: 8-minute legs (well inside 15), 500-row pages, 8 MiB parts. */
export const FINALIZE_SETTINGS: FinalizeSettings = {
  legMs: 8 * 60_000,
  pageSize: ROWS_PER_PAGE,
  partBytes: 8 * 1024 * 1024,
};
