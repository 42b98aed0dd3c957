/**
 * The commands, built before they run: `local/cli/<command>.ts` and the project's code they import,
 * bundled by esbuild into one folder of ES modules, kept under node_modules/.cache/ and built again
 * only when a file it was built from changed. Packages are not bundled: they are imported from
 * node_modules as they are.
 *
 *   sources (local/ shared/ infra/ functions/) ──esbuild──▶ node_modules/.cache/ncm-commands/<hash>/
 *                                                            classify.mjs, review.mjs, …, chunk-*.mjs
 *
 * Why: plain Node runs a built command with about 2 s less CPU at each start than
 * `node --import tsx` runs the sources (every import resolved and loaded through tsx's hooks).
 *
 * `import.meta.url` keeps its meaning: each source file's own URL, not the bundle's, so a path
 * worked out from it (the repository root, a script forked by path, the carried NCM table) is the
 * same built or not. The source maps name the TypeScript files, and the commands run with
 * `--enable-source-maps`, so a stack trace points at the line a person edits.
 *
 * Plain JavaScript that imports only Node's own modules until it builds (esbuild is imported
 * then), so local/cli/bootstrap.mjs can import it before the dependencies are installed.
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
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The commands `npm run <command>` starts, each `local/cli/<command>.ts`. */
export const COMMANDS = ['classify', 'answer', 'review', 'bench', 'console', 'audit'];

/** Builds kept besides the newest: a command started from an older one may still be running. */
const KEEP_OLDER_BUILDS = 2;

/** The name each source file's own URL takes in the bundle (see `import.meta.url` above). */
const SOURCE_URL = '__sourceFileUrl';

/**
 * Takes the checkout's root, the files a build read (paths from the root) and esbuild's version,
 * and gives a hash of what the build was made from: the files by content (a checkout rewrites
 * mtimes without changing code), esbuild's version, and where the checkout is: a build names its
 * source files by absolute URL, so a checkout moved or copied with its node_modules builds again
 * rather than run with another folder's data. Null when one of the files is gone.
 */
export const inputsHash = (root, inputs, esbuildVersion) => {
  const hash = createHash('sha256').update(esbuildVersion).update('\0').update(root).update('\0');
  for (const input of [...inputs].sort()) {
    const path = join(root, input);
    if (!existsSync(path)) return null;
    hash.update(input).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex').slice(0, 20);
};

/** Whether a build folder holds every command. */
const holdsEveryCommand = (dir) => COMMANDS.every((command) => existsSync(join(dir, `${command}.mjs`)));

/** The newest build, when every file it was built from is as it was. */
const currentBuild = (cache, root, esbuildVersion) => {
  try {
    const current = JSON.parse(readFileSync(join(cache, 'current.json'), 'utf8'));
    const dir = join(cache, current.hash);
    const unchanged = inputsHash(root, current.inputs, esbuildVersion) === current.hash;
    return holdsEveryCommand(dir) && unchanged ? dir : null;
  } catch {
    return null; // no build yet, or a record from an older layout: build
  }
};

/** esbuild reads a project file with its own URL named at the start of its first line. */
const keepSourceUrls = {
  name: 'keep-source-urls',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
      if (/[\\/]node_modules[\\/]/.test(args.path)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      // On the first line, so every line keeps its number in the source maps.
      const named = `const ${SOURCE_URL} = ${JSON.stringify(pathToFileURL(args.path).href)};`;
      const loader = /\.[cm]?tsx$/.test(args.path) ? 'tsx' : /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
      return { contents: `${named}${text}`, loader };
    });
  },
};

const pruneOlderBuilds = (cache, keep) => {
  const older = readdirSync(cache, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== keep && !entry.name.startsWith('building-'))
    .map((entry) => ({ path: join(cache, entry.name), mtime: statSync(join(cache, entry.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const build of older.slice(KEEP_OLDER_BUILDS)) rmSync(build.path, { recursive: true, force: true });
};

/**
 * Takes the repository root and gives the folder holding every command built as
 * `<command>.mjs`, from the sources as they are now: the build is reused while none of its files
 * changed, and made again (about a second) otherwise. Two commands started at once may both
 * build; each then runs a complete build, never one half written.
 */
export const builtCommands = async (root) => {
  const esbuild = await import('esbuild');
  const cache = join(root, 'node_modules', '.cache', 'ncm-commands');
  const reused = currentBuild(cache, root, esbuild.version);
  if (reused) return reused;

  mkdirSync(cache, { recursive: true });
  const building = join(cache, `building-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: COMMANDS.map((command) => `local/cli/${command}.ts`),
      outdir: building,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'linked',
      metafile: true,
      logLevel: 'error',
      define: { 'import.meta.url': SOURCE_URL },
      // A CommonJS package imported by a bundled file calls require(); ESM has none unless made.
      banner: {
        js: "import { createRequire as createRequireOfBuild } from 'node:module'; const require = createRequireOfBuild(import.meta.url);",
      },
      plugins: [keepSourceUrls],
    });
    const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/'));
    const hash = inputsHash(root, inputs, esbuild.version);
    const target = join(cache, hash);
    try {
      renameSync(building, target);
    } catch (error) {
      // Another command built the same sources first: its build is this one.
      if (!holdsEveryCommand(target)) throw error;
      rmSync(building, { recursive: true, force: true });
    }
    const record = join(cache, `current.json.${process.pid}`);
    writeFileSync(record, `${JSON.stringify({ hash, inputs })}\n`);
    renameSync(record, join(cache, 'current.json'));
    pruneOlderBuilds(cache, hash);
    return target;
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
};
