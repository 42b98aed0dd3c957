/**
 * The service's port for the functions that call the Tariff Classification Service: the client,
 * given the API key read from Secrets Manager when this module loads (the cold start), never from
 * an environment variable's value: the environment holds only the secret's ARN. Only the bundles
 * of the handlers that name this builder (port-builders.ts says why) read the key at all.
 */
import { loadApiKeyFromSecret, secretsRequester } from '../shared/aws/secrets.js';
import type { PipelinePorts } from '../shared/pipeline/core/ports.js';
import { createTcsClient, type TcsClient } from '../shared/tcs/client.js';
import { ENV, type PortUses } from './catalogue.js';
import { once, required } from './environment.js';
import { logger } from './runtime.js';

const secrets = once(() => secretsRequester(process.env));

/**
 * The key, loaded at most once per container. A failed load is forgotten so the next
 * invocation tries again instead of failing forever on a transient Secrets Manager error.
 */
let apiKeyLoad: Promise<string> | undefined;
const apiKey = (): Promise<string> => {
  apiKeyLoad ??= loadApiKeyFromSecret({
    secrets: secrets(),
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
 * Takes how the function meets the cap (`rateLimited`) and gives the service's client, one per
 * way, built once the key is read. `'hand-back'` returns a 429 to the caller at once: a creation
 * that meets the cap goes back to the rows queue instead of holding a Lambda.
 */
export const service = (rateLimited: NonNullable<PortUses['service']>): Promise<PipelinePorts['service']> => {
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
