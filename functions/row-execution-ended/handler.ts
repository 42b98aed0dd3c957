/**
 * EventBridge: a Row workflow execution FAILED, TIMED_OUT or was ABORTED before Complete
 * ran. Ends the row as `error` and releases its lease, so neither the row nor the slot leaks.
 */
import { ALARM_LOG_FIELDS } from '../../shared/contract.js';
import { rowExecutionEnded } from '../../shared/pipeline/row/execution-ended.js';
import { watchFinishedRows } from '../metric-sources.js';
import { pipelineMetrics } from '../pipeline-metrics.js';
import { completingARow } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (event: unknown) => {
  const ports = await portsFor('row-execution-ended', completingARow);
  const rows = watchFinishedRows(ports.batches);
  const report = await rowExecutionEnded({ ...ports, batches: rows.batches }, event);
  if (report) {
    logger.warn('row workflow ended without completing', {
      ...report,
      ...(report.outcome === 'final' && report.changed
        ? { [ALARM_LOG_FIELDS.rowStatus]: report.status }
        : {}),
    });
  }
  for (const row of rows.finished) pipelineMetrics.rowFinished(row);
  return report;
};
