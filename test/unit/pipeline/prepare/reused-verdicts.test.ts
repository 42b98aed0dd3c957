/**
 * The verdicts a chunk's reused products take (prepare/row-plans.ts, `reusedVerdicts`): read from
 * the product cache once per Prepare invocation, so the count of the batch and the store pass after
 * it do not read a nightly export's verdicts twice.
 */
import { describe, expect, it } from 'vitest';
import type { CachedVerdict } from '../../../../shared/pipeline/core/records.js';
import type { RowPlan } from '../../../../shared/pipeline/prepare/row-plans.js';
import { reusedVerdicts } from '../../../../shared/pipeline/prepare/row-plans.js';
import { memoryProductCache } from '../../../helpers/memory-ports.js';
import { cachedVerdict } from '../../../helpers/records.js';

/** A valid plan of the product whose fingerprint is `fingerprint`: all `reusedVerdicts` reads of it. */
const plan = (fingerprint: string) => ({ kind: 'valid', identity: { fingerprint } }) as unknown as RowPlan;

describe('reusedVerdicts', () => {
  it('reads each verdict once for all the chunks of one invocation, and keeps a few thousand at most', async () => {
    // Prepare: three products reuse verdicts kept under their SKUs.
    const cache = memoryProductCache();
    for (const sku of ['A', 'B', 'C']) await cache.put(cachedVerdict(`sku:${sku}`));
    const asked: string[][] = [];
    const ports = {
      cache: {
        ...cache,
        getMany: (keys: readonly string[]) => {
          asked.push([...keys]);
          return cache.getMany(keys);
        },
      },
    };
    const keyByFingerprint = new Map([
      ['fa', 'sku:A'],
      ['fb', 'sku:B'],
      ['fc', 'sku:C'],
    ]);
    const read = new Map<string, CachedVerdict>();

    // Act: the count of the batch, then the store pass, over the same two chunks.
    const first = await reusedVerdicts(ports, [plan('fa'), plan('fb')], keyByFingerprint, read);
    await reusedVerdicts(ports, [plan('fb'), plan('fc')], keyByFingerprint, read);
    const again = await reusedVerdicts(ports, [plan('fa'), plan('fb')], keyByFingerprint, read);
    await reusedVerdicts(ports, [plan('fb'), plan('fc')], keyByFingerprint, read);

    // Assess
    expect(asked).toEqual([['sku:A', 'sku:B'], ['sku:C']]);
    expect([...again.keys()]).toEqual(['fa', 'fb']);
    expect(again.get('fa')).toEqual(first.get('fa'));
    expect(again.get('fa')?.product_key).toBe('sku:A');
  });

  it('still reads, and gives, every verdict without a place to keep them', async () => {
    const cache = memoryProductCache();
    await cache.put(cachedVerdict('sku:A'));
    let reads = 0;
    const ports = {
      cache: {
        ...cache,
        getMany: (keys: readonly string[]) => {
          reads += 1;
          return cache.getMany(keys);
        },
      },
    };
    const keyByFingerprint = new Map([['fa', 'sku:A']]);

    const verdicts = [
      await reusedVerdicts(ports, [plan('fa')], keyByFingerprint),
      await reusedVerdicts(ports, [plan('fa')], keyByFingerprint),
    ];

    expect(reads).toBe(2);
    expect(verdicts.map((found) => found.get('fa')?.product_key)).toEqual(['sku:A', 'sku:A']);
  });
});
