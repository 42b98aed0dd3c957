/**
 * Comments say what is true today: every repository path a comment names (// and block comments,
 * JSDoc) in the code of functions/, shared/, local/, infra/, test/ and web/, and every path any
 * Markdown file names, exists — a file as a file, a path ending in `/` as a folder. A path is a
 * token that starts with one of the top-level folders and ends in a file's extension or in `/`.
 * Not checked: paths relative to the file that names them, bare names (`shared/aws` could be a
 * word pair as well as a folder), templates and globs (`<name>`, `*`, `{a,b}`, `…`), and paths in
 * git-ignored places (what the code writes as it runs). A `.js` path may name its `.ts` or `.tsx`
 * source, as imports do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const kind = (path: string) => statSync(join(root, path), { throwIfNoEntry: false });

/** Folders whose code is read for comments. */
const CODE_FOLDERS = ['functions', 'shared', 'local', 'infra', 'test', 'web'];
/** Where a named path may start. */
const TOP_LEVEL = [...CODE_FOLDERS, 'docs', 'sample-data'];
/** Never read, even where git would list them. */
const SKIPPED = /^(node_modules|cdk\.out|out|\.local-data)\/|\/(node_modules|cdk\.out)\//;

/** Files git knows (tracked or new, not ignored) that are on disk: what the next engineer's clone holds. */
const filesToRead = (): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path !== '' && !SKIPPED.test(path))
    .filter(
      (path) =>
        path.endsWith('.md') ||
        (/\.(ts|tsx|mjs)$/.test(path) && CODE_FOLDERS.includes(path.split('/')[0] ?? '')),
    )
    .filter((path) => kind(path)?.isFile())
    .sort();

/** A word before a `/` that starts an expression (`return /x/`), not a division. */
const KEYWORDS_BEFORE_EXPRESSION = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/**
 * The comments of a JavaScript or TypeScript source, with where each starts. Strings, template
 * literals (and the code inside their `${}`) and regular expressions are stepped over, so a `//`
 * inside them is not taken for a comment. A small scanner, not a parser: a `/` after a value (a
 * name, a number, `)` or `]`) divides, anywhere else it starts a regular expression; a string or
 * a regular expression left open ends with its line, so a misreading (JSX text) costs one line.
 */
