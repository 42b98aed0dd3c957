/**
 * The cloud assembly the local runtime runs: the CDK app synthesized in-process, exactly as
 * `cdk synth` builds it (cdk.json's context, esbuild bundles), plus asset metadata so each
 * function's bundle can be found. Synthesis takes seconds (an esbuild build per stack), so
 * the assembly is cached under a hash of everything that shapes it:
 *
 *   infra/ functions/ shared/ web/ (file contents) + package-lock.json + tsconfig.json + cdk.json
 *   + the context  ──sha256──▶  <assemblyDir>/<hash>/   (manifest.json, templates, asset.*)
 *
 * A cache hit never imports aws-cdk-lib. A miss synthesizes into a temporary folder and
 * renames it into place, so a reader never sees half an assembly; a lock folder keeps two
 * processes sharing one cache (parallel test files) from synthesizing the same hash twice.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StackTemplate } from './template.js';

/** The repository root (this file sits in local/runtime/). */
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What synthesis reads besides the context. */
const INPUT_FOLDERS = ['infra', 'functions', 'shared', 'web'] as const;
const INPUT_FILES = ['package-lock.json', 'tsconfig.json', 'cdk.json'] as const;

/** Written last into a finished assembly folder. */
const COMPLETE_MARKER = 'local-runtime-inputs.json';
/** A lock older than this belongs to a process that died mid-synthesis. */
const STALE_LOCK_MS = 5 * 60_000;
const LOCK_POLL_MS = 200;
/** Assemblies kept besides the current one (an older checkout's, another context's). */
const KEEP_OTHER_ASSEMBLIES = 2;

export type SynthesizedAssembly = {
  /** Absolute path of the assembly folder. */
  dir: string;
  stacks: StackTemplate[];
  /** True when a cached assembly was used. */
  cached: boolean;
  /** Time spent hashing inputs and synthesizing (or loading). */
  ms: number;
};

const listFiles = (root: string, folder: string): string[] => {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push(relative(root, path));
    }
  };
  const start = join(root, folder);
  if (existsSync(start)) walk(start);
  return found;
};

/** The cache key: file contents (not mtimes: a checkout rewrites mtimes without changing code). */
const assemblyInputsHash = (context: Record<string, unknown>, root = PROJECT_ROOT): string => {
  const hash = createHash('sha256');
  const files = [
    ...INPUT_FOLDERS.flatMap((folder) => listFiles(root, folder)),
    ...INPUT_FILES.filter((file) => existsSync(join(root, file))),
  ].sort();
  for (const file of files) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  hash.update(JSON.stringify(context, Object.keys(context).sort()));
  return hash.digest('hex').slice(0, 24);
};

/** cdk.json's context: the CLI passes it to the app; an in-process App must be given it. */
const cdkJsonContext = (root: string): Record<string, unknown> => {
  const path = join(root, 'cdk.json');
  if (!existsSync(path)) return {};
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { context?: Record<string, unknown> };
  return parsed.context ?? {};
};

/** The stacks of an assembly folder, from its manifest (no aws-cdk-lib needed). */
export const readAssemblyStacks = (dir: string): StackTemplate[] => {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string; stackName?: string } }>;
  };
  const stacks: StackTemplate[] = [];
  for (const [id, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type !== 'aws:cloudformation:stack' || !artifact.properties?.templateFile) continue;
    stacks.push({
      stackName: artifact.properties.stackName ?? id,
      template: JSON.parse(readFileSync(join(dir, artifact.properties.templateFile), 'utf8')),
    });
  }
  if (stacks.length === 0) throw new Error(`${dir} holds no CloudFormation stack`);
  return stacks;
};

/**
 * Runs `buildApp` + `app.synth()` into `outdir`. The CDK's own chatter ("Bundling asset …",
 * npm's warnings from `npx vite build`) goes to `log`, not the terminal: both calls are
 * synchronous, so stderr is redirected for exactly their duration.
 */
const synthesizeInto = async (
  outdir: string,
  context: Record<string, unknown>,
  log: (line: string) => void,
) => {
  const { buildApp } = await import('../../infra/app.js');
  const stderrWrite = process.stderr.write;
  const npmLogLevel = process.env.npm_config_loglevel;
  process.env.npm_config_loglevel = 'error';
  let forwarding = false;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    // A log sink that itself writes to stderr must reach it, not come back here.
    if (forwarding)
      return (stderrWrite as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
    forwarding = true;
    try {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      for (const line of text.split('\n')) if (line.trim() !== '') log(`synth: ${line.trim()}`);
    } finally {
      forwarding = false;
    }
    return true;
  }) as typeof process.stderr.write;
  try {
    const { app } = buildApp({ context, outdir, nag: false });
    app.synth();
  } finally {
    process.stderr.write = stderrWrite;
    if (npmLogLevel === undefined) delete process.env.npm_config_loglevel;
    else process.env.npm_config_loglevel = npmLogLevel;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for another process's synthesis of the same hash; false when its lock went stale. */
const awaitOtherSynthesis = async (target: string, lock: string): Promise<boolean> => {
  for (;;) {
    if (existsSync(join(target, COMPLETE_MARKER))) return true;
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) {
        rmSync(lock, { recursive: true, force: true });
        return false;
      }
    } catch {
      return existsSync(join(target, COMPLETE_MARKER)); // the lock is gone: finished or failed
    }
    await sleep(LOCK_POLL_MS);
  }
};

const pruneOtherAssemblies = (assemblyDir: string, keep: string) => {
  const others = readdirSync(assemblyDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== keep && !entry.name.includes('.'))
    .map((entry) => ({
      path: join(assemblyDir, entry.name),
      mtime: statSync(join(assemblyDir, entry.name)).mtimeMs,
    }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of others.slice(KEEP_OTHER_ASSEMBLIES)) rmSync(old.path, { recursive: true, force: true });
};

/** The assembly for this context: cached when the inputs did not change, else synthesized. */
export const synthesizeAssembly = async (options: {
  assemblyDir: string;
  context: Record<string, unknown>;
  log: (line: string) => void;
}): Promise<SynthesizedAssembly> => {
  const started = Date.now();
  const context = { ...cdkJsonContext(PROJECT_ROOT), ...options.context };
  const hash = assemblyInputsHash(context);
  const target = join(options.assemblyDir, hash);
  const done = (cached: boolean): SynthesizedAssembly => ({
    dir: target,
    stacks: readAssemblyStacks(target),
    cached,
    ms: Date.now() - started,
  });
  if (existsSync(join(target, COMPLETE_MARKER))) return done(true);

  mkdirSync(options.assemblyDir, { recursive: true });
  const lock = `${target}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      options.log(`assembly ${hash} is being synthesized by another process; waiting`);
      if (await awaitOtherSynthesis(target, lock)) return done(true);
    }
  }
  try {
    if (existsSync(join(target, COMPLETE_MARKER))) return done(true);
    const temporary = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    options.log(`synthesizing the CDK app into ${temporary}`);
    try {
      await synthesizeInto(temporary, context, options.log);
      writeFileSync(join(temporary, COMPLETE_MARKER), JSON.stringify({ hash, context }, null, 2));
      rmSync(target, { recursive: true, force: true }); // a half-written one from a crash
      renameSync(temporary, target);
    } catch (error) {
      rmSync(temporary, { recursive: true, force: true });
      throw error;
    }
    pruneOtherAssemblies(options.assemblyDir, hash);
    return done(false);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
};
