/** Row workflow, Submit: uploads the sheet and creates the classification with the row attempt's key. */
import { submitRow } from '../../shared/pipeline/row/index.js';
import { LEASE_TTL_MS, portsFor, timeScale } from '../runtime.js';

export const handler = async (state: unknown) =>
  submitRow(
    // A 429 comes back at once (service: 'hand-back' in its description): the row returns to
    // the queue instead of holding a Lambda.
    await portsFor('row-submit'),
    { leaseTtlMs: LEASE_TTL_MS, timeScale: timeScale() },
    state,
  );
