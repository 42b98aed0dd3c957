import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { GRANT_USAGE_DIR } from './local/runtime/permissions/grant-usage.js';

/** Tests that read what the whole suite recorded: they run once every other test has. */
const AFTER_THE_SUITE = 'test/after-suite/**/*.test.ts';

/**
 * The edit-test loop's folders (`npm run test:fast`): modules on in-memory ports, each port's
 * contract, the synthesized workflows, the shape of the code. Their files share worker processes
 * (`isolate: false`): each file would otherwise spend about a second importing what the one
 * before it had already imported, half of these files' time.
 */
const FAST_FOLDERS = ['test/unit', 'test/contract', 'test/workflow', 'test/structure'];

/** Every test file under a folder, as a path from the repository root. */
const testFilesUnder = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(folder, name));

/**
 * The fast files that replace a module (`vi.mock`) or an AWS SDK client class (aws-sdk-client-mock's
 * `mockClient`, never restored): the replacement would stay for the files that share the process
 * after them, so each of these gets a process of its own.
 */
const REPLACING_MODULES = FAST_FOLDERS.flatMap(testFilesUnder).filter((file) =>
  /\bvi\.(mock|doMock)\(|\bmockClient\(/.test(readFileSync(file, 'utf8')),
);

/**
 * The end-to-end, browser and other slow files first, largest first: they mostly wait on their
 * pipelines, so the fast files, which keep both cores busy, fill in beside and after them.
 */
class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const fast = (file: TestSpecification) => file.project.name.startsWith('fast');
    return [...sorted.filter((file) => !fast(file)), ...sorted.filter(fast)];
  }
}

export default defineConfig({
  test: {
    // Tests start real HTTP servers on loopback; two cores, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    allowOnly: false,
    sequence: { sequencer: SlowFilesFirst },
    // The AWS SDK warns on every client that Node 20 support ends in 2027; the Lambda bundles
    // target Node 24, and this machine's Node 20 is a given (docs/architecture.md, the local runtime).
    // Every local pipeline a test starts records the grants its functions used (`npm run grants`).
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      NCM_GRANT_USAGE_DIR: resolve(GRANT_USAGE_DIR),
    },
    // In CI a JSON report lets .ci/run print the plain 'N passed, N failed' closing line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [AFTER_THE_SUITE, ...FAST_FOLDERS.map((folder) => `${folder}/**`)],
          globalSetup: ['test/grant-usage-setup.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fast',
          include: FAST_FOLDERS.map((folder) => `${folder}/**/*.test.ts`),
          exclude: REPLACING_MODULES,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      ...(REPLACING_MODULES.length > 0
        ? [
            {
              extends: true as const,
              test: { name: 'fast, one process each', include: REPLACING_MODULES, sequence: { groupOrder: 0 } },
            },
          ]
        : []),
      {
        extends: true,
        test: { name: 'after the suite', include: [AFTER_THE_SUITE], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
