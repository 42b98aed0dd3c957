/**
 * `npm run console [-- --port N]`
 *
 * The operations console on this machine: the local pipeline (the same stand-ins, workflows
 * and .local-data/ as `npm run classify`, the built-in sandbox unless TCS_API_KEY and
 * TCS_BASE_URL are set) plus the console's page and API on 127.0.0.1, until Ctrl-C. No sign-in:
 * it listens on loopback only. A batch started with `npm run classify` shows here, and one
 * uploaded here is found by `npm run classify -- --status <id>` later.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { openLocalConsole } from '../runtime/local-console.js';
import {
  dataDirOf,
  PERMISSION_CHECKS_USAGE,
  parseCap,
  parseTimeScale,
  runCommand,
  startCommandPipeline,
  UsageError,
} from './shared.js';

const USAGE = `usage: npm run console -- [options]

  --port N           the console's port on 127.0.0.1 (default 4310; 0: any free port)
  --time-scale F     scale run times and polling (default: 0.25 on the sandbox, 1 on the real service)
  --data-dir DIR     local state kept between runs (default: .local-data/)
  --fresh            start from empty local state
  --cap N            use at most N slots of the organisation's cap
  --by NAME          who answers and decides in this console (default: your user name)
${PERMISSION_CHECKS_USAGE}

Runs until Ctrl-C. Without TCS_API_KEY and TCS_BASE_URL the built-in sandbox answers (simulated verdicts).`;

export const DEFAULT_CONSOLE_PORT = 4310;

const parse = (argv: string[]) => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      'time-scale': { type: 'string' },
      'data-dir': { type: 'string' },
      fresh: { type: 'boolean', default: false },
      cap: { type: 'string' },
      by: { type: 'string' },
      'no-permission-checks': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const port = values.port === undefined ? DEFAULT_CONSOLE_PORT : Number(values.port);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65_535))
    throw new UsageError('--port must be a port number (0 to 65535)');
  return {
    port,
    timeScale: parseTimeScale(values['time-scale']),
    cap: parseCap(values.cap),
    fresh: values.fresh ?? false,
    permissionChecks: !values['no-permission-checks'],
    dataDir: dataDirOf(values['data-dir']),
    operator: values.by?.trim() || userInfo().username || 'local operator',
  };
};

const untilStopped = (): Promise<string> =>
  new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });

const runConsole = async (args: NonNullable<ReturnType<typeof parse>>): Promise<number> => {
  const { pipeline, simulated, timeScale } = await startCommandPipeline({
    dataDir: args.dataDir,
    fresh: args.fresh,
    permissionChecks: args.permissionChecks,
    timeScale: args.timeScale,
    cap: args.cap,
    bucketNotifications: true,
  });
  const console_ = await openLocalConsole(pipeline, { port: args.port, operator: args.operator });
  try {
    if (simulated)
      console.log(
        'Verdicts are simulated by the built-in sandbox (set TCS_API_KEY and TCS_BASE_URL for the real service).',
      );
    console.log(
      `Console: ${console_.url}  (time scale ${timeScale}; loopback only, no sign-in: answers and decisions are ${args.operator}'s; Ctrl-C stops it)`,
    );
    const signal = await untilStopped();
    console.log(`${signal}: stopping the console and everything it started…`);
    return 0;
  } finally {
    await console_.close();
  }
};

runCommand('console', USAGE, parse, runConsole);
