/**
 * Every function's SDK clients take their credentials from the environment Lambda sets for the
 * function's role (functions/lambda-credentials.ts stands where the SDK's default chain would): one
 * small function, bundled the way every function is, resolves them from AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY in a child process, names the variables when they are missing, and its
 * bundle holds none of the chain's other sources (profiles, SSO, the instance metadata, STS).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAppFunction } from '../../infra/pipeline-functions.js';

const outdir = mkdtempSync(join(tmpdir(), 'bundle-credentials-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const bundleDir = (): string => {
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'Probe');
  const { fn } = buildAppFunction(
    stack,
    'credentials-probe',
    {
      entry: 'test/infra/credentials-probe.ts',
      timeoutSeconds: 10,
      memoryMb: 256,
      description: 'resolves the credentials of a DynamoDB client',
    },
    { logRetention: RetentionDays.ONE_DAY },
  );
  return join(outdir, (fn.node.defaultChild as CfnResource).getMetadata('aws:asset:path') as string);
};

/** Runs the bundled handler in a child process with only the given variables beside PATH. */
const run = (bundle: string, env: Record<string, string>): string =>
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { handler } = await import(${JSON.stringify(`file://${join(bundle, 'index.mjs')}`)}); process.stdout.write(JSON.stringify(await handler()));`,
    ],
    { cwd: outdir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' },
  );

describe("a function bundle's credentials", () => {
  const bundle = bundleDir();

  it("are the role's, from the environment Lambda sets", () => {
    const output = run(bundle, {
      AWS_ACCESS_KEY_ID: 'ASIAEXAMPLEROLEKEY',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'token',
    });
    expect(JSON.parse(output)).toEqual({ accessKeyId: 'ASIAEXAMPLEROLEKEY' });
  });

  it('name the variables when the environment has none, and no other source is in the bundle', () => {
    expect(() => run(bundle, {})).toThrow(/AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    const sources: string[] = JSON.parse(readFileSync(join(bundle, 'index.mjs.map'), 'utf8')).sources;
    const chain = sources.filter((source) =>
      /credential-provider-(node|ini|sso|process|web-identity|imds|login)|nested-clients/.test(source),
    );
    expect(chain).toEqual([]);
    expect(sources.some((source) => source.endsWith('functions/lambda-credentials.ts'))).toBe(true);
  });
});
