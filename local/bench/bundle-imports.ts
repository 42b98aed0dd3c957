/**
 * What each function's bundle costs at a cold start: the size of its index.mjs, the time Node
 * takes to import it (read, parse, compile, run its top level) and the resident memory that adds,
 * each in a fresh Node process of its own, against a bare one that imports nothing:
 *
 *   cdk.out/<stack>.template.json ─▶ each AWS::Lambda::Function's asset folder (asset metadata)
 *     ─▶ node -e 'await import(index.mjs)' with the function's own NODE_OPTIONS, a few times each
 *     ─▶ median import time, median RSS minus a bare `node -e ''`'s
 *
 * Sizes are in KB of 1,000 bytes; a run measures one function after another, never two at once.
 * Without a cdk.out it synthesizes this checkout into out/bench/cdk.out (cached by a hash of the
 * code, local/runtime/assembly.ts). By hand:
 *
 *   node --import tsx local/bench/bundle-imports.ts                      this checkout
 *   node --import tsx local/bench/bundle-imports.ts <cdk.out>            that assembly → this checkout
 *   node --import tsx local/bench/bundle-imports.ts <before> <after>     one assembly → another
 *
 * To compare with another commit, synthesize it in a checkout of its own, then measure both from
 * this one (the other commit need not have this file):
 *
 *   git worktree add --detach ../ncm-before <commit>
 *   ln -s "$PWD/node_modules" ../ncm-before/node_modules     (npm ci there if its lockfile differs)
 *   (cd ../ncm-before && npx cdk synth --quiet --no-notices -o /tmp/ncm-before.out)
 *   node --import tsx local/bench/bundle-imports.ts /tmp/ncm-before.out
 *   git worktree remove ../ncm-before
 *
 * `cdk synth` writes the asset metadata this reads; with the console's page (vite) it takes about
 * half a minute.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HANDLER_METADATA_KEY } from '../../shared/contract.js';
import { readAssemblyStacks, synthesizeAssembly } from '../runtime/assembly.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE_FILE = 'index.mjs';

/** One function's bundle in an assembly: its handler name, its stack, its asset folder. */
export type FunctionBundle = {
  name: string;
  stack: string;
  dir: string;
  /** The variables of its environment that are plain text (NODE_OPTIONS among them), not references. */
  environment: Record<string, string>;
};

/**
 * Takes a cloud assembly folder synthesized with asset metadata and gives every function whose
 * code is an asset folder holding an index.mjs, named by its handler (or its logical id when it
 * has none: the CDK's own functions), in the order of the templates.
 */
export const functionBundlesOf = (cdkOut: string): FunctionBundle[] =>
  readAssemblyStacks(cdkOut).flatMap(({ stackName, template }) =>
    Object.entries(template.Resources ?? {}).flatMap(([logicalId, resource]) => {
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string') return [];
      const dir = join(cdkOut, assetPath);
      if (!existsSync(join(dir, BUNDLE_FILE))) return [];
      const handler = resource.Metadata?.[HANDLER_METADATA_KEY];
      const variables = (
        resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined
      )?.Variables;
      const environment = Object.fromEntries(
        Object.entries(variables ?? {}).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      );
      return [
        { name: typeof handler === 'string' ? handler : logicalId, stack: stackName, dir, environment },
      ];
    }),
  );

/** One row of the table: a function's bundle and what importing it costs. */
export type BundleImport = {
  name: string;
  stack: string;
  /** index.mjs, in KB of 1,000 bytes. */
  kb: number;
  /** Median time of `await import(index.mjs)`, in ms. */
  importMs: number;
  /** Median resident memory after the import, less a bare process's, in MB of 2^20 bytes. */
  addedRssMb: number;
};

type Sample = { ms: number; rss: number };

/** Imports `bundle` (or nothing) in a fresh process with only `environment` beside PATH. */
const sample = (bundle: string | null, environment: Record<string, string>): Sample => {
  const load = bundle === null ? '' : `await import(${JSON.stringify(pathToFileURL(bundle).href)});`;
  const script = `const started = performance.now(); ${load} const ms = performance.now() - started; process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: bundle === null ? ROOT : join(bundle, '..'),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(output) as Sample;
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * Takes a cloud assembly folder (or synthesizes this checkout's) and gives a row per function:
 * its bundle's size, the median time of importing it in a fresh process and the median memory
 * that adds over a bare process, from `runs` processes each. A bundle that fails to import throws.
 */
export const measureBundleImports = async (
  options: { cdkOut?: string; runs?: number; log?: (line: string) => void } = {},
): Promise<BundleImport[]> => {
  const runs = options.runs ?? 5;
  const log = options.log ?? (() => undefined);
  const cdkOut =
    options.cdkOut ??
    (
      await synthesizeAssembly({
        assemblyDir: join(ROOT, 'out', 'bench', 'cdk.out'),
        context: { 'aws:cdk:enable-asset-metadata': true },
        log,
      })
    ).dir;
  const bundles = functionBundlesOf(cdkOut);
  if (bundles.length === 0)
    throw new Error(`${cdkOut} holds no function bundle (synthesized without asset metadata?)`);
  const bareRss = median(Array.from({ length: runs }, () => sample(null, {}).rss));
  return bundles.map((bundle) => {
    const file = join(bundle.dir, BUNDLE_FILE);
    const samples = Array.from({ length: runs }, () => sample(file, bundle.environment));
    const row: BundleImport = {
      name: bundle.name,
      stack: bundle.stack,
      kb: statSync(file).size / 1000,
      importMs: median(samples.map((s) => s.ms)),
      addedRssMb: (median(samples.map((s) => s.rss)) - bareRss) / 2 ** 20,
    };
    log(
      `${row.name}: ${row.kb.toFixed(0)} KB, ${row.importMs.toFixed(0)} ms, +${row.addedRssMb.toFixed(1)} MB`,
    );
    return row;
  });
};

/**
 * Takes the rows of one run, and optionally an earlier run's, and gives a Markdown table: a
 * column each for size, import time and memory added, as `before → after` when there is a before.
 */
export const bundleImportsTable = (
  after: readonly BundleImport[],
  before?: readonly BundleImport[],
): string => {
  const earlier = new Map(before?.map((row) => [row.name, row]));
  const cell = (now: number, then: number | undefined, digits: number) =>
    then === undefined ? now.toFixed(digits) : `${then.toFixed(digits)} → ${now.toFixed(digits)}`;
  const names = [...new Set([...(before ?? []).map((row) => row.name), ...after.map((row) => row.name)])];
  const now = new Map(after.map((row) => [row.name, row]));
  return [
    '| function | index.mjs (KB) | import (ms) | RSS added (MB) |',
    '| --- | ---: | ---: | ---: |',
    ...names.map((name) => {
      const row = now.get(name);
      const then = earlier.get(name);
      if (!row) return `| ${name} | ${then?.kb.toFixed(0)} → gone | | |`;
      return `| ${name} | ${cell(row.kb, then?.kb, 0)} | ${cell(row.importMs, then?.importMs, 0)} | ${cell(row.addedRssMb, then?.addedRssMb, 1)} |`;
    }),
  ].join('\n');
};

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [earlier, later] = process.argv.slice(2);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const before = earlier === undefined ? undefined : await measureBundleImports({ cdkOut: earlier, log });
  const after = await measureBundleImports({ ...(later === undefined ? {} : { cdkOut: later }), log });
  process.stdout.write(`${bundleImportsTable(after, before)}\n`);
}
