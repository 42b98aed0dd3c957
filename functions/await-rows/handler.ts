/**
 * Batch workflow, WaitForRows (.waitForTaskToken): keeps the task token on the batch record
 * so the last row can wake the workflow. The token is a secret: it is never logged.
 */
import { awaitRows } from '../../shared/pipeline/finalize/await-rows.js';
import { batches, waiters } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await awaitRows(
    await portsFor('await-rows', { batches, waiters }),
    event as Parameters<typeof awaitRows>[1],
  );
  logger.info('batch waiting for its rows', { ...result });
  return result;
};
