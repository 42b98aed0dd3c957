/** Row workflow, Submit: uploads the sheet and creates the classification with the row attempt's key. */
import { submitRow } from '../../shared/pipeline/row/index.js';
import { LEASE_TTL_MS, ports, service, timeScale } from '../runtime.js';

export const handler = async (state: unknown) =>
  submitRow(
    // A 429 comes back at once: the row returns to the queue instead of holding a Lambda.
    {
      clock: ports.clock,
      service: await service('hand-back'),
      objects: ports.objects(),
      batches: ports.batches(),
    },
    { leaseTtlMs: LEASE_TTL_MS, timeScale: timeScale() },
    state,
  );
