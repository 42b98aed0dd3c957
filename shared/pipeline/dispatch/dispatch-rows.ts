/**
 * The dispatcher: fills the organisation's free slots with rows waiting in the queue, each under
 * a lease, so we never hold more classifications in progress than the service's cap leaves us
 * (docs/architecture.md, properties 1 to 3). Runs on a kick and every minute.
 *
 *   recover expired leases ─▶ GET /balance ∥ our leases ─▶ free = cap − others − ours
 *   while free > 0 and time left:
 *     receive ≤ min(free, 10) ─▶ per message:
 *        row ∥ its batch ∥ lease (holder = row attempt)
 *        stale or duplicate            ─▶ delete (and the lease back)
 *        batch stopped                 ─▶ row not_submitted (a round's row: pending_data again), delete
 *        lease refused                 ─▶ message back in a few s, stop filling
 *        lease held                    ─▶ StartExecution ∥ row submitting ─▶ delete
 *
 * `others` are the organisation's classifications in progress that are not ours (the web
 * app, other API clients): `in_progress_count` minus the leases we hold. The lease cap is
 * `cap − others`, so even two dispatchers racing never hold more than the free slots.
 *
 * A kick for a freed slot (`freedSlot`) receives its one message while it counts: that slot is
 * known to be free, and the time from a run's end to the next POST is the slot the cap loses.
 *
 * The queue holds a window of each batch's rows, not all of them: the schedule's run tops every
 * window up first, and any run that finds the queue empty with slots free tops them up and looks again.
 */
import { deriveRowKey } from '../core/keys.js';
import type { PipelinePorts, ReceivedRow } from '../core/ports.js';
import type { BatchRecord } from '../core/records.js';
import { completionIdOf } from '../row/row-state.js';
import type { DispatchConfig, DispatchReport } from './dispatch-run.js';
import { rowExecutionName, rowHolder } from './execution-names.js';
import { countSlots } from './free-slots.js';
import { topUpWindows } from './rows-window.js';
import { isStaleOrDuplicate } from './stale-messages.js';
import { drainOnStop, endStopped } from './stopped-rows.js';

/** How long a message waits (production seconds) before it is offered again when no slot was free. */
const NO_SLOT_RETRY_SECONDS = 5;

/** A delay of production seconds as SQS takes it: the clock's span of it, in whole seconds, at least one. */
const queueDelaySeconds = (clock: Ports['clock'], productionSeconds: number): number =>
  Math.max(1, Math.ceil(clock.span(productionSeconds * 1000) / 1000));

type Ports = Pick<
  PipelinePorts,
  'clock' | 'service' | 'queue' | 'batches' | 'leases' | 'workflows' | 'waiters'
>;

type MessageFate = 'started' | 'already_started' | 'dropped' | 'not_submitted' | 'no_slot' | 'start_failed';
/** `tookSlot`: a lease was newly taken (a renewed one was already counted among ours). */
type Dispatched = { fate: MessageFate; tookSlot: boolean };

/** The batches of this run, read once each: a stop recorded meanwhile is caught by Submit. */
const batchReader = (batches: Ports['batches']) => {
  const seen = new Map<string, Promise<BatchRecord | null>>();
  return (batchId: string): Promise<BatchRecord | null> => {
    let found = seen.get(batchId);
    if (!found) {
      found = batches.getBatch(batchId);
      seen.set(batchId, found);
    }
    return found;
  };
};

