/** Row workflow, Store: keeps a resolved verdict and its PDF. */
import { storeRow } from '../../shared/pipeline/row/store.js';
import { portsFor } from '../runtime.js';

export const handler = async (state: unknown) => storeRow(await portsFor('row-store'), state);
