/**
 * End to end: the smoke test of a deployment (shared/smoke), run against the local runtime as
 * `npm run smoke` runs against AWS. The stack is found by its outputs (the synthesized stateful
 * template's exports, resolved to the local names), the catalogue of sample-data/smoke/ is dropped
 * into the local bucket, whose notifications start the batch as EventBridge does on AWS, and the
 * checks read the outbox and the tables through the same S3 and DynamoDB adapters. Only the
 * account itself is left untested. Then a verdict PDF is deleted, and the same checks name it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../local/runtime/loopback.js';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { LOCAL_REGION } from '../../local/runtime/template.js';
import { outboxKey } from '../../shared/pipeline/core/bucket-layout.js';
import { awsSmokePorts, stackLookupOf } from '../../shared/smoke/aws.js';
import { loadSmokeCatalogue, type SmokeCatalogue } from '../../shared/smoke/catalogue.js';
import { findDeployment } from '../../shared/smoke/deployment.js';
import { runSmoke, type SmokeOutcome, smokeBatchName, verifyBatch } from '../../shared/smoke/run-smoke.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir } from './helpers.js';

const STACK = 'NcmBatchClassifier-Stateful';
const temp = makeTempDir('smoke');
let pipeline: LocalPipeline;
let s3: S3Client;
let dynamo: DynamoDBClient;
let catalogue: SmokeCatalogue;
const said: string[] = [];
let outcome: SmokeOutcome;

const portsOf = (lines: string[]) =>
  awsSmokePorts({
    stacks: stackLookupOf(async (name) => pipeline.describeStack(name)),
    s3,
    dynamo,
    say: (line) => lines.push(line),
  });

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    dataDir: `${temp.dir}/data`,
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-smoke' },
    bucketNotifications: true,
  });
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  s3 = new S3Client({
    ...common,
    endpoint: pipeline.endpoints.s3,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  dynamo = new DynamoDBClient({ ...common, endpoint: pipeline.endpoints.dynamodb });
  catalogue = await loadSmokeCatalogue();
}, 300_000);

afterAll(async () => {
  s3?.destroy();
  dynamo?.destroy();
  await pipeline?.close();
  temp.remove();
}, 60_000);

describe('npm run smoke, against the local runtime', () => {
  it('finds the stack, drops the catalogue, follows its batch and finds every check holding', async () => {
    // Arrange / Act: the smoke as the command runs it, on the local deployment.
    outcome = await runSmoke(portsOf(said), {
      stackName: STACK,
      catalogue,
      batchName: smokeBatchName(new Date(), 'e2e0'),
      timeoutMs: 180_000,
      pollEveryMs: 200,
    });

    // Assert: it passed, on the sandbox's known verdicts, and said so in order.
    expect(outcome, said.join('\n')).toMatchObject({ passed: true, failure: null });
    expect(outcome.checks.map((check) => check.name)).toEqual([
      'outbox',
      'results.csv',
      'row outcomes',
      'verdict PDFs',
      'summary.json',
      'batch table',
      'review table',
    ]);
    const at = (start: string) => said.findIndex((line) => line.startsWith(start));
    expect(at('Stack NcmBatchClassifier-Stateful: bucket ncmbatchclassifier-stateful-bucket')).toBe(0);
    expect(said).toContain(
      'Cost: at most USD 6.00 (USD 2.00 per resolved classification; its batch.json caps it at max_usd 6)',
    );
    expect(at('Cost:')).toBeLessThan(at('Dropped into'));
    expect(said[at('Dropped into')]).toMatch(
      /inbox\/smoke-\d{8}-\d{6}-e2e0\/: batch\.json, sheets\/bomba-submersivel\.pdf, then products\.csv$/,
    );
    expect(said).toContain('Rows: resolved 2 · pending_data 1');
    expect(said).toContain('Billed: USD 4.00 (at most USD 6.00)');
    expect(said.at(-1)).toBe('Smoke test passed: the deployment classified the catalogue end to end.');
  }, 240_000);

  it('fails, naming it, once a verdict PDF is gone from the bucket', async () => {
    // Arrange: the batch the smoke ran, one of its verdict PDFs deleted.
    const batchId = outcome.batchId as string;
    const ports = portsOf([]);
    const deployment = await findDeployment(ports.stacks, STACK);
    const pdf = 'pdfs/00001-SMOKE-BOM-0207.pdf';
    await s3.send(new DeleteObjectCommand({ Bucket: deployment.bucket, Key: outboxKey(batchId, pdf) }));

    // Act
    const { checks, lines } = await verifyBatch(ports.open(deployment), batchId, catalogue);

    // Assert: that check alone fails, and says which file.
    expect(checks.filter((check) => check.problems.length > 0)).toEqual([
      {
        name: 'verdict PDFs',
        held: expect.any(String),
        problems: [`row 1's verdict PDF outbox/${batchId}/${pdf} is missing`],
      },
    ]);
    expect(lines.at(-1)).toBe('Smoke test FAILED: 1 of 7 checks found problems (verdict PDFs).');
  });
});
