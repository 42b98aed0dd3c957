/** The BatchStore contract, in memory and on every DynamoDB engine. */
import { createDynamoBatchStore } from '../../shared/aws/dynamo-batch-store.js';
import { createTableWithKeys } from '../helpers/dynalite.js';
import { memoryBatchStore } from '../helpers/memory-ports.js';
import { describeBatchStoreContract } from './batch-store.contract.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';

describeBatchStoreContract('in memory', { make: async () => memoryBatchStore() });

for (const engine of DYNAMO_ENGINES)
  describeBatchStoreContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'batches', async (client, tableName) => {
      await createTableWithKeys(client, tableName, {
        partitionKey: { name: 'pk', type: 'S' },
        sortKey: { name: 'sk', type: 'S' },
        indexes: [
          {
            name: 'by-start',
            partitionKey: { name: 'listed', type: 'S' },
            sortKey: { name: 'started_at', type: 'S' },
          },
        ],
      });
      return createDynamoBatchStore({ client, tableName });
    }),
  );
