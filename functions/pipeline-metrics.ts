/**
 * The pipeline's business metrics (shared/contract.ts, BUSINESS_METRICS), written as CloudWatch
 * embedded metrics: one JSON line in the function's log per record, which CloudWatch Logs turns
 * into metrics. No client, no IAM grant beyond writing the log group, nothing sent during the
 * invocation; locally the lines go wherever the function's log lines go.
 *
 * Handlers call these named methods once their use case has returned, from what it reported or
 * what passed through its ports (functions/metric-sources.ts). Each method writes and flushes its
 * own lines at once (Powertools' publishStoredMetrics): its dimensions are its own (a line has one
 * set for all its metrics), nothing is left buffered for the next invocation, and since no await
 * falls between adding and flushing, invocations overlapping in one process (the local runtime)
 * never mix their numbers. No ColdStart metric: it says nothing about batches.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { BUSINESS_METRIC_FIELDS, BUSINESS_METRICS, SERVICE_NAME } from '../shared/contract.js';
import type { OutputStatus } from '../shared/pipeline/core/row-statuses.js';
import { logger } from './runtime.js';

/** A row given its final result by this invocation (row-complete, row-execution-ended). */
export type FinishedRow = { batchId: string; row: number; status: OutputStatus; billedUsd: number };

/** What the service answered a submission (row-submit): a 429, or a refusal a retry would not change. */
export type SubmissionAnswer =
  | { kind: 'rate_limited'; batchId: string; operation: string }
  | { kind: 'refused'; batchId: string; operation: string; problem: string; httpStatus: number };

/** The cap as one dispatcher run counted it. */
type SlotCount = { inUse: number; usedByOthers: number; cap: number };

/** A finished batch's totals, as its summary.json (and its Batch Completed event) has them. */
export type FinishedBatch = {
  batchId: string;
  state: string;
  rowsTotal: number;
  byStatus: Partial<Record<OutputStatus, number>>;
  billedUsd: number;
  savedUsd: number;
};

/** The numbers operators watch, by what happened; an in-memory version records them in tests. */
export type PipelineMetrics = {
  rowFinished(row: FinishedRow): void;
  submissionAnswered(answer: SubmissionAnswer): void;
  slotsCounted(slots: SlotCount): void;
  batchFinished(batch: FinishedBatch): void;
};

const { Count, NoUnit } = MetricUnit;

/** Powertools takes NaN and prints it as null, and CloudWatch drops such a value: refused here. */
const finite = (value: number): number => {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not a value CloudWatch takes`);
  return value;
};
const M = BUSINESS_METRICS;
const F = BUSINESS_METRIC_FIELDS;

/**
 * The pipeline's metrics on a Powertools Metrics instance (namespace and service set on it).
 * A metric never fails the task that reports it (the row's result is already written): a line
 * that cannot be written is dropped and told to `onError`.
 */
export const createEmfPipelineMetrics = (
  metrics: Metrics,
  onError: (error: unknown) => void,
): PipelineMetrics => {
  /** One EMF line: `write` adds metrics, dimensions and properties; then it is flushed. */
  const line = (write: (into: Metrics) => void) => {
    try {
      write(metrics);
      metrics.publishStoredMetrics();
    } catch (error) {
      metrics.clearMetrics();
      metrics.clearDimensions();
      metrics.clearMetadata();
      onError(error);
    }
  };
  return {
    rowFinished: ({ batchId, row, status, billedUsd }) => {
      line((into) =>
        into
          .addDimension(F.status, status)
          .addMetadata(F.batchId, batchId)
          .addMetadata('row', String(row))
          .addMetric(M.rowsFinished, Count, 1),
      );
      // Its own line: under `status` it would split what was billed by a status only `resolved` has.
      if (billedUsd > 0)
        line((into) =>
          into
            .addMetadata(F.batchId, batchId)
            .addMetadata('row', String(row))
            .addMetric(M.billedUsd, NoUnit, finite(billedUsd)),
        );
    },
    submissionAnswered: (answer) => {
      line((into) => {
        into.addMetadata(F.batchId, answer.batchId).addMetadata('operation', answer.operation);
        if (answer.kind === 'rate_limited') into.addMetric(M.submissionsRateLimited, Count, 1);
        else
          into
            .addMetadata(F.problem, answer.problem)
            .addMetadata('http_status', String(answer.httpStatus))
            .addMetric(M.submissionsRefused, Count, 1);
      });
    },
    slotsCounted: ({ inUse, usedByOthers, cap }) => {
      line((into) =>
        into
          .addMetric(M.slotsInUse, Count, finite(inUse))
          .addMetric(M.slotsUsedByOthers, Count, finite(usedByOthers))
          .addMetric(M.slotCap, Count, finite(cap)),
      );
    },
    batchFinished: (batch) => {
      line((into) =>
        into
          .addMetadata(F.batchId, batch.batchId)
          .addMetadata('batch_state', batch.state)
          .addMetadata('rows_total', String(batch.rowsTotal))
          .addMetric(M.batchesFinished, Count, 1)
          .addMetric(M.batchBilledUsd, NoUnit, finite(batch.billedUsd))
          .addMetric(M.batchSavedUsd, NoUnit, finite(batch.savedUsd)),
      );
      // One line per status (a line has one status); statuses without rows add nothing to a sum.
      for (const [status, rows] of Object.entries(batch.byStatus)) {
        if (rows > 0)
          line((into) =>
            into
              .addDimension(F.status, status)
              .addMetadata(F.batchId, batch.batchId)
              .addMetric(M.batchRows, Count, finite(rows)),
          );
      }
    },
  };
};

/**
 * The functions' metrics. The service name is the constant, not the environment: the dashboard
 * selects on this dimension value (infra/dashboard.ts).
 */
export const pipelineMetrics: PipelineMetrics = createEmfPipelineMetrics(
  new Metrics({ namespace: BUSINESS_METRICS.namespace, serviceName: SERVICE_NAME }),
  (error) => logger.warn('metric not written', { error: String(error) }),
);
