/**
 * The console's page (web/) and the code every Lambda bundles (shared/, functions/) meet at one
 * front door, shared/console/web-contract.ts: the page imports nothing else outside web/ but npm
 * packages, and nothing on the Lambda side imports the page (docs/architecture.md, section 8).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const FRONT_DOOR = 'shared/console/web-contract.ts';
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

/** Source files under a folder of the repository, as repository paths with `/`. */
const sourcesUnder = (folder: string): string[] =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !path.split('/').includes('node_modules'));

/** Every module a file names: static imports and re-exports, bare side-effect imports, import(). */
const specifiersOf = (source: string): string[] =>
  [
    ...source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]/gms),
    ...source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);

/** A relative specifier as the repository path of the file it names (`.js` written for `.ts`). */
const targetOf = (file: string, specifier: string): string =>
  relative(root, resolve(root, dirname(file), specifier))
    .split(sep)
    .join('/')
    .replace(/\.js$/, '.ts');

const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../');

const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const PACKAGES = new Set([
  ...Object.keys(packageJson.dependencies),
  ...Object.keys(packageJson.devDependencies),
]);

/** `react-dom/client` → `react-dom`, `@vitejs/plugin-react` → itself. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('the page imports the shared code only through its front door', () => {
  const pageFiles = sourcesUnder('web/src');
  const imports = pageFiles.flatMap((file) =>
    specifiersOf(readFileSync(join(root, file), 'utf8')).map((specifier) => ({ file, specifier })),
  );

  it('reads the page (so the checks below look at something)', () => {
    expect(pageFiles).toContain('web/src/main.tsx');
    expect(imports.length).toBeGreaterThan(50);
  });

  it('reaches outside web/ only to shared/console/web-contract.ts', () => {
    const outside = imports
      .filter(({ specifier }) => isRelative(specifier))
      .map(({ file, specifier }) => ({ file, target: targetOf(file, specifier) }))
      .filter(({ target }) => !target.startsWith('web/'));
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.filter(({ target }) => target !== FRONT_DOOR)).toEqual([]);
  });

  it('names no other module but npm packages the project depends on', () => {
    const other = imports
      .filter(({ specifier }) => !isRelative(specifier))
      .filter(({ specifier }) => !PACKAGES.has(packageOf(specifier)));
    // `node:` builtins and path aliases included: the browser has neither.
    expect(other).toEqual([]);
  });
});

describe('nothing a Lambda bundles imports the page', () => {
  it.each(['shared', 'functions'])('%s/ names no file under web/', (folder) => {
    const files = sourcesUnder(folder);
    expect(files.length).toBeGreaterThan(0);
    const reaching = files.flatMap((file) =>
      specifiersOf(readFileSync(join(root, file), 'utf8'))
        .filter(isRelative)
        .map((specifier) => ({ file, target: targetOf(file, specifier) }))
        .filter(({ target }) => target === 'web' || target.startsWith('web/')),
    );
    expect(reaching).toEqual([]);
  });
});
