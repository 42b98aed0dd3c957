/**
 * Row workflow, Poll: reads the classification and decides what the row does next; renews the
 * lease while it runs, releases it (and kicks the dispatcher) once it has left in_progress.
 */
import { pollRow } from '../../shared/pipeline/row/poll.js';
import { clock, kick, leases } from '../port-builders.js';
import { LEASE_TTL_MS, portsFor } from '../runtime.js';
import { service } from '../service-port.js';

export const handler = async (state: unknown) =>
  pollRow(await portsFor('row-poll', { clock, leases, service, kick }), { leaseTtlMs: LEASE_TTL_MS }, state);
