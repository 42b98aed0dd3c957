/** Row workflow, Store: keeps a resolved verdict and its PDF. */
import { storeRow } from '../../shared/pipeline/row/index.js';
import { LEASE_TTL_MS, ports, service, timeScale } from '../runtime.js';

export const handler = async (state: unknown) =>
  storeRow(
    { clock: ports.clock, service: await service(), objects: ports.objects(), batches: ports.batches() },
    { leaseTtlMs: LEASE_TTL_MS, timeScale: timeScale() },
    state,
  );
