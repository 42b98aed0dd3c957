/**
 * The docs a newcomer reads: the README stays a front page (the reference lives in docs/), its
 * test command is the one CI runs, no README has a line too long to read whole outside its code
 * blocks, and every relative link of every Markdown file in the tree
 * (the README, docs/, each folder's README) reaches a file that exists, and every `#anchor` a
 * heading of that file, by GitHub's rules for a heading's id.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const README_MAX_LINES = 200;
/** The longest line a README may have outside its code blocks: a reader sees it whole. */
const README_MAX_LINE_CHARS = 200;

/** Markdown files git knows (tracked or new, not ignored), as the next engineer's clone holds them. */
const markdownFiles = (): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path !== '' && !path.startsWith('node_modules/'))
    .filter((path) => statSync(join(root, path), { throwIfNoEntry: false })?.isFile());

/** The lines outside fenced code blocks, as written, with their number. */
const linesOutsideFences = (text: string) => {
  const lines: { line: string; number: number }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) lines.push({ line, number: index + 1 });
  });
  return lines;
};

/** The lines outside fenced code blocks, with their number; inline code spans blanked out. */
const proseLines = (text: string) =>
  linesOutsideFences(text).map(({ line, number }) => ({ line: line.replace(/(`+)[^`]*?\1/g, ''), number }));

/** A heading's id as GitHub makes it: lowercase, punctuation dropped, spaces to '-', '-1' for a repeat. */
const headingIds = (text: string): Set<string> => {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    const heading = fence === null ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const base = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
};

/** Every `[text](target)`, `![alt](target)` and `[label]: target` of a Markdown file's prose. */
const linksIn = (text: string) =>
  proseLines(text).flatMap(({ line, number }) => [
    ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => ({
      target: match[1]!,
      number,
    })),
    ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((match) => ({
      target: match[1]!,
      number,
    })),
  ]);

/** What is wrong with one relative link of `from`, or null when it resolves. */
const brokenLink = (from: string, target: string): string | null => {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto: …
  const [rawPath = '', anchor] = target.split('#', 2);
  const path = decodeURI(rawPath);
  const file =
    path === '' ? from : normalize(path.startsWith('/') ? path.slice(1) : join(dirname(from), path));
  if (file.startsWith('..') || !existsSync(join(root, file))) return `no file ${file}`;
  if (anchor === undefined || anchor === '') return null;
  if (!file.endsWith('.md')) return `an anchor into ${file}, which has no headings`;
  return headingIds(read(file)).has(decodeURIComponent(anchor).toLowerCase())
    ? null
    : `no heading #${anchor} in ${file}`;
};

describe('README.md', () => {
  const readme = read('README.md');

  it(`is a front page: fewer than ${README_MAX_LINES} lines (the reference lives in docs/)`, () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThan(README_MAX_LINES);
  });

  it("gives two commands, the second being the test command .ci/run runs and package.json's test", () => {
    const section = readme.split(/^## /m).find((part) => part.startsWith('Two commands'));
    const block = /```sh\n([\s\S]*?)```/.exec(section ?? '')?.[1] ?? '';
    const commands = block.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(commands).toEqual(['npm run classify -- sample-data/products.csv', 'npm test']);
    const ci = read('.ci/run').split('\n');
    expect(ci.some((line) => line === commands[1] || line.startsWith(`${commands[1]} ||`))).toBe(true);
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.pretest).toBe('node local/setup/system-programs.mjs');
    expect(scripts.classify).toBeDefined();
  });
});

describe('READMEs', () => {
  const readmes = markdownFiles().filter((path) => path === 'README.md' || path.endsWith('/README.md'));

  it('are the front page and each folder’s own', () => {
    expect(readmes).toContain('README.md');
    expect(readmes).toContain('shared/pipeline/README.md');
  });

  it(`have no line over ${README_MAX_LINE_CHARS} characters outside code blocks`, () => {
    const long = readmes.flatMap((path) =>
      linesOutsideFences(read(path))
        .filter(({ line }) => [...line].length > README_MAX_LINE_CHARS)
        .map(({ line, number }) => `${path}:${number}: ${[...line].length} characters`),
    );
    expect(long).toEqual([]);
  });
});

describe('Markdown links', () => {
  const files = markdownFiles();

  it("covers the README, every docs/ page and the folders' READMEs", () => {
    expect(files).toContain('README.md');
    expect(files.filter((path) => path.startsWith('docs/')).length).toBeGreaterThan(1);
    expect(files.filter((path) => path.endsWith('/README.md')).length).toBeGreaterThan(1);
  });

  it('each reach a file that exists, and each #anchor a heading of it', () => {
    const broken = files.flatMap((from) =>
      linksIn(read(from)).flatMap(({ target, number }) => {
        const problem = brokenLink(from, target);
        return problem ? [`${from}:${number}: (${target}) ${problem}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it("make a heading's id by GitHub's rules", () => {
    const ids = headingIds(
      [
        '# The operations console',
        "## Workbooks' memory",
        '## `batch.json`',
        '## 8. Proving the AWS side: before a deploy',
        '```sh',
        '# not a heading',
        '```',
        '## Ação e Descrição',
        '## Ação e Descrição',
      ].join('\n'),
    );
    expect([...ids]).toEqual([
      'the-operations-console',
      'workbooks-memory',
      'batchjson',
      '8-proving-the-aws-side-before-a-deploy',
      'ação-e-descrição',
      'ação-e-descrição-1',
    ]);
  });
});
