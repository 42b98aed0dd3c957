/**
 * Starting what listens on 127.0.0.1, in the order the pipeline needs it: local/aws first (the
 * template's queue URLs name it), then DynamoDB, S3 (with the template's buckets) and the
 * sandbox side by side. Each is registered with the shutdown as soon as it is up, so a start
 * that fails halfway stops the ones that did start. Then the SDK clients the runtime itself
 * talks to them with.
 */
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { type LocalAws, startLocalAws } from '../aws/local-aws.js';
import { type Sandbox, startSandbox } from '../sandbox/sandbox.js';
import { type Shutdown, STOP_RANK } from './shutdown.js';
import { type RunningS3, type RunningServer, startDynamo, startS3 } from './stand-ins.js';
import { LOCAL_REGION } from './template.js';

/** Credentials every local client signs with; s3rver's own pair, ignored by the others. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** A diagnostics sink; undefined: the stand-ins log nothing. */
type Diagnostics = ((line: string) => void) | undefined;

export const startLocalAwsStandIn = async (
  dataDir: string,
  timeScale: number,
  diagnostics: Diagnostics,
  shutdown: Shutdown,
): Promise<LocalAws> => {
  const localAws = await startLocalAws({
    port: 0,
    dataDir: join(dataDir, 'aws'),
    // The queues' retention passes as fast as the workflows' Waits and timeouts.
    timeScale,
    log: diagnostics
      ? (level, event, fields) => diagnostics(`aws ${level}: ${event} ${JSON.stringify(fields ?? {})}`)
      : 'silent',
  });
  shutdown.add('local AWS', STOP_RANK.localAws, () => localAws.close());
  return localAws;
};

export type SandboxSettings = {
  seed?: string;
  faults?: string | Record<string, number>;
  concurrencyLimit?: number;
};

export type ServersInput = {
  dataDir: string;
  buckets: readonly string[];
  /** True when the run talks to a real service: no sandbox is started. */
  useService: boolean;
  timeScale: number;
  sandbox: SandboxSettings | undefined;
  diagnostics: Diagnostics;
  /** S3 tells of every object created (the console's uploads come from a browser, not from this process). */
  bucketNotifications: boolean;
};

export type Servers = { dynamo: RunningServer; s3: RunningS3; sandbox: Sandbox | null };

const startSandboxUnlessService = (input: ServersInput): Promise<Sandbox | null> => {
  if (input.useService) return Promise.resolve(null);
  const { diagnostics, sandbox: settings } = input;
  return startSandbox({
    port: 0,
    timeScale: input.timeScale,
    dataDir: join(input.dataDir, 'sandbox'),
    log: diagnostics
      ? (event, fields) => diagnostics(`sandbox: ${event} ${JSON.stringify(fields ?? {})}`)
      : 'silent',
    ...(settings?.seed !== undefined ? { seed: settings.seed } : {}),
    ...(settings?.faults !== undefined ? { faults: settings.faults } : {}),
    ...(settings?.concurrencyLimit !== undefined ? { concurrencyLimit: settings.concurrencyLimit } : {}),
  });
};

/** DynamoDB, S3 and the sandbox (unless a service is given), started side by side. */
export const startServers = async (input: ServersInput, shutdown: Shutdown): Promise<Servers> => {
  const sandboxStarting = startSandboxUnlessService(input);
  const results = await Promise.allSettled([
    startDynamo(input.dataDir),
    startS3(input.dataDir, input.buckets, { notify: input.bucketNotifications }),
    sandboxStarting,
  ]);
  // Every server that did start is stopped later, even when another one failed to.
  const names = ['DynamoDB', 'S3', 'sandbox'];
  results.forEach((result, index) => {
    if (result.status !== 'fulfilled' || !result.value) return;
    const value = result.value as RunningServer | Sandbox;
    shutdown.add(names[index] ?? 'server', STOP_RANK.servers, () => value.close());
  });
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  const [dynamo, s3, sandbox] = results.map(
    (result) => (result as PromiseFulfilledResult<unknown>).value,
  ) as [RunningServer, RunningS3, Sandbox | null];
  return { dynamo, s3, sandbox };
};

export type RuntimeClients = { dynamo: DynamoDBClient; s3: S3Client; sfn: SFNClient };

/** The clients the runtime itself uses (the functions make their own from their environment). */
export const createRuntimeClients = (
  endpoints: { dynamodb: string; s3: string; aws: string },
  shutdown: Shutdown,
): RuntimeClients => {
  const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamo = new DynamoDBClient({ ...clientConfig, endpoint: endpoints.dynamodb });
  const s3 = new S3Client({
    ...clientConfig,
    endpoint: endpoints.s3,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const sfn = new SFNClient({ ...clientConfig, endpoint: endpoints.aws });
  shutdown.add('SDK clients', STOP_RANK.sdkClients, async () => {
    for (const client of [dynamo, s3, sfn]) client.destroy();
  });
  return { dynamo, s3, sfn };
};
