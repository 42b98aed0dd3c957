/**
 * Lambda, locally: one child process per function (lambda-bootstrap.mjs) that loads the
 * function's synthesized bundle and runs its invocations, started on the first invocation (a
 * cold start) and kept warm after.
 *
 *   invoke(row-poll, event) ──IPC { id, event }──▶ child ──▶ handler(event, context)
 *                           ◀── { id, payload } | { id, errorType, errorMessage, trace }
 *
 * Failures take Lambda's shapes: an error the handler throws keeps its name as `errorType`;
 * an environment that dies (process exit, the `crash` fault) fails every invocation in flight
 * with `Runtime.ExitError`, one that overruns the function's timeout with `Sandbox.Timedout`.
 * Lambda recycles the environment of a timed-out invocation, and that environment ran that
 * invocation alone; here one child runs every invocation of its function at once. So a timeout
 * retires the child instead of killing it: the next invocation starts a new child, and the old
 * one is stopped once the invocations it still runs have ended. Killing it at once failed them
 * all: under load, one slow Poll ended hundreds of rows' workflows that AWS would have let be.
 *
 * On AWS each environment has its own share of CPU; here every function shares this machine's
 * cores. Functions marked `background` run at a lower OS priority, so that under load the
 * work that keeps the service's slots busy is not queued behind the work that only files
 * results: the same code and the same order of events, only the scheduler's choice differs.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { HOST_CLOCK_KEY } from '../../functions/host-clock.js';
import type { HandlerName } from '../../shared/contract.js';
import type { FunctionSpec } from './resources.js';

const BOOTSTRAP = fileURLToPath(new URL('./lambda-bootstrap.mjs', import.meta.url));
/** How long a stopping child gets before it is killed. */
const STOP_GRACE_MS = 2_000;
/** The niceness of a background function's process (0 is normal, 19 the lowest priority). */
const BACKGROUND_NICENESS = 10;

/**
 * A failed invocation, as Lambda reports it. `fromRuntime`: the environment failed (exit,
 * timeout, init) rather than the handler throwing; Step Functions calls those `Lambda.Unknown`.
 */
export class LambdaInvocationError extends Error {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace: string[];
  readonly fromRuntime: boolean;

  constructor(fields: { errorType: string; errorMessage: string; trace?: string[]; fromRuntime: boolean }) {
    super(fields.errorMessage);
    // The name is what Lambda Invoke reports as errorType (local/aws reads error.name).
    this.name = fields.errorType;
    this.errorType = fields.errorType;
    this.errorMessage = fields.errorMessage;
    this.trace = fields.trace ?? [];
    this.fromRuntime = fields.fromRuntime;
  }

  /** The body Lambda returns for this error: what a Step Functions `Cause` holds. */
  toPayload(): string {
    return JSON.stringify({ errorType: this.errorType, errorMessage: this.errorMessage, trace: this.trace });
  }
}

/**
 * Takes a function's environment and gives it without `--enable-source-maps` in NODE_OPTIONS,
 * saying whether the flag was there. With the flag, Node 20 reads and parses the bundle's whole
 * source map as it loads the bundle: half a second of CPU per cold start for the 3.5 MB maps.
 * lambda-bootstrap.mjs maps the traces it reports instead, reading the map only when there is a
 * trace to map; a line the handler logs itself keeps the bundle's positions.
 */
const withoutEagerSourceMaps = (
  environment: Record<string, string>,
): { environment: Record<string, string>; sourceMaps: boolean } => {
  const options = (environment.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option !== '');
  const kept = options.filter((option) => option !== '--enable-source-maps');
  if (kept.length === options.length) return { environment, sourceMaps: false };
  const { NODE_OPTIONS: _left, ...rest } = environment;
  return {
    environment: kept.length > 0 ? { ...rest, NODE_OPTIONS: kept.join(' ') } : rest,
    sourceMaps: true,
  };
};

type Pending = { resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout };

type Environment = {
  child: ChildProcess;
  ready: Promise<void>;
  pending: Map<string, Pending>;
};

type ChildMessage =
  | { type: 'ready' }
  | { type: 'init-error'; errorType: string; errorMessage: string; trace: string[] }
  | { type: 'result'; id: string; payload: string }
  | { type: 'error'; id: string; errorType: string; errorMessage: string; trace: string[] };

