/** Row workflow, Complete: records the row's outcome, releases its lease, wakes the batch if it was the last. */
import { ALARM_LOG_FIELDS } from '../../shared/contract.js';
import { completeRow } from '../../shared/pipeline/row/index.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (state: unknown) => {
  const report = await completeRow(await portsFor('row-complete'), state);
  // The alarm on rows ending in `error` reads `row_status` (infra/alarms.ts); log it once per row.
  logger.info('row completed', {
    ...report,
    ...(report.outcome === 'final' && report.changed ? { [ALARM_LOG_FIELDS.rowStatus]: report.status } : {}),
  });
  return report;
};
