/**
 * Answers workflow, FinalizeAnswers: moves the batch's results forward after an answers round
 * (results.csv and summary.json rewritten, the earlier ones kept as results.rev<N>.csv and
 * summary.rev<N>.json, review.csv of what is still pending) and announces it.
 */
import { finalizeAnswers } from '../../shared/pipeline/answers/index.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await finalizeAnswers(await portsFor('finalize-answers'), event);
  logger.info('answers finalized', { ...result });
  return result;
};
