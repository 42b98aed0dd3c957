/** The WriterRecords contract, in memory and on every DynamoDB engine, beside the review store on its table. */
import { createDynamoReviewStore } from '../../shared/aws/dynamo-review-store.js';
import { createDynamoWriterRecords } from '../../shared/aws/dynamo-writer-records.js';
import { createTableWithKeys, REVIEW_TABLE_KEYS } from '../helpers/dynalite.js';
import { memoryReviewStore, memoryWriterRecords } from '../helpers/memory-ports.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';
import { describeWriterRecordsContract } from './writer-records.contract.js';

describeWriterRecordsContract('in memory', {
  make: async () => ({ writers: memoryWriterRecords(), reviews: memoryReviewStore() }),
});

for (const engine of DYNAMO_ENGINES)
  describeWriterRecordsContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'reviews', async (client, tableName) => {
      // The review table as the stateful stack declares it: the by-batch index in row order.
      await createTableWithKeys(client, tableName, REVIEW_TABLE_KEYS);
      return {
        writers: createDynamoWriterRecords({ client, tableName }),
        reviews: createDynamoReviewStore({ client, tableName }),
      };
    }),
  );
