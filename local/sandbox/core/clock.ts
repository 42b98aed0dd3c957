/**
 * A monotonic clock: real time plus an offset that only grows, so a test can jump a delay of 15
 * minutes or a month without waiting. The sandbox reads it for everything time-based (runs, the
 * 30-day abandonment, the 24-hour idempotency lifetime, signed-URL expiry, the slot integral;
 * `POST /__admin/clock` moves it), and so do the AWS stand-ins of local/aws/ (message delays,
 * visibility timeouts, retention, long-poll deadlines, timestamps). It lives here so the sandbox
 * stays usable on its own: local/aws/ imports it, never the other way round.
 */
export type MonotonicClock = {
  /** Epoch milliseconds. Never goes backwards (but for `reset`). */
  now(): number;
  /** Moves the clock forward by `ms` (≥ 0) and tells the listeners. */
  advance(ms: number): void;
  /** Called after every `advance`, so whatever waits on time can look again. Returns an unsubscribe. */
  onAdvance(listener: () => void): () => void;
  /** How far the clock is ahead of real time, in milliseconds. */
  offsetMs(): number;
  /** Back to real time, or to the offset given (the sandbox's `POST /__admin/reset`, which also clears every record). */
  reset(offsetMs?: number): void;
};

/** Takes a real-time source and a starting offset, and gives a clock that never runs backwards between resets. */
export const createMonotonicClock = (
  realNow: () => number = Date.now,
  initialOffsetMs = 0,
): MonotonicClock => {
  let offset = initialOffsetMs;
  // A real clock may step back (NTP); events, deadlines and visibility must still come in order.
  let last = Number.NEGATIVE_INFINITY;
  const listeners = new Set<() => void>();
  return {
    now() {
      last = Math.max(last, realNow() + offset);
      return last;
    },
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`cannot advance the clock by ${ms} ms`);
      offset += ms;
      for (const listener of [...listeners]) listener();
    },
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
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
