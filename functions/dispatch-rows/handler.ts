/**
 * The dispatcher: fills free slots of the organisation's cap with queued rows. Invoked by a
 * finishing row (kick), by Prepare, and every minute by a schedule (`{ source }` tells which).
 */
import { ALARM_LOG_FIELDS } from '../../shared/contract.js';
import { dispatchRows } from '../../shared/pipeline/dispatch/dispatch-rows.js';
import { runOptionsFor } from '../../shared/pipeline/dispatch/dispatch-run.js';
import { createBalanceMemo } from '../../shared/pipeline/dispatch/free-slots.js';
import { describeFunction } from '../catalogue.js';
import { pipelineMetrics } from '../pipeline-metrics.js';
import { batches, clock, leases, queue, waiters, workflows } from '../port-builders.js';
import { capOverride, LEASE_TTL_MS, logger, portsFor } from '../runtime.js';
import { service } from '../service-port.js';

/** Well inside the function's timeout, so a run never dies holding received messages. */
const MAX_RUNTIME_MS = 40_000;

/** A run dies at its function's timeout at the latest: a top-up it holds is free again by then. */
const TOP_UP_HOLD_MS = describeFunction('dispatch-rows').timeoutSeconds * 1000;

/** Others' use of the cap, remembered for 5 s (production time) by a warm container. */
const balanceMemo = createBalanceMemo(5_000);

export const handler = async (event: unknown) => {
  const report = await dispatchRows(
    await portsFor('dispatch-rows', { clock, batches, leases, queue, service, workflows, waiters }),
    {
      capOverride: capOverride(),
      leaseTtlMs: LEASE_TTL_MS,
      maxRuntimeMs: MAX_RUNTIME_MS,
      balanceMemo,
      topUpHoldMs: TOP_UP_HOLD_MS,
      ...runOptionsFor(event),
    },
  );
  // The alarm on leases held past their expiry reads this field (infra/alarms.ts).
  logger.info('dispatch finished', { ...report, [ALARM_LOG_FIELDS.leasesRecovered]: report.recovered });
  // Only a run that counted the cap knows it (a refused or failed GET /balance does not).
  if (report.cap !== null && report.others !== null) {
    pipelineMetrics.slotsCounted({
      inUse: report.held + report.started,
      usedByOthers: report.others,
      cap: report.cap,
    });
  }
  return report;
};
