// The Lambda runtime of one local function: a plain Node process forked by
// local/runtime/lambda-pool.ts that loads the function's bundle (the asset `cdk synth`
// produced) by file URL, as Lambda's Node runtime does, and runs invocations sent over IPC.
//
//   argv[2] = JSON { codeDir, handler: "index.handler", functionName, functionArn, memorySize, timeoutSeconds,
//                    clock: { key, timeScale }, sourceMaps }
//   ◀ { type: 'ready' } | { type: 'init-error', errorType, errorMessage, trace }
//   ▶ { id, event (JSON text), deadline (epoch ms), crash? }
//   ◀ { type: 'result', id, payload (JSON text) } | { type: 'error', id, errorType, errorMessage, trace }
//
// Invocations may overlap (one process serves them all; Lambda would use one environment per
// concurrent invocation). `crash` is the runtime's fault injection: the process exits with
// status 137 after the handler has done its work and before its result is sent, so the work
// happened but the caller sees the environment die, exactly as after an OOM kill in Lambda.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const config = JSON.parse(process.argv[2] ?? '{}');

// `sourceMaps`: the template asks for `--enable-source-maps`, which the pool leaves out (Node 20
// would read and parse the bundle's whole map at every cold start, half a second for the larger
// bundles). The traces this process reports are mapped here instead, the map read on the first one.
const sourceMaps = new Map();
const sourceMapOf = (file) => {
  if (!sourceMaps.has(file)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      // No map beside the bundle, or an unreadable one: the trace stays as the bundle has it.
    }
    sourceMaps.set(file, map);
  }
  return sourceMaps.get(file);
};
const FRAME = /(file:\/\/[^\s()]+|\/[^\s():]+\.m?js):(\d+):(\d+)/;
const mappedFrame = (line) => {
  const frame = FRAME.exec(line);
  if (!frame) return line;
  const [location, where, row, column] = frame;
  const file = where.startsWith('file:') ? fileURLToPath(where) : where;
  const entry = sourceMapOf(file)?.findEntry(Number(row) - 1, Number(column) - 1);
  if (!entry?.originalSource) return line;
  // A map names its sources relative to itself; Node's own mapping shows them as absolute paths.
  const source = fileURLToPath(new URL(entry.originalSource, pathToFileURL(`${file}.map`)));
  return line.replace(location, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
};
const traceOf = (error) => {
  const lines = (error.stack ?? '').split('\n').filter((line) => line.length > 0);
  return config.sourceMaps ? lines.map(mappedFrame) : lines;
};

const errorFields = (error) => ({
  errorType: error instanceof Error ? error.name : typeof error,
  errorMessage: error instanceof Error ? error.message : String(error),
  trace: error instanceof Error ? traceOf(error) : [],
});

// Lambda's Node runtime: a promise rejected with nobody listening ends the environment.
process.on('unhandledRejection', (reason) => {
  process.stderr.write(`Runtime.UnhandledPromiseRejection: ${errorFields(reason).errorMessage}\n`);
  process.exit(128);
});
process.on('disconnect', () => process.exit(0));

// The handlers' clock, the one port the host of a Lambda process supplies (functions/host-clock.ts
// reads it): real time, and spans of production time shortened by the run's time scale, as the
// sandbox's runs and the workflows' Waits are. Set before the bundle is imported, which reads it
// once; the bundle itself knows nothing of a time scale.
if (config.clock) {
  const { key, timeScale } = config.clock;
  globalThis[Symbol.for(key)] = { now: () => new Date(), span: (productionMs) => productionMs * timeScale };
}

const loadHandler = async () => {
  const dot = config.handler.lastIndexOf('.');
  const moduleName = config.handler.slice(0, dot);
  const exportName = config.handler.slice(dot + 1);
  const file = ['.mjs', '.js', '.cjs']
    .map((extension) => join(config.codeDir, `${moduleName}${extension}`))
    .find((candidate) => existsSync(candidate));
  if (!file) {
    const error = new Error(`Cannot find module '${moduleName}' in ${config.codeDir}`);
    error.name = 'Runtime.ImportModuleError';
    throw error;
  }
  const module = await import(pathToFileURL(file).href);
  const handler = module[exportName];
  if (typeof handler !== 'function') {
    const error = new Error(`${config.handler} is undefined or not exported`);
    error.name = 'Runtime.HandlerNotFound';
    throw error;
  }
  return handler;
};

let handler;

process.on('message', async (message) => {
  if (!handler) return;
  const { id, event, deadline, crash } = message;
  const context = {
    functionName: config.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: config.functionArn,
    memoryLimitInMB: String(config.memorySize),
    awsRequestId: id,
    logGroupName: `/aws/lambda/${config.functionName}`,
    logStreamName: `local/${process.pid}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  let reply;
  try {
    const result = await handler(JSON.parse(event), context);
    reply = { type: 'result', id, payload: JSON.stringify(result) ?? 'null' };
  } catch (error) {
    reply = { type: 'error', id, ...errorFields(error) };
  }
  if (crash) process.exit(137);
  process.send(reply);
});

try {
  handler = await loadHandler();
  process.send({ type: 'ready' });
} catch (error) {
  process.send({ type: 'init-error', ...errorFields(error) }, () => process.exit(1));
}
