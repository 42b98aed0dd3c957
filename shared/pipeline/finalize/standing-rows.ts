/**
 * A batch's rows read a page at a time, each with the result it shows now: its own, its working
 * status, or for a follower its leader's outcome, derived here rather than written on every
 * follower (docs/architecture.md, property 11). What a step that must not hold a whole batch
 * reads: one page, and the leaders its followers named lately (a bounded number; one forgotten is
 * read again, one GetItem).
 *
 *   page 1: rows 1..500     row 3 leads 9 and 420  ─▶ row 3 kept once a follower names it
 *   page 2: rows 501..1000  row 777 follows 3      ─▶ row 3 from the kept leaders, or read again
 */
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { garbageCollector } from '../core/garbage-collection.js';
import { checkedAgainst } from '../core/ncm-in-force.js';
import type { BatchStore } from '../core/ports.js';
import type { RowRecord } from '../core/records.js';
import { resultNow } from '../core/row-life.js';
import type { ShownRow } from '../outbox/results-files.js';

/** Rows a page: a DynamoDB Query page holds about this many rows of a typical catalogue. */
export const ROWS_PER_PAGE = 500;
/** Leaders kept between pages: far more than the products a page of rows usually names. */
const LEADERS_KEPT = 5_000;

/**
 * How to read a batch's rows: the page size, the row to start after, a change to each page, the NCM
 * table.
 */
export type StandingRowsOptions = {
  pageSize?: number;
  /** Start after this row (a page of the console continuing); absent: from the first. */
  after?: number | null;
  /**
   * Runs on each page before its rows are shown: Finalize ends the rows still working there, and
   * returns the page as those moves left it, so their followers show the ended outcome.
   */
  beforeShowing?: (rows: RowRecord[]) => Promise<RowRecord[]>;
  /** The NCM table in force: each row shows whether its declared NCM and its verdict's are in force. */
  table?: NcmTable;
};

/**
 * Yields a batch's rows in row order, a page at a time, each paired with its shown result (a
 * follower: its leader's outcome, the leader read once and kept among the last 5,000 named),
 * checked against the NCM table in force when one is given. Holds one page and those leaders.
 */
export async function* standingRowPages(
  batches: Pick<BatchStore, 'rowsPage' | 'getRow'>,
  batchId: string,
  options: StandingRowsOptions = {},
): AsyncGenerator<ShownRow[]> {
  const leaders = new Map<number, RowRecord>();
  const keep = (leader: RowRecord) => {
    leaders.delete(leader.row);
    leaders.set(leader.row, leader);
    if (leaders.size > LEADERS_KEPT) leaders.delete(leaders.keys().next().value as number);
  };
  let after: number | null = options.after ?? null;
  const handled = garbageCollector();
  do {
    const page = await batches.rowsPage(batchId, { after, limit: options.pageSize ?? ROWS_PER_PAGE });
    handled(page.rows.length);
    const rows = options.beforeShowing ? await options.beforeShowing(page.rows) : page.rows;
    const inPage = new Map(rows.map((row) => [row.row, row]));
    const shown: ShownRow[] = [];
    for (const row of rows) {
      let leader: RowRecord | undefined;
      if (row.follows !== undefined) {
        leader =
          inPage.get(row.follows) ??
          leaders.get(row.follows) ??
          (await batches.getRow(batchId, row.follows)) ??
          undefined;
        if (leader) keep(leader);
      }
      const result = checkedAgainst(resultNow(row, leader), row.product?.current_ncm, options.table);
      shown.push({ row, result });
    }
    yield shown;
    after = page.next;
  } while (after !== null);
}

/** A batch's rows one at a time, each with its shown result, as `standingRowPages` yields them. */
export async function* standingRows(
  batches: Pick<BatchStore, 'rowsPage' | 'getRow'>,
  batchId: string,
  options: StandingRowsOptions = {},
): AsyncGenerator<ShownRow> {
  for await (const page of standingRowPages(batches, batchId, options)) yield* page;
}
