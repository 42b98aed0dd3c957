import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { GRANT_USAGE_DIR } from './local/runtime/permissions/grant-usage.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
    globalSetup: ['test/grant-usage-setup.ts'],
    // In CI a JSON report lets .ci/run print the plain 'N passed, N failed' closing line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
  },
});
