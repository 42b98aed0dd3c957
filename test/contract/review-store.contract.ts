/**
 * The ReviewStore contract: what the Review step, Finalize, the answers round and the daily
 * sweep rely on from the review table, whichever implementation serves it.
 */
import { describe, expect, it } from 'vitest';
import type { ReviewStore } from '../../shared/pipeline/core/ports.js';
import type { ReviewItem } from '../../shared/pipeline/core/records.js';
import { BATCH, classificationId, reviewItem } from '../helpers/records.js';
import { type Implementation, useImplementation } from './implementation.js';

/** ~6 KB of description: 200 such items exceed the 1 MB of one DynamoDB Query or Scan page. */
const LONG = 'Parafuso sextavado de aço inoxidável. '.repeat(160);

const byId = (items: readonly ReviewItem[]) =>
  [...items].sort((a, b) => a.classification_id.localeCompare(b.classification_id));

export const describeReviewStoreContract = (name: string, implementation: Implementation<ReviewStore>) =>
  describe(`ReviewStore contract: ${name}`, () => {
    const reviews = useImplementation(implementation);

    it('puts an item and gets it by classification id; null when absent', async () => {
      // Act
      await reviews().put(reviewItem(1));

      // Assess
      expect(await reviews().get(classificationId(1))).toEqual(reviewItem(1));
      expect(await reviews().get(classificationId(2))).toBeNull();
    });

    it('replaces the item with the same classification id on a second put', async () => {
      // Prepare
      await reviews().put(reviewItem(1));

      // Act
      await reviews().put(reviewItem(1, { state: 'closed', description: 'Porca' }));

      // Assess
      expect(await reviews().get(classificationId(1))).toEqual(
        reviewItem(1, { state: 'closed', description: 'Porca' }),
      );
      expect(await reviews().listByBatch(BATCH)).toHaveLength(1);
    });

    it('refuses an item that is not a review item, and stores nothing', async () => {
      // Prepare
      const broken = { ...reviewItem(1), classification_id: 'not-a-classification-id' };

      // Act and Assess
      await expect(reviews().put(broken)).rejects.toThrow();
      expect(await reviews().get('not-a-classification-id')).toBeNull();
      expect(await reviews().listByBatch(BATCH)).toEqual([]);
    });

    it('lists the items of one batch in row order, however many pages they take', async () => {
      // Prepare
      for (let row = 200; row >= 1; row--) await reviews().put(reviewItem(row, { description: LONG }));
      await reviews().put(reviewItem(999, { batch_id: 'other-batch', row: 1 }));

      // Act
      const listed = await reviews().listByBatch(BATCH);

      // Assess
      expect(listed.map((item) => item.row)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(listed[0]).toEqual(reviewItem(1, { description: LONG }));
      expect(await reviews().listByBatch('other-batch')).toEqual([
        reviewItem(999, { batch_id: 'other-batch', row: 1 }),
      ]);
      expect(await reviews().listByBatch('no-batch')).toEqual([]);
    });

    it('lists the pending items of every batch, however many pages, leaving answered and closed out', async () => {
      // Prepare
      const stored: ReviewItem[] = [];
      for (let n = 1; n <= 200; n++) {
        const state = n % 10 === 0 ? 'closed' : n % 10 === 5 ? 'answered' : 'pending';
        const item = reviewItem(n, { description: LONG, state, batch_id: n % 2 ? BATCH : 'nightly-def' });
        stored.push(item);
        await reviews().put(item);
      }

      // Act
      const pending = await reviews().listPending();

      // Assess: in no promised order.
      expect(byId(pending)).toEqual(byId(stored.filter((item) => item.state === 'pending')));
      expect(pending).toHaveLength(160);
    });

    it('lists nothing pending in an empty table', async () => {
      expect(await reviews().listPending()).toEqual([]);
    });

    it('updates the given fields only; an undefined member leaves the stored value as it is', async () => {
      // Prepare
      await reviews().put(reviewItem(1, { answered_by: 'ana' }));

      // Act
      await reviews().update(classificationId(1), {
        state: 'answered',
        answered_at: '2026-11-22T09:00:00.000Z',
        answers: [{ question_id: 'q1', answer: 'aço' }],
        answered_by: undefined,
      });

      // Assess
      expect(await reviews().get(classificationId(1))).toEqual(
        reviewItem(1, {
          state: 'answered',
          answered_at: '2026-11-22T09:00:00.000Z',
          answers: [{ question_id: 'q1', answer: 'aço' }],
          answered_by: 'ana',
        }),
      );
    });

    it('never moves an item to another id, even when a patch carries classification_id', async () => {
      // Prepare
      await reviews().put(reviewItem(1));
      const sneaky = { state: 'closed', classification_id: classificationId(2) } as Parameters<
        ReviewStore['update']
      >[1];

      // Act
      await reviews().update(classificationId(1), sneaky);

      // Assess
      expect(await reviews().get(classificationId(1))).toEqual(reviewItem(1, { state: 'closed' }));
      expect(await reviews().get(classificationId(2))).toBeNull();
    });

    it('fails to update an item that does not exist, and creates none', async () => {
      // Prepare
      const missing = classificationId(2);

      // Act and Assess
      await expect(reviews().update(missing, { state: 'closed' })).rejects.toThrow(
        `no review item ${missing}`,
      );
      await expect(reviews().update(missing, {})).rejects.toThrow(`no review item ${missing}`);
      expect(await reviews().get(missing)).toBeNull();
    });

    it('joins rows of a later batch to a pending item: listed under that batch as it sees it, once', async () => {
      // Prepare
      await reviews().put(reviewItem(1));
      const later = [
        { batch_id: 'later-batch', row: 4 },
        { batch_id: 'later-batch', row: 9 },
      ];

      // Act: joined twice (a retried Prepare), the second time with one row again.
      expect(await reviews().join(classificationId(1), later, '2026-11-22T00:00:00.000Z')).toBe(true);
      expect(await reviews().join(classificationId(1), [later[0]!], '2026-11-22T00:00:00.000Z')).toBe(true);

      // Assess: the item names the rows waiting on it; the later batch lists it on its own rows.
      expect((await reviews().get(classificationId(1)))?.joined).toEqual(['later-batch#4', 'later-batch#9']);
      const listed = await reviews().listByBatch('later-batch');
      expect(listed.map((item) => [item.classification_id, item.batch_id, item.row, item.owner])).toEqual([
        [classificationId(1), 'later-batch', 4, { batch_id: BATCH, row: 1 }],
        [classificationId(1), 'later-batch', 9, { batch_id: BATCH, row: 1 }],
      ]);
      // The asking batch still lists it as its own; the daily sweep sees it once.
      expect((await reviews().listByBatch(BATCH)).map((item) => [item.row, item.owner])).toEqual([
        [1, undefined],
      ]);
      expect((await reviews().listPending()).map((item) => item.classification_id)).toEqual([
        classificationId(1),
      ]);
      // Its state is the item's: answered once, answered wherever it is listed.
      await reviews().update(classificationId(1), { state: 'answered' });
      expect((await reviews().listByBatch('later-batch')).map((item) => item.state)).toEqual([
        'answered',
        'answered',
      ]);
    });

    it('refuses to join an item no longer pending, past abandons_at, or absent', async () => {
      // Prepare
      await reviews().put(reviewItem(1, { state: 'answered' }));
      await reviews().put(reviewItem(2));
      const row = [{ batch_id: 'later-batch', row: 1 }];

      // Act and Assess
      expect(await reviews().join(classificationId(1), row, '2026-11-22T00:00:00.000Z')).toBe(false);
      expect(await reviews().join(classificationId(2), row, '2026-12-22T00:00:00.000Z')).toBe(false);
      expect(await reviews().join(classificationId(3), row, '2026-11-22T00:00:00.000Z')).toBe(false);
      expect(await reviews().listByBatch('later-batch')).toEqual([]);
      expect((await reviews().get(classificationId(2)))?.joined).toBeUndefined();
    });
  });
