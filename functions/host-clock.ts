/**
 * The clock the handlers of this process read. The clock is the one port the host of the
 * process supplies: Lambda supplies none, and the handlers read the system clock, whose spans
 * of production time are themselves. The local runtime runs the service and the workflows'
 * Waits faster than AWS and loads this same bundle in plain Node processes; its bootstrap
 * (local/runtime/lambda-bootstrap.mjs) sets, before it imports the handler's module, a clock
 * whose spans are shorter in that proportion. So the code deployed holds no setting of the
 * local runtime: the core compares elapsed time with `clock.span(threshold)` whatever clock it
 * is handed (docs/architecture.md, section 6, "Time scale").
 */
import type { Clock } from '../shared/pipeline/core/ports.js';

/** The host's clock is found under `Symbol.for(HOST_CLOCK_KEY)` on the global object. */
export const HOST_CLOCK_KEY = 'ncm-batch-classifier.host-clock';

/** Wall-clock time, and production spans as they are: the clock on AWS. */
export const systemClock: Clock = { now: () => new Date(), span: (productionMs) => productionMs };

const isClock = (value: unknown): value is Clock =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Clock).now === 'function' &&
  typeof (value as Clock).span === 'function';

/**
 * The host's clock when it set one, else the system clock. A value that is not a clock fails
 * the cold start: a host that meant to supply one would otherwise run at the wrong pace unseen.
 */
export const processClock = (host: object = globalThis): Clock => {
  const supplied = (host as Record<symbol, unknown>)[Symbol.for(HOST_CLOCK_KEY)];
  if (supplied === undefined) return systemClock;
  if (!isClock(supplied)) {
    throw new TypeError(`the host's clock (Symbol.for('${HOST_CLOCK_KEY}')) needs now() and span()`);
  }
  return supplied;
};
