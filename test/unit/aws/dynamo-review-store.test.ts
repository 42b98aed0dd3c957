/** The review table adapter against dynalite: the `by-batch` GSI, paging, conditional update. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoReviewStore } from '../../../shared/aws/dynamo-review-store.js';
import type { ReviewStore } from '../../../shared/pipeline/core/ports.js';
import { createTableWithKeys, type LocalDynamo, startLocalDynamo } from '../../helpers/dynalite.js';
import { classificationId, reviewItem } from '../../helpers/records.js';

let dynamo: LocalDynamo;
let tableCount = 0;
let reviews: ReviewStore;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  const tableName = `reviews-${++tableCount}`;
  await createTableWithKeys(dynamo.client, tableName, {
    partitionKey: { name: 'classification_id', type: 'S' },
    indexes: [
      {
        name: 'by-batch',
        partitionKey: { name: 'batch_id', type: 'S' },
        sortKey: { name: 'row', type: 'N' },
      },
    ],
  });
  reviews = createDynamoReviewStore({ client: dynamo.client, tableName });
});

describe('review store', () => {
  it('puts and gets an item by classification id; null when absent', async () => {
    await reviews.put(reviewItem(1));
    expect(await reviews.get(classificationId(1))).toEqual(reviewItem(1));
    expect(await reviews.get(classificationId(2))).toBeNull();
  });

  it('lists the items of one batch in row order, across Query pages', async () => {
    // ~6 KB per item: 200 items exceed the 1 MB a Query page holds.
    const long = 'Parafuso sextavado de aço inoxidável. '.repeat(160);
    const rows = Array.from({ length: 200 }, (_, i) => 200 - i);
    for (const row of rows) await reviews.put(reviewItem(row, { description: long }));
    await reviews.put(reviewItem(999, { batch_id: 'other-batch', row: 1 }));

    let queries = 0;
    dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') queries += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countQueries' },
    );
    const listed = await reviews
      .listByBatch('nightly-abc')
      .finally(() => dynamo.client.middlewareStack.remove('countQueries'));
    expect(queries).toBeGreaterThan(1);
    expect(listed.map((item) => item.row)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(listed[0]).toEqual(reviewItem(1, { description: long }));
    expect(await reviews.listByBatch('other-batch')).toEqual([
      reviewItem(999, { batch_id: 'other-batch', row: 1 }),
    ]);
    expect(await reviews.listByBatch('no-batch')).toEqual([]);
  });

  it('lists the pending items of every batch, across Scan pages, leaving answered and closed ones out', async () => {
    const long = 'Parafuso sextavado de aço inoxidável. '.repeat(160);
    for (let n = 1; n <= 200; n++) {
      const state = n % 10 === 0 ? 'closed' : n % 10 === 5 ? 'answered' : 'pending';
      await reviews.put(
        reviewItem(n, { description: long, state, batch_id: n % 2 ? 'nightly-abc' : 'nightly-def' }),
      );
    }

    let scans = 0;
    dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ScanCommand') scans += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countScans' },
    );
    const pending = await reviews
      .listPending()
      .finally(() => dynamo.client.middlewareStack.remove('countScans'));

    expect(scans).toBeGreaterThan(1);
    expect(pending).toHaveLength(160);
    expect(pending.every((item) => item.state === 'pending')).toBe(true);
    expect(new Set(pending.map((item) => item.batch_id))).toEqual(new Set(['nightly-abc', 'nightly-def']));
  });

  it('updates the given fields only, and fails for an item that does not exist', async () => {
    await reviews.put(reviewItem(1));
    await reviews.update(classificationId(1), {
      state: 'answered',
      answered_at: '2026-11-22T09:00:00.000Z',
      answers: [{ question_id: 'q1', answer: 'aço' }],
      answered_by: undefined,
    });
    expect(await reviews.get(classificationId(1))).toEqual(
      reviewItem(1, {
        state: 'answered',
        answered_at: '2026-11-22T09:00:00.000Z',
        answers: [{ question_id: 'q1', answer: 'aço' }],
      }),
    );

    await expect(reviews.update(classificationId(2), { state: 'closed' })).rejects.toThrow(
      `no review item ${classificationId(2)}`,
    );
    expect(await reviews.get(classificationId(2))).toBeNull();
  });
});
