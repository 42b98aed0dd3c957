/**
 * How each port of the pipeline's functions reaches AWS, one builder per port: a handler names the
 * builders of its own port set (`portsFor('row-poll', { clock, leases, service, kick })`), so that
 * its bundle holds those adapters and their SDK clients and no others. A function that never
 * touches S3 neither loads nor compiles the S3 client at its cold start (a fifth to a third of a
 * small function's bundle).
 *
 * Each builder and each client is built once per container, on first use. The `@__PURE__` marks
 * tell esbuild that making a builder has no effect of its own, so one no handler names is left out.
 * Two ports have modules of their own: the service's (service-port.ts), whose key is read at cold
 * start, and the bucket's (bucket-port.ts, or streaming-bucket-port.ts where the bucket streams),
 * whose adapter brings the S3 client.
 */

import {
  createDynamoClient,
  createEventBridgeClient,
  createSfnClient,
  createSnsClient,
  createSqsClient,
} from '../shared/aws/clients.js';
import { createDynamoAuditLog } from '../shared/aws/dynamo-audit-log.js';
import { createDynamoBatchStore } from '../shared/aws/dynamo-batch-store.js';
import { createDynamoCheckStore } from '../shared/aws/dynamo-check-store.js';
import { createDynamoProductCache } from '../shared/aws/dynamo-product-cache.js';
import { createDynamoReviewStore } from '../shared/aws/dynamo-review-store.js';
import { createDynamoSimWatchStore } from '../shared/aws/dynamo-sim-watch-store.js';
import { createDynamoSlotLeases } from '../shared/aws/dynamo-slot-leases.js';
import { createDynamoWriterRecords } from '../shared/aws/dynamo-writer-records.js';
import { createEventBridgeBatchEvents } from '../shared/aws/eventbridge-batch-events.js';
import { lambdaRequester } from '../shared/aws/lambda-async-invoke.js';
import { createLambdaDispatcherKick } from '../shared/aws/lambda-dispatcher-kick.js';
import { createLambdaPartialResultsRequests } from '../shared/aws/lambda-partial-results-requests.js';
import { createSfnBatchWaiters, stepFunctionsRequester } from '../shared/aws/sfn-batch-waiters.js';
import { createSfnRowWorkflows } from '../shared/aws/sfn-workflows.js';
import { createSnsNotifier } from '../shared/aws/sns-notifier.js';
import { createSqsRowQueue } from '../shared/aws/sqs-row-queue.js';
import type { PipelinePorts } from '../shared/pipeline/core/ports.js';
import { ENV } from './catalogue.js';
import { once, required } from './environment.js';
import { processClock } from './host-clock.js';
import { logger, type PortBuildersOf } from './runtime.js';

const dynamo = /* @__PURE__ */ once(() => createDynamoClient(process.env));
const sqs = /* @__PURE__ */ once(() => createSqsClient(process.env));
const sfn = /* @__PURE__ */ once(() => createSfnClient(process.env));
const eventBridge = /* @__PURE__ */ once(() => createEventBridgeClient(process.env));
const lambda = /* @__PURE__ */ once(() => lambdaRequester(process.env));
const sns = /* @__PURE__ */ once(() => createSnsClient(process.env));

/**
 * The clock, read once when it is first asked for: the system clock, or the one the host of this
 * process set before loading the bundle (functions/host-clock.ts says why the host supplies it).
 */
export const clock = /* @__PURE__ */ once((): PipelinePorts['clock'] => processClock());

/** The rows queue, through SQS; a message it cannot read is left for the DLQ, logged. */
export const queue = /* @__PURE__ */ once((): PipelinePorts['queue'] =>
  createSqsRowQueue({
    client: sqs(),
    queueUrl: required(ENV.rowsQueueUrl),
    // Left for the DLQ by redrive; the id is enough to find it there.
    onMalformed: (message) => logger.error('malformed row message left for the DLQ', message),
  }),
);

/** The batch table's batches and rows. */
export const batches = /* @__PURE__ */ once((): PipelinePorts['batches'] =>
  createDynamoBatchStore({ client: dynamo(), tableName: required(ENV.batchTable) }),
);

