import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig, type TestProjectConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { GRANT_USAGE_DIR } from './local/runtime/permissions/grant-usage.js';

/** Tests that read what the whole suite recorded: they run once every other test has. */
const AFTER_THE_SUITE = 'test/after-suite/**/*.test.ts';
/** Starts each run's record of the grants the local pipelines' functions used. */
const GRANT_USAGE_SETUP = 'test/grant-usage-setup.ts';

/** Every test file under a folder, as a path from the repository root. */
const testFilesUnder = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(folder, name));

/**
 * Whether a test file replaces a module (`vi.mock`) or an AWS SDK client class (aws-sdk-client-mock's
 * `mockClient`, never restored): the replacement would stay for the files after it in its process.
 */
const replacesModules = (file: string): boolean =>
  /\bvi\.(mock|doMock)\(|\bmockClient\(/.test(readFileSync(file, 'utf8'));

/**
 * The files of `folders` sharing worker processes (`isolate: false`): a file then imports only
 * what the files before it in its process had not, where each would otherwise spend about a
 * second importing the same modules again. A file that replaces a module runs in a process of its
 * own, in the project `<name>, one process each`.
 */
const sharingProcesses = (
  name: string,
  folders: readonly string[],
  test: { globalSetup?: string[]; testTimeout?: number; hookTimeout?: number } = {},
): TestProjectConfiguration[] => {
  const alone = folders.flatMap(testFilesUnder).filter(replacesModules);
  return [
    {
      extends: true,
      test: {
        ...test,
        name,
        include: folders.map((folder) => `${folder}/**/*.test.ts`),
        exclude: alone,
        isolate: false,
        sequence: { groupOrder: 0 },
      },
    },
    ...(alone.length > 0
      ? [
          {
            extends: true as const,
            test: { ...test, name: `${name}, one process each`, include: alone, sequence: { groupOrder: 0 } },
          },
        ]
      : []),
  ];
};

/**
 * Projects in the order their files start, each the first project whose name starts so; the
 * contract suites before the other fast files, since the longest fast file is one of them.
 * `npm run test:fast` runs the projects named `fast…`.
 */
const RUN_ORDER = ['end to end', 'checks', 'infra', 'local', 'fast, contract', 'fast'];

/** Whether a test file runs on the end-to-end files' assembly (and so waits for its synthesis). */
const usesEndToEndAssembly = (file: string): boolean =>
  readFileSync(file, 'utf8').includes('E2E_ASSEMBLY_DIR');

/**
 * The first end-to-end file (the largest), then every other project's files but those that name
 * the end-to-end files' assembly, then the other end-to-end and browser files, largest first, so
 * that the run does not end on a long file alone. The first end-to-end file synthesizes the
 * assembly (most of a minute on one core, when the cache is cold) and then mostly waits on its
 * pipeline and its browser (today it is the console's browser test): the files that keep a core
 * busy use the second core meanwhile. The other end-to-end files, two at a time, keep both busy.
 */
class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = RUN_ORDER.findIndex((prefix) => file.project.name.startsWith(prefix));
      return at < 0 ? RUN_ORDER.length : at;
    };
    const sorted = (await super.sort(files))
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index)
      .map(({ file }) => file);
    const beside = (file: TestSpecification) =>
      file.project.name !== 'end to end' && !usesEndToEndAssembly(file.moduleId);
    const [first, ...others] = sorted;
    if (first?.project.name !== 'end to end') return sorted;
    return [first, ...others.filter(beside), ...others.filter((file) => !beside(file))];
  }
}

export default defineConfig({
  test: {
    // Tests start real HTTP servers and pipelines on loopback. Two cores, two workers: a third would
    // run three end-to-end pipelines at once, and their timing-sensitive checks (partial results
    // while rows still work, leases released on close) failed under that load.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    allowOnly: false,
    sequence: { sequencer: EndToEndFirst },
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
      // Each file in a process of its own: they start pipelines, browsers and crash their functions.
      {
        extends: true,
        test: {
          name: 'end to end',
          include: ['test/e2e/**/*.test.ts', 'test/browser/**/*.test.ts'],
          globalSetup: [GRANT_USAGE_SETUP],
          // A pipeline's start and one batch: seconds alone, more beside two other end-to-end files.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      // tsc, biome, dependency-cruiser and knip, each the npm script a developer runs alone.
      {
        extends: true,
        test: {
          name: 'checks',
          include: ['test/checks/**/*.test.ts'],
          // A type check of the whole project: most of a minute on a core shared with a synthesis.
          testTimeout: 180_000,
          sequence: { groupOrder: 0 },
        },
      },
      // The first file of each process synthesizes the app (test/infra/synth.ts), the others reuse it;
      // a synthesis is seconds of CPU, longer while the end-to-end files share the cores.
      ...sharingProcesses('infra', ['test/infra'], { testTimeout: 120_000, hookTimeout: 120_000 }),
      ...sharingProcesses('local', ['test/local', 'test/sandbox', 'test/sample-data'], {
        globalSetup: [GRANT_USAGE_SETUP],
      }),
      // The edit-test loop: modules on in-memory ports, the synthesized workflows, the code's shape.
      ...sharingProcesses('fast', ['test/unit', 'test/workflow', 'test/structure']),
      // Each port's contract; one DynamoDB Local for all of them.
      ...sharingProcesses('fast, contract', ['test/contract'], {
        globalSetup: ['test/helpers/dynamodb-local-setup.ts'],
      }),
      {
        extends: true,
        test: { name: 'after the suite', include: [AFTER_THE_SUITE], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
