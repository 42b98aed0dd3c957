/**
 * The process's SDK clients: built once, on first use; region from AWS_REGION; S3 set up
 * for s3rver only when asked; endpoints from the SDK's own AWS_ENDPOINT_URL_<SERVICE>.
 */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListEventBusesCommand } from '@aws-sdk/client-eventbridge';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { ListStateMachinesCommand } from '@aws-sdk/client-sfn';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AwsClients, createAwsClients } from '../../../shared/aws/clients.js';

afterEach(() => vi.unstubAllEnvs());

/** The little of an SDK client this test touches, the same for all seven. */
type AnyClient = {
  middlewareStack: {
    add(middleware: () => (args: { request: unknown }) => Promise<never>, options: object): void;
    remove(name: string): boolean;
  };
  send(command: object): Promise<unknown>;
};

/** Where a client would send a request: caught just before it leaves, so nothing is sent. */
const urlOfRequest = async (client: AnyClient, command: object): Promise<string> => {
  const stop = 'stopBeforeSend';
  client.middlewareStack.add(
    () => async (args) => {
      const request = args.request as { protocol: string; hostname: string; port?: number };
      throw Object.assign(new Error(stop), {
        url: `${request.protocol}//${request.hostname}:${request.port}`,
      });
    },
    { step: 'finalizeRequest', priority: 'high', name: stop },
  );
  try {
    await client.send(command);
    throw new Error('the request was not stopped');
  } catch (error) {
    return (error as { url?: string }).url ?? String(error);
  } finally {
    client.middlewareStack.remove(stop);
  }
};

describe('createAwsClients', () => {
  it('builds each client once and hands out the same one after', () => {
    const clients = createAwsClients({ AWS_REGION: 'sa-east-1' });
    expect(clients.s3).toBe(clients.s3);
    expect(clients.dynamo).toBe(clients.dynamo);
    expect(clients.sfn).not.toBe(createAwsClients({ AWS_REGION: 'sa-east-1' }).sfn);
  });

  it('takes the region from AWS_REGION', async () => {
    const clients = createAwsClients({ AWS_REGION: 'sa-east-1' });
    expect(await clients.sqs.config.region()).toBe('sa-east-1');
    expect(await clients.events.config.region()).toBe('sa-east-1');
  });

  it('sets S3 up for s3rver only with S3_FORCE_PATH_STYLE=true', async () => {
    const local = createAwsClients({ AWS_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true' }).s3.config;
    expect(local.forcePathStyle).toBe(true);
    expect(await local.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    expect(await local.responseChecksumValidation()).toBe('WHEN_REQUIRED');

    const aws = createAwsClients({ AWS_REGION: 'us-east-1' }).s3.config;
    expect(aws.forcePathStyle).toBe(false);
    expect(await aws.requestChecksumCalculation()).toBe('WHEN_SUPPORTED');
  });

  it("points every client at its AWS_ENDPOINT_URL_<SERVICE>, by the SDK's own reading", async () => {
    const services = {
      dynamo: ['DYNAMODB', new ListTablesCommand({})],
      s3: ['S3', new ListBucketsCommand({})],
      sqs: ['SQS', new ListQueuesCommand({})],
      sfn: ['SFN', new ListStateMachinesCommand({})],
      events: ['EVENTBRIDGE', new ListEventBusesCommand({})],
    } as const;
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    Object.values(services).forEach(([id], i) => {
      vi.stubEnv(`AWS_ENDPOINT_URL_${id}`, `http://127.0.0.1:${4500 + i}`);
    });
    const clients = createAwsClients({ AWS_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true' });

    const urls: Record<string, string> = {};
    for (const [name, [, command]] of Object.entries(services))
      urls[name] = await urlOfRequest(clients[name as keyof AwsClients] as unknown as AnyClient, command);

    expect(urls).toEqual({
      dynamo: 'http://127.0.0.1:4500',
      s3: 'http://127.0.0.1:4501',
      sqs: 'http://127.0.0.1:4502',
      sfn: 'http://127.0.0.1:4503',
      events: 'http://127.0.0.1:4504',
    });
  });
});
