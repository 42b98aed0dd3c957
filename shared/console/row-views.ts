/**
 * A batch's rows as the results table shows them: each row as it stands (a follower of a final
 * row takes its outcome, as the partial results show it), filtered by status, searched, and a
 * page at a time in row order.
 *
 * The search is over what a person remembers of a product: SKU, description, external reference
 * and NCM, written with or without dots; case, accents and punctuation do not matter.
 */

import type { RowRecord, RowResult, RowStatus } from '../pipeline/core/index.js';
import { isFinalResult, leadersOf, resultNow } from '../pipeline/core/row-life.js';
import { formatNcm } from '../spreadsheet/index.js';
import { matchingKey } from '../spreadsheet/matching-key.js';
import type { RowCounts, RowList, RowsQuery, RowView } from './api.js';
import { readRows } from './batch-views.js';
import type { ConsolePorts } from './ports.js';
import { batchNotFound } from './refusals.js';

const numberOrNull = (value: string | undefined): number | null => {
  if (value === undefined || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
};

export const rowView = (row: RowRecord, result: RowResult | undefined, status: RowStatus): RowView => ({
  row: row.row,
  status,
  sku: row.product?.sku ?? null,
  description: row.product?.description ?? null,
  external_reference: row.product?.external_reference ?? null,
  ncm: result?.ncm ? formatNcm(result.ncm) : null,
  ncm_description: result?.ncm_description || null,
  confidence: numberOrNull(result?.confidence),
  reason: result?.reason || row.rejection?.reason || null,
  detail: result?.detail || null,
  cost_usd: numberOrNull(result?.cost_usd) ?? 0,
  has_verdict_pdf: Boolean(result?.verdict_pdf),
  follows: row.follows ?? null,
});

/**
 * Compared in the spreadsheet's matching form (accents, case, spaces and punctuation gone): `cafe`
 * finds `Café torrado`, `0901.21` and `090121` both find the NCM `0901.21.00`.
 */
const matches = (view: RowView, key: string): boolean =>
  key === '' ||
  [view.sku, view.description, view.external_reference, view.ncm].some(
    (field) => field !== null && matchingKey(field).includes(key),
  );

/** Every row as it stands now, in row order. */
export const standingRows = (rows: readonly RowRecord[]): RowView[] => {
  const leaderOf = leadersOf(rows);
  return rows.map((row) => {
    const shown = resultNow(row, leaderOf(row));
    return rowView(row, isFinalResult(shown) ? shown : row.result, shown.status);
  });
};

export const listRowViews = async (
  ports: Pick<ConsolePorts, 'batches'>,
  batchId: string,
  query: RowsQuery,
): Promise<RowList> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  const all = standingRows(await readRows(ports, batchId));
  const byStatus: RowCounts = {};
  for (const view of all) byStatus[view.status] = (byStatus[view.status] ?? 0) + 1;
  const key = matchingKey(query.q ?? '');
  const statuses = new Set(query.status);
  const matching = all.filter(
    (view) => (statuses.size === 0 || statuses.has(view.status)) && matches(view, key),
  );
  const after = query.after ?? 0;
  const from = matching.filter((view) => view.row > after);
  const page = from.slice(0, query.limit);
  return {
    rows: page,
    next: from.length > page.length ? (page.at(-1)?.row ?? null) : null,
    matching: matching.length,
    by_status: byStatus,
  };
};
