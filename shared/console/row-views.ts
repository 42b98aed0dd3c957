/**
 * A batch's rows as the results table shows them: each row as it stands (a follower of a final
 * row takes its outcome, as the partial results show it), filtered by status, searched, and a
 * page at a time in row order, read from the batch table a page at a time too:
 *
 *   no filter   one page of the store (the page's rows and one more, to know whether more follow),
 *               and the leaders its followers name
 *   a filter    store pages until `limit` rows match or ROWS_READ_PER_REQUEST rows were read; then
 *               what matched so far, with `next` where the reading stopped: the next request goes on
 *
 * The counts (`by_status`, `matching`) are the batch's counters (batch-views.ts), never a count of
 * rows read: a search's matches are not counted (`matching` null).
 *
 * The search is over what a person remembers of a product: SKU, description, external reference
 * and NCM, written with or without dots; case, accents and punctuation do not matter.
 */

import type { ShownRow } from '../pipeline/batch/results-files.js';
import { standingRowPages } from '../pipeline/batch/standing-rows.js';
import type { BatchRecord, RowRecord, RowResult, RowStatus } from '../pipeline/core/index.js';
import { isFinalResult } from '../pipeline/core/row-life.js';
import { columnForHeader } from '../spreadsheet/columns.js';
import { formatNcm, type PipelineColumn } from '../spreadsheet/index.js';
import { matchingKey } from '../spreadsheet/matching-key.js';
import { detailMessagesOf } from '../wording/index.js';
import type { RowCounts, RowList, RowsQuery, RowView } from './api.js';
import { batchTally } from './batch-views.js';
import type { ConsolePorts } from './ports.js';
import { batchNotFound } from './refusals.js';

/**
 * The most rows one filtered or searched request reads from the store: a rare status among
 * 400,000 rows is found over several requests, each as cheap as a few pages.
 */
export const ROWS_READ_PER_REQUEST = 2_000;
/** Rows of one store page read for a filtered or searched request. */
const STORE_PAGE_ROWS = 500;

