/**
 * A row's status is decided in one module: core/row-life.ts says where each birth and each move
 * leaves a row, and the adapters store it. Everywhere else a row is born through `bornRow` and
 * moves through `BatchStore.moveRow`; the words for a status exist once (core/row-statuses.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATUS_WORDS, WORKING_STATUSES } from '../../shared/pipeline/core/row-statuses.js';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

const trackedSources = (): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => /\.(ts|tsx|mts|mjs)$/.test(path));

/** Where rows are handled. The sandbox and the service client speak of classifications, not rows. */
const ROW_CODE = /^(shared\/(pipeline|console|aws|smoke)|functions|local\/(runtime|cli|bench)|web\/src)\//;

/** The module that decides a row's status, the words for it, and the adapter that stores it. */
const ALLOWED = new Set([
  'shared/pipeline/core/row-life.ts',
  'shared/pipeline/core/row-statuses.ts',
  'shared/aws/dynamo-batch-store.ts',
]);

const working = WORKING_STATUSES.join('|');
const STATUS_WRITES: { what: string; pattern: RegExp }[] = [
  { what: 'a working status written as a value', pattern: new RegExp(`status: '(${working})'`) },
  {
    what: 'a row copied with another status',
    pattern: /\.\.\.(row|record|rowRecord|found|current), status:/,
  },
  { what: 'a status assigned', pattern: /\.status = / },
  { what: 'a row patch', pattern: /\.(updateRow|markSubmitting)\(/ },
];

describe('a row’s life', () => {
  it('has its status written only by the row-life module and the adapters', () => {
    const offences = trackedSources()
      .filter((path) => ROW_CODE.test(path) && !ALLOWED.has(path))
      .flatMap((path) =>
        read(path)
          .split('\n')
          .flatMap((line, index) =>
            STATUS_WRITES.filter(({ pattern }) => pattern.test(line)).map(
              ({ what }) => `${path}:${index + 1}: ${what}: ${line.trim()}`,
            ),
          ),
      );
    expect(offences).toEqual([]);
  });

  it('lets the batch store change a row by its moves only, besides writing the rows Prepare made', () => {
    const ports = read('shared/pipeline/core/ports.ts');
    const store = ports.slice(
      ports.indexOf('export type BatchStore = {'),
      ports.indexOf('export type ReviewStore'),
    );
    const rowWriters = [...store.matchAll(/^ {2}(\w+)\([^)]*\b(row|rows)\b/gm)].map((match) => match[1]);
    // markRowDone counts a row in its completion shard; the row itself is not written.
    expect(rowWriters.filter((name) => /put|move|update|mark|set/i.test(name!))).toEqual([
      'putRows',
      'moveRow',
      'markRowDone',
    ]);
    expect(store).not.toMatch(/Partial<[^>]*RowRecord/);
  });

  it('words each status in one table, every language naming every status', () => {
    const wordTables = trackedSources()
      .filter((path) => ROW_CODE.test(path) || path.startsWith('shared/pipeline/'))
      .filter((path) => /pending_data: '[^']*'/.test(read(path)) && /following: '[^']*'/.test(read(path)));
    expect(wordTables).toEqual(['shared/pipeline/core/row-statuses.ts']);
    for (const words of Object.values(STATUS_WORDS)) {
      expect(new Set(Object.values(words)).size).toBe(Object.keys(words).length);
    }
  });
});
