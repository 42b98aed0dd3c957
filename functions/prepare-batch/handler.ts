/** Batch workflow, Prepare: reads the dropped file and its options, stores the rows, queues the dispatchable ones. */

import { prepareBatch } from '../../shared/pipeline/prepare/prepare-batch.js';
import { PREPARE_SETTINGS } from '../../shared/pipeline/prepare/prepare-passes.js';
import {
  batches,
  cache,
  checks,
  clock,
  kick,
  queue,
  reviews,
  simWatches,
  writers,
} from '../port-builders.js';
import { capOverride, logger, maxWaitSeconds, portsFor } from '../runtime.js';
import { service } from '../service-port.js';
import { streamingObjects } from '../streaming-bucket-port.js';

export const handler = async (event: unknown) => {
  const result = await prepareBatch(
    await portsFor('prepare-batch', {
      clock,
      objects: streamingObjects,
      batches,
      reviews,
      checks,
      simWatches,
      cache,
      queue,
      kick,
      service,
      writers,
    }),
    event as Parameters<typeof prepareBatch>[1],
    PREPARE_SETTINGS,
    { capOverride: capOverride(), maxWaitSeconds: maxWaitSeconds() },
  );
  logger.info('batch prepared', {
    batch_id: result.batch_id,
    next: result.next,
    wait_seconds: result.wait_seconds,
  });
  return result;
};
