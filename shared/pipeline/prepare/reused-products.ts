/**
 * Each reused product's rows in the file, as Prepare's first read finds them: its first row and
 * how many rows it has. Every row of a product reuses the same verdict, so what a person or the
 * daily sweep must do about that verdict is kept once per product, on its first row, and covers
 * the rest: one check item, one SIM watch. A nightly export of 100,000 rows of a few hundred
 * products writes a few hundred of each, not one per row.
 */
import type { RowPlan } from './row-plans.js';

/** A product's first row in the file and how many valid rows it has there. */
export type ProductRows = { first: number; rows: number };

/**
 * Gives a counter of each product's rows as the survey reads the file in chunks; `ofReused` keeps
 * the products that reuse a verdict (known only once the whole file is read: any row of a product
 * may hold it). One entry per product while reading, a few numbers each.
 */
export const productRowsCollector = () => {
  const byFingerprint = new Map<string, ProductRows>();
  return {
    add: (plans: readonly RowPlan[]): void => {
      for (const plan of plans) {
        if (plan.kind !== 'valid') continue;
        const seen = byFingerprint.get(plan.identity.fingerprint);
        if (seen) seen.rows += 1;
        else byFingerprint.set(plan.identity.fingerprint, { first: plan.mapped.row, rows: 1 });
      }
    },
    ofReused: (reused: ReadonlyMap<string, string>): ReadonlyMap<string, ProductRows> =>
      new Map([...byFingerprint].filter(([fingerprint]) => reused.has(fingerprint))),
    /** Whether every product counted reuses a verdict: then no row of the file is classified. */
    allReused: (reused: ReadonlyMap<string, string>): boolean =>
      [...byFingerprint.keys()].every((fingerprint) => reused.has(fingerprint)),
  };
};

/**
 * Says whether a reused row is its product's first (the one a check item or a SIM watch is kept
 * on), and how many rows of the product follow it. A row whose product the survey did not list stands
 * alone (it never happens: the survey and the records pass plan the same rows).
 */
export const reusedLead = (
  products: ReadonlyMap<string, ProductRows>,
  row: { row: number; fingerprint?: string },
): { leads: boolean; followers: number } => {
  const product = row.fingerprint === undefined ? undefined : products.get(row.fingerprint);
  if (!product) return { leads: true, followers: 0 };
  return { leads: product.first === row.row, followers: product.rows - 1 };
};
