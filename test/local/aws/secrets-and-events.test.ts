/**
 * Secrets Manager GetSecretValue and EventBridge PutEvents through the real clients
 * (JSON 1.1).
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RecordedEvent } from '../../../local/aws/eventbridge.js';
import { type LocalAws, startLocalAws } from '../../../local/aws/local-aws.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** For what the stand-ins do in the background, in real time. */
const WAIT = { timeout: 10_000, interval: 20 };

describe('Secrets Manager stand-in', () => {
  let aws: LocalAws;
  let secrets: SecretsManagerClient;

  beforeEach(async () => {
    aws = await startLocalAws({ log: 'silent' });
    secrets = new SecretsManagerClient({ endpoint: aws.endpoint, region: aws.region, credentials });
  });

  afterEach(async () => {
    secrets.destroy();
    await aws.close();
  });

  it('returns a secret string by name, full ARN and ARN without its suffix', async () => {
    const arn = aws.putSecret('tcs/api-key', 'tcs_sbx_classify_123');

    const byName = await secrets.send(new GetSecretValueCommand({ SecretId: 'tcs/api-key' }));
    const byArn = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    const byPartialArn = await secrets.send(new GetSecretValueCommand({ SecretId: arn.slice(0, -7) }));

    expect(arn).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:tcs\/api-key-[A-Za-z0-9]{6}$/);
    expect(byName.SecretString).toBe('tcs_sbx_classify_123');
    expect(byName).toMatchObject({ ARN: arn, Name: 'tcs/api-key', VersionStages: ['AWSCURRENT'] });
    expect(byArn.SecretString).toBe('tcs_sbx_classify_123');
    expect(byPartialArn.SecretString).toBe('tcs_sbx_classify_123');
  });

  it('answers to the exact ARN it was put under', async () => {
    const given = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:TcsApiKey-AbC123';
    expect(aws.putSecret(given, 'value')).toBe(given);
    const found = await secrets.send(new GetSecretValueCommand({ SecretId: given }));
    expect(found).toMatchObject({ Name: 'TcsApiKey', SecretString: 'value' });
  });

  it('raises ResourceNotFoundException for an unknown secret', async () => {
    const error = await secrets
      .send(new GetSecretValueCommand({ SecretId: 'missing' }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect((error as ResourceNotFoundException).message).toBe(
      "Secrets Manager can't find the specified secret.",
    );
  });
});

describe('EventBridge stand-in', () => {
  let aws: LocalAws;
  let events: EventBridgeClient;

  beforeEach(async () => {
    aws = await startLocalAws({ log: 'silent' });
    events = new EventBridgeClient({ endpoint: aws.endpoint, region: aws.region, credentials });
  });

  afterEach(async () => {
    events.destroy();
    await aws.close();
  });

  it('records put events in the envelope a target receives and tells the listeners', async () => {
    const heard: RecordedEvent[] = [];
    aws.onEvent((event) => heard.push(event));
    const summary = { batch_id: 'b1', rows: 3, billed_usd: 0.3 };

    const response = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: 'ncm-batches',
            Source: 'ncm-batch-classifier',
            DetailType: 'Batch Completed',
            Detail: JSON.stringify(summary),
          },
        ],
      }),
    );
    await vi.waitFor(() => expect(heard, 'the listener').toHaveLength(1), WAIT);

    expect(response.FailedEntryCount).toBe(0);
    expect(response.Entries).toHaveLength(1);
    expect(response.Entries?.[0]?.EventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(aws.events()).toHaveLength(1);
    expect(heard[0]).toEqual({
      eventBusName: 'ncm-batches',
      event: {
        version: '0',
        id: response.Entries?.[0]?.EventId,
        'detail-type': 'Batch Completed',
        source: 'ncm-batch-classifier',
        account: '000000000000',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        region: 'us-east-1',
        resources: [],
        detail: summary,
      },
    });
  });

  it('reports an entry EventBridge would refuse and records only the others', async () => {
    const response = await events.send(
      new PutEventsCommand({
        Entries: [
          { Source: 'ncm-batch-classifier', DetailType: 'Batch Completed', Detail: '{not json' },
          { Source: 'ncm-batch-classifier', DetailType: 'Batch Completed', Detail: '{}' },
        ],
      }),
    );

    expect(response.FailedEntryCount).toBe(1);
    expect(response.Entries?.[0]).toMatchObject({ ErrorCode: 'MalformedDetail' });
    expect(response.Entries?.[1]?.EventId).toBeDefined();
    expect(aws.events().map((recorded) => recorded.eventBusName)).toEqual(['default']);
  });
});
