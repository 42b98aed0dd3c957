/**
 * One run of the dispatcher: what it is told (its configuration, and how the event that started
 * it shapes the run) and what it reports.
 */
import { KickEvent } from '../core/records.js';
import type { BalanceMemo } from './free-slots.js';

/**
 * How a dispatcher run is set up: by its handler (cap, lease expiry, time budget) and by the event
 * that started it.
 */
export type DispatchConfig = {
  /** A lower cap than the organisation's `concurrency_limit` (CAP_OVERRIDE); null for none. */
  capOverride: number | null;
  /** How long a lease lasts unless renewed (Poll renews it while the classification runs). */
  leaseTtlMs: number;
  /** Stop receiving after this long, leaving time to finish the messages in hand. */
  maxRuntimeMs: number;
  /**
   * Remembers what GET /balance said about everyone else, across runs of a warm dispatcher:
   * a finishing row kicks it every few seconds, and others' usage does not change that fast.
   * Absent: read the balance on every run.
   */
  balanceMemo?: BalanceMemo;
  /** Look for leases whose holder died (the schedule's run); kicks skip it, acquire recovers anyway. */
  recoverExpired?: boolean;
  /** Kicked by a row that released its lease: fill that slot first, counting meanwhile. */
  freedSlot?: boolean;
  /**
   * Top every batch's window of the rows queue up before filling slots (the schedule's run); any
   * run tops them up when it finds the queue empty with slots free.
   */
  topUpFirst?: boolean;
  /** How long a run may hold a batch's top-up, in real ms: the dispatcher's longest life (its timeout). */
  topUpHoldMs: number;
};

/**
 * Gives how a run goes, from the event that started it. A kick fills fast: a freed slot's message
 * first, no look for leases whose holder died (the schedule's run, every minute, does that; a full
 * scope makes acquire recover them anyway), and windows topped up only if the queue runs dry.
 * Anything else is a full run.
 */
export const runOptionsFor = (
  event: unknown,
): Pick<DispatchConfig, 'recoverExpired' | 'freedSlot' | 'topUpFirst'> => {
  const kick = KickEvent.safeParse(event);
  return {
    recoverExpired: !kick.success,
    freedSlot: kick.success && kick.data.reason === 'slot_freed',
    topUpFirst: !kick.success,
  };
};

/** What a dispatcher run did: how it ended, the slots it counted, and what became of each message it took. */
export type DispatchReport = {
  /**
   * `dispatched`: slots were filled (maybe none, when the queue was empty);
   * `no_free_slots`: the cap is in use; `balance_unavailable`: GET /balance failed, the
   * schedule tries again; `stopped`: the key was refused (401/403), queued rows ended
   * `not_submitted`.
   */
  outcome: 'dispatched' | 'no_free_slots' | 'balance_unavailable' | 'stopped';
  /** Leases recovered from holders that died. */
  recovered: number;
  cap: number | null;
  /** The organisation's classifications in progress that are not ours. */
  others: number | null;
  /** Leases we held when the run began. */
  held: number;
  /** Slots free when the run began. */
  free: number;
  received: number;
  started: number;
  /** Executions found already started (a redelivered message whose start had happened). */
  alreadyStarted: number;
  /** Stale or duplicate messages deleted. */
  dropped: number;
  /** Rows ended `not_submitted` because their batch stopped. */
  notSubmitted: number;
  /** Messages put back because no lease was free. */
  deferred: number;
  startFailures: number;
  /** Messages sent from the batch table to top windows up. */
  toppedUp: number;
  /** Batches whose top-up failed (left for the next run); `topUpDetail` says the last one's error, scrubbed. */
  topUpFailures: number;
  topUpDetail?: string;
  /** Why the run ended early, scrubbed. */
  detail?: string;
};
