/**
 * Reuse: whether a row's product may take an earlier verdict from the product cache instead of a
 * new classification, or join an earlier batch's classification still waiting for answers, so that
 * nightly runs cost only what changed (docs/architecture.md, property 9). Pure.
 *
 *   row ──▶ product key          `sku:<sku>`, else `h:<fingerprint>`          (which product)
 *       ──▶ product fingerprint  hash of description, sheet bytes             (what decides the NCM)
 *       ──▶ fingerprint          the same with operation and country          (what the request holds)
 *
 * A cached verdict is reused when the batch allows it (`reclassify: changed`), the product is
 * unchanged and the verdict is recent enough; with `reclassify: ended_codes`, when the product is
 * unchanged and the verdict's code is still in force, whatever its age. Unchanged means the same
 * fingerprint, or, unless the batch says `verdict_per_country`, the same product fingerprint: the
 * NCM names the goods, not where they come from, so a verdict made for one origin serves every
 * other, with the row's own tariffs (core/origins.ts). The SKU keys the product so a changed
 * description of the same SKU is seen as a change, not as a new product; a product without a SKU is
 * also kept under `p:<product fingerprint>`, where a row of another origin finds it.
 *
 * A product whose classification from an earlier batch still waits for answers (its pending
 * entry in the product cache, same key and fingerprint, not past `abandons_at`) is not asked
 * again: its rows join that classification (`openClassificationOf`, `joinedResult`), whatever
 * `reclassify` says, since a new classification would ask the same questions again. Only a row of
 * the same origin joins: the answers round gives the joined rows the asking row's result as it is.
 */

import { createHash } from 'node:crypto';
import type { ProductRow } from '../../spreadsheet/schemas.js';
import { detailMessage, detailMessagesOf, detailOf } from '../../wording/details.js';
import type { BatchOptions } from '../core/batch-options-schema.js';
import { fingerprintKey } from '../core/keys.js';
import { type OriginLookups, originOf, sameOrigin } from '../core/origins.js';
import type { CachedVerdict, PendingClassification, RowRecord } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { currentNcmMatches, resultForOrigin, resultNcmDigits } from '../core/row-results.js';
import { checkReasonsOfResult, withCheckMark } from '../core/verdict-check.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Which product a row describes (`product_key`), what decides its NCM (`product_fingerprint`) and
 * what its classification request holds (`fingerprint`, the origin included).
 */
export type ProductIdentity = {
  product_key: string;
  fingerprint: string;
  product_fingerprint: string;
};

/**
 * Gives the hash of what a row's classification request holds that decides its outcome: operation,
 * country, description and the sheet's bytes. The sheet enters by its bytes' sha256, never by its
 * path: a renamed sheet is the same product, a re-exported one with new contents is not.
 */
export const productFingerprint = (
  product: Pick<ProductRow, 'operation' | 'country' | 'description'>,
  sheetSha256: string | null,
): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        'v1',
        product.operation,
        product.country,
        product.description ?? null,
        sheetSha256 ?? null,
      ]),
      'utf8',
    )
    .digest('hex');

/**
 * Gives the hash of what decides a product's NCM whatever its origin: its description and the
 * sheet's bytes. Rows with the same one are the same goods and share one verdict.
 */
const goodsFingerprint = (product: Pick<ProductRow, 'description'>, sheetSha256: string | null): string =>
  createHash('sha256')
    .update(JSON.stringify(['goods-v1', product.description ?? null, sheetSha256 ?? null]), 'utf8')
    .digest('hex');

/**
 * Gives a stored row's product fingerprint (`goodsFingerprint` of its product and sheet), the same
 * Prepare worked out for it; undefined for a row without a product.
 */
export const goodsFingerprintOfRow = (row: Pick<RowRecord, 'product' | 'sheet'>): string | undefined =>
  row.product ? goodsFingerprint(row.product, row.sheet?.sha256 ?? null) : undefined;

