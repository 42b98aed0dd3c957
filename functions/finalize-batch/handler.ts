/** Batch workflow, Finalize: writes results.csv, review.csv, summary.json and announces the batch. */
import { finalizeBatch } from '../../shared/pipeline/batch/index.js';
import { logger, ports } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await finalizeBatch(
    {
      clock: ports.clock,
      objects: ports.objects(),
      batches: ports.batches(),
      reviews: ports.reviews(),
      events: ports.events(),
    },
    event,
  );
  logger.info('batch finalized', { ...result });
  return result;
};
