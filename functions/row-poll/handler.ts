/**
 * Row workflow, Poll: reads the classification and decides what the row does next; renews the
 * lease while it runs, releases it (and kicks the dispatcher) once it has left in_progress.
 */
import { pollRow } from '../../shared/pipeline/row/poll.js';
import { LEASE_TTL_MS, portsFor } from '../runtime.js';

export const handler = async (state: unknown) =>
  pollRow(await portsFor('row-poll'), { leaseTtlMs: LEASE_TTL_MS }, state);
