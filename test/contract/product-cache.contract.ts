/**
 * The ProductCache contract: what Prepare (reuse of a recent verdict) and the Store step rely
 * on from the product cache, whichever implementation serves it.
 */
import { describe, expect, it } from 'vitest';
import type { ProductCache } from '../../shared/pipeline/core/ports.js';
import { cachedVerdict } from '../helpers/records.js';
import { type Implementation, useImplementation } from './implementation.js';

export const describeProductCacheContract = (name: string, implementation: Implementation<ProductCache>) =>
  describe(`ProductCache contract: ${name}`, () => {
    const cache = useImplementation(implementation);

    it('puts a verdict and reads it back; an unknown key is simply absent', async () => {
      // Prepare
      const verdict = cachedVerdict('sku:A-1', { pdf_key: 'outbox/nightly-abc/pdfs/00001-A-1.pdf' });

      // Act
      await cache().put(verdict);
      const found = await cache().getMany(['sku:A-1', 'sku:missing']);

      // Assess
      expect([...found.keys()]).toEqual(['sku:A-1']);
      expect(found.get('sku:A-1')).toEqual(verdict);
    });

    it('keeps the last verdict put for a product', async () => {
      // Prepare
      await cache().put(cachedVerdict('sku:A-1'));

      // Act
      await cache().put(
        cachedVerdict('sku:A-1', { fingerprint: 'fp-2', resolved_at: '2026-11-21T10:00:00.000Z' }),
      );

      // Assess
      expect((await cache().getMany(['sku:A-1'])).get('sku:A-1')).toEqual(
        cachedVerdict('sku:A-1', { fingerprint: 'fp-2', resolved_at: '2026-11-21T10:00:00.000Z' }),
      );
    });

    it('answers for any number of keys, repeated and absent ones included', async () => {
      // Prepare
      const stored = Array.from({ length: 230 }, (_, i) => `sku:P-${i}`);
      for (const key of stored) await cache().put(cachedVerdict(key));
      const asked = [
        ...stored,
        ...Array.from({ length: 20 }, (_, i) => `sku:absent-${i}`),
        'sku:P-0',
        'sku:P-229',
      ];

      // Act
      const found = await cache().getMany(asked);

      // Assess: in no promised order.
      expect([...found.keys()].sort()).toEqual([...stored].sort());
      expect(found.get('sku:P-229')).toEqual(cachedVerdict('sku:P-229'));
    });

    it('answers an empty map for no keys', async () => {
      expect((await cache().getMany([])).size).toBe(0);
    });

    it('refuses a verdict that is not a cached verdict, and stores nothing', async () => {
      // Prepare
      const broken = {
        ...cachedVerdict('sku:bad'),
        result: { status: 'not-a-status' },
      } as unknown as Parameters<ProductCache['put']>[0];

      // Act and Assess
      await expect(cache().put(broken)).rejects.toThrow();
      expect((await cache().getMany(['sku:bad'])).size).toBe(0);
    });

    it('reads every verdict back by pages, never a pending entry, and goes on from where a page ended', async () => {
      // Prepare
      const stored = Array.from({ length: 130 }, (_, i) => `sku:S-${String(i).padStart(3, '0')}`);
      for (const key of stored) await cache().put(cachedVerdict(key));
      for (const key of stored.slice(0, 5))
        await cache().putPending({
          product_key: key,
          fingerprint: `fp-${key}`,
          classification_id: 'cls_AAAAAAAAAAAA',
          batch_id: 'nightly-abc',
          row: 2,
          abandons_at: '2026-12-21T12:00:00.000Z',
          result: { status: 'pending_data', classification_id: 'cls_AAAAAAAAAAAA', cost_usd: '0.00' },
        });
      const read = async (after: string | null) => {
        const pages: { keys: string[]; after: string | null }[] = [];
        for await (const page of cache().scanVerdicts({ after, pageSize: 40 }))
          pages.push({ keys: page.verdicts.map((v) => v.product_key), after: page.after });
        return pages;
      };

      // Act
      const whole = await read(null);
      const first = whole[0]!;
      const rest = await read(first.after);

      // Assess: every verdict once, as put; the last page says the scan is done.
      const all = whole.flatMap((page) => page.keys);
      expect([...all].sort()).toEqual(stored);
      expect(whole.length).toBeGreaterThan(1);
      expect(whole.at(-1)?.after).toBeNull();
      expect(first.after).not.toBeNull();
      expect([...first.keys, ...rest.flatMap((page) => page.keys)].sort()).toEqual(stored);
      for await (const page of cache().scanVerdicts({ pageSize: 1000 }))
        for (const verdict of page.verdicts) expect(verdict).toEqual(cachedVerdict(verdict.product_key));
    });

    it('scans an empty cache as one empty page', async () => {
      const pages = [];
      for await (const page of cache().scanVerdicts()) pages.push(page);
      expect(pages.flatMap((page) => page.verdicts)).toEqual([]);
      expect(pages.at(-1)?.after).toBeNull();
    });

    it('keeps a pending classification per product beside its verdict, the last one put', async () => {
      // Prepare
      const pending = (classification: string, row: number) => ({
        product_key: 'sku:A-1',
        fingerprint: 'fp-1',
        classification_id: classification,
        batch_id: 'nightly-abc',
        row,
        abandons_at: '2026-12-21T12:00:00.000Z',
        result: { status: 'pending_data' as const, classification_id: classification, cost_usd: '0.00' },
      });
      await cache().put(cachedVerdict('sku:A-1'));

      // Act
      await cache().putPending(pending('cls_AAAAAAAAAAAA', 2));
      await cache().putPending(pending('cls_BBBBBBBBBBBB', 3));

      // Assess: the verdict untouched, the pending entry the last one, absent keys absent.
      expect((await cache().getMany(['sku:A-1'])).get('sku:A-1')).toEqual(cachedVerdict('sku:A-1'));
      const found = await cache().getPending(['sku:A-1', 'sku:missing', 'sku:A-1']);
      expect([...found.keys()]).toEqual(['sku:A-1']);
      expect(found.get('sku:A-1')).toEqual(pending('cls_BBBBBBBBBBBB', 3));
      expect((await cache().getPending([])).size).toBe(0);
    });
  });
