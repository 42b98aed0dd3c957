/**
 * The dispatcher: fills free slots of the organisation's cap with queued rows. Invoked by a
 * finishing row (kick), by Prepare, and every minute by a schedule (`{ source }` tells which).
 */
import { ALARM_LOG_FIELDS } from '../../infra/contract.js';
import { createBalanceMemo, dispatchRows } from '../../shared/pipeline/dispatch-rows.js';
import { capOverride, LEASE_TTL_MS, logger, ports, service, timeScale } from '../runtime.js';

/** Well inside the function's timeout, so a run never dies holding received messages. */
const MAX_RUNTIME_MS = 40_000;

/** Others' use of the cap, remembered for 5 s (production time) by a warm container. */
const balanceMemo = createBalanceMemo(5_000 * timeScale());

export const handler = async (event: { source?: string; reason?: string } | null) => {
  const report = await dispatchRows(
    {
      clock: ports.clock,
      service: await service(),
      queue: ports.queue(),
      batches: ports.batches(),
      leases: ports.leases(),
      workflows: ports.workflows(),
      waiters: ports.waiters(),
    },
    {
      capOverride: capOverride(),
      leaseTtlMs: LEASE_TTL_MS,
      timeScale: timeScale(),
      maxRuntimeMs: MAX_RUNTIME_MS,
      balanceMemo,
      // A kick comes from a row that just freed its slot (or queued rows): fill it fast, that
      // slot's message received while the others are counted. The schedule's run (every
      // minute) also looks for leases whose holder died.
      recoverExpired: event?.source !== 'kick',
      freedSlot: event?.source === 'kick' && event.reason === 'slot_freed',
    },
  );
  // The alarm on leases held past their expiry reads this field (infra/alarms.ts).
  logger.info('dispatch finished', { ...report, [ALARM_LOG_FIELDS.leasesRecovered]: report.recovered });
  return report;
};
