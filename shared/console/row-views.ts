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
 * The search is over what a person remembers of a product: SKU, description, external reference,
 * supplier and NCM (the verdict's or the one the row declared), written with or without dots; case, accents
 * and punctuation do not matter.
 *
 * Each row says whether its declared NCM and its verdict's NCM are codes in the NCM table in force
 * (core/ncm-in-force.ts), read once a request: a newer table dropped into `reference/ncm/` is what
 * the next page checks against, and the page names that table (`ncm_table`). `not_in_force` keeps
 * the rows where either is not, found a page at a time as a search is, and not counted either.
 */

import { type TableInForce, tableInForce } from '../ncm-table/reference-table.js';
import { declaredNcmDigits, type InForceColumns } from '../pipeline/core/ncm-in-force.js';
import {
  type BatchRecord,
  givenAnswersOf,
  type ReviewItem,
  type RowRecord,
} from '../pipeline/core/records.js';
import type { RowResult } from '../pipeline/core/result-columns.js';
import { isFinalResult, RESENDABLE_STATUSES } from '../pipeline/core/row-life.js';
import type { RowStatus } from '../pipeline/core/row-statuses.js';
import { checkReasonsOfResult } from '../pipeline/core/verdict-check.js';
import { standingRowPages } from '../pipeline/finalize/standing-rows.js';
import type { ShownRow } from '../pipeline/outbox/results-files.js';
import { columnForHeader } from '../spreadsheet/columns.js';
import { matchingKey } from '../spreadsheet/matching-key.js';
import type { PipelineColumn } from '../spreadsheet/schemas.js';
import { formatNcm } from '../spreadsheet/write-csv.js';
import { detailMessagesOf } from '../wording/details.js';
import type { RowCounts, RowDetail, RowList, RowsQuery, RowView } from './api.js';
import { batchTally, ncmTableSaid } from './batch-views.js';
import type { ConsolePorts } from './ports.js';
import { batchNotFound, rowNotFound } from './refusals.js';

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

/**
 * Where the input's SKU, description and external reference are among a row's cells, and the
 * operation, country and sheet a row sent again starts from.
 */
type ShownColumns = Partial<
  Record<
    'sku' | 'description' | 'external_reference' | 'operation' | 'country' | 'sheet' | 'supplier',
    number
  >
>;

/**
 * Headers that name a supplier (in `matchingKey` form): not a field the pipeline reads, but what a
 * person looks a product up by; the first column so named is shown and searched.
 */
const SUPPLIER_HEADERS = new Set([
  'fornecedor',
  'fornecedores',
  'nomedofornecedor',
  'proveedor',
  'nombredelproveedor',
  'supplier',
  'suppliername',
  'vendor',
  'fabricante',
  'manufacturer',
]);

const SHOWN_FIELDS = ['sku', 'description', 'external_reference', 'operation', 'country', 'sheet'] as const;

/**
 * The columns a batch read as SKU, description and external reference: from how Prepare understood
 * each column, else (a batch prepared before it recorded that) from its header's names.
 */
const shownColumnsOf = (batch: Pick<BatchRecord, 'columns' | 'header'>): ShownColumns => {
  const understood: (PipelineColumn | null)[] =
    batch.columns?.map((column) => column.understood_as) ??
    batch.header.map((header) => columnForHeader(header)?.column ?? null);
  const found: ShownColumns = {};
  for (const field of SHOWN_FIELDS) {
    const index = understood.indexOf(field);
    if (index >= 0) found[field] = index;
  }
  const supplier = batch.header.findIndex(
    (header, index) => understood[index] == null && SUPPLIER_HEADERS.has(matchingKey(header)),
  );
  if (supplier >= 0) found.supplier = supplier;
  return found;
};

/** Text as the file wrote it, trimmed and cut to SHOWN_CELL_MAX characters; null when empty. */
const shownText = (value: string): string | null => {
  const text = value.trim();
  if (text === '') return null;
  const characters = [...text];
  return characters.length > SHOWN_CELL_MAX ? `${characters.slice(0, SHOWN_CELL_MAX).join('')}…` : text;
};

/** A cell as the file wrote it (trimmed, cut to SHOWN_CELL_MAX characters); null when empty. */
const cellOf = (row: RowRecord, index: number | undefined): string | null =>
  index === undefined ? null : shownText(row.cells[index] ?? '');

/**
 * The NCM the row declared, as it declared it, dotted when it is a code of 8 digits (a 7-digit one
 * with the leading zero a spreadsheet dropped given back, as it is checked); null when none.
 */
const declaredNcmOf = (row: RowRecord): string | null => {
  const declared = (row.product?.current_ncm ?? '').trim();
  const digits = declaredNcmDigits(declared);
  if (digits !== null && /^[0-9]{8}$/.test(digits)) return formatNcm(digits);
  return shownText(declared);
};

/**
 * The cells a rejected or failed row would be sent again with, whole: its product as Prepare read
 * it, else (a rejected row has none) its own cells. Null for a row that may not be sent again.
 */
const resendCellsOf = (row: RowRecord, status: RowStatus, columns: ShownColumns): RowView['resend'] => {
  if (!RESENDABLE_STATUSES.includes(status) || row.follows !== undefined) return null;
  const cell = (index: number | undefined) => (index === undefined ? '' : (row.cells[index] ?? '').trim());
  const { product } = row;
  return {
    description: product ? (product.description ?? '') : cell(columns.description),
    operation: product ? product.operation : cell(columns.operation),
    country: product ? product.country : cell(columns.country),
    sheet: product ? (product.sheet ?? '') : cell(columns.sheet),
  };
};

/** `yes` and `no` as the results files write them; anything else (empty: nothing to check) null. */
const yesOrNo = (said: string | undefined): boolean | null =>
  said === 'yes' ? true : said === 'no' ? false : null;

/**
 * A row as the table shows it. A valid row shows its product as Prepare read it; a rejected row
 * has none, and shows its own cells, so a person can tell which product it was. `checked`: what
 * the table in force says of its declared NCM and its verdict's (standing-rows.ts).
 */
const rowView = (
  row: RowRecord,
  result: RowResult | undefined,
  status: RowStatus,
  columns: ShownColumns,
  checked: InForceColumns,
  checkBelow: number | undefined,
): RowView => ({
  row: row.row,
  status,
  sku: row.product ? row.product.sku : cellOf(row, columns.sku),
  description: row.product ? row.product.description : cellOf(row, columns.description),
  external_reference: row.product ? row.product.external_reference : cellOf(row, columns.external_reference),
  supplier: cellOf(row, columns.supplier),
  declared_ncm: declaredNcmOf(row),
  declared_ncm_in_force: yesOrNo(checked.current_ncm_in_force),
  declared_ncm_matches: yesOrNo(result?.current_ncm_matches),
  ncm: result?.ncm ? formatNcm(result.ncm) : null,
  ncm_description: result?.ncm_description || null,
  ncm_in_force: yesOrNo(checked.ncm_in_force),
  confidence: numberOrNull(result?.confidence),
  reason: result?.reason || row.rejection?.reason || null,
  detail: result?.detail || null,
  detail_messages: result ? detailMessagesOf(result) : [],
  cost_usd: numberOrNull(result?.cost_usd) ?? 0,
  has_verdict_pdf: Boolean(result?.verdict_pdf),
  follows: row.follows ?? null,
  check: result?.check === 'to_check' || result?.check === 'approved' ? result.check : null,
  approved_ncm: result?.check === 'approved' ? result.approved_ncm || null : null,
  decided_by: result?.check === 'approved' ? result.decided_by || null : null,
  check_reasons: result?.check === 'to_check' ? checkReasonsOfResult(result, checkBelow) : [],
  resend: resendCellsOf(row, status, columns),
});

/** A row as it stands, as the table shows it, with what the table in force says of its codes. */
const viewOf = ({ row, result }: ShownRow, columns: ShownColumns, checkBelow: number | undefined): RowView =>
  rowView(row, isFinalResult(result) ? result : row.result, result.status, columns, result, checkBelow);

/**
 * Compared in the spreadsheet's matching form (accents, case, spaces and punctuation gone): `cafe`
 * finds `Café torrado`, `0901.21` and `090121` both find the NCM `0901.21.00`.
 */
const matches = (view: RowView, key: string): boolean =>
  key === '' ||
  [view.sku, view.description, view.external_reference, view.supplier, view.ncm, view.declared_ncm].some(
    (field) => field !== null && matchingKey(field).includes(key),
  );

/** A code of the row, declared or its verdict's, that is not in the table in force. */
const hasCodeNotInForce = (view: RowView): boolean =>
  view.declared_ncm_in_force === false || view.ncm_in_force === false;

/**
 * Rows matching the request's filter, all pages, from the counters; null for a search and for
 * codes not in force (found a page at a time, not counted).
 */
const matchingOf = (
  counts: RowCounts,
  rowsTotal: number,
  statuses: readonly RowStatus[],
  q: string,
  foundAPageAtATime: boolean,
) => {
  if (q !== '' || foundAPageAtATime) return null;
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
    notInForce: boolean;
    divergent: boolean;
    columns: ShownColumns;
    /** The batch's `check_below`: why a verdict waits for a check. */
    checkBelow: number | undefined;
    ncm: TableInForce;
  },
): Promise<{ rows: RowView[]; next: number | null }> => {
  const filtered = query.statuses.size > 0 || query.key !== '' || query.notInForce || query.divergent;
  // Unfiltered: the page's rows and one more, which says whether another page follows.
  const pageSize = filtered ? STORE_PAGE_ROWS : query.limit + 1;
  const found: RowView[] = [];
  let read = 0;
  let lastRead: number | null = null;
  const pages = standingRowPages(ports.batches, batchId, {
    after: query.after,
    pageSize,
    table: query.ncm.table,
  });
  for await (const page of pages) {
    for (const shown of page) {
      read += 1;
      lastRead = shown.row.row;
      const view = viewOf(shown, query.columns, query.checkBelow);
      if (
        (query.statuses.size === 0 || query.statuses.has(view.status)) &&
        matches(view, query.key) &&
        (!query.notInForce || hasCodeNotInForce(view)) &&
        (!query.divergent || view.declared_ncm_matches === false)
      )
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
  const notInForce = query.not_in_force ?? false;
  const divergent = query.divergent ?? false;
  // Read once for the whole page (parsed once a process: reference-table.ts).
  const ncm = await tableInForce(ports.objects);
  const [tally, page] = await Promise.all([
    ports.leases.list().then((leases) => batchTally(ports, batch, leases)),
    readPage(ports, batchId, {
      after: query.after ?? null,
      limit: query.limit,
      statuses: new Set(query.status),
      key,
      notInForce,
      divergent,
      columns: shownColumnsOf(batch),
      checkBelow: batch.options?.check_below,
      ncm,
    }),
  ]);
  return {
    rows: page.rows,
    next: page.next,
    matching: matchingOf(
      tally.byStatus,
      Math.max(batch.rows_total, tally.rows),
      query.status,
      key,
      notInForce || divergent,
    ),
    by_status: tally.byStatus,
    ncm_table: ncmTableSaid(ncm.table),
  };
};

/** The review item's questions beside the answers it keeps: what the person said, in the service's words. */
const answersOf = (item: ReviewItem | null, row: RowRecord): RowDetail['answers'] => {
  const given = item ? givenAnswersOf(item) : null;
  if (!item || !given) return null;
  return { by: item.answered_by ?? row.round?.answered_by ?? '', at: item.answered_at ?? null, given };
};

/**
 * Takes a batch and a row number and gives everything about that row (`RowDetail`): the row as the
 * table shows it, every cell under its header, the NCM descriptions, the answers, the decision and
 * its note, who sent it again; a refusal when the batch or the row is not there.
 */
export const rowDetail = async (
  ports: Pick<ConsolePorts, 'batches' | 'objects' | 'reviews' | 'checks'>,
  batchId: string,
  rowParam: string,
): Promise<RowDetail> => {
  const number = Number(rowParam);
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  if (!Number.isInteger(number) || number < 1) throw rowNotFound(batch.name, rowParam);
  const ncm = await tableInForce(ports.objects);
  const pages = standingRowPages(ports.batches, batchId, {
    after: number - 1,
    pageSize: 1,
    table: ncm.table,
  });
  const first = (await pages.next()).value?.[0];
  await pages.return(undefined);
  if (!first || first.row.row !== number) throw rowNotFound(batch.name, rowParam);
  const { row } = first;
  const view = viewOf(first, shownColumnsOf(batch), batch.options?.check_below);
  const leaderRow = row.follows ?? row.row;
  const [item, check] = await Promise.all([
    row.classification_id ? ports.reviews.get(row.classification_id) : Promise.resolve(null),
    ports.checks.get(batchId, leaderRow),
  ]);
  const declared = declaredNcmDigits((row.product?.current_ncm ?? '').trim());
  const decision = check?.decision;
  const result = isFinalResult(first.result) ? first.result : row.result;
  return {
    view: { ...view, description: row.product?.description ?? view.description },
    cells: batch.header.map((header, index) => ({ header, value: row.cells[index] ?? '' })),
    declared_ncm_description: declared ? (ncm.table.entry(declared)?.description ?? null) : null,
    classification_id: result?.classification_id || row.classification_id || null,
    submitted_at: row.submitted_at ?? null,
    finished_at: row.finished_at ?? null,
    answers: answersOf(item, row),
    decision: decision
      ? {
          ncm: formatNcm(decision.ncm),
          sim: decision.sim,
          note: decision.note,
          by: decision.by,
          at: decision.at,
        }
      : null,
    resent: row.round?.kind === 'resend' ? { by: row.round.answered_by, at: row.round.answered_at } : null,
  };
};
