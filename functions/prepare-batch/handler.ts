/** Batch workflow, Prepare: reads the dropped file and its options, stores the rows, queues the dispatchable ones. */
import { prepareBatch } from '../../shared/pipeline/batch/index.js';
import { logger, ports, service } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await prepareBatch(
    {
      clock: ports.clock,
      service: await service(),
      objects: ports.objects(),
      queue: ports.queue(),
      batches: ports.batches(),
      cache: ports.cache(),
      kick: ports.kick(),
    },
    event as Parameters<typeof prepareBatch>[1],
  );
  logger.info('batch prepared', { batch_id: result.batch_id, next: result.next });
  return result;
};
