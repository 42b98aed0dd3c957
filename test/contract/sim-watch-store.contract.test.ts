/** The SimWatchStore contract, in memory and on every DynamoDB engine; watches share the review table. */
import { describe, expect, it } from 'vitest';
import { createDynamoReviewStore } from '../../shared/aws/dynamo-review-store.js';
import { createDynamoSimWatchStore } from '../../shared/aws/dynamo-sim-watch-store.js';
import { createTableWithKeys, startLocalDynamo } from '../helpers/dynalite.js';
import { memorySimWatchStore } from '../helpers/memory-ports.js';
import { BATCH, reviewItem } from '../helpers/records.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';
import { describeSimWatchStoreContract, simWatch } from './sim-watch-store.contract.js';

/** The review table as the stateful stack declares it: the by-batch index in row order. */
const REVIEW_TABLE: Parameters<typeof createTableWithKeys>[2] = {
  partitionKey: { name: 'classification_id', type: 'S' },
  indexes: [
    { name: 'by-batch', partitionKey: { name: 'batch_id', type: 'S' }, sortKey: { name: 'row', type: 'N' } },
  ],
};

describeSimWatchStoreContract('in memory', { make: async () => memorySimWatchStore() });

for (const engine of DYNAMO_ENGINES)
  describeSimWatchStoreContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'sim-watches', async (client, tableName) => {
      await createTableWithKeys(client, tableName, REVIEW_TABLE);
      return createDynamoSimWatchStore({ client, tableName });
    }),
  );

describe('SIM watches beside the questions in the review table', () => {
  it('are never listed as questions, by batch or as pending', async () => {
    // Prepare
    const dynamo = await startLocalDynamo();
    try {
      await createTableWithKeys(dynamo.client, 'reviews-shared', REVIEW_TABLE);
      const reviews = createDynamoReviewStore({ client: dynamo.client, tableName: 'reviews-shared' });
      const watches = createDynamoSimWatchStore({ client: dynamo.client, tableName: 'reviews-shared' });
      await reviews.put(reviewItem(1));
      await watches.put(simWatch(1));
      await watches.put(simWatch(2));

      // Act
      const byBatch = await reviews.listByBatch(BATCH);
      const pending = await reviews.listPending();

      // Assess
      expect(byBatch).toEqual([reviewItem(1)]);
      expect(pending).toEqual([reviewItem(1)]);
      expect((await watches.listOpen()).map((watch) => watch.row)).toEqual([1, 2]);
    } finally {
      await dynamo.close();
    }
  });
});
