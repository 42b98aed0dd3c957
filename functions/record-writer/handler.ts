/**
 * Who wrote a file dropped into answers/ or inbox/: CloudTrail's record of the write, through an
 * EventBridge rule, kept in the review table for PrepareAnswers (shared/pipeline/people/).
 */
import { recordWriter } from '../../shared/pipeline/people/record-writer.js';
import { writers } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (event: unknown) => {
  const result = await recordWriter(await portsFor('record-writer', { writers }), event);
  // The object's key and how its writer was known; the principal's ARN is an account's detail, not logged.
  if ('recorded' in result)
    logger.info('writer recorded', { key: result.recorded.key, known_by: result.recorded.person.known_by });
  else logger.info('write not recorded', { why: result.skipped });
  return 'recorded' in result ? { recorded: true } : { recorded: false, why: result.skipped };
};
