/**
 * What ships to AWS carries nothing of the local runtime: no time scale in the code the Lambda
 * bundles are built from or in the CDK app (the local runtime hands its functions a faster clock
 * instead, docs/architecture.md, section 6, "Time scale"), and none of the packages only the
 * local runtime, the sandbox or the tests use is a production dependency or reachable from
 * `functions/` or `shared/`. test/infra/workflows.test.ts looks inside the bundles themselves.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Files git knows (tracked or new, not ignored), as the next engineer's clone holds them. */
const knownFiles = (): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path.length > 0)
    .filter((path) => statSync(join(root, path), { throwIfNoEntry: false })?.isFile());

const under = (folders: readonly string[]) => (path: string) =>
  folders.some((folder) => path.startsWith(`${folder}/`));

const SHIPPED = ['shared/pipeline', 'functions', 'infra'] as const;
const BUNDLED_FROM = ['functions', 'shared'] as const;
const LOCAL_ONLY_PACKAGES = ['s3rver', 'pdfkit', 'pdfjs-dist'] as const;
const SOURCE = /\.(ts|tsx|mts|js|mjs|cjs)$/;

/** `timeScale`, `TIME_SCALE`, `time-scale`, `timescale`: any spelling of the local knob. */
const TIME_SCALE_NAME = /time[-_]?scale/i;

describe('the code that ships', () => {
  it(`names no time scale in ${SHIPPED.join(', ')}`, () => {
    const naming = knownFiles()
      .filter(under(SHIPPED))
      .flatMap((path) =>
        read(path)
          .split('\n')
          .map((line, index) => ({ line, at: `${path}:${index + 1}` }))
          .filter(({ line }) => TIME_SCALE_NAME.test(line))
          .map(({ at }) => at),
      );
    expect(naming).toEqual([]);
  });
});

describe('packages only the local runtime, the sandbox and the tests use', () => {
  const manifest = JSON.parse(read('package.json')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

  it.each(LOCAL_ONLY_PACKAGES)('%s is a dev dependency, not a dependency', (name) => {
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain(name);
    expect(Object.keys(manifest.devDependencies ?? {})).toContain(name);
  });

  it(`are imported by nothing ${BUNDLED_FROM.join('/ or ')}/ reaches, through its relative imports`, () => {
    const files = new Set(knownFiles());
    const reached = new Set<string>();
    const offending: string[] = [];
    const pending = [...files].filter((path) => under(BUNDLED_FROM)(path) && SOURCE.test(path));
    while (pending.length > 0) {
      const path = pending.pop() as string;
      if (reached.has(path)) continue;
      reached.add(path);
      for (const specifier of importSpecifiers(read(path))) {
        if (specifier.startsWith('.')) {
          const target = resolveRelative(path, specifier, files);
          if (target) pending.push(target);
          continue;
        }
        const name = packageName(specifier);
        if ((LOCAL_ONLY_PACKAGES as readonly string[]).includes(name))
          offending.push(`${path}: ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
    // The walk did run: the handlers and the core are among what it read.
    expect(reached).toContain('functions/runtime.ts');
    expect(reached).toContain('shared/pipeline/core/ports.ts');
  });
});

/** Every module specifier a file names: static and type imports, re-exports, `import()`, `require()`. */
const importSpecifiers = (text: string): string[] =>
  [
    ...text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"\n]+)['"]/g),
    ...text.matchAll(/\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);

/** `@scope/name/deep/path` → `@scope/name`; `name/deep/path` → `name`; `node:fs` stays. */
const packageName = (specifier: string): string => {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
};

/** The file a relative specifier names, as TypeScript's NodeNext resolution finds it (`.js` → `.ts`). */
const resolveRelative = (from: string, specifier: string, files: ReadonlySet<string>): string | null => {
  const base = normalize(join(dirname(from), specifier));
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  const found = candidates.find((candidate) => files.has(candidate));
  if (found) return found;
  // A JSON file or an asset the bundler inlines: nothing to follow.
  if (existsSync(join(root, base))) return null;
  throw new Error(`${from} imports ${specifier}, which resolves to no file`);
};
