/**
 * Answers workflow, FinalizeAnswers: moves the batch's results forward after an answers round
 * (results.csv and summary.json rewritten, the earlier ones kept as results.rev<N>.csv and
 * summary.rev<N>.json, review.csv of what is still pending) and announces it.
 */
import { finalizeAnswers } from '../../shared/pipeline/finalize-answers.js';
import { logger, ports, service } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await finalizeAnswers(
    {
      clock: ports.clock,
      service: await service(),
      objects: ports.objects(),
      batches: ports.batches(),
      reviews: ports.reviews(),
      events: ports.events(),
    },
    event,
  );
  logger.info('answers finalized', { ...result });
  return result;
};
