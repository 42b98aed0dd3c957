/**
 * Exposure order: the order a batch's products are sent in when `batch.json` does not say
 * `order: "file"`. At the service's cap a classification holds a slot for about a minute, so a
 * catalogue of 43,000 products takes days; what a team feels is which rows are done first. In an
 * ERP export or a month of NF-e a few products carry most of the rows and most of the money, so
 * each product is ranked by
 *
 *   1. the rows it covers (its leader and every row that follows it),
 *   2. then the value the file gives, summed over its rows (a `Valor`, `Value`, `Valor total` or
 *      NF-e `vProd` column), or the priority it gives (a `Prioridade`, `Prioridad`, `Priority`
 *      column: 1 or "alta" first),
 *   3. then the file's order (its first row).
 *
 * The survey (Prepare's first read) counts each product here, one entry per product; the records
 * pass gives each queued leader its rank as its `send_order`, the place the dispatcher sends it
 * at (dispatch/rows-window.ts). A rank is a product's, so places have gaps where a product is
 * reused or joined instead of queued; the window only needs them in order.
 */
import { matchingKey } from '../../spreadsheet/matching-key.js';
import type { ColumnMapping } from '../../spreadsheet/schemas.js';
import type { BatchOptions } from '../core/batch-options-schema.js';
import type { ExposureSummary } from '../core/records.js';
import { sharedVerdictKey } from '../reuse/reuse.js';
import type { RowPlan } from './row-plans.js';

/** Headers (in `matchingKey` form) of a column that gives a row's value in money. */
const VALUE_HEADERS = new Set(
  [
    'valor',
    'valor total',
    'valor_total',
    'valor do item',
    'valor do produto',
    'valor da mercadoria',
    'vProd',
    'value',
    'total value',
    'item value',
    'amount',
    'importe',
    'importe total',
    'monto',
    'monto total',
    'valor del ítem',
  ].map(matchingKey),
);

/** Headers (in `matchingKey` form) of a column that gives a row's priority. */
const PRIORITY_HEADERS = new Set(['prioridade', 'prioridad', 'priority'].map(matchingKey));

/** Priorities people write in words, as the number they mean (1 is sent first). */
const PRIORITY_WORDS: ReadonlyMap<string, number> = new Map(
  [
    ...['alta', 'alto', 'high', 'urgente', 'urgent'].map((word) => [word, 1] as const),
    ...['média', 'media', 'medio', 'medium', 'normal'].map((word) => [word, 2] as const),
    ...['baixa', 'baja', 'bajo', 'low'].map((word) => [word, 3] as const),
  ].map(([word, rank]) => [matchingKey(word), rank]),
);

/** The columns that say how much a row matters, as the file heads them: each the first so named. */
export type ExposureColumns = {
  value?: { header: string; position: number };
  priority?: { header: string; position: number };
};

/**
 * Takes a file's column mapping and gives the columns it passes through that give a value or a
 * priority (by position among `passthrough`), each the first one so headed; neither when none is.
 */
export const exposureColumnsOf = (columns: Pick<ColumnMapping, 'passthrough'>): ExposureColumns => {
  const found: ExposureColumns = {};
  columns.passthrough.forEach((ref, position) => {
    const key = matchingKey(ref.header);
    if (!found.value && VALUE_HEADERS.has(key)) found.value = { header: ref.header, position };
    else if (!found.priority && PRIORITY_HEADERS.has(key)) found.priority = { header: ref.header, position };
  });
  return found;
};

/**
 * Takes a cell of money as people write it (`1.234,56`, `1,234.56`, `R$ 99,90`, `1234.5`) and
 * gives its amount, or null when it is empty, negative or no number: the last of `.` and `,` is
 * the decimal mark when both are there; one alone is a decimal mark unless it repeats.
 */
export const amountOf = (text: string): number | null => {
  if (/-/.test(text)) return null;
  let digits = text.replace(/[^\d.,]/g, '');
  if (!/\d/.test(digits)) return null;
  const comma = digits.lastIndexOf(',');
  const dot = digits.lastIndexOf('.');
  const mark = comma >= 0 && dot >= 0 ? (comma > dot ? ',' : '.') : comma >= 0 ? ',' : '.';
  const other = mark === ',' ? '.' : ',';
  digits = digits.split(other).join('');
  if (digits.split(mark).length > 2) digits = digits.split(mark).join('');
  const amount = Number(digits.replace(',', '.'));
  return Number.isFinite(amount) ? amount : null;
};

/** Takes a cell of money and gives its amount in whole cents: 0 when it is empty or no amount. */
export const centsOf = (text: string): number => Math.round((amountOf(text) ?? 0) * 100);

/**
 * Takes a priority cell (`1`, `2`, "alta", "baja", "Low") and gives the number it means, 1 first;
 * null when it is empty or neither a number nor a word of the three levels.
 */
