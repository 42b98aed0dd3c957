/**
 * Where a handler finds the numbers of its metrics (functions/pipeline-metrics.ts) when its use
 * case's report does not carry them: in what passes through the ports the handler gives it. Each
 * wraps one port for one invocation, changes nothing it passes on, and keeps what it saw:
 *
 *   batches.moveRow     the final result Complete records on a row (a `finished` move: status, cost_usd)
 *   service             what the service answered Submit's POSTs: a 429, a refusal
 *   events              the summary Finalize announces in the Batch Completed event
 *
 * The core stays as it is: it already hands these to its ports, and a metric is not a reason for
 * a use case to know about metrics.
 */
import * as z from 'zod';
import type { BatchEvents, BatchStore, ClassificationService } from '../shared/pipeline/core/ports.js';
import type { BatchSummary } from '../shared/pipeline/outbox/results-files.js';
import { problemNameOf, TcsProblemError } from '../shared/tcs/errors.js';
import type { FinishedBatch, FinishedRow, SubmissionAnswer } from './pipeline-metrics.js';

/** USD as the result columns write it (`2.00`); anything else counts as nothing billed. */
const usd = (text: string | undefined): number => {
  const value = Number(text ?? '0');
  return Number.isFinite(value) ? value : 0;
};

/**
 * Rows this invocation gave their final result: a `finished` move that applied. A repeated
 * Complete finds the row final, the move's guard refuses it, and nothing is counted twice; a
 * requeue is another move.
 */
export const watchFinishedRows = (batches: BatchStore) => {
  const finished: FinishedRow[] = [];
  const watched: BatchStore = {
    ...batches,
    moveRow: async (batchId, row, move) => {
      const applied = await batches.moveRow(batchId, row, move);
      if (applied && move.move === 'finished') {
        finished.push({ batchId, row, status: move.result.status, billedUsd: usd(move.result.cost_usd) });
      }
      return applied;
    },
  };
  return { batches: watched, finished };
};

/**
 * How the service answered a call, as a metric: a 429 (the row waits in the queue:
 * docs/architecture.md, property 2), or a 4xx a retry would not change (401 and 403 included:
 * they stop the batch). Whatever else the call threw (5xx, network, our own validation before
 * sending) is not an answer of this kind.
 */
const answerOf = (error: unknown, batchId: string, operation: string): SubmissionAnswer | null => {
  if (!(error instanceof TcsProblemError)) return null;
  if (error.status === 429) return { kind: 'rate_limited', batchId, operation };
  if (error.status < 400 || error.status >= 500 || error.retryable) return null;
  const problem = error.problem ?? problemNameOf(error.type ?? `http-${error.status}`);
  return { kind: 'refused', batchId, operation, problem, httpStatus: error.status };
};

/**
 * The service as Submit uses it, keeping each 429 and refusal of its submissions: the sheet's
 * upload, the creation, the answers. Reads (GET) are passed through untouched.
 */
export const watchSubmissionAnswers = (service: ClassificationService, batchId: string) => {
  const answers: SubmissionAnswer[] = [];
  const watching =
    <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        const answer = answerOf(error, batchId, operation);
        if (answer) answers.push(answer);
        throw error;
      }
    };
  const watched: ClassificationService = {
    ...service,
    uploadSheet: watching('uploadSheet', service.uploadSheet),
    createClassification: watching('createClassification', service.createClassification),
    answerQuestions: watching('answerQuestions', service.answerQuestions),
  };
  return { service: watched, answers };
};

/**
 * The batch a Row task's state names; null when it names none (the use case refuses such a state
 * itself, and nothing reaches the service).
 */
export const batchIdOfRowState = (state: unknown): string | null => {
  const parsed = z.object({ batch_id: z.string() }).safeParse(state);
  return parsed.success ? parsed.data.batch_id : null;
};

/**
 * Batches whose Batch Completed event this invocation published, with the totals of the summary
 * it carried. Finalize builds the summary itself (buildSummary) in this process: no boundary is
 * crossed, so it is read as the type it is.
 */
export const watchFinishedBatches = (events: BatchEvents) => {
  const finished: FinishedBatch[] = [];
  const watched: BatchEvents = {
    batchCompleted: async (detail) => {
      await events.batchCompleted(detail);
      const summary = detail as BatchSummary;
      finished.push({
        batchId: summary.batch_id,
        state: summary.state,
        rowsTotal: summary.rows_total,
        byStatus: summary.by_status,
        billedUsd: summary.billed_usd,
        savedUsd: summary.saved_usd,
      });
    },
  };
  return { events: watched, finished };
};
