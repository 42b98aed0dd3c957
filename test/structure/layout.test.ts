/**
 * The shape of the code a newcomer relies on: every room of the core has its line in the map, and
 * every design citation in a comment resolves inside the repository (docs/architecture.md), never to an issue number.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Files git knows (tracked or new, not ignored), as the next engineer's clone holds them. */
const sourceFiles = (): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => /\.(ts|mts|mjs)$/.test(path))
    .filter((path) => statSync(join(root, path), { throwIfNoEntry: false })?.isFile());

const PIPELINE = 'shared/pipeline';

describe('shared/pipeline', () => {
  const rooms = readdirSync(join(root, PIPELINE), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

  it('is grouped into rooms, with no loose source file beside them', () => {
    expect(rooms.sort()).toEqual([
      'answers',
      'audit',
      'core',
      'dispatch',
      'finalize',
      'notices',
      'outbox',
      'people',
      'prepare',
      'reuse',
      'row',
    ]);
    const loose = readdirSync(join(root, PIPELINE)).filter((name) => name.endsWith('.ts'));
    expect(loose).toEqual([]);
  });

  it('names every room, and every file of a room, in its README map', () => {
    const readme = read(`${PIPELINE}/README.md`);
    for (const room of rooms) {
      expect(readme).toContain(`\`${room}/\``);
      for (const file of readdirSync(join(root, PIPELINE, room)).filter((name) => name.endsWith('.ts'))) {
        if (file !== 'index.ts') expect(readme, `${room}/${file}`).toContain(`\`${file}\``);
      }
    }
  });
});

describe('design citations in comments', () => {
  const properties = new Set(
    [...read('docs/architecture.md').matchAll(/^### Property (\d+):/gm)].map((match) => Number(match[1])),
  );

  it('resolve to a property that docs/architecture.md holds', () => {
    const unresolved: string[] = [];
    for (const path of sourceFiles()) {
      for (const match of read(path).matchAll(
        /docs\/architecture\.md, propert(?:y|ies) (\d+)(?: (?:and|to) (\d+))?/g,
      )) {
        for (const n of [match[1], match[2]].filter(Boolean).map(Number)) {
          if (!properties.has(n)) unresolved.push(`${path}: property ${n}`);
        }
      }
    }
    expect(properties.size).toBe(11);
    expect(unresolved).toEqual([]);
  });

  it('never cite an issue number, or the design brief by a name the repository does not hold', () => {
    const thisFile = 'test/structure/layout.test.ts';
    const offending = sourceFiles()
      .filter((path) => path !== thisFile)
      .flatMap((path) =>
        read(path)
          .split('\n')
          .map((line, index) => ({ line, at: `${path}:${index + 1}` }))
          .filter(({ line }) =>
            /\bissues? #?\d+\b|\(architecture,|[^/]architecture\.md|\.\.\/shared\/(?:spec|design|data)\//i.test(
              line,
            ),
          )
          .map(({ at }) => at),
      );
    expect(offending).toEqual([]);
  });
});
