/**
 * The sandbox clock: real time plus an offset that only grows (`POST /__admin/clock`).
 * Everything time-based in the sandbox — runs, the 30-day abandonment, the 24-hour
 * idempotency lifetime, signed-URL expiry, the slot integral — reads this clock, so a test
 * can jump a month ahead without waiting.
 */
export type SandboxClock = {
  /** Sandbox time in epoch milliseconds. Never goes backwards. */
  now(): number;
  /** Moves the sandbox clock forward by `ms` (≥ 0). */
  advance(ms: number): void;
  /** How far the sandbox clock is ahead of real time, in milliseconds. */
  offsetMs(): number;
  /** Back to real time (used by `POST /__admin/reset`, which also clears every record). */
  reset(offsetMs?: number): void;
};

export const createSandboxClock = (realNow: () => number = Date.now, initialOffsetMs = 0): SandboxClock => {
  let offset = initialOffsetMs;
  // A real clock may step back (NTP); the sandbox's events must still come in order.
  let last = Number.NEGATIVE_INFINITY;
  return {
    now() {
      last = Math.max(last, realNow() + offset);
      return last;
    },
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot advance the clock by ${ms} ms`);
      offset += ms;
    },
    offsetMs: () => offset,
    reset(offsetMs = 0) {
      offset = offsetMs;
      last = Number.NEGATIVE_INFINITY;
    },
  };
};

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