export type CrashFault = { handler: HandlerName; invocation: number };

export type LambdaPoolOptions = {
  functions: readonly FunctionSpec[];
  /** Variables added to each function's own (endpoints, region, credentials…). */
  environmentOf: (fn: FunctionSpec) => Record<string, string>;
  /**
   * How much faster than production time runs here: each process's clock (functions/host-clock.ts)
   * takes a span of production time in this fraction of it. @default 1
   */
  timeScale?: number;
  crash?: CrashFault | null;
  /** Functions whose processes run at a lower OS priority (see above). @default none */
  background?: (fn: FunctionSpec) => boolean;
  log: (line: string) => void;
};

export class LambdaPool {
  private readonly functions = new Map<string, FunctionSpec>();
  private readonly environments = new Map<string, Environment>();
  /** Environments a timeout retired: they take no new invocation and stop once idle (see `retire`). */
  private readonly retired = new Set<Environment>();
  private readonly counts = new Map<string, number>();
  private readonly ended = new Map<string, number>();
  private readonly options: LambdaPoolOptions;
  private closed = false;

  constructor(options: LambdaPoolOptions) {
    this.options = options;
    for (const fn of options.functions) this.functions.set(fn.name, fn);
  }

  spec(name: string): FunctionSpec {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`No function ${name} in the template`);
    return fn;
  }

  /**
   * Peak resident memory of a function's process so far, in MiB (Linux `VmHWM`), like the
   * "Max Memory Used" of Lambda's REPORT line; null when it has not run or off Linux.
   */
  peakMemoryMb(name: string): number | null {
    const pid = this.environments.get(name)?.child.pid;
    if (!pid) return null;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
      return kib ? Math.round(Number(kib) / 1024) : null;
    } catch {
      return null;
    }
  }

  /** How many invocations of a function have ended, with a result or an error. */
  endedInvocations(name: string): number {
    return this.ended.get(name) ?? 0;
  }

  async invoke(name: string, event: unknown): Promise<unknown> {
    try {
      return await this.invokeOnce(name, event);
    } finally {
      this.ended.set(name, (this.ended.get(name) ?? 0) + 1);
    }
  }

  private async invokeOnce(name: string, event: unknown): Promise<unknown> {
    if (this.closed)
      throw new LambdaInvocationError({
        errorType: 'Runtime.Closed',
        errorMessage: 'the local runtime is closing',
        fromRuntime: true,
      });
    const fn = this.spec(name);
    const count = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, count);
    const crash = this.options.crash?.handler === name && this.options.crash.invocation === count;
    const environment = this.environmentFor(fn);
    await environment.ready;
    const id = randomUUID();
    const timeoutMs = fn.timeoutSeconds * 1000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        environment.pending.delete(id);
        reject(
          new LambdaInvocationError({
            errorType: 'Sandbox.Timedout',
            errorMessage: `RequestId: ${id} Error: Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds`,
            fromRuntime: true,
          }),
        );
        this.retire(fn.name, environment);
      }, timeoutMs);
      environment.pending.set(id, { resolve, reject, timer });
      if (crash) this.options.log(`${name}: invocation ${count} will crash its environment (fault)`);
      const message = { id, event: JSON.stringify(event ?? null), deadline: Date.now() + timeoutMs, crash };
      const lost = (error: Error | null) => {
        if (!error || !environment.pending.delete(id)) return;
        clearTimeout(timer);
        reject(
          new LambdaInvocationError({
            errorType: 'Runtime.ExitError',
            errorMessage: `RequestId: ${id} Error: Runtime exited before the invocation reached it`,
            fromRuntime: true,
          }),
        );
      };
      try {
        environment.child.send(message, lost);
      } catch (error) {
        lost(error as Error);
      }
    });
  }

  private environmentFor(fn: FunctionSpec): Environment {
    const running = this.environments.get(fn.name);
    if (running) return running;
    const { environment: processEnvironment, sourceMaps } = withoutEagerSourceMaps({
      ...fn.environment,
      ...this.options.environmentOf(fn),
    });
    const child = fork(
      BOOTSTRAP,
      [
        JSON.stringify({
          codeDir: fn.codeDir,
          handler: fn.handler,
          functionName: fn.name,
          functionArn: fn.arn,
          memorySize: fn.memorySize,
          timeoutSeconds: fn.timeoutSeconds,
          clock: { key: HOST_CLOCK_KEY, timeScale: this.options.timeScale ?? 1 },
          sourceMaps,
        }),
      ],
      {
        // Plain node: not the parent's loaders (tsx, vitest); the template's NODE_OPTIONS apply,
        // but for the eager source maps (withoutEagerSourceMaps says why).
        // --expose-gc as Lambda's Node.js runtime starts it: Prepare collects between chunks.
        execArgv: ['--expose-gc'],
        // Only the function's environment, as in Lambda: nothing of this process's leaks in.
        env: processEnvironment,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        cwd: fn.codeDir,
      },
    );
    if (this.options.background?.(fn) && child.pid !== undefined) this.lowerPriority(fn.name, child.pid);
    const pending = new Map<string, Pending>();
    for (const stream of [child.stdout, child.stderr]) {
      if (stream)
        createInterface({ input: stream }).on('line', (line) => this.options.log(`${fn.name}: ${line}`));
    }
    const ready = new Promise<void>((resolve, reject) => {
      child.on('message', (message: ChildMessage) => {
        switch (message.type) {
          case 'ready':
            resolve();
            return;
          case 'init-error':
            reject(new LambdaInvocationError({ ...message, fromRuntime: true }));
            return;
          case 'result':
          case 'error': {
            const waiting = pending.get(message.id);
            if (!waiting) return; // timed out meanwhile
            pending.delete(message.id);
            clearTimeout(waiting.timer);
            if (message.type === 'result') waiting.resolve(JSON.parse(message.payload));
            else waiting.reject(new LambdaInvocationError({ ...message, fromRuntime: false }));
            if (this.retired.has(environment)) this.stopIfIdle(environment);
          }
        }
      });
      child.on('exit', (code, signal) => {
        if (this.environments.get(fn.name)?.child === child) this.environments.delete(fn.name);
        const status = signal ? `signal ${signal}` : `exit status ${code}`;
        reject(
          new LambdaInvocationError({
            errorType: 'Runtime.ExitError',
            errorMessage: `Runtime exited with error: ${status}`,
            fromRuntime: true,
          }),
        );
        for (const [id, waiting] of pending) {
          clearTimeout(waiting.timer);
          waiting.reject(
            new LambdaInvocationError({
              errorType: 'Runtime.ExitError',
              errorMessage: `RequestId: ${id} Error: Runtime exited with error: ${status}`,
              fromRuntime: true,
            }),
          );
        }
        pending.clear();
        if (!this.closed) this.options.log(`${fn.name}: environment ended (${status})`);
      });
    });
    // A failed init must not surface as an unhandled rejection when nobody awaits it yet.
    ready.catch(() => undefined);
    const environment: Environment = { child, ready, pending };
    this.environments.set(fn.name, environment);
    return environment;
  }

  /**
   * A timed-out invocation's environment takes no more invocations (the next one starts a new
   * child) and is stopped once the others it runs have ended, each by its own deadline at most.
   */
  private retire(name: string, environment: Environment): void {
    if (!this.retired.has(environment)) {
      if (this.environments.get(name) === environment) this.environments.delete(name);
      this.retired.add(environment);
      environment.child.once('exit', () => this.retired.delete(environment));
    }
    this.stopIfIdle(environment);
  }

  private stopIfIdle(environment: Environment): void {
    if (environment.pending.size === 0) environment.child.kill('SIGKILL');
  }

  private lowerPriority(name: string, pid: number): void {
    try {
      // Never raises a priority: a runtime started under `nice` keeps its children at least as low.
      setPriority(pid, Math.max(getPriority(pid), BACKGROUND_NICENESS));
    } catch (error) {
      // Where priorities cannot be set, the function runs at normal priority: only slower.
      this.options.log(`${name}: priority left as is (${String(error)})`);
    }
  }

  /** Stops every child (SIGTERM, then SIGKILL after a grace period) and waits for them to exit. */
  async close(): Promise<void> {
    this.closed = true;
    const children = [...this.environments.values(), ...this.retired].map(({ child }) => child);
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    this.environments.clear();
    this.retired.clear();
  }
}