/** The review table's questions waiting for answers. */
export const reviews = /* @__PURE__ */ once((): PipelinePorts['reviews'] =>
  createDynamoReviewStore({ client: dynamo(), tableName: required(ENV.reviewTable) }),
);

/** The review table's verdicts waiting for a person's check. */
export const checks = /* @__PURE__ */ once((): PipelinePorts['checks'] =>
  createDynamoCheckStore({ client: dynamo(), tableName: required(ENV.reviewTable) }),
);

/** The stack's topic of notices. */
export const notifier = /* @__PURE__ */ once((): PipelinePorts['notifier'] =>
  createSnsNotifier({ client: sns(), topicArn: required(ENV.noticesTopicArn) }),
);

/** The review table's records of who wrote each file dropped into answers/ and inbox/. */
export const writers = /* @__PURE__ */ once((): PipelinePorts['writers'] =>
  createDynamoWriterRecords({ client: dynamo(), tableName: required(ENV.reviewTable) }),
);

/** The review table's SIM openings waiting for the registry's confirmation. */
export const simWatches = /* @__PURE__ */ once((): PipelinePorts['simWatches'] =>
  createDynamoSimWatchStore({ client: dynamo(), tableName: required(ENV.reviewTable) }),
);

/** The audit's events, in the batch table. */
export const audit = /* @__PURE__ */ once((): PipelinePorts['audit'] =>
  createDynamoAuditLog({ client: dynamo(), tableName: required(ENV.batchTable) }),
);

/** The product cache. */
export const cache = /* @__PURE__ */ once((): PipelinePorts['cache'] =>
  createDynamoProductCache({ client: dynamo(), tableName: required(ENV.cacheTable) }),
);

/** The slot leases of the cap's scope (`slots#<scope>`, `org` unless the stack says otherwise). */
export const leases = /* @__PURE__ */ once((): PipelinePorts['leases'] =>
  createDynamoSlotLeases({
    client: dynamo(),
    tableName: required(ENV.leaseTable),
    scope: process.env[ENV.leaseScope] || 'org',
  }),
);

/** Starting Row workflow executions. */
export const workflows = /* @__PURE__ */ once((): PipelinePorts['workflows'] =>
  createSfnRowWorkflows({ client: sfn(), stateMachineArn: required(ENV.rowStateMachineArn) }),
);

/** Handing a waiting Batch workflow its rows' end (task tokens). */
export const waiters = /* @__PURE__ */ once((): PipelinePorts['waiters'] =>
  createSfnBatchWaiters({ sfn: stepFunctionsRequester(process.env) }),
);

/** `Batch Completed` and the other batch events, onto the event bus. */
export const events = /* @__PURE__ */ once((): PipelinePorts['events'] =>
  createEventBridgeBatchEvents({ client: eventBridge(), eventBusName: required(ENV.eventBusName) }),
);

/** The dispatcher's kick: an Event invoke of dispatch-rows, best effort. */
export const kick = /* @__PURE__ */ once((): PipelinePorts['kick'] =>
  createLambdaDispatcherKick({
    lambda: lambda(),
    functionName: required(ENV.dispatcherFunctionName),
    // Best effort: the one-minute schedule fills the slot if the kick is lost.
    onError: (error) => logger.warn('dispatcher kick failed', error),
  }),
);

/** A request for partial results: an Event invoke of write-partial-results, best effort. */
const partials = /* @__PURE__ */ once((): PipelinePorts['partials'] =>
  createLambdaPartialResultsRequests({
    lambda: lambda(),
    functionName: required(ENV.partialResultsFunctionName),
    // Best effort: the next finishing row asks again.
    onError: (error) => logger.warn('partial results request failed', error),
  }),
);

/**
 * The builders of the port set row-complete and row-execution-ended share (COMPLETING_A_ROW in
 * catalogue.ts): an ended execution completes its row as Complete does.
 */
export const completingARow = {
  clock,
  batches,
  cache,
  leases,
  queue,
  kick,
  waiters,
  partials,
  audit,
} satisfies PortBuildersOf<'row-complete'> & PortBuildersOf<'row-execution-ended'>;