/**
 * Gives a row's product identity: keyed by `sku:<sku>` when the row has a SKU, else by its
 * fingerprint, so a changed description of the same SKU reads as a change, not as a new product.
 */
export const productIdentity = (
  product: Pick<ProductRow, 'operation' | 'country' | 'description' | 'sku'>,
  sheetSha256: string | null,
): ProductIdentity => {
  const fingerprint = productFingerprint(product, sheetSha256);
  return {
    product_key: product.sku ? `sku:${product.sku}` : fingerprintKey(fingerprint),
    fingerprint,
    product_fingerprint: goodsFingerprint(product, sheetSha256),
  };
};

/**
 * Gives the key rows of the same goods are grouped by, in a batch (the rows that follow one leader)
 * and in the product cache: the product fingerprint, or the fingerprint when each origin is
 * classified on its own (`verdict_per_country`).
 */
export const sharedVerdictKey = (
  identity: Pick<ProductIdentity, 'fingerprint' | 'product_fingerprint'>,
  options: Pick<BatchOptions, 'verdict_per_country'>,
): string => (options.verdict_per_country ? identity.fingerprint : identity.product_fingerprint);

/** `reason` of a row `reclassify: ended_codes` leaves unsent: it has no earlier verdict to re-check. */
export const NO_EARLIER_VERDICT = 'no_earlier_verdict';

/**
 * The cached verdict this row may reuse, or null (and why not, for tests and logs).
 *
 * The same product is the same fingerprint, or the same product fingerprint (another origin)
 * unless the batch says `verdict_per_country`. `reclassify: ended_codes` (after the NCM table
 * changed) reuses every verdict of an unchanged product whose code `inForce` says is still in
 * force, whatever its age, and answers `not_in_force` for one whose code is not: that product is
 * the one to classify again.
 */
export const reusableVerdict = (input: {
  options: Pick<BatchOptions, 'reclassify' | 'reuse_max_age_days'> &
    Partial<Pick<BatchOptions, 'verdict_per_country'>>;
  identity: ProductIdentity;
  cached: CachedVerdict | undefined;
  now: Date;
  /** Whether an NCM (dotted or not) is in the table in force; needed by `ended_codes`. */
  inForce?: (ncm: string) => boolean;
}):
  | { verdict: CachedVerdict }
  | { verdict: null; why: 'reclassify_all' | 'not_cached' | 'changed' | 'too_old' | 'not_in_force' } => {
  const { options, identity, cached, now } = input;
  if (options.reclassify === 'all') return { verdict: null, why: 'reclassify_all' };
  if (!cached) return { verdict: null, why: 'not_cached' };
  const sameGoods =
    !options.verdict_per_country &&
    cached.product_fingerprint !== undefined &&
    cached.origin !== undefined &&
    cached.product_fingerprint === identity.product_fingerprint;
  if (cached.fingerprint !== identity.fingerprint && !sameGoods) return { verdict: null, why: 'changed' };
  if (options.reclassify === 'ended_codes') {
    if (!input.inForce) throw new Error('reclassify ended_codes needs the table in force (inForce)');
    // A verdict that names no code has nothing to end: it stands, as its code would.
    const ncm = cached.result.ncm ?? '';
    return ncm === '' || input.inForce(ncm) ? { verdict: cached } : { verdict: null, why: 'not_in_force' };
  }
  const ageMs = now.getTime() - Date.parse(cached.resolved_at);
  if (!(ageMs <= options.reuse_max_age_days * DAY_MS)) return { verdict: null, why: 'too_old' };
  return { verdict: cached };
};

/** What a reused row of another origin says beside `reused`: where its verdict and its tariffs come from. */
const OTHER_ORIGIN_DETAIL = new Set(['other_origin', 'verdict_notes']);

