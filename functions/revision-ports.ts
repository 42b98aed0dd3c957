/** The ports of moving a batch's results forward, shared by finalize-answers and sweep-reviews. */
import { ports, service } from './runtime.js';

export const revisionPorts = async () => ({
  clock: ports.clock,
  service: await service(),
  objects: ports.objects(),
  batches: ports.batches(),
  reviews: ports.reviews(),
  events: ports.events(),
});
