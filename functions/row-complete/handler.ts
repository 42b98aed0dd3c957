/** Row workflow, Complete: records the row's outcome, releases its lease, wakes the batch if it was the last. */
import { ALARM_LOG_FIELDS } from '../../shared/contract.js';
import { completeRow } from '../../shared/pipeline/row/complete.js';
import { watchFinishedRows } from '../metric-sources.js';
import { pipelineMetrics } from '../pipeline-metrics.js';
import { completingARow } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (state: unknown) => {
  const ports = await portsFor('row-complete', completingARow);
  // The row's final status and what it cost, as Complete records them on the row.
  const rows = watchFinishedRows(ports.batches);
  const report = await completeRow({ ...ports, batches: rows.batches }, state);
  // The alarm on rows ending in `error` reads `row_status` (infra/alarms.ts); log it once per row.
  logger.info('row completed', {
    ...report,
    ...(report.outcome === 'final' && report.changed ? { [ALARM_LOG_FIELDS.rowStatus]: report.status } : {}),
  });
  for (const row of rows.finished) pipelineMetrics.rowFinished(row);
  return report;
};
