import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { GRANT_USAGE_DIR } from './local/runtime/permissions/grant-usage.js';

/** Tests that read what the whole suite recorded: they run once every other test has. */
const AFTER_THE_SUITE = 'test/after-suite/**/*.test.ts';

export default defineConfig({
  test: {
    // Tests start real HTTP servers on loopback; two cores, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    allowOnly: false,
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
          exclude: [AFTER_THE_SUITE],
          globalSetup: ['test/grant-usage-setup.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'after the suite', include: [AFTER_THE_SUITE], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
