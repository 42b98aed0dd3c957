/** Reuse of unchanged products' verdicts (docs/architecture.md, property 9). */
import { describe, expect, it } from 'vitest';
import type { CachedVerdict } from '../../../../shared/pipeline/core/records.js';
import {
  isPendingPdfCopy,
  productFingerprint,
  productIdentity,
  reusableVerdict,
  reusedResult,
} from '../../../../shared/pipeline/reuse/reuse.js';

const PRODUCT = {
  operation: 'import' as const,
  country: 'CO',
  description: 'Café torrado em grãos, não descafeinado, embalagem de 1 kg',
  sku: 'CAF-001',
};
const SHEET = 'a'.repeat(64);
const NOW = new Date('2026-11-21T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

const cached = (overrides: Partial<CachedVerdict> = {}): CachedVerdict => ({
  product_key: 'sku:CAF-001',
  fingerprint: productFingerprint(PRODUCT, SHEET),
  classification_id: 'cls_7KQ2M9XW4RTB',
  resolved_at: new Date(NOW.getTime() - 10 * DAY).toISOString(),
  result: {
    status: 'resolved',
    classification_id: 'cls_7KQ2M9XW4RTB',
    ncm: '0901.21.00',
    title: 'Café torrado em grãos',
    verdict_pdf: 'pdfs/00004-CAF-001.pdf',
    current_ncm_matches: 'no',
    cost_usd: '2.00',
  },
  pdf_key: 'outbox/earlier-batch-abc/pdfs/00004-CAF-001.pdf',
  batch_id: 'earlier-batch-abc',
  ...overrides,
});

describe('productIdentity', () => {
  it('keys a product by its SKU, else by its fingerprint', () => {
    const withSku = productIdentity(PRODUCT, SHEET);
    const withoutSku = productIdentity({ ...PRODUCT, sku: null }, SHEET);

    expect(withSku.product_key).toBe('sku:CAF-001');
    expect(withoutSku.product_key).toBe(`h:${withoutSku.fingerprint}`);
    // The SKU names the product; it does not decide the verdict.
    expect(withSku.fingerprint).toBe(withoutSku.fingerprint);
  });

  it.each([
    ['description', { ...PRODUCT, description: 'Café torrado e moído, embalagem de 500 g' }, SHEET],
    ['country', { ...PRODUCT, country: 'BR' }, SHEET],
    ['operation', { ...PRODUCT, operation: 'export' as const }, SHEET],
    ['sheet bytes', PRODUCT, 'b'.repeat(64)],
    ['sheet removed', PRODUCT, null],
  ])('a changed %s changes the fingerprint', (_what, product, sheet) => {
    expect(productFingerprint(product, sheet)).not.toBe(productFingerprint(PRODUCT, SHEET));
  });

  it('is stable for the same inputs', () => {
    expect(productFingerprint({ ...PRODUCT }, SHEET)).toBe(productFingerprint(PRODUCT, SHEET));
  });
});

describe('reusableVerdict', () => {
  const identity = productIdentity(PRODUCT, SHEET);
  const options = { reclassify: 'changed' as const, reuse_max_age_days: 30 };

  it('reuses an unchanged product resolved within the age limit', () => {
    expect(reusableVerdict({ options, identity, cached: cached(), now: NOW }).verdict).not.toBeNull();
  });

  it('reuses a verdict exactly at the age limit, not a minute past it', () => {
    const atLimit = cached({ resolved_at: new Date(NOW.getTime() - 30 * DAY).toISOString() });
    const past = cached({ resolved_at: new Date(NOW.getTime() - 30 * DAY - 60_000).toISOString() });

    expect(reusableVerdict({ options, identity, cached: atLimit, now: NOW }).verdict).not.toBeNull();
    expect(reusableVerdict({ options, identity, cached: past, now: NOW })).toEqual({
      verdict: null,
      why: 'too_old',
    });
  });

  it('reuses a verdict made for another origin of the same goods, unless the batch says verdict_per_country', () => {
    const brazil = productIdentity({ ...PRODUCT, country: 'BR' }, SHEET);
    const madeInBrazil = cached({
      fingerprint: brazil.fingerprint,
      product_fingerprint: brazil.product_fingerprint,
      origin: { operation: 'import', country: 'BR' },
    });
    expect(identity.product_fingerprint).toBe(brazil.product_fingerprint);
    expect(reusableVerdict({ options, identity, cached: madeInBrazil, now: NOW }).verdict).toBe(madeInBrazil);
    expect(
      reusableVerdict({
        options: { ...options, verdict_per_country: true },
        identity,
        cached: madeInBrazil,
        now: NOW,
      }),
    ).toEqual({ verdict: null, why: 'changed' });
    // Other goods (another description) are another product, whatever the origin.
    const other = productIdentity({ ...PRODUCT, description: 'Café moído, embalagem de 500 g' }, SHEET);
    expect(reusableVerdict({ options, identity: other, cached: madeInBrazil, now: NOW })).toEqual({
      verdict: null,
      why: 'changed',
    });
  });

  it('does not reuse a changed product, a product never seen, or in a batch that reclassifies all', () => {
    const changed = cached({ fingerprint: productFingerprint({ ...PRODUCT, country: 'BR' }, SHEET) });
    expect(reusableVerdict({ options, identity, cached: changed, now: NOW })).toEqual({
      verdict: null,
      why: 'changed',
    });
    expect(reusableVerdict({ options, identity, cached: undefined, now: NOW })).toEqual({
      verdict: null,
      why: 'not_cached',
    });
    expect(
      reusableVerdict({ options: { ...options, reclassify: 'all' }, identity, cached: cached(), now: NOW }),
    ).toEqual({ verdict: null, why: 'reclassify_all' });
  });

  it('a zero-day limit reuses nothing resolved before now', () => {
    const zero = { ...options, reuse_max_age_days: 0 };
    expect(reusableVerdict({ options: zero, identity, cached: cached(), now: NOW }).verdict).toBeNull();
  });
});

describe('reusedResult', () => {
  it('copies the verdict at no cost, keeps the classification, compares this row’s own NCM', () => {
    const result = reusedResult(cached(), { current_ncm: '09012100' });

    expect(result).toMatchObject({
      status: 'reused',
      classification_id: 'cls_7KQ2M9XW4RTB',
      ncm: '0901.21.00',
      title: 'Café torrado em grãos',
      cost_usd: '0.00',
      current_ncm_matches: 'yes',
      verdict_pdf: 'outbox/earlier-batch-abc/pdfs/00004-CAF-001.pdf',
    });
    expect(result.detail).toContain('earlier-batch-abc');
  });

  it('flags a mismatch, compares a 7-digit NCM with its zero back, leaves no NCM empty', () => {
    expect(reusedResult(cached(), { current_ncm: '09019000' }).current_ncm_matches).toBe('no');
    expect(reusedResult(cached(), { current_ncm: '9012100' }).current_ncm_matches).toBe('yes');
    expect(reusedResult(cached(), { current_ncm: null }).current_ncm_matches).toBe('');
  });

  it('marks the PDF to be copied at Finalize; a copied or absent PDF is not', () => {
    expect(isPendingPdfCopy(reusedResult(cached(), { current_ncm: null }))).toBe(true);
    expect(isPendingPdfCopy(reusedResult(cached({ pdf_key: null }), { current_ncm: null }))).toBe(false);
    expect(isPendingPdfCopy({ status: 'reused', verdict_pdf: 'pdfs/00001-CAF-001.pdf' })).toBe(false);
    expect(isPendingPdfCopy({ status: 'resolved', verdict_pdf: 'outbox/x/pdfs/1.pdf' })).toBe(false);
  });
});

describe('reusableVerdict under reclassify: ended_codes', () => {
  const identity = productIdentity(PRODUCT, SHEET);
  const options = { reclassify: 'ended_codes' as const, reuse_max_age_days: 30 };
  const ended = new Set(['09012100']);
  const inForce = (ncm: string) => !ended.has(ncm.replace(/\D/g, ''));
  const yearOld = new Date(NOW.getTime() - 400 * DAY).toISOString();

  it('reuses a verdict whose code is still in force, whatever its age', () => {
    const verdict = cached({ resolved_at: yearOld, result: { ...cached().result, ncm: '0901.11.10' } });
    expect(reusableVerdict({ options, identity, cached: verdict, now: NOW, inForce }).verdict).toBe(verdict);
  });

  it('gives none for a verdict whose code is no longer in force, saying so', () => {
    expect(reusableVerdict({ options, identity, cached: cached(), now: NOW, inForce })).toEqual({
      verdict: null,
      why: 'not_in_force',
    });
  });

  it('a changed product or one never classified has no verdict to re-check', () => {
    const changed = cached({ fingerprint: 'another' });
    expect(reusableVerdict({ options, identity, cached: changed, now: NOW, inForce })).toMatchObject({
      why: 'changed',
    });
    expect(reusableVerdict({ options, identity, cached: undefined, now: NOW, inForce })).toMatchObject({
      why: 'not_cached',
    });
  });
});
