/**
 * Partial results of a running batch, asked for by a finishing row (at most every
 * `partial_every_minutes`), by a person invoking the function with `{ "batch_id": … }`, or by a
 * request object dropped under `requests/<batch id>/`: results.partial.csv and
 * summary.partial.json in its outbox, in legs that hand on by a request object of their own.
 * See shared/pipeline/finalize/partial-results.ts.
 */
import {
  partialProgressOf,
  partialResultsRequestOf,
  writePartialResults,
} from '../../shared/pipeline/finalize/partial-results.js';
import { batches, clock } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';
import { streamingObjects } from '../streaming-bucket-port.js';

export const handler = async (event: unknown) => {
  const batchId = partialResultsRequestOf(event);
  if (batchId === null) {
    logger.warn('partial results: the event names no batch');
    return { batch_id: null, written: false, why: 'the event names no batch' };
  }
  const ports = await portsFor('write-partial-results', { clock, objects: streamingObjects, batches });
  // A request object a leg dropped for the next carries where it stopped.
  const report = await writePartialResults(ports, batchId, await partialProgressOf(ports.objects, event));
  logger.info('partial results', report);
  return report;
};
