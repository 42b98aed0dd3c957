/**
 * Asking for a batch's partial results (`PartialResultsRequests` port): an asynchronous invoke of
 * write-partial-results with `{ batch_id }`. Best effort (lambda-async-invoke.ts): the next
 * finishing row asks again.
 */
import type { PartialResultsRequests } from '../pipeline/core/ports.js';
import { type AsyncInvokeConfig, asyncInvoker } from './lambda-async-invoke.js';

export const createLambdaPartialResultsRequests = (config: AsyncInvokeConfig): PartialResultsRequests => {
  const invoke = asyncInvoker(config, 'partial results request');
  return { request: (batchId) => invoke({ batch_id: batchId }) };
};
