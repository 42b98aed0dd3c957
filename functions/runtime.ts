/**
 * The Lambda composition root: builds the ports from the environment, once per cold start,
 * each only when a handler first asks for it (a function's role grants only what its
 * handler uses, so building an unused client must not touch AWS).
 *
 * The API key is read from Secrets Manager when the module loads (cold start), never from
 * an environment variable's value: the environment holds only the secret's ARN.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoSlotLeases } from '../shared/aws/dynamo-slot-leases.js';
import {
  createAwsClients,
  createDynamoBatchStore,
  createDynamoProductCache,
  createDynamoReviewStore,
  createEventBridgeBatchEvents,
  createLambdaDispatcherKick,
  createS3ObjectStore,
  createSfnBatchWaiters,
  createSfnRowWorkflows,
  createSqsRowQueue,
  loadApiKeyFromSecret,
} from '../shared/aws/index.js';
import type { PipelinePorts } from '../shared/pipeline/core/index.js';
import { createTcsClient, type TcsClient } from '../shared/tcs/client.js';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'ncm-batch-classifier',
});

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
};

const once = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};

const aws = once(() => createAwsClients(process.env));

/**
 * The key, loaded at most once per container. A failed load is forgotten so the next
 * invocation tries again instead of failing forever on a transient Secrets Manager error.
 */
let apiKeyLoad: Promise<string> | undefined;
const apiKey = (): Promise<string> => {
  apiKeyLoad ??= loadApiKeyFromSecret({
    client: aws().secrets,
    secretId: required('TCS_API_KEY_SECRET_ARN'),
  }).catch((error: unknown) => {
    apiKeyLoad = undefined;
    throw error;
  });
  return apiKeyLoad;
};
// Cold start: begin reading the secret while the runtime finishes initialising.
if (process.env.TCS_API_KEY_SECRET_ARN) apiKey().catch(() => undefined);

const clients = new Map<string, Promise<TcsClient>>();
/**
 * The service client. `rateLimited: 'hand-back'` returns a 429 to the caller at once: a
 * creation that meets the cap goes back to the rows queue instead of holding a Lambda.
 */
export const service = (rateLimited: 'wait' | 'hand-back' = 'wait'): Promise<TcsClient> => {
  let client = clients.get(rateLimited);
  if (!client) {
    client = apiKey().then((key) =>
      createTcsClient({
        baseUrl: required('TCS_BASE_URL'),
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

export const timeScale = (): number => {
  const scale = Number(process.env.TIME_SCALE ?? '1');
  return Number.isFinite(scale) && scale > 0 ? scale : 1;
};

/** Long enough to cover the slow poll interval (30 s) many times over; each poll renews it. */
export const LEASE_TTL_MS = 10 * 60 * 1000;

export const capOverride = (): number | null => {
  const raw = process.env.CAP_OVERRIDE;
  if (!raw) return null;
  const cap = Number(raw);
  if (!Number.isInteger(cap) || cap < 1)
    throw new Error(`CAP_OVERRIDE must be a positive integer, got ${raw}`);
  return cap;
};

/** Each port, built on first use. */
export const ports = {
  clock: { now: () => new Date() },
  objects: once(() => createS3ObjectStore({ client: aws().s3, bucket: required('BUCKET_NAME') })),
  queue: once(() =>
    createSqsRowQueue({
      client: aws().sqs,
      queueUrl: required('ROWS_QUEUE_URL'),
      // Left for the DLQ by redrive; the id is enough to find it there.
      onMalformed: (message) => logger.error('malformed row message left for the DLQ', message),
    }),
  ),
  batches: once(() => createDynamoBatchStore({ client: aws().dynamo, tableName: required('BATCH_TABLE') })),
  reviews: once(() => createDynamoReviewStore({ client: aws().dynamo, tableName: required('REVIEW_TABLE') })),
  cache: once(() => createDynamoProductCache({ client: aws().dynamo, tableName: required('CACHE_TABLE') })),
  leases: once(() =>
    createDynamoSlotLeases({
      client: aws().dynamo,
      tableName: required('LEASE_TABLE'),
      scope: process.env.LEASE_SCOPE || 'org',
    }),
  ),
  workflows: once(() =>
    createSfnRowWorkflows({ client: aws().sfn, stateMachineArn: required('ROW_STATE_MACHINE_ARN') }),
  ),
  waiters: once(() => createSfnBatchWaiters({ client: aws().sfn })),
  events: once(() =>
    createEventBridgeBatchEvents({ client: aws().events, eventBusName: required('EVENT_BUS_NAME') }),
  ),
  kick: once(() =>
    createLambdaDispatcherKick({
      client: aws().lambda,
      functionName: required('DISPATCHER_FUNCTION_NAME'),
      // Best effort: the one-minute schedule fills the slot if the kick is lost.
      onError: (error) => logger.warn('dispatcher kick failed', error),
    }),
  ),
} satisfies { [K in Exclude<keyof PipelinePorts, 'service' | 'clock'>]: () => PipelinePorts[K] } & {
  clock: PipelinePorts['clock'];
};
