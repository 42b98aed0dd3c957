/** Reading the API key from Secrets Manager: both shapes, and errors that never quote the value. */
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadApiKeyFromSecret } from '../../../shared/aws/secrets.js';

const SECRET_ID = 'arn:aws:secretsmanager:sa-east-1:123456789012:secret:tcs-api-key-AbCdEf';
const secrets = mockClient(SecretsManagerClient);
const client = new SecretsManagerClient({ region: 'sa-east-1' });
const load = () => loadApiKeyFromSecret({ client, secretId: SECRET_ID });

beforeEach(() => secrets.reset());

describe('loadApiKeyFromSecret', () => {
  it('reads a bare key, trimmed', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '  tcs_live_abc123\n' });
    expect(await load()).toBe('tcs_live_abc123');
    expect(secrets.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({ SecretId: SECRET_ID });
  });

  it('reads the api_key member of a JSON secret', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '{"api_key":"tcs_live_abc123","note":"x"}' });
    expect(await load()).toBe('tcs_live_abc123');
  });

  it.each([
    ['no SecretString (a binary secret)', undefined, 'has no SecretString, or an empty one'],
    ['an empty SecretString', '   ', 'has no SecretString, or an empty one'],
    ['JSON that does not parse', '{"api_key": "tcs_live_LEAKED', 'looks like JSON but does not parse'],
    ['JSON without api_key', '{"apiKey":"tcs_live_LEAKED"}', 'is JSON without a non-empty "api_key" string'],
    [
      'JSON with an empty api_key',
      '{"api_key":"  ","x":"tcs_live_LEAKED"}',
      'is JSON without a non-empty "api_key" string',
    ],
  ])('refuses %s, naming the secret and never its value', async (_case, SecretString, problem) => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString });
    const error = (await load().catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe(`secret ${SECRET_ID} ${problem}`);
    expect(`${error.message}\n${error.stack}\n${String(error.cause)}`).not.toContain('LEAKED');
  });

  it('lets Secrets Manager failures through', async () => {
    secrets.on(GetSecretValueCommand).rejects(
      new ResourceNotFoundException({
        message: 'Secrets Manager can’t find the specified secret.',
        $metadata: {},
      }),
    );
    await expect(load()).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});
