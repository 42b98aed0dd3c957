/**
 * Answers workflow, PrepareAnswers: reads the filled review.csv dropped into answers/<batch-id>/,
 * writes answers-report.csv, puts the fully answered rows back to work as one round, kicks.
 */
import type { PrepareAnswersInput } from '../../shared/pipeline/answers/answers-steps.js';
import { prepareAnswers } from '../../shared/pipeline/answers/prepare-answers.js';
import { objects } from '../bucket-port.js';
import { audit, batches, cache, checks, clock, kick, queue, reviews, writers } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';
import { service } from '../service-port.js';

export const handler = async (payload: unknown) => {
  // The workflow's payload: { event: <the S3 Object Created event>, execution_id: $$.Execution.Id }.
  // Only these two fields: who answered comes from the records of the write (answers-writer.ts), not the payload.
  const { event, execution_id } = (payload ?? {}) as Partial<PrepareAnswersInput>;
  const result = await prepareAnswers(
    await portsFor('prepare-answers', {
      clock,
      objects,
      batches,
      reviews,
      checks,
      cache,
      audit,
      queue,
      kick,
      service,
      writers,
    }),
    {
      event,
      execution_id,
    } as PrepareAnswersInput,
  );
  logger.info('answers prepared', {
    batch_id: result.batch_id,
    round_id: result.round_id,
    next: result.next,
    ...(result.detail !== undefined ? { detail: result.detail } : {}),
  });
  return result;
};
