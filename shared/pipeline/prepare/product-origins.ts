/**
 * Which products of a file come in more than one origin (operation and country), found on
 * Prepare's first read of the file: the leader of such a product is written naming the other
 * origins of its followers (`other_origins`), whose tariffs Store looks up once the verdict is
 * known (core/origins.ts). Every row is written before the first is sent, so the leader always
 * knows them all.
 */
import type { BatchOptions } from '../core/batch-options-schema.js';
import { originKey } from '../core/origins.js';
import type { RowPlan } from './row-plans.js';

/**
 * Gives a collector, fed the plans of a file read in chunks, of each product's origins: `othersOf`
 * gives the origins of a product other than `own`, sorted. Holds nothing for a file of one origin,
 * and otherwise one entry per product seen in an origin other than the file's first: a product
 * first seen in the first origin and later in another gets the first origin added then, and a
 * product seen only in the first origin has no other. Collects nothing when each origin (or each
 * row) is classified on its own.
 */
export const productOriginsCollector = (
  options: Pick<BatchOptions, 'verdict_per_country' | 'duplicates'>,
) => {
  const shared = !options.verdict_per_country && options.duplicates !== 'classify_each';
  let firstOrigin: string | null = null;
  const byProduct = new Map<string, Set<string>>();
  return {
    add: (plans: readonly RowPlan[]): void => {
      if (!shared) return;
      for (const plan of plans) {
        if (plan.kind !== 'valid') continue;
        const origin = originKey(plan.product);
        firstOrigin ??= origin;
        const seen = byProduct.get(plan.identity.product_fingerprint);
        if (seen) seen.add(origin);
        else if (origin !== firstOrigin) byProduct.set(plan.identity.product_fingerprint, new Set([origin]));
      }
    },
    othersOf: (productFingerprint: string, own: string): string[] =>
      [...(byProduct.get(productFingerprint) ?? [])].filter((origin) => origin !== own).sort(),
  };
};
