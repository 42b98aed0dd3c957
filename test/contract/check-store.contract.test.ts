/** The CheckStore contract, in memory and on every DynamoDB engine, beside the review store on its table. */
import { createDynamoCheckStore } from '../../shared/aws/dynamo-check-store.js';
import { createDynamoReviewStore } from '../../shared/aws/dynamo-review-store.js';
import { createTableWithKeys, REVIEW_TABLE_KEYS } from '../helpers/dynalite.js';
import { memoryCheckStore, memoryReviewStore } from '../helpers/memory-ports.js';
import { describeCheckStoreContract } from './check-store.contract.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';

describeCheckStoreContract('in memory', {
  make: async () => ({ checks: memoryCheckStore(), reviews: memoryReviewStore() }),
});

for (const engine of DYNAMO_ENGINES)
  describeCheckStoreContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'reviews', async (client, tableName) => {
      // The review table as the stateful stack declares it: the by-batch index in row order.
      await createTableWithKeys(client, tableName, REVIEW_TABLE_KEYS);
      return {
        checks: createDynamoCheckStore({ client, tableName }),
        reviews: createDynamoReviewStore({ client, tableName }),
      };
    }),
  );
