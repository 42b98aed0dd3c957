/**
 * Queued rows whose batch (or answers round) stopped: one met while filling slots, and every
 * visible one when the key is refused (401/403) and nothing can be submitted.
 */
import type { TcsProblemError } from '../../tcs/errors.js';
import { scrubErrorText } from '../core/error-text.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchStop, RowMessage, RowRecord } from '../core/records.js';
import { answersNotSentResult, stoppedResult } from '../core/row-results.js';
import { stopFromProblem } from '../core/service-stop.js';
import { finishRow } from '../row/complete.js';
import { completionIdOf } from '../row/row-state.js';
import type { DispatchConfig, DispatchReport } from './dispatch-run.js';
import { isStaleOrDuplicate } from './stale-messages.js';

/**
 * Ends a queued row whose batch (or answers round) stopped, and counts it done: a batch's row ends
 * `not_submitted`; a round's row goes back to waiting for answers, its answers never sent.
 */
export const endStopped = async (
  ports: Pick<PipelinePorts, 'clock' | 'batches' | 'waiters'>,
  message: RowMessage,
  row: RowRecord,
  stop: BatchStop,
): Promise<void> => {
  await finishRow(
    ports,
    message.batch_id,
    message.row,
    message.round_id === undefined
      ? stoppedResult(stop)
      : answersNotSentResult(row.result, stoppedResult(stop), row.classification_id),
    { countOn: completionIdOf(message) },
  );
};

/**
 * Drains the queue after the key was refused (401/403), since nothing can be submitted: every
 * visible message's batch records the stop (once: the first stop stands) and its queued row ends
 * `not_submitted`; a batch's rows still in the batch table come as its window is topped up. Gives
 * the run's report, `stopped`.
 */
export const drainOnStop = async (
  ports: Pick<PipelinePorts, 'clock' | 'queue' | 'batches' | 'waiters'>,
  config: Pick<DispatchConfig, 'maxRuntimeMs'>,
  run: {
    error: TcsProblemError;
    startedAt: number;
    /** Sends the next rows of the batches' windows; gives how many it sent. */
    topUp: () => Promise<number>;
  },
  report: DispatchReport,
): Promise<DispatchReport> => {
  const { error, startedAt } = run;
  const stop = stopFromProblem(error, ports.clock.now());
  const stops = new Map<string, BatchStop>();
  while (ports.clock.now().getTime() - startedAt < config.maxRuntimeMs) {
    const messages = await ports.queue.receive(10);
    // Their backlogs come through the windows too: the queue is empty only once nothing is left.
    if (messages.length === 0 && (await run.topUp()) > 0) continue;
    if (messages.length === 0) break;
    report.received += messages.length;
    for (const { message, receipt } of messages) {
      const check = await isStaleOrDuplicate(ports, message);
      // A row already with an execution (`submitting`) is left to it: its Submit sees the stop.
      if (check.stale || check.row.status !== 'queued') {
        await ports.queue.delete(receipt);
        report.dropped += 1;
        continue;
      }
      const stopped = completionIdOf(message);
      let inForce = stops.get(stopped);
      if (!inForce) {
        inForce = await ports.batches.recordStop(stopped, stop);
        stops.set(stopped, inForce);
      }
      await endStopped(ports, message, check.row, inForce);
      await ports.queue.delete(receipt);
      report.notSubmitted += 1;
    }
  }
  return { ...report, outcome: 'stopped', detail: scrubErrorText(error.message) };
};
