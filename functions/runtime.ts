/**
 * The Lambda composition root: builds the ports from the environment, once per cold start,
 * each only when a handler first asks for it. A handler asks for its function's port set,
 * `portsFor(name)`, the one its description gives (functions/catalogue.ts), and the role is
 * granted from that same description: a handler gets no port its role cannot use.
 *
 * The API key is read from Secrets Manager when the module loads (cold start), never from
 * an environment variable's value: the environment holds only the secret's ARN.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { createAwsClients } from '../shared/aws/clients.js';
import { createDynamoAuditLog } from '../shared/aws/dynamo-audit-log.js';
import { createDynamoBatchStore } from '../shared/aws/dynamo-batch-store.js';
import { createDynamoCheckStore } from '../shared/aws/dynamo-check-store.js';
import { createDynamoProductCache } from '../shared/aws/dynamo-product-cache.js';
import { createDynamoReviewStore } from '../shared/aws/dynamo-review-store.js';
import { createDynamoSimWatchStore } from '../shared/aws/dynamo-sim-watch-store.js';
import { createDynamoSlotLeases } from '../shared/aws/dynamo-slot-leases.js';
import { createEventBridgeBatchEvents } from '../shared/aws/eventbridge-batch-events.js';
import { createLambdaDispatcherKick } from '../shared/aws/lambda-dispatcher-kick.js';
import { createLambdaPartialResultsRequests } from '../shared/aws/lambda-partial-results-requests.js';
import { createS3ObjectStore } from '../shared/aws/s3-object-store.js';
import { loadApiKeyFromSecret } from '../shared/aws/secrets.js';
import { createSfnBatchWaiters, createSfnRowWorkflows } from '../shared/aws/sfn-workflows.js';
import { createSqsRowQueue } from '../shared/aws/sqs-row-queue.js';
import type { HandlerName } from '../shared/contract.js';
import type { PipelinePorts } from '../shared/pipeline/core/ports.js';
import { createTcsClient, type TcsClient } from '../shared/tcs/client.js';
import {
  ENV,
  type EnvName,
  FUNCTION_CATALOGUE,
  type PortName,
  type PortNamesOf,
  type PortUses,
} from './catalogue.js';
import { once, required } from './environment.js';
import { processClock } from './host-clock.js';

export const logger = new Logger({
  serviceName: process.env[ENV.serviceName] ?? 'ncm-batch-classifier',
});

const aws = once(() => createAwsClients(process.env));

/**
 * The key, loaded at most once per container. A failed load is forgotten so the next
 * invocation tries again instead of failing forever on a transient Secrets Manager error.
 */
let apiKeyLoad: Promise<string> | undefined;
const apiKey = (): Promise<string> => {
  apiKeyLoad ??= loadApiKeyFromSecret({
    client: aws().secrets,
    secretId: required(ENV.tcsApiKeySecretArn),
  }).catch((error: unknown) => {
    apiKeyLoad = undefined;
    throw error;
  });
  return apiKeyLoad;
};
// Cold start: begin reading the secret while the runtime finishes initialising.
if (process.env[ENV.tcsApiKeySecretArn]) apiKey().catch(() => undefined);

const clients = new Map<string, Promise<TcsClient>>();
/**
 * The service client. `rateLimited: 'hand-back'` returns a 429 to the caller at once: a
 * creation that meets the cap goes back to the rows queue instead of holding a Lambda.
 */
const service = (rateLimited: NonNullable<PortUses['service']>): Promise<TcsClient> => {
  let client = clients.get(rateLimited);
  if (!client) {
    client = apiKey().then((key) =>
      createTcsClient({
        baseUrl: required(ENV.tcsBaseUrl),
        apiKey: key,
        retry: { retryRateLimited: rateLimited === 'wait', maxElapsedMs: 45_000 },
        logger,
        userAgent: 'ncm-batch-classifier',
      }),
    );
    client.catch(() => clients.delete(rateLimited));
    clients.set(rateLimited, client);
  }
  return client;
};

/** Long enough to cover the slow poll interval (30 s) many times over; Poll renews it once a third has gone. */
export const LEASE_TTL_MS = 10 * 60 * 1000;

