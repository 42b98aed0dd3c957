/**
 * The template's functions, run by the Lambda pool (lambda-pool.ts) and reachable through
 * local/aws's Invoke: what each function's process gets as its environment, which processes
 * run at a lower priority, and asynchronous invocations with Lambda's retries.
 */

import { ENV, environmentOf as stackEnvironmentOf } from '../../functions/catalogue.js';
import { consoleEnvironmentOf } from '../../functions/console-catalogue.js';
import { CONSOLE_HANDLER_NAMES } from '../../shared/console/api.js';
import { HANDLER_NAMES, type HandlerName } from '../../shared/contract.js';
import type { LocalAws } from '../aws/local-aws.js';
import { type CrashFault, LambdaPool } from './lambda-pool.js';
import { LOCAL_CREDENTIALS } from './loopback.js';
import type { FunctionSpec } from './resources.js';
import { type BackgroundWork, type Shutdown, STOP_RANK } from './shutdown.js';
import { sleep } from './sleep.js';
import { LOCAL_REGION } from './template.js';

/**
 * The functions that run at normal OS priority; the others (Store, Review, Complete, Prepare,
 * Finalize…) run lower (lambda-pool.ts). The slot-refill path, between a classification leaving
 * in_progress and the next POST (Poll releases the lease, the dispatcher takes the slot, Submit
 * posts): on two shared cores at a benchmark's time scale, a freed slot otherwise waits behind
 * the filing of results, which no AWS environment would make it do. And the record of who wrote a
 * dropped file (record-writer, a few milliseconds a file): starved behind a busy machine's work, it
 * came after the batch it proves had finished, so nothing named who sent it.
 */
const NORMAL_PRIORITY: ReadonlySet<string> = new Set<HandlerName>([
  'row-poll',
  'dispatch-rows',
  'row-submit',
  'record-writer',
]);

/**
 * The functions the stack sets CAP_OVERRIDE on when the context has `capOverride`, asked of the
 * same rule the stack follows (functions/catalogue.ts, functions/console-catalogue.ts).
 */
const CAP_READERS: ReadonlySet<string> = new Set<string>([
  ...HANDLER_NAMES.filter((name) =>
    stackEnvironmentOf(name, {
      capOverride: true,
      batchTimeoutHours: false,
      auditLockDays: false,
      questionReminderDay: false,
    }).includes(ENV.capOverride),
  ),
  ...CONSOLE_HANDLER_NAMES.filter((name) =>
    consoleEnvironmentOf(name, { capOverride: true }).includes(ENV.capOverride),
  ),
]);

export type FunctionsInput = {
  functions: readonly FunctionSpec[];
  localAws: LocalAws;
  /** Where the functions' SDK clients send their calls (the permission gates, when on). */
  endpoints: { dynamodb: string; s3: string; aws: string };
  /** The session token each function signs with (names it to the permission gates); null: none. */
  sessionTokenOf: ((functionName: string) => string) | null;
  /** The service this run talks to (the sandbox's or the real one). */
  serviceBaseUrl: string;
  timeScale: number;
  /**
   * A lower cap for this run: CAP_OVERRIDE on the functions that read it, as the stack would set
   * it with the context `capOverride`. Given here rather than synthesized, so a run with `--cap`
   * uses the cached assembly (a synthesis bundles every function: most of a minute).
   */
  capOverride: number | null;
  crash: CrashFault | null;
  /** Aborted when the pipeline closes: asynchronous retries stop waiting. */
  closing: AbortSignal;
  background: BackgroundWork;
  log: (line: string) => void;
};

/**
 * The template's values naming local/aws's origin (queue URLs), re-pointed at `endpoints.aws`:
 * the SQS client sends to the host of the queue URL it is given, not to its endpoint setting.
 */
const throughEndpoints = (fn: FunctionSpec, input: FunctionsInput): Record<string, string> => {
  const origin = input.localAws.endpoint;
  if (input.endpoints.aws === origin) return {};
  return Object.fromEntries(
    Object.entries(fn.environment)
      .filter(([, value]) => value.startsWith(`${origin}/`))
      .map(([name, value]) => [name, `${input.endpoints.aws}${value.slice(origin.length)}`]),
  );
};

/** What a function's process sees: nothing of this process's environment but PATH. */
const environmentOf = (fn: FunctionSpec, input: FunctionsInput): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  TZ: 'UTC',
  LANG: 'en_US.UTF-8',
  AWS_REGION: LOCAL_REGION,
  AWS_DEFAULT_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  ...(input.sessionTokenOf ? { AWS_SESSION_TOKEN: input.sessionTokenOf(fn.name) } : {}),
  AWS_LAMBDA_FUNCTION_NAME: fn.name,
  AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
  AWS_ENDPOINT_URL_DYNAMODB: input.endpoints.dynamodb,
  AWS_ENDPOINT_URL_S3: input.endpoints.s3,
  ...input.localAws.endpointEnvironment(input.endpoints.aws),
  S3_FORCE_PATH_STYLE: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // The template's placeholder (or the deployed URL) stands for the service this run talks to.
  ...throughEndpoints(fn, input),
  ...(fn.environment[ENV.tcsBaseUrl] !== undefined ? { [ENV.tcsBaseUrl]: input.serviceBaseUrl } : {}),
  ...(input.capOverride !== null && CAP_READERS.has(fn.name)
    ? { [ENV.capOverride]: String(input.capOverride) }
    : {}),
});

export type InvokeAsync = (name: string, event: unknown) => Promise<void>;

/**
 * An asynchronous invocation (a rule target, a kick): Lambda retries a failed one per the
 * function's EventInvokeConfig, after about 1 and 2 minutes (scaled here). Never rejects.
 */
const asynchronousInvoker =
  (pool: LambdaPool, input: FunctionsInput): InvokeAsync =>
  async (name, event) => {
    const retries = pool.spec(name).asyncRetryAttempts;
    for (let attempt = 0; ; attempt++) {
      try {
        await pool.invoke(name, event);
        return;
      } catch (error) {
        if (input.closing.aborted) return;
        if (attempt >= retries) {
          input.log(
            `${name}: asynchronous invocation failed after ${attempt + 1} attempt(s): ${String(error)}`,
          );
          return;
        }
        await sleep(Math.max(100, 60_000 * 2 ** attempt * input.timeScale), input.closing);
      }
    }
  };

/** The pool, each function registered with local/aws (Invoke), and the asynchronous invoker. */
export const startLambdaFunctions = (
  input: FunctionsInput,
  shutdown: Shutdown,
): { pool: LambdaPool; invokeAsync: InvokeAsync } => {
  const pool = new LambdaPool({
    functions: input.functions,
    environmentOf: (fn) => environmentOf(fn, input),
    timeScale: input.timeScale,
    crash: input.crash,
    background: (fn) => !NORMAL_PRIORITY.has(fn.name),
    log: input.log,
  });
  shutdown.add('Lambda pool', STOP_RANK.lambdaProcesses, () => pool.close());
  const invokeAsync = asynchronousInvoker(pool, input);
  for (const fn of input.functions) {
    input.localAws.registerFunction(fn.name, (event, context) =>
      context.invocationType === 'Event'
        ? input.background.track(invokeAsync(fn.name, event))
        : pool.invoke(fn.name, event),
    );
  }
  return { pool, invokeAsync };
};
