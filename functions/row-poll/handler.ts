/**
 * Row workflow, Poll: reads the classification and decides what the row does next; renews the
 * lease while it runs, releases it (and kicks the dispatcher) once it has left in_progress.
 */
import { pollRow } from '../../shared/pipeline/row/index.js';
import { LEASE_TTL_MS, ports, service, timeScale } from '../runtime.js';

export const handler = async (state: unknown) =>
  pollRow(
    {
      clock: ports.clock,
      service: await service(),
      batches: ports.batches(),
      leases: ports.leases(),
      kick: ports.kick(),
    },
    { leaseTtlMs: LEASE_TTL_MS, timeScale: timeScale() },
    state,
  );
