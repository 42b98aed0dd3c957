/** The AWS adapters of the pipeline's ports, and the clients they run on. */
export * from './clients.js';
export * from './dynamo-audit-log.js';
export * from './dynamo-batch-store.js';
export * from './dynamo-check-store.js';
export type { DynamoAdapterConfig } from './dynamo-items.js';
export * from './dynamo-product-cache.js';
export * from './dynamo-review-store.js';
export * from './dynamo-sim-watch-store.js';
export * from './dynamo-slot-leases.js';
export * from './eventbridge-batch-events.js';
export * from './lambda-async-invoke.js';
export * from './lambda-dispatcher-kick.js';
export * from './lambda-partial-results-requests.js';
export * from './s3-file-links.js';
export * from './s3-object-store.js';
export * from './secrets.js';
export * from './sfn-workflows.js';
export * from './sqs-row-queue.js';
