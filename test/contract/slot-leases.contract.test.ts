/** The SlotLeases contract, in memory and on every DynamoDB engine. */
import { createDynamoSlotLeases } from '../../shared/aws/dynamo-slot-leases.js';
import type { SlotLeases } from '../../shared/pipeline/core/slot-leases.js';
import { createTable } from '../helpers/dynalite.js';
import { memorySlotLeases } from '../helpers/memory-ports.js';
import { DYNAMO_ENGINES, onDynamoEngine } from './dynamo-engines.js';
import { describeSlotLeasesContract } from './slot-leases.contract.js';

describeSlotLeasesContract('in memory', {
  // One in-memory lease set per scope, shared by every caller of that scope.
  make: async () => {
    const byScope = new Map<string, SlotLeases>();
    return (scope) => {
      const leases = byScope.get(scope) ?? memorySlotLeases();
      byScope.set(scope, leases);
      return leases;
    };
  },
});

for (const engine of DYNAMO_ENGINES)
  describeSlotLeasesContract(
    `DynamoDB adapter on ${engine.name}`,
    onDynamoEngine(engine, 'leases', async (client, tableName) => {
      await createTable(client, tableName);
      // A new adapter per call: each is a process of its own (its own cold start) on the table.
      return (scope) => createDynamoSlotLeases({ client, tableName, scope });
    }),
  );
