/**
 * Every function's bundle carries the NCM table: carried-table.ts reads it beside its own
 * `import.meta.url`, which in a bundle is the bundle's `index.mjs`. One small function is
 * bundled the way every function is (buildAppFunction), and its bundle, imported in a child
 * process from the asset folder alone, reads the table.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAppFunction } from '../../infra/pipeline-functions.js';
import { carriedNcmTable } from '../../shared/ncm-table/carried-table.js';

const TABLE_FILE = 'tabela-ncm-vigente-20260705.json.gz';
const outdir = mkdtempSync(join(tmpdir(), 'bundled-table-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('a function bundle', () => {
  it('holds the carried NCM table beside index.mjs, and the bundled code reads it', async () => {
    const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
    const stack = new Stack(app, 'Probe');
    const { fn } = buildAppFunction(
      stack,
      'table-probe',
      {
        entry: 'test/infra/carried-table-probe.ts',
        timeoutSeconds: 10,
        memoryMb: 256,
        description: 'reads the carried NCM table',
      },
      { logRetention: RetentionDays.ONE_DAY },
    );
    const bundle = join(
      outdir,
      (fn.node.defaultChild as CfnResource).getMetadata('aws:asset:path') as string,
    );
    expect(existsSync(join(bundle, 'index.mjs'))).toBe(true);
    expect(readFileSync(join(bundle, 'data', TABLE_FILE))).toEqual(
      readFileSync(new URL(`../../shared/ncm-table/data/${TABLE_FILE}`, import.meta.url)),
    );
    // The bundle, imported by file URL from the asset folder (as Lambda and the local runtime
    // load it), finds the table by its own URL.
    const script = `const { handler } = await import(${JSON.stringify(`file://${join(bundle, 'index.mjs')}`)}); process.stdout.write(JSON.stringify(await handler()));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: outdir,
      encoding: 'utf8',
    });
    const carried = carriedNcmTable();
    expect(JSON.parse(output)).toEqual({ asOf: carried.asOf, codeCount: carried.codeCount });
  });
});
