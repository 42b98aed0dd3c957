/**
 * The SimWatchStore contract: what Store and the daily SIM sweep rely on from the watches of
 * verdicts whose SIM openings were still being verified, whichever implementation keeps them.
 */
import { describe, expect, it } from 'vitest';
import type { SimWatchStore } from '../../shared/pipeline/core/ports.js';
import type { SimWatch } from '../../shared/pipeline/core/sim-watch.js';
import { AT, BATCH, classificationId, LATER } from '../helpers/records.js';
import { forEachNumber, type Implementation, useImplementation } from './implementation.js';

export const simWatch = (row: number, overrides: Partial<SimWatch> = {}): SimWatch => ({
  batch_id: BATCH,
  row,
  classification_id: classificationId(row),
  ncm: '84713012',
  operation: 'import',
  product_key: `sku:SKU-${row}`,
  fingerprint: 'f'.repeat(64),
  state: 'open',
  created_at: AT,
  ...overrides,
});

export const describeSimWatchStoreContract = (name: string, implementation: Implementation<SimWatchStore>) =>
  describe(`SimWatchStore contract: ${name}`, () => {
    const watches = useImplementation(implementation);

    it('puts a watch once: a second put of the same row keeps the first', async () => {
      // Act
      const first = await watches().put(simWatch(1));
      const second = await watches().put(simWatch(1, { ncm: '09012100', created_at: LATER }));

      // Assess
      expect([first, second]).toEqual([true, false]);
      expect(await watches().listOpen()).toEqual([simWatch(1)]);
    });

    it('lists the open watches of every batch in batch and row order, however many pages', async () => {
      // Prepare: ~3 KB of product key each, so 600 of them exceed one 1 MB Scan page; put
      // concurrently, so in no particular order.
      const long = `sku:${'X'.repeat(3000)}`;
      await forEachNumber(1, 300, async (row) => {
        await watches().put(simWatch(row, { product_key: long }));
        await watches().put(simWatch(row, { batch_id: 'nightly-aaa', product_key: long }));
      });

      // Act
      const open = await watches().listOpen();

      // Assess
      expect(open).toHaveLength(600);
      expect(open.slice(0, 2).map((w) => [w.batch_id, w.row])).toEqual([
        ['nightly-aaa', 1],
        ['nightly-aaa', 2],
      ]);
      expect(open[300]).toEqual(simWatch(1, { product_key: long }));
      expect(open.at(-1)?.row).toBe(300);
    });

    it('settles a watch once: it leaves the open list, and settling again keeps the first outcome', async () => {
      // Prepare
      await watches().put(simWatch(1));
      await watches().put(simWatch(2));

      // Act
      await watches().settle(BATCH, 1, { at: LATER, outcome: 'available' });
      await watches().settle(BATCH, 1, { at: '2026-11-22T12:00:00.000Z', outcome: 'none' });
      await watches().settle(BATCH, 9, { at: LATER, outcome: 'none' });

      // Assess: the settled one is gone, the missing one was not made, and it cannot be put again
      expect(await watches().listOpen()).toEqual([simWatch(2)]);
      expect(await watches().put(simWatch(1))).toBe(false);
      expect(await watches().put(simWatch(9))).toBe(true);
    });

    it('refuses a watch that is not one, and stores nothing', async () => {
      // Act and Assess
      await expect(watches().put({ ...simWatch(1), ncm: '8471.30.12' })).rejects.toThrow();
      expect(await watches().listOpen()).toEqual([]);
    });
  });
