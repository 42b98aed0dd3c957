/**
 * Names of Row workflow executions and of slot-lease holders.
 *
 * An execution name is unique per state machine for 90 days and makes StartExecution
 * idempotent: a dispatcher that starts the same (batch, row, attempt, dispatch) twice (an
 * SQS redelivery, a Lambda retry) gets `ExecutionAlreadyExists`, not a second run. A 429
 * puts the row back as the next dispatch, so the next start is a new name.
 *
 *   <batch-id>-r<row>-a<attempt>-d<dispatch>          the usual case (a batch id is ≤ 51 safe chars)
 *   <cleaned batch id, cut>-h<hash>-r…-a…-d…          a batch id too long or with other characters
 *
 * The lease holder is the row attempt, not the execution: every dispatch of one attempt
 * holds the same lease, so a retried acquire or release is a no-op.
 */
import { deriveRowKey, shortDigest } from '../core/keys.js';
import type { RowMessage } from '../core/records.js';

/** Step Functions: 1 to 80 characters; we keep to the portable `[A-Za-z0-9_-]`. */
export const EXECUTION_NAME_MAX = 80;
const SAFE_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Gives the Row workflow execution name of a row message: the same for the same batch, row,
 * attempt, round and dispatch, different for any other, and always a valid name (at most 80
 * safe characters).
 */
export const rowExecutionName = (message: RowMessage): string => {
  // An answers round runs the same row again: its own executions, apart from the batch's.
  const round = message.round_id ? `-q${shortDigest(message.round_id)}` : '';
  const suffix = `-r${message.row}-a${message.attempt}${round}-d${message.dispatch}`;
  const batch = message.batch_id;
  if (SAFE_NAME.test(batch) && batch.length + suffix.length <= EXECUTION_NAME_MAX) return `${batch}${suffix}`;
  // Cleaning or cutting could make two batch ids equal: the hash of the exact id keeps them apart.
  const tag = `-h${shortDigest(batch)}`;
  const room = EXECUTION_NAME_MAX - suffix.length - tag.length;
  const cleaned = batch.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, Math.max(0, room));
  return `${cleaned}${tag}${suffix}`;
};

/**
 * Gives the lease holder of one row attempt (in an answers round, if any):
 * `<batch-id>:<row>#a<attempt>[#q<round>]`.
 */
export const rowHolder = (batchId: string, row: number, attempt: number, roundId?: string): string =>
  `${deriveRowKey(batchId, row)}#a${attempt}${roundId ? `#q${shortDigest(roundId)}` : ''}`;

/**
 * Whether a lease is held by a row attempt of this batch (`rowHolder`), or of its answers round
 * `roundId`: what a page counts as the batch's rows in flight, without reading them.
 */
export const holdsForBatch = (holder: string, batchId: string, roundId?: string): boolean => {
  const prefix = `${batchId}:`;
  if (!holder.startsWith(prefix)) return false;
  // `<row>#a<attempt>` then the round's tag, if any: another batch whose id starts the same fails here.
  const rest = /^\d+#a\d+(?:#q(.+))?$/.exec(holder.slice(prefix.length));
  if (!rest) return false;
  return roundId === undefined ? rest[1] === undefined : rest[1] === shortDigest(roundId);
};
