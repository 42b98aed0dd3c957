/**
 * DynamoDB and S3 on loopback, with the template's tables and buckets:
 *
 *   dynalite (in this process)     <dataDir>/dynamodb   LevelDB files
 *   s3rver (own process, see s3-server.mjs)  <dataDir>/s3   one folder per bucket
 *
 * Tables are created from the template's key schemas and indexes; a table already there (an
 * earlier run) is checked against them, so a changed template is an error that says to start
 * fresh rather than a table silently missing its new index.
 */
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
// @ts-expect-error dynalite ships no type declarations
import dynalite from 'dynalite';
import type { KeyElement, TableSpec } from './resources.js';

export type RunningServer = { endpoint: string; port: number; close(): Promise<void> };

/** Listens on a free port of 127.0.0.1; resolves with the port. */
export const listenOnLoopback = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
};

export const closeHttpServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    // Keep-alive sockets of clients would hold close() open; every client is gone by now.
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** How long close() lets DynamoDB requests still being worked on finish. */
const DYNAMO_DRAIN_MS = 10_000;

/**
 * Requests dynalite is still working on, and a wait for none. A function killed at close leaves
 * its request behind, and dynalite reading its database after the database closed throws out of
 * the process (a query's iterator is not among the operations its own close waits for).
 */
const trackRequests = (server: Server) => {
  let active = 0;
  const waiting = new Set<() => void>();
  server.prependListener('request', (_request, response) => {
    active += 1;
    const end = response.end.bind(response);
    let ended = false;
    response.end = ((...args: Parameters<typeof response.end>) => {
      if (!ended) {
        ended = true;
        active -= 1;
        if (active === 0) for (const resolve of waiting) resolve();
      }
      return end(...args);
    }) as typeof response.end;
  });
  return {
    drained: async (timeoutMs: number): Promise<void> => {
      if (active === 0) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          waiting.delete(done);
          clearTimeout(timer);
          resolve();
        };
        waiting.add(done);
        const timer = setTimeout(done, timeoutMs);
      });
    },
  };
};

export const startDynamo = async (dataDir: string): Promise<RunningServer> => {
  const path = join(dataDir, 'dynamodb');
  mkdirSync(path, { recursive: true });
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }) as Server;
  const requests = trackRequests(server);
  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      await requests.drained(DYNAMO_DRAIN_MS);
      await closeHttpServer(server);
    },
  };
};

const S3_SERVER_SCRIPT = fileURLToPath(new URL('./s3-server.mjs', import.meta.url));
const S3_START_TIMEOUT_MS = 30_000;
const S3_STOP_TIMEOUT_MS = 5_000;

/** An object created in a bucket, as S3's event notification tells it. */
type ObjectCreated = { bucket: string; key: string; size: number; etag: string; eventName: string };

export type RunningS3 = RunningServer & {
  /** Hears every object created, when started with `notify`; returns an unsubscribe. */
  onObjectCreated(listener: (created: ObjectCreated) => void): () => void;
};

export const startS3 = async (
  dataDir: string,
  buckets: readonly string[],
  options: { notify?: boolean } = {},
): Promise<RunningS3> => {
  const directory = join(dataDir, 's3');
  mkdirSync(directory, { recursive: true });
  const child = fork(
    S3_SERVER_SCRIPT,
    [JSON.stringify({ directory, buckets, notify: options.notify ?? false })],
    {
      execArgv: ['--openssl-legacy-provider'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { PATH: process.env.PATH ?? '' },
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the S3 stand-in did not start in time')),
      S3_START_TIMEOUT_MS,
    );
    child.once('message', (message: { ready?: boolean; port?: number; error?: string }) => {
      clearTimeout(timer);
      if (message.ready && message.port) resolve(message.port);
      else reject(new Error(`the S3 stand-in did not start: ${message.error ?? 'no reason given'}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the S3 stand-in exited with code ${code}: ${stderr.trim()}`));
    });
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const listeners = new Set<(created: ObjectCreated) => void>();
  child.on('message', (message: { created?: ObjectCreated }) => {
    if (message.created) for (const listener of listeners) listener(message.created);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    onObjectCreated: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      if (child.exitCode === null && child.connected) child.send('close');
      const timer = setTimeout(() => child.kill('SIGKILL'), S3_STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
};

const sameKeys = (a: readonly KeyElement[] | undefined, b: readonly KeyElement[]): boolean =>
  JSON.stringify(a ?? []) === JSON.stringify(b);

/**
 * Waits until a new table is ACTIVE. dynalite answers CreateTable with CREATING and flips the
 * table to ACTIVE in a later turn of its event loop (a LevelDB write), even with
 * `createTableMs: 0`: a request in between is told the table does not exist.
 */
export const waitForActiveTable = async (client: DynamoDBClient, name: string, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > deadline)
      throw new Error(`table ${name} is still ${Table?.TableStatus} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** Creates each table the template declares, or checks the one an earlier run left. */
export const ensureTables = async (client: DynamoDBClient, tables: readonly TableSpec[]): Promise<void> => {
  for (const table of tables) {
    let found: TableDescription | undefined;
    try {
      found = (await client.send(new DescribeTableCommand({ TableName: table.name }))).Table;
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
    if (found) {
      const indexes = (found.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName).sort();
      const wanted = table.globalSecondaryIndexes.map((index) => index.IndexName).sort();
      if (
        !sameKeys(found.KeySchema as KeyElement[], table.keySchema) ||
        JSON.stringify(indexes) !== JSON.stringify(wanted)
      ) {
        throw new Error(
          `The local table ${table.name} was created from an earlier template (its keys or indexes differ); ` +
            'start from empty local state to recreate it: add --fresh to the command (earlier ' +
            "batches' files already copied to out/ stay there)",
        );
      }
      continue;
    }
    await client.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: table.attributeDefinitions,
        KeySchema: table.keySchema,
        ...(table.globalSecondaryIndexes.length > 0
          ? { GlobalSecondaryIndexes: table.globalSecondaryIndexes as never }
          : {}),
        ...(table.localSecondaryIndexes.length > 0
          ? { LocalSecondaryIndexes: table.localSecondaryIndexes as never }
          : {}),
      }),
    );
    await waitForActiveTable(client, table.name);
  }
};
