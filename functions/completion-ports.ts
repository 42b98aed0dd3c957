/** The ports of completing a row, shared by row-complete and row-execution-ended. */
import { ports } from './runtime.js';

export const completionPorts = () => ({
  clock: ports.clock,
  queue: ports.queue(),
  batches: ports.batches(),
  cache: ports.cache(),
  leases: ports.leases(),
  waiters: ports.waiters(),
  kick: ports.kick(),
});