const commentsOf = (source: string): { start: number; text: string }[] => {
  const comments: { start: number; text: string }[] = [];
  /** One entry per open `{`: true when it is a template literal's `${`. */
  const braces: boolean[] = [];
  let afterValue = false;
  let i = 0;
  /** From just inside a template literal: to its closing backtick, or into a `${` (returns true). */
  const template = (): boolean => {
    while (i < source.length) {
      const c = source[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        return false;
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2;
        braces.push(true);
        return true;
      } else i++;
    }
    return false;
  };
  while (i < source.length) {
    const c = source[i] ?? '';
    const next = source[i + 1];
    if (c === '/' && (next === '/' || next === '*')) {
      const close = next === '/' ? source.indexOf('\n', i) : source.indexOf('*/', i + 2);
      const end = close === -1 ? source.length : next === '/' ? close : close + 2;
      comments.push({ start: i, text: source.slice(i, end) });
      i = end;
    } else if (c === '"' || c === "'") {
      i++;
      while (i < source.length && source[i] !== c && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      i++;
      afterValue = true;
    } else if (c === '`') {
      i++;
      afterValue = !template();
    } else if (c === '{') {
      braces.push(false);
      i++;
      afterValue = false;
    } else if (c === '}') {
      i++;
      afterValue = braces.pop() === true ? !template() : false;
    } else if (c === '/' && !afterValue) {
      // A regular expression: to its closing `/` outside a character class, then its flags.
      let inClass = false;
      i++;
      while (i < source.length && source[i] !== '\n') {
        const r = source[i];
        if (r === '\\') {
          i += 2;
          continue;
        }
        i++;
        if (r === '[') inClass = true;
        else if (r === ']') inClass = false;
        else if (r === '/' && !inClass) break;
      }
      while (/[a-z]/i.test(source[i] ?? '')) i++;
      afterValue = true;
    } else if (/[\w$\u0080-\uffff]/.test(c)) {
      const start = i;
      while (i < source.length && /[\w$\u0080-\uffff]/.test(source[i] ?? '')) i++;
      afterValue = !KEYWORDS_BEFORE_EXPRESSION.has(source.slice(start, i));
    } else {
      if (!/\s/.test(c)) afterValue = c === ')' || c === ']';
      i++;
    }
  }
  return comments;
};

/** What a path's token runs over: up to a space, a quote, a bracket or a list's punctuation. */
const PATH_CHARS = `[^\\s'"\`()\\[\\],;|’‘“”]*`;
/** A token that starts with a top-level folder (not inside a longer path or a URL). */
const NAMED_PATH = new RegExp(`(?<![\\w@.\\\\/-])(?:${TOP_LEVEL.join('|')})/${PATH_CHARS}`, 'g');
/** Templates and globs: nothing to check. */
const PLACEHOLDER = /[<>{}*…$]|\.\.\./;

/**
 * The path a token names, or null when it names none to check; a `:12` line number, an
 * `#anchor` and trailing punctuation dropped.
 */
const namedPath = (token: string): string | null => {
  const path = token
    .replace(/#.*$/, '')
    .replace(/[.,;:!?*_]+$/, '')
    .replace(/:\d+(?:[-:]\d+)?$/, '');
  if (PLACEHOLDER.test(path)) return null;
  if (path.endsWith('/')) return path;
  return /\/[^/]*\.[a-z][a-z0-9]*$/i.test(path) ? path : null;
};

/** Every path named in `text`, with the offset it is named at. */
const pathsIn = (text: string, offset: number) =>
  [...text.matchAll(NAMED_PATH)].flatMap((match) => {
    const path = namedPath(match[0]);
    return path === null ? [] : [{ path, at: offset + match.index }];
  });

const exists = (path: string): boolean => {
  if (path.endsWith('/')) return kind(path)?.isDirectory() ?? false;
  if (kind(path)?.isFile()) return true;
  const source = path.replace(/\.js$/, '');
  return path.endsWith('.js') && [`${source}.ts`, `${source}.tsx`].some((file) => kind(file)?.isFile());
};

/** Of `paths`, those git ignores: output the code writes as it runs, not source. */
const ignored = (paths: string[]): Set<string> => {
  if (paths.length === 0) return new Set();
  const answer = spawnSync('git', ['check-ignore', '--no-index', '--stdin'], {
    cwd: root,
    input: paths.join('\n'),
    encoding: 'utf8',
  });
  return new Set(answer.stdout.split('\n').filter((path) => path !== ''));
};

const lineOf = (text: string, at: number) => text.slice(0, at).split('\n').length;

describe('paths named in comments and Markdown', () => {
  it('reads comments, not strings, templates or regular expressions', () => {
    const source = [
      "const a = 'not // a comment'; // one",
      `const b = \`x \${c /* two */ ? \`y \${d}\` : "//"} z // not\`; /* three */`,
      'const e = /\\/\\/[/]/g.test(f) / 2; // four',
      'if (g) return /re/; // five',
    ].join('\n');
    expect(commentsOf(source).map((comment) => comment.text)).toEqual([
      '// one',
      '/* two */',
      '/* three */',
      '// four',
      '// five',
    ]);
  });

  it('takes a path from a token: files and folders, not templates, globs or bare names', () => {
    expect(
      [
        'shared/contract.ts,',
        'docs/architecture.md#the-core',
        'test/unit/smoke/aws.test.ts:117',
        'local/aws/',
        'local/cli/<command>.ts',
        'functions/*/handler.ts',
        'shared/pipeline/{row,dispatch}/',
        'shared/aws',
        'local/…',
      ].map(namedPath),
    ).toEqual([
      'shared/contract.ts',
      'docs/architecture.md',
      'test/unit/smoke/aws.test.ts',
      'local/aws/',
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('each exist', () => {
    const named = filesToRead().flatMap((file) => {
      const text = read(file);
      const places = file.endsWith('.md')
        ? pathsIn(text, 0)
        : commentsOf(text).flatMap((comment) => pathsIn(comment.text, comment.start));
      return places.map(({ path, at }) => ({ path, where: `${file}:${lineOf(text, at)}` }));
    });
    expect(named.length).toBeGreaterThan(100);
    const missing = named.filter(({ path }) => !exists(path));
    const output = ignored([...new Set(missing.map(({ path }) => path))]);
    const dangling = missing
      .filter(({ path }) => !output.has(path))
      .map(({ path, where }) => `${where}: ${path}`);
    expect(dangling).toEqual([]);
  });
});
