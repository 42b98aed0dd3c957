/**
 * The checks that read the code without running it: the types, the lint, the import rules and
 * the unused code, each the npm script a developer runs alone (`npm run typecheck`, `lint`,
 * `deps`, `knip`). They run as tests so that `npm test` starts them beside the first end-to-end
 * file's synthesis, when one core would otherwise wait, rather than one after another before
 * every other test.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** How much of a failing check's output its test shows: the end, where the tools sum up. */
const SHOWN_CHARACTERS = 20_000;

/** Runs `npm run <script>` from the repository root; gives its exit code and what it printed. */
const runScript = (script: string): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // The tools' own colours would be escape codes in a test's failure message.
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });

describe('the code, read without running it', () => {
  it.each([
    ['typecheck', 'the TypeScript of the project and the page compiles (tsc --noEmit)'],
    ['lint', 'biome finds no lint or format error'],
    ['deps', 'dependency-cruiser finds no import cycle and no import against the direction of the layers'],
    ['knip', 'knip finds no unused file, export or dependency'],
  ])('npm run %s: %s', async (script) => {
    const { code, output } = await runScript(script);
    expect(code, `npm run ${script} failed:\n${output.slice(-SHOWN_CHARACTERS)}`).toBe(0);
  });
});
