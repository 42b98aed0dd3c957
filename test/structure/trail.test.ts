/**
 * The row's trail at the top of docs/architecture.md stays true: a newcomer follows one row from
 * the inbox event to its line in results.csv through at most 12 files, and each stop names a file
 * that exists and a function, class or constant that file exports. A stop is one line of the
 * section's numbered list: `file` · `name` · what happens to the row.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const TRAIL_HEADING = "## The row's trail";
const MAX_FILES = 12;

type Stop = { file: string; name: string; happens: string; line: string };

/** The trail section of docs/architecture.md (its heading to the next `## `), or null when it is missing. */
const trailSection = (page: string): string | null => {
  const start = page.indexOf(`\n${TRAIL_HEADING}\n`);
  if (start < 0) return null;
  const rest = page.slice(start + 1);
  const end = rest.indexOf('\n## ', 1);
  return end < 0 ? rest : rest.slice(0, end);
};

/** Each numbered line of the section as a stop; a numbered line that does not parse is kept as one with no file. */
const stopsOf = (section: string): Stop[] =>
  section
    .split('\n')
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => {
      const parts = /^\d+\. `([^`]+)` · `([^`]+)` · (.+)$/.exec(line);
      return parts
        ? { file: parts[1]!, name: parts[2]!, happens: parts[3]!, line }
        : { file: '', name: '', happens: '', line };
    });

/** Whether `source` exports `name` as a function, class or constant. */
const exports = (source: string, name: string): boolean =>
  new RegExp(`^export (?:async )?(?:function\\*? |const |class |let )${name}\\b`, 'm').test(source);

describe("docs/architecture.md: the row's trail", () => {
  const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const section = trailSection(page);

  it('opens the page, before any numbered section', () => {
    expect(section, `docs/architecture.md has no "${TRAIL_HEADING}" section`).not.toBeNull();
    const firstSection = page.search(/^## \d+\. /m);
    expect(page.indexOf(TRAIL_HEADING)).toBeLessThan(firstSection < 0 ? page.length : firstSection);
  });

  it('has stops written `file` · `name` · what happens to the row', () => {
    const stops = stopsOf(section ?? '');
    expect(stops.length).toBeGreaterThan(1);
    expect(stops.filter((stop) => stop.file === '').map((stop) => stop.line)).toEqual([]);
  });

  it(`goes through at most ${MAX_FILES} files`, () => {
    const files = new Set(stopsOf(section ?? '').map((stop) => stop.file));
    expect(files.size).toBeGreaterThan(0);
    expect(files.size).toBeLessThanOrEqual(MAX_FILES);
  });

  it('names files that exist, each exporting the function, class or constant named beside it', () => {
    const stops = stopsOf(section ?? '').filter((stop) => stop.file !== '');
    expect(stops.length).toBeGreaterThan(0);
    const wrong = stops.flatMap(({ file, name }) => {
      if (!existsSync(join(root, file))) return [`${file}: no such file`];
      return exports(readFileSync(join(root, file), 'utf8'), name) ? [] : [`${file}: exports no ${name}`];
    });
    expect(wrong).toEqual([]);
  });

  it('goes from the inbox event to the row’s line in results.csv', () => {
    const stops = stopsOf(section ?? '');
    expect(stops[0]?.happens).toMatch(/inbox\//);
    expect(stops.at(-1)?.happens).toMatch(/results\.csv/);
  });
});
