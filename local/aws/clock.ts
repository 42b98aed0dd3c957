/**
 * The stand-ins' clock: real time plus an offset that only grows. Every time-based rule —
 * message delays, visibility timeouts, retention, long-poll deadlines, timestamps — reads
 * it, so a test can jump a delay of 15 minutes with `advance()` instead of waiting, while
 * real timers still fire in real time for everything that is not jumped.
 */
export type LocalAwsClock = {
  /** Epoch milliseconds. Never goes backwards. */
  now(): number;
  /** Moves the clock forward by `ms` (≥ 0) and tells the listeners. */
  advance(ms: number): void;
  /** Called after every `advance`, so whatever waits on time can look again. Returns an unsubscribe. */
  onAdvance(listener: () => void): () => void;
};

export const createLocalAwsClock = (realNow: () => number = Date.now): LocalAwsClock => {
  let offset = 0;
  // A real clock may step back (NTP); deadlines and visibility must still come in order.
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
  };
};
