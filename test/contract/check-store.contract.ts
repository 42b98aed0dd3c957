/**
 * The CheckStore contract: what Store, Prepare, the review files, the answers rounds and the
 * console rely on from the verdicts a person checks, whichever implementation serves them. On
 * AWS they share the review table with the questions: each store sees only its own items.
 */
import { describe, expect, it } from 'vitest';
import type { CheckDecision, CheckItem } from '../../shared/pipeline/core/check-records.js';
import type { CheckStore, ReviewStore } from '../../shared/pipeline/core/ports.js';
import { checkItem } from '../helpers/check-items.js';
import { BATCH, classificationId, reviewItem } from '../helpers/records.js';
import { type Implementation, useImplementation } from './implementation.js';

/** The two stores of the review table, on the same table. */
export type ReviewTableStores = { checks: CheckStore; reviews: ReviewStore };

/** ~6 KB of rationale: 200 such items exceed the 1 MB of one DynamoDB Query or Scan page. */
const LONG = 'A posição 84.71 abrange as máquinas automáticas para processamento de dados. '.repeat(80);

/** A verdict under the threshold whose SIM opening waits for a choice, with two rows following it. */
const item = (row: number, overrides: Partial<CheckItem> = {}): CheckItem =>
  checkItem(row, {
    reasons: ['low_confidence', 'sim_pending_choice'],
    check_below: 80,
    candidates: [
      {
        rank: 1,
        ncm: '84713012',
        description: 'Portáteis com peso inferior a 3,5 kg',
        confidence: 72,
        rationale: 'Tela de 14 polegadas; bateria própria.',
        chosen: true,
      },
      { rank: 2, ncm: '84713019', description: 'Outros', confidence: 21, rationale: '', chosen: false },
    ],
    sim_options: [
      { code: '8471301201', description: 'Com tela sensível ao toque' },
      { code: '8471301202', description: 'Outros' },
    ],
    verdict_pdf: `pdfs/0000${row}-SKU-${row}.pdf`,
    followers: 2,
    ...overrides,
  });

const DECISION: CheckDecision = {
  ncm: '84713019',
  sim: '8471301202',
  note: 'Tela sem toque, conforme a ficha técnica',
  by: 'ana.souza',
  at: '2026-11-22T09:30:00.000Z',
  round_id: `${BATCH}~a1b2c3`,
};

