/**
 * The local Lambda pool with real child processes: a background function's environment runs
 * at a lower OS priority than the others (and never higher than this process); node starts
 * with --expose-gc, as Lambda's Node.js runtime starts it; each process finds the clock its
 * host set before its bundle loads (functions/host-clock.ts); a trace it reports points at the
 * source through the bundle's map, though node starts without --enable-source-maps; a timed-out
 * invocation fails alone, as it would in its own environment on AWS.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOST_CLOCK_KEY } from '../../../functions/host-clock.js';
import { LambdaInvocationError, LambdaPool } from '../../../local/runtime/lambda-pool.js';
import type { FunctionSpec } from '../../../local/runtime/resources.js';

/** A bundle folder whose handler answers with its own process's niceness. */
const nicenessReporter = (root: string, name: string): FunctionSpec =>
  bundleFolder(
    root,
    name,
    "import { getPriority } from 'node:os';\n" +
      'export const handler = async () => ({ niceness: getPriority(), gc: typeof globalThis.gc });\n',
  );

/**
 * A bundle folder whose handler answers with what the clock its host set says, read when the
 * module loads, as functions/runtime.ts reads it.
 */
const clockReporter = (root: string, name: string): FunctionSpec =>
  bundleFolder(
    root,
    name,
    `const clock = globalThis[Symbol.for(${JSON.stringify(HOST_CLOCK_KEY)})];\n` +
      'export const handler = async () => ({ fiveMinutes: clock.span(300_000), now: clock.now().getTime() });\n',
  );

const bundleFolder = (root: string, name: string, code: string): FunctionSpec => {
  const codeDir = join(root, name);
  mkdirSync(codeDir, { recursive: true });
  writeFileSync(join(codeDir, 'index.mjs'), code);
  return {
    logicalId: name,
    name,
    arn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
    codeDir,
    handler: 'index.handler',
    environment: {},
    timeoutSeconds: 30,
    memorySize: 128,
    asyncRetryAttempts: 2,
  };
};

let root: string;
let pool: LambdaPool;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lambda-pool-'));
});
afterEach(async () => {
  await pool?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('LambdaPool priorities', () => {
  it('runs a background function at a lower priority and the others as this process', async () => {
    const lines: string[] = [];
    pool = new LambdaPool({
      functions: [nicenessReporter(root, 'row-poll'), nicenessReporter(root, 'row-store')],
      environmentOf: () => ({}),
      background: (fn) => fn.name === 'row-store',
      log: (line) => lines.push(line),
    });

    const refill = (await pool.invoke('row-poll', {})) as { niceness: number };
    const filing = (await pool.invoke('row-store', {})) as { niceness: number };

    const own = getPriority();
    expect(refill.niceness).toBe(own);
    expect(filing.niceness).toBe(Math.max(own, 10));
    expect(lines).toEqual([]);
  });

  it('starts node with --expose-gc, as Lambda does, and counts the invocations that ended', async () => {
    pool = new LambdaPool({
      functions: [nicenessReporter(root, 'prepare-batch')],
      environmentOf: () => ({}),
      log: () => undefined,
    });
    expect(pool.endedInvocations('prepare-batch')).toBe(0);

    const answer = (await pool.invoke('prepare-batch', {})) as { gc: string };

    expect(answer.gc).toBe('function');
    expect(pool.endedInvocations('prepare-batch')).toBe(1);
  });

  it('sets the clock of each process before loading its bundle: real time, production spans shortened by the time scale', async () => {
    pool = new LambdaPool({
      functions: [clockReporter(root, 'row-poll')],
      environmentOf: () => ({}),
      timeScale: 0.02,
      log: () => undefined,
    });
    const before = Date.now();

    const answer = (await pool.invoke('row-poll', {})) as { fiveMinutes: number; now: number };

    expect(answer.fiveMinutes).toBeCloseTo(6_000, 6);
    expect(answer.now).toBeGreaterThanOrEqual(before);
    expect(answer.now).toBeLessThanOrEqual(Date.now());
  });
});

describe('LambdaPool source maps', () => {
  it('leaves --enable-source-maps out of NODE_OPTIONS, keeps the rest, and maps the trace of an error to the source', async () => {
    const source = join(root, 'source', 'failing.ts');
    mkdirSync(join(root, 'source'));
    writeFileSync(
      source,
      [
        'export const handler = async (event: { fail: boolean }) => {',
        '  if (!event.fail) return { options: process.env.NODE_OPTIONS ?? null };',
        "  throw new Error('the handler failed here');",
        '};',
        '',
      ].join('\n'),
    );
    const fn = bundleFolder(root, 'row-store', '');
    buildSync({
      entryPoints: [source],
      outfile: join(fn.codeDir, 'index.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      minify: true,
      sourcemap: true,
      logLevel: 'silent',
    });
    pool = new LambdaPool({
      functions: [{ ...fn, environment: { NODE_OPTIONS: '--enable-source-maps --max-old-space-size=256' } }],
      environmentOf: () => ({}),
      log: () => undefined,
    });

    expect(await pool.invoke('row-store', { fail: false })).toEqual({ options: '--max-old-space-size=256' });
    const failure = await pool.invoke('row-store', { fail: true }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(LambdaInvocationError);
    const trace = (failure as LambdaInvocationError).trace;
    expect(trace[0]).toBe('Error: the handler failed here');
    expect(trace[1]).toContain(`${source}:3:9`);
  });
});

describe('LambdaPool timeouts', () => {
  it('fails only the invocation that timed out: the others its process runs end with their results, the next starts a new process', async () => {
    // `hang` never answers; `waitMs` answers after that long, with the process that ran it.
    const fn = bundleFolder(
      root,
      'row-poll',
      'export const handler = async (event) => {\n' +
        '  if (event.hang) await new Promise(() => undefined);\n' +
        '  await new Promise((resolve) => setTimeout(resolve, event.waitMs ?? 0));\n' +
        '  return { pid: process.pid };\n' +
        '};\n',
    );
    pool = new LambdaPool({
      functions: [{ ...fn, timeoutSeconds: 2 }],
      environmentOf: () => ({}),
      log: () => undefined,
    });
    const first = (await pool.invoke('row-poll', {})) as { pid: number };

    const hung = pool.invoke('row-poll', { hang: true }).catch((error: unknown) => error);
    // A second into the hung one's two, one more starts: it still runs when the hung one times out.
    await pool.invoke('row-poll', { waitMs: 1_000 });
    const slow = pool.invoke('row-poll', { waitMs: 1_500 });
    const failure = await hung;
    const after = (await pool.invoke('row-poll', {})) as { pid: number };

    expect(failure).toBeInstanceOf(LambdaInvocationError);
    expect((failure as LambdaInvocationError).errorType).toBe('Sandbox.Timedout');
    expect(await slow).toEqual({ pid: first.pid });
    expect(after.pid).not.toBe(first.pid);
  });
});