const dispatchOne = async (
  ports: Ports,
  config: DispatchConfig,
  received: ReceivedRow,
  leaseCap: number,
  readBatch: (batchId: string) => Promise<BatchRecord | null>,
): Promise<Dispatched> => {
  const { message, receipt } = received;
  const untouched = (fate: MessageFate): Dispatched => ({ fate, tookSlot: false });
  const holder = rowHolder(message.batch_id, message.row, message.attempt, message.round_id);
  const now = ports.clock.now();
  // The row, its batch (an answers round: the round's record, where its stop and completion
  // live) and the lease at once: this is on the path of every freed slot, and a message that
  // turns out stale (rare) only gives back a lease it held for a moment.
  const [checked, batchRead, leaseTaken] = await Promise.allSettled([
    isStaleOrDuplicate(ports, message),
    readBatch(completionIdOf(message)),
    ports.leases.acquire({ holder, cap: leaseCap, ttlMs: config.leaseTtlMs, now: now.getTime() }),
  ]);
  const lease = leaseTaken.status === 'fulfilled' ? leaseTaken.value : null;
  // A lease we only renewed belongs to a running execution of this attempt: never ours to release.
  const releaseIfNew = async () => {
    if (lease?.acquired && !lease.alreadyHeld) await ports.leases.release(holder);
  };
  if (checked.status === 'rejected' || batchRead.status === 'rejected' || !lease) {
    await releaseIfNew();
    throw [checked, batchRead, leaseTaken].find((read) => read.status === 'rejected')?.reason;
  }
  const check = checked.value;
  const batch = batchRead.value;
  if (check.stale || !batch) {
    await releaseIfNew();
    await ports.queue.delete(receipt);
    return untouched('dropped');
  }
  if (batch.stop) {
    await releaseIfNew();
    await endStopped(ports, message, check.row, batch.stop);
    await ports.queue.delete(receipt);
    return untouched('not_submitted');
  }
  if (!lease.acquired) return untouched('no_slot');

  // Once started, the execution owns the row and its lease (its Complete, or row-execution-ended,
  // releases it; a row that finished meanwhile is seen by Submit). Marking the row `submitting`
  // only shows that it left the queue, so it goes out with the start rather than a round trip
  // before it, and applies only while the row still waits under this message.
  const [startedRun] = await Promise.allSettled([
    ports.workflows.start(rowExecutionName(message), {
      ...message,
      row_key: deriveRowKey(message.batch_id, message.row),
      holder,
    }),
    ports.batches.moveRow(message.batch_id, message.row, {
      move: 'claimed',
      attempt: message.attempt,
      dispatch: message.dispatch,
      at: now.toISOString(),
    }),
  ]);
  if (startedRun.status === 'rejected') {
    // The message comes back after its visibility timeout and is started then, by the same name.
    await releaseIfNew();
    return untouched('start_failed');
  }
  const started = startedRun.value;
  await ports.queue.delete(receipt);
  return { fate: started, tookSlot: !lease.alreadyHeld };
};

/**
 * A message received but not started now (another dispatcher took the slot first): offered
 * again in a few seconds as a fresh copy, the received one deleted. Making the same message
 * visible again would count this receive toward the queue's dead-letter limit, and waiting for a
 * slot is not a failed delivery: dispatchers racing on every freed slot would, ten lost races
 * later, move a healthy row to the dead-letter queue and leave its batch waiting forever. A crash
 * between the two calls leaves both copies, which is safe: a duplicate starts nothing twice.
 */
const putBack = async (ports: Ports, received: ReceivedRow, seconds: number): Promise<void> => {
  await ports.queue.send([{ message: received.message, delaySeconds: seconds }]);
  await ports.queue.delete(received.receipt);
};

/** A run's report before it has counted anything. */
const emptyReport = (recovered: number): DispatchReport => ({
  outcome: 'dispatched',
  recovered,
  cap: null,
  others: null,
  held: 0,
  free: 0,
  received: 0,
  started: 0,
  alreadyStarted: 0,
  dropped: 0,
  notSubmitted: 0,
  deferred: 0,
  startFailures: 0,
  toppedUp: 0,
  topUpFailures: 0,
});

/** Tops every window up, counted in `report`; how many messages it sent. */
const windowTopUp =
  (ports: Ports, config: DispatchConfig, report: DispatchReport) => async (): Promise<number> => {
    const done = await topUpWindows(ports, { holdMs: config.topUpHoldMs });
    report.toppedUp += done.sent;
    report.topUpFailures += done.failures;
    if (done.detail !== undefined) report.topUpDetail = done.detail;
    return done.sent;
  };

/**
 * One dispatcher run: recovers expired leases (unless kicked), counts the free slots, then takes
 * row messages and starts a Row workflow for each under a new lease while slots are free and time
 * is left. Gives a report of what it did. A 401/403 from the service ends the batches' queued rows
 * `not_submitted` instead; a failed balance read ends the run for the schedule to try again.
 */
