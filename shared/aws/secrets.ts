/**
 * The service's API key, read from Secrets Manager at cold start. The environment holds
 * only the secret's id; the key never appears in an error, a log line or a stored record.
 * The read is Secrets Manager's JSON call `GetSecretValue` as a signed request (signed-requests.ts):
 * the client would bring every operation of its service into the bundles for this one.
 */
import { type AwsRequester, type AwsService, awsRequester } from './signed-requests.js';

/** Secrets Manager, as its requests are signed and addressed. */
const SECRETS_MANAGER: AwsService = {
  signingName: 'secretsmanager',
  endpointKey: 'SECRETS_MANAGER',
  attemptTimeoutMs: 10_000,
};

/** Takes the environment and gives a requester to Secrets Manager (its region, endpoint and credentials). */
export const secretsRequester = (env: NodeJS.ProcessEnv = process.env): AwsRequester =>
  awsRequester(SECRETS_MANAGER, env);

export type LoadApiKeyConfig = { secrets: AwsRequester; secretId: string };

/** The secret's `SecretString`, as `GetSecretValue` answers it. */
const secretStringOf = async (config: LoadApiKeyConfig): Promise<string | undefined> => {
  const answer = await config.secrets({
    method: 'POST',
    path: '/',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'secretsmanager.GetSecretValue',
    },
    body: JSON.stringify({ SecretId: config.secretId }),
  });
  const { SecretString } = (await answer.json()) as { SecretString?: unknown };
  return typeof SecretString === 'string' ? SecretString : undefined;
};

/**
 * The key from the secret's `SecretString`: the bare key, or JSON `{"api_key": "…"}` (the
 * shape of a secret made in the console as key/value pairs). Errors name the secret and
 * what is wrong with it, never any part of its value: not even the JSON parser's message,
 * which quotes the text it failed on.
 */
export const loadApiKeyFromSecret = async (config: LoadApiKeyConfig): Promise<string> => {
  const SecretString = await secretStringOf(config);
  const problem = (what: string) => new Error(`secret ${config.secretId} ${what}`);
  const text = SecretString?.trim() ?? '';
  if (text === '') throw problem('has no SecretString, or an empty one');
  if (!text.startsWith('{')) return text;

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw problem('looks like JSON but does not parse');
  }
  const key = (parsed as { api_key?: unknown }).api_key;
  if (typeof key !== 'string' || key.trim() === '')
    throw problem('is JSON without a non-empty "api_key" string');
  return key.trim();
};
