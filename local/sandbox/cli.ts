/**
 * `npm run sandbox -- [--port N] [--time-scale F] [--seed S] [--faults SPEC]
 *                     [--concurrency-limit N] [--creation-delay-ms N] [--sim-confirm-after S]
 *                     [--data-dir DIR] [--quiet]`
 *
 * Prints exactly one JSON line on stdout when ready (base_url, admin_url, keys); everything
 * else goes to stderr. Stops cleanly on SIGINT/SIGTERM (state saved when --data-dir is set).
 */
import { parseArgs } from 'node:util';
import { type SandboxOptions, startSandbox } from './sandbox.js';

const USAGE = `Usage: npm run sandbox -- [options]
  --port N               TCP port on 127.0.0.1 (default 0: a free port)
  --time-scale F         a run takes about 60 s × F (default 1; 0.01 ≈ 0.6 s)
  --seed S               fixes keys, ids, run lengths, verdicts and faults (default "sandbox")
  --faults SPEC          e.g. http5xx=0.1,reset_after=0.05,latency_ms=200,maintenance=1
  --concurrency-limit N  classifications in progress per organisation (default 10)
  --creation-delay-ms N  processing time of a creation, in ms (default 10)
  --sim-confirm-after S  SIM openings being verified are confirmed S sandbox seconds after
                         GET /sim-openings first asks about the NCM (default 86400, a day)
  --data-dir DIR         keep the state in DIR/sandbox-state.json across runs
  --quiet                no request log on stderr
  --help                 this text`;

class UsageError extends Error {}

const numberFlag = (name: string, value: string | undefined, integer: boolean): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'}, got "${value}"`);
  }
  return n;
};

const parseCli = (argv: string[]): SandboxOptions | 'help' => {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        'time-scale': { type: 'string' },
        seed: { type: 'string' },
        faults: { type: 'string' },
        'concurrency-limit': { type: 'string' },
        'creation-delay-ms': { type: 'string' },
        'sim-confirm-after': { type: 'string' },
        'data-dir': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const text = (name: string) => values[name] as string | undefined;
  return {
    port: numberFlag('port', text('port'), true),
    timeScale: numberFlag('time-scale', text('time-scale'), false),
    seed: text('seed'),
    faults: text('faults'),
    concurrencyLimit: numberFlag('concurrency-limit', text('concurrency-limit'), true),
    creationDelayMs: numberFlag('creation-delay-ms', text('creation-delay-ms'), false),
    simConfirmAfterSeconds: numberFlag('sim-confirm-after', text('sim-confirm-after'), false),
    dataDir: text('data-dir'),
    log: values.quiet ? 'silent' : 'stderr',
  };
};

const main = async (): Promise<void> => {
  let options: SandboxOptions | 'help';
  try {
    options = parseCli(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`sandbox: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox(options);
  } catch (error) {
    const message = error instanceof RangeError ? error.message : ((error as Error).stack ?? String(error));
    process.stderr.write(`sandbox: ${message}\n`);
    process.exitCode = error instanceof RangeError ? 2 : 1;
    return;
  }
  process.stdout.write(`${sandbox.readyLine}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`sandbox: ${signal}, shutting down\n`);
    sandbox.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        process.stderr.write(`sandbox: error while closing: ${String(error)}\n`);
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
};

await main();
