/**
 * A resolved classification marked for a person under its batch's `check_below`, wherever a row
 * takes it: Store, and FinalizeAnswers for a row whose questions were answered elsewhere. The
 * check item is written before the row's result says `to_check`, and only if absent, so a retried
 * step keeps an item written before and any decision on it.
 */
import type { Classification } from '../../tcs/schemas.js';
import type { CheckReason } from '../core/check-records.js';
import type { PipelinePorts } from '../core/ports.js';
import {
  type CheckedRow,
  checkItemOfClassification,
  checkReasonsOfClassification,
} from '../core/verdict-check.js';

/**
 * Gives why the row's verdict waits for a person (empty: it does not), after writing its check
 * item when it does (only if the row has none yet).
 */
export const markVerdictToCheck = async (
  ports: Pick<PipelinePorts, 'batches' | 'checks'>,
  c: Classification,
  row: CheckedRow,
  at: { verdictPdf: string | null; now: Date },
): Promise<CheckReason[]> => {
  // A row of an answers round is its batch's row (`batch_id`): the batch's threshold applies.
  const checkBelow = (await ports.batches.getBatch(row.batch_id))?.options?.check_below;
  const reasons = checkReasonsOfClassification(c, checkBelow);
  if (reasons.length === 0) return reasons;
  // The rows following it are counted in its completion shard (Prepare wrote them there).
  const followers = await ports.batches.followerCount(row.batch_id, row.row);
  await ports.checks.create(
    checkItemOfClassification(c, row, at.verdictPdf, { reasons, checkBelow, followers, now: at.now }),
  );
  return reasons;
};
