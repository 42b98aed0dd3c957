/**
 * What the "To check" workbench shows of its list: the entries a person's filters keep (batch,
 * reason, confidence band, words searched), in the order chosen. Pure: the page keeps the
 * filters in its state and the URL (`#/checks?batch=…`), and calls `shownEntries` on each
 * refresh, so a list of hundreds narrows as fast as the person types.
 */
import type { CheckEntryView } from '../../shared/console/web-contract.js';

export const REASONS = ['low_confidence', 'sim_pending_choice'] as const;
export type Reason = (typeof REASONS)[number];

/** Confidence bands, in percent: [from, below). `none` is a verdict with no confidence given. */
export const CONFIDENCE_BANDS = {
  under50: [0, 50],
  from50to70: [50, 70],
  from70to90: [70, 90],
  from90: [90, 101],
} as const;
export type ConfidenceBand = keyof typeof CONFIDENCE_BANDS;

export const SORTS = ['waiting', 'confidence_low', 'confidence_high', 'rows', 'product'] as const;
export type Sort = (typeof SORTS)[number];

export type CheckFilters = {
  /** A batch id: only entries with a row in it. */
  batch: string | null;
  reason: Reason | null;
  confidence: ConfidenceBand | null;
  /** Words every one of which is in the product, its SKU, its NCMs or its batches' names. */
  search: string;
  sort: Sort;
};

export const NO_FILTERS: CheckFilters = {
  batch: null,
  reason: null,
  confidence: null,
  search: '',
  sort: 'waiting',
};

/** Lower case, accents off: "Café" is found by "cafe". */
const folded = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** Everything a search looks in, folded once per entry: product, SKU, NCMs (dotted or not), batches. */
const searchText = (entry: CheckEntryView): string =>
  folded(
    [
      entry.description ?? '',
      entry.title ?? '',
      entry.sku ?? '',
      entry.ncm ?? '',
      ...entry.candidates.map((candidate) => candidate.ncm),
      ...entry.rows.map((row) => `${row.batch_name} ${row.batch_id}`),
    ].join('\n'),
  );

const digitsOnly = (word: string) => word.replace(/[.\s-]/g, '');

const matchesSearch = (entry: CheckEntryView, search: string): boolean => {
  const words = folded(search).split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = searchText(entry);
  // "8471.30" finds 84713012: an NCM is searched by its digits as well as as typed.
  return words.every(
    (word) => text.includes(word) || (/^[0-9.]+$/.test(word) && text.includes(digitsOnly(word))),
  );
};

const inBand = (confidence: number | null, band: ConfidenceBand): boolean => {
  if (confidence === null) return false;
  const [from, below] = CONFIDENCE_BANDS[band];
  return confidence >= from && confidence < below;
};

const productName = (entry: CheckEntryView) => folded(entry.description ?? entry.title ?? entry.sku ?? '');

const waitingSince = (entry: CheckEntryView) => entry.rows[0]?.created_at ?? '';

const ORDER: Record<Sort, (a: CheckEntryView, b: CheckEntryView) => number> = {
  waiting: (a, b) => waitingSince(a).localeCompare(waitingSince(b)),
  confidence_low: (a, b) => (a.confidence ?? -1) - (b.confidence ?? -1),
  confidence_high: (a, b) => (b.confidence ?? -1) - (a.confidence ?? -1),
  rows: (a, b) => b.row_count - a.row_count,
  product: (a, b) => productName(a).localeCompare(productName(b)),
};

/** Takes the list's entries and the person's filters, and gives the entries they keep in the order chosen (ties as the list had them). */
export const shownEntries = (entries: readonly CheckEntryView[], filters: CheckFilters): CheckEntryView[] =>
  entries
    .map((entry, index) => ({ entry, index }))
    .filter(
      ({ entry }) =>
        (filters.batch === null || entry.rows.some((row) => row.batch_id === filters.batch)) &&
        (filters.reason === null || entry.reasons.includes(filters.reason)) &&
        (filters.confidence === null || inBand(entry.confidence, filters.confidence)) &&
        matchesSearch(entry, filters.search),
    )
    .sort((a, b) => ORDER[filters.sort](a.entry, b.entry) || a.index - b.index)
    .map(({ entry }) => entry);

/**
 * Takes batches as (id, name) pairs, repeats allowed, and gives each batch once with the label a
 * batch filter shows: its name, and its id beside it when two batches share the name; by label.
 * The questions inbox's batch filter uses it too.
 */
export const batchChoices = (
  pairs: Iterable<readonly [id: string, name: string]>,
): { id: string; label: string }[] => {
  const names = new Map(pairs);
  const named = new Map<string, number>();
  for (const name of names.values()) named.set(name, (named.get(name) ?? 0) + 1);
  return [...names]
    .map(([id, name]) => ({ id, label: (named.get(name) ?? 0) > 1 ? `${name} · ${id}` : name }))
    .sort((a, b) => a.label.localeCompare(b.label));
};

/** Takes the list's entries and gives the batch filter's choices: every batch they are in, once. */
export const batchesOf = (entries: readonly CheckEntryView[]): { id: string; label: string }[] =>
  batchChoices(entries.flatMap((entry) => entry.rows.map((row) => [row.batch_id, row.batch_name] as const)));

/**
 * Takes the entries chosen for a bulk approval and gives the SIM openings every one of them
 * offers for the same NCM (the only openings one approval can set on all), or none.
 */
export const sharedSimOptions = (entries: readonly CheckEntryView[]): CheckEntryView['sim_options'] => {
  const [first, ...rest] = entries;
  if (!first || first.ncm === null) return [];
  if (rest.some((entry) => entry.ncm !== first.ncm)) return [];
  return first.sim_options.filter((option) =>
    rest.every((entry) => entry.sim_options.some((other) => other.code === option.code)),
  );
};

/** The entry holding a batch's row, for a link to it (`#/checks?row=<batch>:<row>`); null when none does. */
export const entryWithRow = (
  entries: readonly CheckEntryView[],
  target: { batchId: string; row: number },
): CheckEntryView | null =>
  entries.find((entry) =>
    entry.rows.some((row) => row.batch_id === target.batchId && row.row === target.row),
  ) ?? null;
