/**
 * How many of the organisation's slots are free for us: the cap and others' use of it from
 * GET /balance (remembered for a while by a warm dispatcher), our own use from the leases.
 */
import type { TcsProblemError } from '../../tcs/errors.js';
import { scrubErrorText } from '../core/error-text.js';
import type { Clock, PipelinePorts } from '../core/ports.js';
import { isBatchStopError } from '../core/service-stop.js';

/**
 * The part of GET /balance that is not ours: the cap and others' classifications in
 * progress (`in_progress_count` less our leases at the moment it was read). Our own count
 * always comes fresh from the leases, so a remembered reading never hides our own changes.
 */
export type BalanceMemo = {
  /** The reading while it is younger than the memo's age, which the clock sizes. */
  recall(now: number, clock: Pick<Clock, 'span'>): { cap: number; others: number } | null;
  remember(now: number, reading: { cap: number; others: number }): void;
};

/** Gives an empty memo that keeps the last reading for `maxAgeMs` of production time. */
export const createBalanceMemo = (maxAgeMs: number): BalanceMemo => {
  let kept: { at: number; cap: number; others: number } | null = null;
  return {
    recall: (now, clock) =>
      kept && now - kept.at < clock.span(maxAgeMs) ? { cap: kept.cap, others: kept.others } : null,
    remember: (now, reading) => {
      kept = { at: now, ...reading };
    },
  };
};

/**
 * What counting the slots gives: the cap, others' use and our leases; or a 401/403 that stops the
 * batches; or why the balance could not be read.
 */
export type SlotCount =
  | { kind: 'counted'; cap: number; others: number; held: number }
  | { kind: 'stop'; error: TcsProblemError }
  | { kind: 'unavailable'; detail: string };

/**
 * Counts the cap (lowered by `capOverride`), others' use of it, and the leases we hold. GET
 * /balance (unless remembered) and our leases are read at once: as near the same moment as two
 * reads can be, and one round trip. A failed read is given back, never thrown.
 */
export const countSlots = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'leases'>,
  memo: BalanceMemo | undefined,
  capOverride: number | null,
  now: number,
): Promise<SlotCount> => {
  const remembered = memo?.recall(now, ports.clock) ?? null;
  const [balance, leases] = await Promise.all([
    remembered
      ? null
      : ports.service.getBalance().then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
    ports.leases.list(),
  ]);
  const held = leases.length;
  if (remembered) return { kind: 'counted', ...remembered, held };
  if (!balance?.ok) {
    const error = balance?.error;
    if (isBatchStopError(error)) return { kind: 'stop', error };
    return {
      kind: 'unavailable',
      detail: scrubErrorText(error instanceof Error ? error.message : String(error)),
    };
  }
  const reading = {
    cap: Math.min(capOverride ?? balance.value.concurrency_limit, balance.value.concurrency_limit),
    others: Math.max(0, balance.value.in_progress_count - held),
  };
  memo?.remember(now, reading);
  return { kind: 'counted', ...reading, held };
};
