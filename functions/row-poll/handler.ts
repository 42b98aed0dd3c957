/** Row workflow, Poll: reads the classification, renews the lease, decides what the row does next. */
import { pollRow } from '../../shared/pipeline/row-steps.js';
import { LEASE_TTL_MS, ports, service, timeScale } from '../runtime.js';

export const handler = async (state: unknown) =>
  pollRow(
    { clock: ports.clock, service: await service(), batches: ports.batches(), leases: ports.leases() },
    { leaseTtlMs: LEASE_TTL_MS, timeScale: timeScale() },
    state,
  );
