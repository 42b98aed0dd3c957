/**
 * Reading the API key from Secrets Manager, on the local Secrets Manager stand-in (its JSON wire
 * protocol, signed): both shapes, and errors that never quote the value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalAws, startLocalAws } from '../../../local/aws/local-aws.js';
import { loadApiKeyFromSecret, secretsRequester } from '../../../shared/aws/secrets.js';
import { AwsRequestError } from '../../../shared/aws/signed-requests.js';

let aws: LocalAws;
let cases = 0;
let secretId = '';

beforeAll(async () => {
  aws = await startLocalAws({ log: 'silent' });
});
afterAll(async () => {
  await aws.close();
});

/** The key read from a new secret holding `value` (none: a secret that does not exist). */
const loadFrom = (value?: string) => {
  secretId = `tcs-api-key-${++cases}`;
  if (value !== undefined) aws.putSecret(secretId, value);
  const secrets = secretsRequester({
    AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  return loadApiKeyFromSecret({ secrets, secretId });
};

describe('loadApiKeyFromSecret', () => {
  it('reads a bare key, trimmed', async () => {
    expect(await loadFrom('  tcs_live_abc123\n')).toBe('tcs_live_abc123');
  });

  it('reads the api_key member of a JSON secret', async () => {
    expect(await loadFrom('{"api_key":"tcs_live_abc123","note":"x"}')).toBe('tcs_live_abc123');
  });

  it.each([
    ['an empty SecretString', '   ', 'has no SecretString, or an empty one'],
    ['JSON that does not parse', '{"api_key": "tcs_live_LEAKED', 'looks like JSON but does not parse'],
    ['JSON without api_key', '{"apiKey":"tcs_live_LEAKED"}', 'is JSON without a non-empty "api_key" string'],
    [
      'JSON with an empty api_key',
      '{"api_key":"  ","x":"tcs_live_LEAKED"}',
      'is JSON without a non-empty "api_key" string',
    ],
  ])('refuses %s, naming the secret and never its value', async (_case, value, problem) => {
    const error = (await loadFrom(value).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe(`secret ${secretId} ${problem}`);
    expect(`${error.message}\n${error.stack}\n${String(error.cause)}`).not.toContain('LEAKED');
  });

  it('lets Secrets Manager failures through, named by Secrets Manager', async () => {
    const error = await loadFrom().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AwsRequestError);
    expect((error as AwsRequestError).name).toBe('ResourceNotFoundException');
  });
});
