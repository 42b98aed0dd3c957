/**
 * WaitForRows (`.waitForTaskToken`): keeps the Batch workflow's task token on the batch record
 * so the row that finishes last can wake it.
 *
 * The last row and this task race:
 *
 *   last row done ──▶ markRowDone: no token yet ─┐
 *                     registerWaiter: complete ──┴─▶ wake here, at once
 *   registerWaiter: not complete ──▶ last row done ──▶ markRowDone returns the token ─▶ the row wakes
 *
 * Both sides may wake; waking is idempotent. The token is a secret: it is never logged,
 * returned or written anywhere but the batch record.
 */
import * as z from 'zod';
import type { PipelinePorts } from '../core/ports.js';

/** WaitForRows' input: the batch's id and the task token Step Functions gave this wait. */
export const AwaitRowsInput = z.object({ batch_id: z.string().min(1), task_token: z.string().min(1) });
export type AwaitRowsInput = z.infer<typeof AwaitRowsInput>;

/** WaitForRows' answer: the batch's id, and whether every row had finished before the token was stored. */
export type AwaitRowsResult = { batch_id: string; already_complete: boolean };

/**
 * Stores the workflow's task token on the batch record and, when every row has already finished,
 * wakes the workflow at once. Invalid input throws an error that names the bad fields, never
 * their values, so the token cannot leak into a log.
 */
export const awaitRows = async (
  ports: Pick<PipelinePorts, 'batches' | 'waiters'>,
  rawInput: AwaitRowsInput,
): Promise<AwaitRowsResult> => {
  const parsed = AwaitRowsInput.safeParse(rawInput);
  // zod's message would quote the input, token included: name the fields only.
  if (!parsed.success) {
    throw new Error(
      `await-rows: invalid input (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`,
    );
  }
  const { batch_id, task_token } = parsed.data;
  const done = await ports.batches.registerWaiter(batch_id, task_token);
  if (done.batchComplete) await ports.waiters.wake(task_token, { batch_id });
  return { batch_id, already_complete: done.batchComplete };
};
