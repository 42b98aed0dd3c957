/** Row workflow, Review: files the classifier's questions in the review table. */
import { reviewRow } from '../../shared/pipeline/row/review.js';
import { audit, batches, cache, clock, reviews } from '../port-builders.js';
import { portsFor } from '../runtime.js';
import { service } from '../service-port.js';

export const handler = async (state: unknown) =>
  reviewRow(await portsFor('row-review', { clock, batches, reviews, cache, audit, service }), state);
