/** The ProductCache contract, in memory and on every DynamoDB engine. */
import { createDynamoProductCache } from '../../shared/aws/dynamo-product-cache.js';
import { createTableWithKeys } from '../helpers/dynalite.js';
import { memoryProductCache } from '../helpers/memory-ports.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';
import { describeProductCacheContract } from './product-cache.contract.js';

describeProductCacheContract('in memory', { make: async () => memoryProductCache() });

for (const engine of DYNAMO_ENGINES)
  describeProductCacheContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'cache', async (client, tableName) => {
      await createTableWithKeys(client, tableName, { partitionKey: { name: 'product_key', type: 'S' } });
      return createDynamoProductCache({ client, tableName });
    }),
  );
