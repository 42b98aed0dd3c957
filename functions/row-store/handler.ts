/** Row workflow, Store: keeps a resolved verdict and its PDF. */
import { storeRow } from '../../shared/pipeline/row/store.js';
import { batches, checks, clock, simWatches } from '../port-builders.js';
import { portsFor } from '../runtime.js';
import { service } from '../service-port.js';
import { wholeObjects } from '../whole-objects-port.js';

export const handler = async (state: unknown) =>
  storeRow(
    await portsFor('row-store', { clock, objects: wholeObjects, batches, checks, simWatches, service }),
    state,
  );
