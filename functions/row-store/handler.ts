/** Row workflow, Store: keeps a resolved verdict and its PDF. */
import { storeRow } from '../../shared/pipeline/row/index.js';
import { LEASE_TTL_MS, portsFor, timeScale } from '../runtime.js';

export const handler = async (state: unknown) =>
  storeRow(await portsFor('row-store'), { leaseTtlMs: LEASE_TTL_MS, timeScale: timeScale() }, state);
