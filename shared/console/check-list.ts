/**
 * The "To check" list: every verdict waiting for a person's check, across batches
 * (`CheckStore.listOpen`), grouped so identical products are decided once. Two items are the
 * same product when they share a classification (a later batch reusing the verdict, or a row
 * joining it) or, else, the product's fingerprint (the same product classified twice); the
 * groups are the connected sets of those links, so a chain of the two still makes one entry.
 */
import { createHash } from 'node:crypto';
import type { CheckItem } from '../pipeline/core/check-records.js';
import type { CheckEntryView, CheckList } from './api.js';
import type { ConsolePorts } from './ports.js';

/** Items grouped by shared classification or fingerprint (union-find over their indexes). */
const groupIdenticalProducts = (items: readonly CheckItem[]): CheckItem[][] => {
  const parent = items.map((_, i) => i);
  const root = (i: number): number => {
    let at = i;
    while (parent[at] !== at) at = parent[at] = parent[parent[at]!]!;
    return at;
  };
  const firstOf = new Map<string, number>();
  items.forEach((item, i) => {
    const links = [`c:${item.classification_id}`, ...(item.fingerprint ? [`f:${item.fingerprint}`] : [])];
    for (const link of links) {
      const first = firstOf.get(link);
      if (first === undefined) firstOf.set(link, i);
      else parent[root(i)] = root(first);
    }
  });
  const groups = new Map<number, CheckItem[]>();
  items.forEach((item, i) => {
    groups.set(root(i), [...(groups.get(root(i)) ?? []), item]);
  });
  return [...groups.values()];
};

const byAge = (a: CheckItem, b: CheckItem) =>
  a.created_at.localeCompare(b.created_at) || a.batch_id.localeCompare(b.batch_id) || a.row - b.row;

/** The key of a set of rows: the page keeps its typing under it while the list refreshes. */
const entryKey = (items: readonly Pick<CheckItem, 'batch_id' | 'row'>[]): string =>
  createHash('sha256')
    .update(
      items
        .map((item) => `${item.batch_id}#${item.row}`)
        .sort()
        .join('\n'),
    )
    .digest('hex')
    .slice(0, 16);

const entryOf = (items: CheckItem[], names: ReadonlyMap<string, string>): CheckEntryView => {
  const sorted = [...items].sort(byAge);
  // The product as its earliest row shows it; the candidates of the row with the most to weigh.
  const first = sorted[0]!;
  const richest = sorted.reduce((best, item) =>
    item.candidates.length > best.candidates.length ? item : best,
  );
  const thresholds = sorted
    .map((item) => item.check_below)
    .filter((value): value is number => value !== null);
  const reasons = new Set(sorted.flatMap((item) => item.reasons));
  const withPdf = sorted.find((item) => item.verdict_pdf !== null);
  return {
    key: entryKey(sorted),
    rows: sorted.map((item) => ({
      batch_id: item.batch_id,
      batch_name: names.get(item.batch_id) ?? item.batch_id,
      row: item.row,
      classification_id: item.classification_id,
      followers: item.followers,
      created_at: item.created_at,
    })),
    row_count: sorted.reduce((sum, item) => sum + 1 + item.followers, 0),
    batch_count: new Set(sorted.map((item) => item.batch_id)).size,
    sku: first.sku,
    description: first.description,
    title: first.title,
    reasons: (['low_confidence', 'sim_pending_choice'] as const).filter((reason) => reasons.has(reason)),
    check_below: thresholds.length > 0 ? Math.min(...thresholds) : null,
    ncm: richest.ncm,
    confidence: richest.confidence,
    candidates: richest.candidates.map((candidate) => ({ ...candidate })),
    sim_options: sorted.find((item) => item.sim_options.length > 0)?.sim_options ?? [],
    verdict: withPdf ? { batch_id: withPdf.batch_id, row: withPdf.row } : null,
  };
};

export const checkList = async (ports: Pick<ConsolePorts, 'checks' | 'batches'>): Promise<CheckList> => {
  const open = (await ports.checks.listOpen()).filter((item) => item.state === 'to_check');
  const batchIds = [...new Set(open.map((item) => item.batch_id))];
  const batches = await Promise.all(batchIds.map((batchId) => ports.batches.getBatch(batchId)));
  const names = new Map(batchIds.map((batchId, i) => [batchId, batches[i]?.name ?? batchId]));
  const entries = groupIdenticalProducts(open).map((items) => entryOf(items, names));
  // The entry waiting longest first, as the questions inbox puts the soonest abandoned first.
  entries.sort((a, b) => (a.rows[0]?.created_at ?? '').localeCompare(b.rows[0]?.created_at ?? ''));
  return { entries, rows: entries.reduce((sum, entry) => sum + entry.row_count, 0) };
};