export const priorityOf = (text: string): number | null => {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const number = Number(trimmed.replace(',', '.'));
  if (Number.isFinite(number)) return number;
  return PRIORITY_WORDS.get(matchingKey(trimmed)) ?? null;
};

/** What the survey keeps of one product: one small entry however many rows it has. */
type Exposure = { rows: number; value: number; priority: number; first: number; place?: number };

/**
 * Gives a ranker the survey feeds its row plans chunk by chunk: it counts each product's rows,
 * value and priority (the product as its rows share a classification: by `sharedVerdictKey`, or
 * each row alone under `duplicates: classify_each`), then ranks them once the file is read.
 * `placeOf` gives a row's product's place, 1 first.
 */
export const exposureRanker = (
  options: Pick<BatchOptions, 'duplicates' | 'verdict_per_country'>,
  columns: ExposureColumns,
) => {
  const products = new Map<string, Exposure>();
  /** The products in send order, once ranked. */
  let ranking: Exposure[] = [];
  const unreadRows: number[] = [];
  let unread = 0;
  let ranked = false;
  const productOf = (plan: Extract<RowPlan, { kind: 'valid' }>): string =>
    options.duplicates === 'classify_each'
      ? `row:${plan.mapped.row}`
      : sharedVerdictKey(plan.identity, options);
  const cellOf = (plan: RowPlan, column: ExposureColumns['value']) =>
    column ? (plan.mapped.passthrough[column.position] ?? '') : '';
  const noteUnread = (row: number) => {
    unread += 1;
    if (unreadRows.length < 5) unreadRows.push(row);
  };
  return {
    add(plans: readonly RowPlan[]): void {
      for (const plan of plans) {
        if (plan.kind !== 'valid') continue;
        const key = productOf(plan);
        const entry = products.get(key) ?? { rows: 0, value: 0, priority: Infinity, first: plan.mapped.row };
        entry.rows += 1;
        const valueCell = cellOf(plan, columns.value);
        if (valueCell.trim() !== '') {
          const amount = amountOf(valueCell);
          if (amount === null) noteUnread(plan.mapped.row);
          else entry.value += amount;
        }
        const priorityCell = cellOf(plan, columns.priority);
        if (priorityCell.trim() !== '') {
          const priority = priorityOf(priorityCell);
          if (priority === null) noteUnread(plan.mapped.row);
          else entry.priority = Math.min(entry.priority, priority);
        }
        products.set(key, entry);
      }
    },
    /** Ranks the products counted (once, after the survey): most rows, then value, priority, first row. */
    rank(): ExposureSummary {
      const order = [...products.values()].sort(
        (a, b) => b.rows - a.rows || b.value - a.value || a.priority - b.priority || a.first - b.first,
      );
      order.forEach((entry, index) => {
        entry.place = index + 1;
      });
      ranking = order;
      ranked = true;
      return {
        products: order.length,
        ...(columns.value ? { value_header: columns.value.header } : {}),
        ...(columns.priority ? { priority_header: columns.priority.header } : {}),
        unread_cells: unread,
        ...(columns.value
          ? { value_total_cents: Math.round(order.reduce((sum, entry) => sum + entry.value, 0) * 100) }
          : {}),
        unread_rows: unreadRows,
      };
    },
    /**
     * Takes numbers of classifications and gives, for each, the share of the counted rows and of
     * their value covered once that many products of the send order have their verdict (as if
     * every product were classified: a reused one is covered sooner).
     */
    coverageAfter(classifications: readonly number[]): { rows: number; value: number }[] {
      const rows = ranking.reduce((sum, entry) => sum + entry.rows, 0);
      const value = ranking.reduce((sum, entry) => sum + entry.value, 0);
      return classifications.map((count) => {
        const first = ranking.slice(0, Math.max(0, count));
        const coveredRows = first.reduce((sum, entry) => sum + entry.rows, 0);
        const coveredValue = first.reduce((sum, entry) => sum + entry.value, 0);
        return { rows: rows > 0 ? coveredRows / rows : 1, value: value > 0 ? coveredValue / value : 1 };
      });
    },
    /**
     * The value of a row's product, in cents (its rows' value cells summed): what its verdict
     * covers; undefined where the file has no value column or the row was not counted.
     */
    coversValueOf(plan: Extract<RowPlan, { kind: 'valid' }>): number | undefined {
      if (!columns.value) return undefined;
      const value = products.get(productOf(plan))?.value;
      return value === undefined ? undefined : Math.round(value * 100);
    },
    /** The place of a row's product in the send order, once ranked; undefined for a row not counted. */
    placeOf(plan: Extract<RowPlan, { kind: 'valid' }>): number | undefined {
      if (!ranked) throw new Error('exposureRanker: placeOf before rank');
      return products.get(productOf(plan))?.place;
    },
  };
};

/** A batch's exposure ranker, ranked: what the records pass asks a queued row's place of. */
export type RankedExposure = Pick<
  ReturnType<typeof exposureRanker>,
  'placeOf' | 'coversValueOf' | 'coverageAfter'
>;
