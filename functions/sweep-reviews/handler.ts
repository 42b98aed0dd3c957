/**
 * The daily review sweep (a schedule): batches with rows the service abandoned after 30 days
 * unanswered get their results moved forward. See shared/pipeline/answers/sweep-reviews.ts.
 */
import { sweepAbandonedReviews } from '../../shared/pipeline/answers/index.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async () => {
  const report = await sweepAbandonedReviews(await portsFor('sweep-reviews'));
  logger.info('review sweep', {
    pending: report.pending,
    abandoned: report.abandoned,
    batches: report.batches.map(({ batch_id, revision, abandoned }) => ({ batch_id, revision, abandoned })),
  });
  return report;
};
