/** Row workflow, Review: files the classifier's questions in the review table. */
import { reviewRow } from '../../shared/pipeline/row/index.js';
import { LEASE_TTL_MS, ports, service, timeScale } from '../runtime.js';

export const handler = async (state: unknown) =>
  reviewRow(
    { clock: ports.clock, service: await service(), batches: ports.batches(), reviews: ports.reviews() },
    { leaseTtlMs: LEASE_TTL_MS, timeScale: timeScale() },
    state,
  );