/** A positive integer setting of the environment, or null when it is not set. */
const positiveSetting = (name: EnvName): number | null => {
  const raw = process.env[name];
  if (!raw) return null;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
};

export const capOverride = (): number | null => positiveSetting(ENV.capOverride);

/** The ceiling a deployment puts on a batch's wait for its rows, in seconds; null: none. */
export const maxWaitSeconds = (): number | null => {
  const hours = positiveSetting(ENV.batchTimeoutHours);
  return hours === null ? null : hours * 3600;
};

/**
 * Read once, when the bundle loads: the system clock, or the one the host of this process set
 * before loading it (functions/host-clock.ts says why the host supplies it).
 */
const clock = processClock();

/**
 * How each port is built, given how the function uses it; each but the clock and the service
 * once per container, on first use. Keyed by PipelinePorts' names, and PortsOf picks from
 * PipelinePorts: the catalogue's port names and the core's cannot differ.
 */
const portBuilders: {
  [P in keyof PipelinePorts]: (use: NonNullable<PortUses[P]>) => PipelinePorts[P] | Promise<PipelinePorts[P]>;
} = {
  clock: () => clock,
  service: (rateLimited) => service(rateLimited),
  objects: once(() => createS3ObjectStore({ client: aws().s3, bucket: required(ENV.bucketName) })),
  queue: once(() =>
    createSqsRowQueue({
      client: aws().sqs,
      queueUrl: required(ENV.rowsQueueUrl),
      // Left for the DLQ by redrive; the id is enough to find it there.
      onMalformed: (message) => logger.error('malformed row message left for the DLQ', message),
    }),
  ),
  batches: once(() => createDynamoBatchStore({ client: aws().dynamo, tableName: required(ENV.batchTable) })),
  reviews: once(() =>
    createDynamoReviewStore({ client: aws().dynamo, tableName: required(ENV.reviewTable) }),
  ),
  checks: once(() => createDynamoCheckStore({ client: aws().dynamo, tableName: required(ENV.reviewTable) })),
  simWatches: once(() =>
    createDynamoSimWatchStore({ client: aws().dynamo, tableName: required(ENV.reviewTable) }),
  ),
  audit: once(() => createDynamoAuditLog({ client: aws().dynamo, tableName: required(ENV.batchTable) })),
  cache: once(() => createDynamoProductCache({ client: aws().dynamo, tableName: required(ENV.cacheTable) })),
  leases: once(() =>
    createDynamoSlotLeases({
      client: aws().dynamo,
      tableName: required(ENV.leaseTable),
      scope: process.env[ENV.leaseScope] || 'org',
    }),
  ),
  workflows: once(() =>
    createSfnRowWorkflows({ client: aws().sfn, stateMachineArn: required(ENV.rowStateMachineArn) }),
  ),
  waiters: once(() => createSfnBatchWaiters({ client: aws().sfn })),
  events: once(() =>
    createEventBridgeBatchEvents({ client: aws().events, eventBusName: required(ENV.eventBusName) }),
  ),
  kick: once(() =>
    createLambdaDispatcherKick({
      client: aws().lambda,
      functionName: required(ENV.dispatcherFunctionName),
      // Best effort: the one-minute schedule fills the slot if the kick is lost.
      onError: (error) => logger.warn('dispatcher kick failed', error),
    }),
  ),
  partials: once(() =>
    createLambdaPartialResultsRequests({
      client: aws().lambda,
      functionName: required(ENV.partialResultsFunctionName),
      // Best effort: the next finishing row asks again.
      onError: (error) => logger.warn('partial results request failed', error),
    }),
  ),
};

export type PortsOf<N extends HandlerName> = Pick<PipelinePorts, PortNamesOf<N>>;

/** The ports the function's description gives its handler, each built once per container. */
export const portsFor = async <N extends HandlerName>(name: N): Promise<PortsOf<N>> => {
  const uses: PortUses = FUNCTION_CATALOGUE[name].ports;
  const built = await Promise.all(
    Object.entries(uses).map(async ([port, use]) => [
      port,
      await (portBuilders[port as PortName] as (use: unknown) => unknown)(use),
    ]),
  );
  return Object.fromEntries(built) as PortsOf<N>;
};