const numberOrNull = (value: string | undefined): number | null => {
  if (value === undefined || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
};

/** The most characters of a cell a row shows: a rejected row's cell may be as long as the file allows. */
export const SHOWN_CELL_MAX = 300;

/** Where the input's SKU, description and external reference are among a row's cells. */
export type ShownColumns = Partial<Record<'sku' | 'description' | 'external_reference', number>>;

const SHOWN_FIELDS = ['sku', 'description', 'external_reference'] as const;

/**
 * The columns a batch read as SKU, description and external reference: from how Prepare understood
 * each column, else (a batch prepared before it recorded that) from its header's names.
 */
export const shownColumnsOf = (batch: Pick<BatchRecord, 'columns' | 'header'>): ShownColumns => {
  const understood: (PipelineColumn | null)[] =
    batch.columns?.map((column) => column.understood_as) ??
    batch.header.map((header) => columnForHeader(header)?.column ?? null);
  const found: ShownColumns = {};
  for (const field of SHOWN_FIELDS) {
    const index = understood.indexOf(field);
    if (index >= 0) found[field] = index;
  }
  return found;
};

/** A cell as the file wrote it (trimmed, cut to SHOWN_CELL_MAX characters); null when empty. */
const cellOf = (row: RowRecord, index: number | undefined): string | null => {
  const cell = index === undefined ? '' : (row.cells[index] ?? '').trim();
  if (cell === '') return null;
  const characters = [...cell];
  return characters.length > SHOWN_CELL_MAX ? `${characters.slice(0, SHOWN_CELL_MAX).join('')}…` : cell;
};

/**
 * A row as the table shows it. A valid row shows its product as Prepare read it; a rejected row
 * has none, and shows its own cells, so a person can tell which product it was.
 */
export const rowView = (
  row: RowRecord,
  result: RowResult | undefined,
  status: RowStatus,
  columns: ShownColumns = {},
): RowView => ({
  row: row.row,
  status,
  sku: row.product ? row.product.sku : cellOf(row, columns.sku),
  description: row.product ? row.product.description : cellOf(row, columns.description),
  external_reference: row.product ? row.product.external_reference : cellOf(row, columns.external_reference),
  ncm: result?.ncm ? formatNcm(result.ncm) : null,
  ncm_description: result?.ncm_description || null,
  confidence: numberOrNull(result?.confidence),
  reason: result?.reason || row.rejection?.reason || null,
  detail: result?.detail || null,
  detail_messages: result ? detailMessagesOf(result) : [],
  cost_usd: numberOrNull(result?.cost_usd) ?? 0,
  has_verdict_pdf: Boolean(result?.verdict_pdf),
  follows: row.follows ?? null,
});

/** A row as it stands, as the table shows it. */
const viewOf = ({ row, result }: ShownRow, columns: ShownColumns): RowView =>
  rowView(row, isFinalResult(result) ? result : row.result, result.status, columns);

/**
 * Compared in the spreadsheet's matching form (accents, case, spaces and punctuation gone): `cafe`
 * finds `Café torrado`, `0901.21` and `090121` both find the NCM `0901.21.00`.
 */
const matches = (view: RowView, key: string): boolean =>
  key === '' ||
  [view.sku, view.description, view.external_reference, view.ncm].some(
    (field) => field !== null && matchingKey(field).includes(key),
  );

/** Rows matching the request's filter, all pages, from the counters; null for a search. */
const matchingOf = (counts: RowCounts, rowsTotal: number, statuses: readonly RowStatus[], q: string) => {
  if (q !== '') return null;
  if (statuses.length === 0) return rowsTotal;
  return statuses.reduce((sum, status) => sum + (counts[status] ?? 0), 0);
};

/** One page of rows as they stand, read a store page at a time from `after`. */
const readPage = async (
  ports: Pick<ConsolePorts, 'batches'>,
  batchId: string,
  query: {
    after: number | null;
    limit: number;
    statuses: ReadonlySet<RowStatus>;
    key: string;
    columns: ShownColumns;
  },
): Promise<{ rows: RowView[]; next: number | null }> => {
  const filtered = query.statuses.size > 0 || query.key !== '';
  // Unfiltered: the page's rows and one more, which says whether another page follows.
  const pageSize = filtered ? STORE_PAGE_ROWS : query.limit + 1;
  const found: RowView[] = [];
  let read = 0;
  let lastRead: number | null = null;
  for await (const page of standingRowPages(ports.batches, batchId, { after: query.after, pageSize })) {
    for (const shown of page) {
      read += 1;
      lastRead = shown.row.row;
      const view = viewOf(shown, query.columns);
      if ((query.statuses.size === 0 || query.statuses.has(view.status)) && matches(view, query.key))
        found.push(view);
      if (found.length > query.limit) {
        const rows = found.slice(0, query.limit);
        return { rows, next: rows.at(-1)?.row ?? null };
      }
    }
    // Filtered and read enough for one request: what matched so far; the next request goes on.
    if (!filtered || read >= ROWS_READ_PER_REQUEST) {
      const exhausted = page.length < pageSize;
      return { rows: found, next: exhausted || !filtered ? null : lastRead };
    }
  }
  return { rows: found, next: null };
};

export const listRowViews = async (
  ports: Pick<ConsolePorts, 'batches' | 'objects' | 'clock' | 'leases'>,
  batchId: string,
  query: RowsQuery,
): Promise<RowList> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  const key = matchingKey(query.q ?? '');
  const [tally, page] = await Promise.all([
    ports.leases.list().then((leases) => batchTally(ports, batch, leases)),
    readPage(ports, batchId, {
      after: query.after ?? null,
      limit: query.limit,
      statuses: new Set(query.status),
      key,
      columns: shownColumnsOf(batch),
    }),
  ]);
  return {
    rows: page.rows,
    next: page.next,
    matching: matchingOf(tally.byStatus, Math.max(batch.rows_total, tally.rows), query.status, key),
    by_status: tally.byStatus,
  };
};
