/**
 * Closing while a batch runs (Ctrl-C). On AWS its executions would go on; here they end with
 * the process, so they are ended the way AWS ends an aborted execution:
 *
 *   batch: recordStop(local_run_stopped) ─▶ the dispatcher ends its queued rows not_submitted
 *          (this run or the next) instead of starting them
 *   each running Row execution: StopExecution ─▶ ABORTED ─▶ the template's rule
 *          ─▶ row-execution-ended: the row ends `error`, its slot lease is released
 *
 * so the next run on the same data folder starts with every slot free.
 */
import { ListExecutionsCommand, type SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import type { BatchStore } from '../../shared/pipeline/core/ports.js';

/** How long the interrupted rows get to finish as `error` (row-execution-ended, lease release). */
const INTERRUPT_GRACE_MS = 10_000;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

export const interruptRunningBatches = async (deps: {
  /** Batch id → its running Batch workflow execution. */
  running: ReadonlyMap<string, string>;
  batches: BatchStore;
  sfn: SFNClient;
  stateMachineArns: readonly string[];
  /** Background work (rule deliveries, invocations) to let finish. */
  inFlight: ReadonlySet<Promise<unknown>>;
  log: (line: string) => void;
}): Promise<void> => {
  if (deps.running.size === 0) return;
  const at = new Date().toISOString();
  for (const batchId of deps.running.keys()) {
    deps.log(`batch ${batchId}: stopping, the local pipeline is closing`);
    await deps.batches
      .recordStop(batchId, {
        type: 'local_run_stopped',
        title: 'The local run stopped',
        detail:
          'The local pipeline was closed before this batch finished; its remaining rows were not submitted.',
        at,
      })
      .catch((error: unknown) => deps.log(`recording the stop of ${batchId} failed: ${String(error)}`));
  }
  const batchExecutions = new Set(deps.running.values());
  /** Stops every running execution but the batches' own; returns how many it stopped. */
  const stopRowExecutions = async (): Promise<number> => {
    let stopped = 0;
    for (const stateMachineArn of deps.stateMachineArns) {
      const { executions = [] } = await deps.sfn.send(
        new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', maxResults: 1000 }),
      );
      for (const { executionArn } of executions) {
        if (!executionArn || batchExecutions.has(executionArn)) continue;
        await deps.sfn
          .send(
            new StopExecutionCommand({
              executionArn,
              error: 'LocalRunStopped',
              cause: 'the local pipeline closed',
            }),
          )
          .then(() => stopped++)
          .catch(() => undefined);
      }
    }
    return stopped;
  };

  // Status-change events are delivered on the next turns, and their work may start more (a
  // dispatcher already running may still start a row): stop and settle until nothing moves.
  const deadline = Date.now() + INTERRUPT_GRACE_MS;
  let stopped = await stopRowExecutions();
  while (Date.now() < deadline) {
    await nextTurn();
    while (deps.inFlight.size > 0 && Date.now() < deadline) {
      await Promise.race([
        Promise.allSettled([...deps.inFlight]),
        new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()))),
      ]);
      await nextTurn();
    }
    const more = await stopRowExecutions();
    if (more === 0 && deps.inFlight.size === 0) break;
    stopped += more;
  }
  deps.log(`stopped ${stopped} row execution(s)`);
};