/**
 * The result of a row that reuses a verdict: the cached columns, at no cost, with this row's
 * own comparison with its declared NCM and, for a row of another origin than the verdict's, its
 * own tariffs and SIM openings (from the verdict's look-ups or `lookups`, core/origins.ts).
 *
 * `verdict_pdf` holds the cached PDF's full object key (`outbox/<earlier batch>/pdfs/…`) until
 * Finalize copies it into this batch's `pdfs/` and rewrites it to the relative name: Finalize
 * has no cache port, and RowResult is a fixed set of columns, so the row carries the key.
 * `isPendingPdfCopy` tells the two apart.
 */
export const reusedResult = (
  verdict: CachedVerdict,
  product: Pick<ProductRow, 'current_ncm'> & Partial<Pick<ProductRow, 'operation' | 'country'>>,
  /** The batch's `check_below`: under it, or with a SIM opening to choose, the verdict waits for a person. */
  checkBelow?: number,
  /** Look-ups made for this batch's origins that the verdict does not keep. */
  lookups?: OriginLookups,
): RowResult => {
  const rowOrigin = originOf(product);
  const otherOrigin = !!verdict.origin && !!rowOrigin && !sameOrigin(verdict.origin, rowOrigin);
  const result = resultForOrigin(verdict.result, { origin: verdict.origin, lookups }, rowOrigin);
  // An approved verdict keeps `check: approved` and its approved columns (they are the cached
  // result's): the next night does not ask again.
  return withCheckMark(
    {
      ...result,
      status: 'reused',
      ...detailOf([
        detailMessage('reused', { date: verdict.resolved_at.slice(0, 10), batch: verdict.batch_id }),
        // Another origin's row says so, and what its own look-up found (its SIM openings).
        ...(otherOrigin ? detailMessagesOf(result).filter((said) => OTHER_ORIGIN_DETAIL.has(said.code)) : []),
      ]),
      classification_id: verdict.classification_id,
      cost_usd: '0.00',
      // This row's own declared NCM against the verdict, the same rule as a resolved row's.
      current_ncm_matches: currentNcmMatches(product.current_ncm, resultNcmDigits(verdict.result)),
      verdict_pdf: verdict.pdf_key ?? '',
    },
    checkReasonsOfResult(result, checkBelow),
  );
};

/**
 * Whether a reused row's `verdict_pdf` is still the earlier batch's key, its copy into this batch
 * not yet made (a copied PDF's name, as results.csv writes it, starts with `pdfs/`).
 */
export const isPendingPdfCopy = (result: RowResult | undefined): boolean =>
  result?.status === 'reused' && !!result.verdict_pdf && !result.verdict_pdf.startsWith('pdfs/');

/**
 * The earlier batch's classification this product may join, or null: the product cache's pending
 * entry for its key, with the same fingerprint, of another batch, not yet past `abandons_at`. Only
 * a candidate: the review item decides, when the rows join it (`ReviewStore.join`).
 */
export const openClassificationOf = (input: {
  batchId: string;
  identity: ProductIdentity;
  pending: PendingClassification | undefined;
  now: Date;
}): PendingClassification | null => {
  const { batchId, identity, pending, now } = input;
  if (!pending || pending.batch_id === batchId) return null;
  if (pending.product_key !== identity.product_key || pending.fingerprint !== identity.fingerprint)
    return null;
  if (!(Date.parse(pending.abandons_at) > now.getTime())) return null;
  return pending;
};

/** `reason` of a row that joined an earlier batch's classification (until that classification ends). */
export const JOINED_REASON = 'joined_earlier_classification';

/**
 * The result of a row that joined an earlier batch's classification waiting for answers: the
 * same questions (review.csv lists them on this row too), naming that classification, at no cost.
 */
export const joinedResult = (
  pending: PendingClassification,
  _product: Pick<ProductRow, 'current_ncm'>,
): RowResult => ({
  ...pending.result,
  status: 'pending_data',
  reason: JOINED_REASON,
  ...detailOf([
    detailMessage('joined', {
      classification_id: pending.classification_id,
      row: pending.row,
      batch: pending.batch_id,
    }),
  ]),
  classification_id: pending.classification_id,
  cost_usd: '0.00',
});
