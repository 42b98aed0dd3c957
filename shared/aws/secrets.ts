/**
 * The service's API key, read from Secrets Manager at cold start. The environment holds
 * only the secret's id; the key never appears in an error, a log line or a stored record.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export type LoadApiKeyConfig = { client: SecretsManagerClient; secretId: string };

/**
 * The key from the secret's `SecretString`: the bare key, or JSON `{"api_key": "…"}` (the
 * shape of a secret made in the console as key/value pairs). Errors name the secret and
 * what is wrong with it, never any part of its value: not even the JSON parser's message,
 * which quotes the text it failed on.
 */
export const loadApiKeyFromSecret = async (config: LoadApiKeyConfig): Promise<string> => {
  const { SecretString } = await config.client.send(new GetSecretValueCommand({ SecretId: config.secretId }));
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
