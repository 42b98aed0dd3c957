/** Batch workflow, Prepare: reads the dropped file and its options, stores the rows, queues the dispatchable ones. */
import { prepareBatch } from '../../shared/pipeline/batch/index.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await prepareBatch(
    await portsFor('prepare-batch'),
    event as Parameters<typeof prepareBatch>[1],
  );
  logger.info('batch prepared', { batch_id: result.batch_id, next: result.next });
  return result;
};
