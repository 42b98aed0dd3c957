/** The BatchStore contract, in memory and on every DynamoDB engine. */
import { createDynamoBatchStore } from '../../shared/aws/dynamo-batch-store.js';
import { BATCH_TABLE_KEYS, createTableWithKeys } from '../helpers/dynalite.js';
import { memoryBatchStore } from '../helpers/memory-ports.js';
import { describeBatchStoreContract } from './batch-store.contract.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';

describeBatchStoreContract('in memory', { make: async () => memoryBatchStore() });

for (const engine of DYNAMO_ENGINES)
  describeBatchStoreContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'batches', async (client, tableName) => {
      await createTableWithKeys(client, tableName, BATCH_TABLE_KEYS);

      return createDynamoBatchStore({ client, tableName });
    }),
  );
