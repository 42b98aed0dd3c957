/** Whether a row message received from the queue is still its row's work. */
import type { PipelinePorts } from '../core/ports.js';
import type { RowMessage } from '../core/records.js';
import { isOutputStatus } from '../core/row-statuses.js';
import { isSuperseded } from '../row/row-state.js';

/**
 * Reads a message's row and says whether the message must not start anything (`stale`), giving
 * the row when it may. Stale: its row is final, gone, or a later attempt or dispatch, or another
 * answers round's; or its row is already `in_progress` under this very message (a redelivery:
 * the execution runs). A `submitting` row under the same message is not a duplicate: the
 * dispatcher that set it may have died before StartExecution, so it is started (by name,
 * at most once).
 */
export const isStaleOrDuplicate = async (ports: Pick<PipelinePorts, 'batches'>, message: RowMessage) => {
  const row = await ports.batches.getRow(message.batch_id, message.row);
  if (!row || isOutputStatus(row.status) || isSuperseded(row, message)) return { stale: true as const };
  // A batch's message for a row an answers round has taken, or another round's: not this row's work now.
  if (row.round?.round_id !== message.round_id) return { stale: true as const };
  const sameDispatch = row.attempt === message.attempt && row.dispatch === message.dispatch;
  if (sameDispatch && row.status === 'in_progress') return { stale: true as const };
  return { stale: false as const, row };
};
