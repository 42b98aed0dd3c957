/**
 * The functions' code, bundled by one esbuild build per stack: every handler of the stack is an
 * entry of the same build, so the modules they share (the AWS SDK, zod, the pipeline's core) are
 * read and parsed once, not once per function, and no process is started per function. Each
 * function's asset still holds its own complete bundle, as a `NodejsFunction` would build it:
 *
 *   synthesis ──first function of a stack──▶ esbuild: every entry of that stack (in memory)
 *             ──each function──▶ cdk.out/asset.<hash>/index.mjs, index.mjs.map, data/<NCM table>
 *
 * The options are the ones every function is built with: Node 24, ESM, the AWS SDK inside (the
 * code that runs is the code the lockfile pinned and the tests ran; its credentials from the
 * environment only, functions/lambda-credentials.ts), minified with names kept
 * (Step Functions' Retry and Catch match errors by name), source maps without the sources.
 * Bundling skipped for a stack (`aws:cdk:bundling-stacks`) builds nothing for it.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, Stack } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { buildSync, type OutputFile } from 'esbuild';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The NCM table the project carries (shared/ncm-table/carried-table.ts) is read from
 * `new URL('./data/<file>', import.meta.url)`. In a bundle `import.meta.url` is the bundle's own
 * `index.mjs`, so the same relative URL finds the file when it is written to `<bundle>/data/`:
 * one path for the source under tsx and for every function's bundle.
 */
const CARRIED_TABLE_DATA = join(PROJECT_ROOT, 'shared', 'ncm-table', 'data');

/** The file Lambda loads: the handler is `index.handler`. */
const BUNDLE_FILE = 'index.mjs';

/** One function's bundle as esbuild gave it: the code and its source map. */
type Bundle = { code: string; map: string };

/**
 * The functions of one stack: their entries, by name; once built, their bundles until each is
 * written (a process that synthesizes and then runs the app, as the local runtime does, keeps no
 * copy of the code it wrote); and the names already written.
 */
type StackBundles = { entries: Map<string, string>; built: Map<string, Bundle>; written: Set<string> };

const bundlesOfStacks = new WeakMap<Stack, StackBundles>();

/**
 * Builds every entry of a stack not built yet, in one esbuild run, into memory. `besideAssets` is
 * a folder beside the asset folders (never written): the source maps name the sources relative to
 * it, which is where they are from the asset folder the bundle is written to.
 */
const buildPending = (bundles: StackBundles, besideAssets: string) => {
  const pending = [...bundles.entries].filter(
    ([name]) => !bundles.built.has(name) && !bundles.written.has(name),
  );
  if (pending.length === 0) return;
  const result = buildSync({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: Object.fromEntries(pending.map(([name, entry]) => [name, join(PROJECT_ROOT, entry)])),
    outdir: besideAssets,
    outExtension: { '.js': '.mjs' },
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    // Lambda gives a function its credentials in its environment: the SDK's default chain of other
    // sources (profiles, SSO, IMDS, STS) stays out of every bundle (functions/lambda-credentials.ts).
    alias: { '@aws-sdk/credential-provider-node': './functions/lambda-credentials.ts' },
    // Bundled CommonJS dependencies call require(); ESM has none unless we make one.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    minify: true,
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    charset: 'utf8',
    // Warnings and errors only: a line per function and synthesis says nothing.
    logLevel: 'warning',
  });
  const outputOf = (file: string): OutputFile => {
    const found = result.outputFiles.find((output) => basename(output.path) === file);
    if (!found) throw new Error(`esbuild wrote no ${file}`);
    return found;
  };
  for (const [name] of pending) {
    const code = outputOf(`${name}.mjs`).text;
    const map = outputOf(`${name}.mjs.map`).text;
    // Written as index.mjs: its last line names its map by the file's new name.
    const linked = code.replace(new RegExp(`//# sourceMappingURL=${name}\\.mjs\\.map\\s*$`), '');
    bundles.built.set(name, { code: `${linked}//# sourceMappingURL=${BUNDLE_FILE}.map\n`, map });
  }
};

/**
 * Takes a function's construct scope, its name and its entry (a path from the repository root)
 * and gives its Lambda code: an asset whose bundle comes from its stack's one esbuild build,
 * written with the carried NCM table beside it. The asset's hash is its output's, so a change
 * that leaves a bundle as it was leaves its function as it was.
 */
export const bundledFunctionCode = (scope: Construct, name: string, entry: string): Code => {
  const stack = Stack.of(scope);
  const bundles: StackBundles = bundlesOfStacks.get(stack) ?? {
    entries: new Map(),
    built: new Map(),
    written: new Set(),
  };
  bundlesOfStacks.set(stack, bundles);
  const known = bundles.entries.get(name);
  if (known !== undefined && known !== entry)
    throw new Error(`two functions named ${name} in ${stack.stackName}`);
  bundles.entries.set(name, entry);
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never run: local bundling below always answers (it throws where esbuild fails).
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      // The CDK stages an asset once for all assets whose options are equal, and the function
      // below is not compared: the entry in the command tells each function's asset apart.
      command: ['esbuild', entry],
      local: {
        tryBundle(outputDir) {
          // Asked again for a bundle it wrote (a second synthesis of the app): built again.
          bundles.written.delete(name);
          buildPending(bundles, join(dirname(outputDir), 'function-bundles'));
          const bundle = bundles.built.get(name);
          if (!bundle) throw new Error(`no bundle was built for ${name}`);
          writeFileSync(join(outputDir, BUNDLE_FILE), bundle.code);
          writeFileSync(join(outputDir, `${BUNDLE_FILE}.map`), bundle.map);
          bundles.built.delete(name);
          bundles.written.add(name);
          mkdirSync(join(outputDir, 'data'), { recursive: true });
          for (const [file, bytes] of carriedTableFiles())
            writeFileSync(join(outputDir, 'data', file), bytes);
          return true;
        },
      },
    },
  });
};

let carriedTable: [string, Buffer][] | undefined;
/** The carried table's files (`*.json.gz`), read once for every bundle. */
const carriedTableFiles = (): [string, Buffer][] => {
  carriedTable ??= readdirSync(CARRIED_TABLE_DATA)
    .filter((file) => file.endsWith('.json.gz'))
    .map((file) => [file, readFileSync(join(CARRIED_TABLE_DATA, file))]);
  return carriedTable;
};