export const describeCheckStoreContract = (name: string, implementation: Implementation<ReviewTableStores>) =>
  describe(`CheckStore contract: ${name}`, () => {
    const stores = useImplementation(implementation);
    const checks = () => stores().checks;

    it('creates an item and gets it by batch and row; null when absent', async () => {
      // Act
      const created = await checks().create(item(3));

      // Assess
      expect(created).toBe(true);
      expect(await checks().get(BATCH, 3)).toEqual(item(3));
      expect(await checks().get(BATCH, 4)).toBeNull();
      expect(await checks().get('other-batch', 3)).toBeNull();
    });

    it('writes an item once: a second create is refused and the first item stays as it was', async () => {
      // Prepare
      await checks().create(item(3));

      // Act: a retried Store, with a later clock and another threshold
      const again = await checks().create(
        item(3, { created_at: '2026-11-23T00:00:00.000Z', check_below: 95 }),
      );

      // Assess
      expect(again).toBe(false);
      expect(await checks().get(BATCH, 3)).toEqual(item(3));
    });

    it('refuses an item that is not a check item, and stores nothing', async () => {
      // Prepare: a check item always says why it waits
      const broken = { ...item(3), reasons: [] };

      // Act and Assess
      await expect(checks().create(broken)).rejects.toThrow();
      expect(await checks().get(BATCH, 3)).toBeNull();
      expect(await checks().listByBatch(BATCH)).toEqual([]);
    });

    it("lists one batch's items in row order, however many pages they take", async () => {
      // Prepare
      for (let row = 200; row >= 1; row--) {
        await checks().create(item(row, { candidates: [{ ...item(row).candidates[0]!, rationale: LONG }] }));
      }
      await checks().create(item(7, { batch_id: 'other-batch' }));

      // Act
      const listed = await checks().listByBatch(BATCH);

      // Assess
      expect(listed.map((listedItem) => listedItem.row)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
      expect(listed[0]?.candidates[0]?.rationale).toBe(LONG);
      expect(await checks().listByBatch('other-batch')).toEqual([item(7, { batch_id: 'other-batch' })]);
      expect(await checks().listByBatch('no-batch')).toEqual([]);
    });

    it('lists the items still to check across batches, however many pages, by batch and row', async () => {
      // Prepare: every fifth decided
      for (let n = 1; n <= 200; n++) {
        const batchId = n % 2 ? BATCH : 'nightly-def';
        await checks().create(item(n, { batch_id: batchId, description: LONG }));
        if (n % 5 === 0) await checks().decide(batchId, n, DECISION);
      }

      // Act
      const open = await checks().listOpen();

      // Assess: BATCH (`nightly-abc`) before `nightly-def`, each in row order
      expect(BATCH < 'nightly-def').toBe(true);
      expect(open).toHaveLength(160);
      expect(open.every((openItem) => openItem.state === 'to_check')).toBe(true);
      expect(open.map((openItem) => `${openItem.batch_id}#${openItem.row}`)).toEqual([
        ...Array.from({ length: 200 }, (_, i) => i + 1)
          .filter((n) => n % 5 !== 0 && n % 2 === 1)
          .map((n) => `${BATCH}#${n}`),
        ...Array.from({ length: 200 }, (_, i) => i + 1)
          .filter((n) => n % 5 !== 0 && n % 2 === 0)
          .map((n) => `nightly-def#${n}`),
      ]);
    });

    it('records a decision once, while the item waits; a second one, or one for no item, is refused', async () => {
      // Prepare
      await checks().create(item(3));

      // Act
      const first = await checks().decide(BATCH, 3, DECISION);
      const second = await checks().decide(BATCH, 3, { ...DECISION, ncm: '84713012', by: 'bruno' });
      const none = await checks().decide(BATCH, 4, DECISION);

      // Assess
      expect([first, second, none]).toEqual([true, false, false]);
      expect(await checks().get(BATCH, 3)).toEqual({ ...item(3), state: 'decided', decision: DECISION });
      expect(await checks().get(BATCH, 4)).toBeNull();
      expect(await checks().listOpen()).toEqual([]);
    });

    it('offers SIM openings confirmed later while the item waits; not once decided, nor to no item', async () => {
      // Prepare: row 3 waits for a low confidence alone; row 4 was decided
      await checks().create(item(3, { reasons: ['low_confidence'], sim_options: [] }));
      await checks().create(item(4, { reasons: ['low_confidence'], sim_options: [] }));
      await checks().decide(BATCH, 4, DECISION);
      const offer = {
        reasons: ['low_confidence', 'sim_pending_choice'] as CheckItem['reasons'],
        sim_options: item(1).sim_options,
      };

      // Act
      const moved = [3, 4, 5].map((row) => checks().offerSimOptions(BATCH, row, offer));

      // Assess
      expect(await Promise.all(moved)).toEqual([true, false, false]);
      expect(await checks().get(BATCH, 3)).toEqual(item(3));
      expect(await checks().get(BATCH, 4)).toMatchObject({ reasons: ['low_confidence'], sim_options: [] });
      expect(await checks().get(BATCH, 5)).toBeNull();
    });

    it('keeps a decision without a SIM opening as null', async () => {
      // Prepare
      await checks().create(item(3));

      // Act
      await checks().decide(BATCH, 3, { ...DECISION, sim: null, note: '' });

      // Assess
      expect((await checks().get(BATCH, 3))?.decision).toEqual({ ...DECISION, sim: null, note: '' });
    });

    it('shares the review table with the questions: neither store lists the other’s items', async () => {
      // Prepare: rows 1 and 2 ask questions, rows 2 and 3 wait for a check (row 2 after answers)
      await stores().reviews.put(reviewItem(1));
      await stores().reviews.put(reviewItem(2, { state: 'answered' }));
      await checks().create(item(2));
      await checks().create(item(3));

      // Act
      const questions = await stores().reviews.listByBatch(BATCH);
      const pending = await stores().reviews.listPending();
      const toCheck = await checks().listByBatch(BATCH);
      const open = await checks().listOpen();

      // Assess
      expect(questions).toEqual([reviewItem(1), reviewItem(2, { state: 'answered' })]);
      expect(pending).toEqual([reviewItem(1)]);
      expect(toCheck).toEqual([item(2), item(3)]);
      expect(open).toEqual([item(2), item(3)]);
      expect(await stores().reviews.get(classificationId(3))).toBeNull();
    });
  });
