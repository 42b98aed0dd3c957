/**
 * Stopping what the local pipeline started, on close() or on a failed start. Each piece is
 * registered as it comes up, with a rank; stopping runs the ranks in order (pieces of one rank
 * in the order they were registered), each once, and a piece that fails to stop is logged,
 * never allowed to keep the rest running:
 *
 *   -1 running batches (interrupt.ts)  0 waits  1 schedules, listeners  2 local AWS (aborts
 *   executions before the functions they call stop)  3 Lambda processes  4 DynamoDB, S3,
 *   sandbox  5 SDK clients  9 the data folder's lock
 */

export const STOP_RANK = {
  runningBatches: -1,
  waits: 0,
  schedulesAndListeners: 1,
  localAws: 2,
  lambdaProcesses: 3,
  servers: 4,
  sdkClients: 5,
  dataFolderLock: 9,
} as const;

export type Shutdown = {
  /** Registers a piece to stop; `name` is what a failure to stop it logs. */
  add(name: string, rank: number, stop: () => Promise<void>): void;
  /** Stops everything registered so far, by rank; resolves when all have stopped or failed to. */
  stopAll(): Promise<void>;
};

export const createShutdown = (log: (line: string) => void): Shutdown => {
  const stops: { name: string; rank: number; stop: () => Promise<void> }[] = [];
  return {
    add: (name, rank, stop) => {
      stops.push({ name, rank, stop });
    },
    stopAll: async () => {
      for (const { name, stop } of stops.splice(0).sort((a, b) => a.rank - b.rank)) {
        try {
          await stop();
        } catch (error) {
          log(`stopping ${name} failed: ${String(error)}`);
        }
      }
    },
  };
};

/** Background work (rule deliveries, asynchronous invocations) close() may wait for. */
export type BackgroundWork = {
  /** The work still running; interrupt.ts lets it settle before the runtime stops. */
  inFlight: ReadonlySet<Promise<unknown>>;
  /** Adds work to `inFlight` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T>;
};

export const createBackgroundWork = (): BackgroundWork => {
  const inFlight = new Set<Promise<unknown>>();
  return {
    inFlight,
    track: (work) => {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work)).catch(() => undefined);
      return work;
    },
  };
};
