/**
 * Partial results of a running batch (asked for by a finishing row, at most every
 * `partial_every_minutes`, or by a person): results.partial.csv and summary.partial.json in its
 * outbox. See shared/pipeline/batch/partial-results.ts.
 */
import { z } from 'zod';
import { writePartialResults } from '../../shared/pipeline/batch/index.js';
import { logger, portsFor } from '../runtime.js';

const PartialResultsEvent = z.object({ batch_id: z.string().min(1) });

export const handler = async (event: unknown) => {
  const { batch_id } = PartialResultsEvent.parse(event);
  const report = await writePartialResults(await portsFor('write-partial-results'), batch_id);
  logger.info('partial results', report);
  return report;
};
