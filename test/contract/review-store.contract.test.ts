/** The ReviewStore contract, in memory and on every DynamoDB engine. */
import { createDynamoReviewStore } from '../../shared/aws/dynamo-review-store.js';
import { createTableWithKeys, REVIEW_TABLE_KEYS } from '../helpers/dynalite.js';
import { memoryReviewStore } from '../helpers/memory-ports.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';
import { describeReviewStoreContract } from './review-store.contract.js';

describeReviewStoreContract('in memory', { make: async () => memoryReviewStore() });

for (const engine of DYNAMO_ENGINES)
  describeReviewStoreContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'reviews', async (client, tableName) => {
      // The review table as the stateful stack declares it: the by-batch index in row order.
      await createTableWithKeys(client, tableName, REVIEW_TABLE_KEYS);
      return createDynamoReviewStore({ client, tableName });
    }),
  );
