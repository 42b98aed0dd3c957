/**
 * Answers workflow, FinalizeAnswers: moves the batch's results forward after an answers round
 * (results.csv and summary.json rewritten, the earlier ones kept as results.rev<N>.csv and
 * summary.rev<N>.json, review.csv of what is still pending) and announces it; in legs, the
 * workflow calling it again while it answers `next: "again"`.
 */
import { finalizeAnswers } from '../../shared/pipeline/answers/finalize-answers.js';
import { audit, batches, checks, clock, events, reviews } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';
import { service } from '../service-port.js';
import { streamingObjects } from '../streaming-bucket-port.js';

export const handler = async (event: unknown) => {
  const result = await finalizeAnswers(
    await portsFor('finalize-answers', {
      clock,
      objects: streamingObjects,
      batches,
      reviews,
      checks,
      audit,
      events,
      service,
    }),
    event,
  );
  if ('next' in result)
    logger.info('answers finalize leg handed on', {
      batch_id: result.run.batch_id,
      pass: result.run.revision.pass,
    });
  else logger.info('answers finalized', { ...result });
  return result;
};