export const dispatchRows = async (ports: Ports, config: DispatchConfig): Promise<DispatchReport> => {
  const startedAt = ports.clock.now().getTime();
  const timeLeft = () => ports.clock.now().getTime() - startedAt < config.maxRuntimeMs;
  const recovered = config.recoverExpired === false ? [] : await ports.leases.recoverExpired(startedAt);
  const report = emptyReport(recovered.length);
  const topUp = windowTopUp(ports, config, report);
  if (config.topUpFirst) await topUp();

  const retrySeconds = queueDelaySeconds(ports.clock, NO_SLOT_RETRY_SECONDS);
  // A freed slot's message is received while the slots are counted, not after.
  const [counted, early] = await Promise.all([
    countSlots(ports, config.balanceMemo, config.capOverride, startedAt),
    config.freedSlot ? ports.queue.receive(1) : Promise.resolve([]),
  ]);
  report.received = early.length;
  if (counted.kind !== 'counted') {
    // Not ours to start now: visible again at once for a stop's drain, in a few seconds otherwise.
    for (const received of early) await putBack(ports, received, counted.kind === 'stop' ? 0 : retrySeconds);
    report.deferred += early.length;
    if (counted.kind === 'stop')
      return drainOnStop(ports, config, { error: counted.error, startedAt, topUp }, report);
    return { ...report, outcome: 'balance_unavailable', detail: counted.detail };
  }
  const { cap, others, held } = counted;
  const free = cap - others - held;
  Object.assign(report, { cap, others, held, free: Math.max(0, free) });
  if (free <= 0) {
    for (const received of early) await putBack(ports, received, retrySeconds);
    report.deferred += early.length;
    return { ...report, outcome: 'no_free_slots' };
  }
  await fillSlots(ports, config, { cap, others, free, early, retrySeconds, timeLeft, topUp }, report);
  return report;
};

/**
 * Receives and dispatches messages while slots are free and time is left, counting each in
 * `report`. A refused lease or a failed start ends the filling; the messages still in hand go back.
 */
const fillSlots = async (
  ports: Ports,
  config: DispatchConfig,
  run: {
    cap: number;
    others: number;
    free: number;
    early: ReceivedRow[];
    retrySeconds: number;
    timeLeft: () => boolean;
    topUp: () => Promise<number>;
  },
  report: DispatchReport,
): Promise<void> => {
  const { cap, others, retrySeconds, timeLeft, topUp } = run;
  let free = run.free;
  const readBatch = batchReader(ports.batches);
  let filling = true;
  let inHand = run.early;
  while (filling && free > 0 && timeLeft()) {
    let messages = inHand;
    inHand = [];
    if (messages.length === 0) {
      // After a freed slot's message, count again before taking more: a slot that looked free
      // too is most likely another kick's, whose dispatcher is filling it right now.
      if (config.freedSlot && report.received > 0) {
        free = cap - others - (await ports.leases.list()).length;
        if (free <= 0) break;
      }
      messages = await ports.queue.receive(Math.min(free, 10));
      // Empty with slots free: the windows may have drained. Topped up, the queue is looked at again.
      if (messages.length === 0 && (await topUp()) > 0)
        messages = await ports.queue.receive(Math.min(free, 10));
      report.received += messages.length;
    }
    if (messages.length === 0) break;
    for (const received of messages) {
      if (!filling || free <= 0) {
        await putBack(ports, received, retrySeconds);
        report.deferred += 1;
        continue;
      }
      const { fate, tookSlot } = await dispatchOne(ports, config, received, cap - others, readBatch);
      if (tookSlot) free -= 1;
      switch (fate) {
        case 'started':
          report.started += 1;
          break;
        case 'already_started':
          report.alreadyStarted += 1;
          break;
        case 'dropped':
          report.dropped += 1;
          break;
        case 'not_submitted':
          report.notSubmitted += 1;
          break;
        case 'no_slot':
          await putBack(ports, received, retrySeconds);
          report.deferred += 1;
          filling = false;
          break;
        case 'start_failed':
          // Likely throttling or an outage: stop here, the kick or the schedule comes back.
          report.startFailures += 1;
          filling = false;
          break;
      }
    }
  }
};
