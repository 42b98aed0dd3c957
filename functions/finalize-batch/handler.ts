/** Batch workflow, Finalize: writes results.csv, review.csv, summary.json and announces the batch. */
import { finalizeBatch } from '../../shared/pipeline/batch/index.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await finalizeBatch(await portsFor('finalize-batch'), event);
  logger.info('batch finalized', { ...result });
  return result;
};
