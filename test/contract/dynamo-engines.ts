/**
 * The DynamoDB engines the DynamoDB-backed contract suites run on; each suite runs once per
 * engine listed in `DYNAMO_ENGINES`:
 *
 *   dynalite        in-process stand-in (test/helpers/dynalite.ts): starts in milliseconds, and is
 *                   what the local runtime and the adapters' unit tests (test/unit/aws) run on
 *   DynamoDB Local  AWS's own engine in a JVM (test/helpers/dynamodb-local.ts): 1–5 s to start,
 *                   needs Java 17; it catches what dynalite accepts and DynamoDB does not
 *
 * An adapter must pass on both. Another engine is one more line there, a `start` that returns
 * a client talking to it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startLocalDynamo } from '../helpers/dynalite.js';
import { startDynamoDbLocal } from '../helpers/dynamodb-local.js';
import type { Implementation } from './implementation.js';

type RunningDynamo = { client: DynamoDBClient; close(): Promise<void> };

export type DynamoEngine = {
  /** As it reads in a suite's title: `DynamoDB adapter on <name>`. */
  name: string;
  /** Starts the engine (or connects to it) and returns a client for it. */
  start(): Promise<RunningDynamo>;
};

export const DYNAMO_ENGINES: readonly DynamoEngine[] = [
  { name: 'dynalite', start: startLocalDynamo },
  { name: 'DynamoDB Local', start: startDynamoDbLocal },
];

/**
 * An implementation on one engine: the engine starts once per suite, and every case gets a
 * table of its own (a new name), made by `onNewTable` with the adapter on it.
 */
export const onDynamoEngine = <Subject>(
  engine: DynamoEngine,
  table: string,
  onNewTable: (client: DynamoDBClient, tableName: string) => Promise<Subject>,
): Implementation<Subject> => {
  let running: RunningDynamo | null = null;
  let tables = 0;
  return {
    start: async () => {
      running = await engine.start();
    },
    make: async () => {
      if (!running) throw new Error(`${engine.name} is not running`);
      return onNewTable(running.client, `${table}-${++tables}`);
    },
    stop: async () => {
      await running?.close();
      running = null;
    },
  };
};
