/** Batch workflow, Finalize: writes results.csv, review.csv, summary.json and announces the batch. */
import { finalizeBatch } from '../../shared/pipeline/finalize/finalize-batch.js';
import { watchFinishedBatches } from '../metric-sources.js';
import { pipelineMetrics } from '../pipeline-metrics.js';
import { audit, batches, checks, clock, events, notifier, reviews, writers } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';
import { streamingObjects } from '../streaming-bucket-port.js';

export const handler = async (event: unknown) => {
  const ports = await portsFor('finalize-batch', {
    clock,
    objects: streamingObjects,
    batches,
    reviews,
    checks,
    audit,
    events,
    notifier,
    writers,
  });
  // The batch's totals, as the summary its Batch Completed event carries: once per batch, as the event.
  const finishing = watchFinishedBatches(ports.events);
  const result = await finalizeBatch({ ...ports, events: finishing.events }, event);
  if (result.next === 'again')
    logger.info('finalize leg handed on', {
      batch_id: result.batch_id,
      settled_through: result.settling?.settled_through,
      written_through: result.writing?.written_through,
    });
  else logger.info('batch finalized', { ...result });
  for (const batch of finishing.finished) pipelineMetrics.batchFinished(batch);
  return result;
};
