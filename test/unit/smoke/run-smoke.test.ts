/**
 * The smoke's steps on a deployment in memory (fake-deployment.ts): the stack read, the cost said,
 * the drop in a person's order, the batch found and followed to its end with a deadline, the checks
 * run on what it left; and each way it stops early, said in one sentence.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { outboxKey } from '../../../shared/pipeline/core/bucket-layout.js';
import { deriveBatchId } from '../../../shared/pipeline/core/keys.js';
import { loadSmokeCatalogue, type SmokeCatalogue } from '../../../shared/smoke/catalogue.js';
import {
  BATCH_START_LIMIT_MS,
  runSmoke,
  type SmokeOptions,
  smokeBatchName,
} from '../../../shared/smoke/run-smoke.js';
import { TOKEN } from '../../helpers/records.js';
import {
  BATCH_TABLE,
  type Behaviour,
  BUCKET,
  describedStack,
  fakeDeployment,
  REVIEW_TABLE,
  STACK,
} from './fake-deployment.js';

let catalogue: SmokeCatalogue;
beforeAll(async () => {
  catalogue = await loadSmokeCatalogue();
});

const BATCH_NAME = 'smoke-20261125-130501-ab12';
const INBOX = `inbox/${BATCH_NAME}/`;

const options = (overrides: Partial<SmokeOptions> = {}): SmokeOptions => ({
  stackName: STACK,
  catalogue,
  batchName: BATCH_NAME,
  timeoutMs: 15 * 60_000,
  pollEveryMs: 5_000,
  ...overrides,
});

const smoke = async (behaviour: Behaviour = {}, overrides: Partial<SmokeOptions> = {}) => {
  const fake = fakeDeployment(catalogue, behaviour);
  const outcome = await runSmoke(fake.ports, options(overrides));
  return { ...fake, outcome };
};

const failing = (outcome: Awaited<ReturnType<typeof smoke>>['outcome']) =>
  outcome.checks
    .filter((check) => check.problems.length > 0)
    .map(({ name, problems }) => ({ name, problems }));

describe('runSmoke on a deployment that works', () => {
  it('says the cost, drops batch.json and the sheet before the spreadsheet, follows the batch and passes', async () => {
    const { outcome, world } = await smoke();

    expect(outcome).toMatchObject({ passed: true, failure: null, batchId: world.batchId });
    expect(world.opened).toEqual([
      { stackName: STACK, bucket: BUCKET, batchTable: BATCH_TABLE, reviewTable: REVIEW_TABLE },
    ]);
    expect(world.puts).toEqual([
      `${INBOX}batch.json`,
      `${INBOX}sheets/bomba-submersivel.pdf`,
      `${INBOX}products.csv`,
    ]);
    const said = world.said;
    expect(said.slice(0, 4)).toEqual([
      `Stack ${STACK}: bucket ${BUCKET}, batch table ${BATCH_TABLE}, review table ${REVIEW_TABLE}`,
      'Catalogue products.csv: 3 rows, one technical sheet (sheets/bomba-submersivel.pdf)',
      'Cost: at most USD 6.00 (USD 2.00 per resolved classification; its batch.json caps it at max_usd 6)',
      `Dropped into s3://${BUCKET}/${INBOX}: batch.json, sheets/bomba-submersivel.pdf, then products.csv`,
    ]);
    expect(said).toContain(`Batch ${world.batchId} started`);
    expect(said).toContain('  running · 0 of 3 rows ended · queued 3 · 0 s');
    expect(said).toContain(`Batch ${world.batchId} completed after 15 s`);
    expect(said.slice(-12)).toEqual([
      'Rows: resolved 2 · pending_data 1',
      'Billed: USD 4.00 (at most USD 6.00)',
      `Files in outbox/${world.batchId}/: pdfs/00001-SMOKE-BOM-0207.pdf, pdfs/00002-SMOKE-ROL-6204.pdf, results.csv, results.xlsx, review.csv, review.xlsx, summary.json`,
      'Checks:',
      `  ok    outbox: outbox/${world.batchId}/ holds results.csv, results.xlsx, review.csv, review.xlsx, summary.json`,
      '  ok    results.csv: 3 rows, one per input row, each with an output status; 2 verdicts with an NCM of 8 digits',
      '  ok    row outcomes: every row resolved or waits for answers (pending_data), at least one resolved',
      '  ok    verdict PDFs: 2 PDFs named in results.csv, each in the bucket and starting with %PDF-',
      '  ok    summary.json: completed, 3 rows counted by status as in results.csv, USD 4.00 billed',
      `  ok    batch table: batch ${world.batchId} completed; 3 row items agreeing with results.csv`,
      '  ok    review table: 1 pending item, one for each row waiting for answers',
      'Smoke test passed: the deployment classified the catalogue end to end.',
    ]);
    // The batch record holds the workflow's task token: nothing said ever does.
    expect(said.join('\n')).not.toContain(TOKEN);
  });

  it('finds the batch by the id Prepare derives from the version on a versioned bucket', async () => {
    const { outcome } = await smoke({ versioned: true });

    const key = `${INBOX}products.csv`;
    expect(outcome.passed).toBe(true);
    expect(outcome.batchId).toBe(
      deriveBatchId(BATCH_NAME, { bucket: BUCKET, key, versionOrEtag: `v-${key}` }),
    );
  });
});

describe('runSmoke on a deployment that is broken', () => {
  it('fails, naming the file, when a verdict PDF is not in the bucket', async () => {
    const { outcome, world } = await smoke({
      afterEnd: (found) => {
        found.objects.objects.delete(outboxKey(found.batchId as string, 'pdfs/00002-SMOKE-ROL-6204.pdf'));
      },
    });

    expect(outcome).toMatchObject({ passed: false, failure: null });
    expect(failing(outcome)).toEqual([
      {
        name: 'verdict PDFs',
        problems: [`row 2's verdict PDF outbox/${world.batchId}/pdfs/00002-SMOKE-ROL-6204.pdf is missing`],
      },
    ]);
    expect(world.said.at(-1)).toBe('Smoke test FAILED: 1 of 7 checks found problems (verdict PDFs).');
    expect(world.said).toContain('  FAIL  verdict PDFs:');
  });

  it('fails when results.csv has lost a row, and the summary no longer agrees with it', async () => {
    const { outcome } = await smoke({
      afterEnd: async (found) => {
        const key = outboxKey(found.batchId as string, 'results.csv');
        const lines = (found.objects.text(key) as string).split('\r\n');
        found.objects.set(key, lines.filter((line) => !line.startsWith('SMOKE-ROL-6204')).join('\r\n'));
      },
    });

    expect(outcome.passed).toBe(false);
    expect(failing(outcome)).toEqual([
      { name: 'results.csv', problems: ['input row 2 has 0 rows in results.csv, not exactly one'] },
      {
        name: 'summary.json',
        problems: [
          'summary.json counts 2 resolved, results.csv has 1',
          "summary.json bills USD 4.00, results.csv's rows USD 2.00",
        ],
      },
    ]);
  });

  it('fails when the batch table says otherwise than results.csv', async () => {
    const { outcome } = await smoke({
      afterEnd: async (found) => {
        found.batches.placeRow(found.batchId as string, 1, { status: 'error' });
      },
    });

    expect(failing(outcome)).toEqual([
      { name: 'batch table', problems: ['row 1: the batch table has it error, results.csv resolved'] },
    ]);
  });
});

describe('runSmoke stops before its checks, saying why', () => {
  it('when there is no such stack, dropping nothing', async () => {
    const { outcome, world } = await smoke({}, { stackName: 'NcmBatchClassifier-Staging' });

    expect(outcome).toEqual({
      passed: false,
      batchId: null,
      checks: [],
      failure:
        'there is no stack named NcmBatchClassifier-Staging in this account and region: check the stack name, AWS_PROFILE and AWS_REGION',
    });
    expect(world.puts).toEqual([]);
    expect(world.said).toEqual([`Smoke test FAILED: ${outcome.failure}`]);
  });

  it.each([
    [
      'still deploying',
      describedStack({ StackStatus: 'UPDATE_IN_PROGRESS' }),
      `stack ${STACK} is UPDATE_IN_PROGRESS, not CREATE_COMPLETE or UPDATE_COMPLETE: let its deploy finish (or fix what rolled it back), then run the smoke again`,
    ],
    [
      'rolled back',
      describedStack({ StackStatus: 'UPDATE_ROLLBACK_COMPLETE' }),
      `stack ${STACK} is UPDATE_ROLLBACK_COMPLETE, not CREATE_COMPLETE or UPDATE_COMPLETE: let its deploy finish (or fix what rolled it back), then run the smoke again`,
    ],
    [
      'not the stateful stack',
      describedStack({ Outputs: [] }),
      `stack ${STACK} does not export ${STACK}:BucketName, ${STACK}:BatchTableName, ${STACK}:ReviewTableName: give the stack that holds the bucket and the tables (the stateful stack)`,
    ],
  ])('when the stack is %s', async (_case, stack, failure) => {
    const fake = fakeDeployment(catalogue);
    fake.ports.stacks = { describe: async () => stack };

    const outcome = await runSmoke(fake.ports, options());

    expect(outcome).toMatchObject({ passed: false, failure });
    expect(fake.world.puts).toEqual([]);
  });

  it('when no batch starts from the spreadsheet within five minutes', async () => {
    const { outcome, world } = await smoke({ starts: false });

    expect(outcome.failure).toBe(
      `no batch started from s3://${BUCKET}/${INBOX}products.csv within 5 min 0 s: is the pipeline stack deployed? ` +
        "Its rule starts the Batch workflow on the bucket's Object Created events under inbox/; look at the Batch workflow's executions for this key",
    );
    expect(world.time.now().getTime() - new Date('2026-11-25T13:05:01.000Z').getTime()).toBe(
      BATCH_START_LIMIT_MS,
    );
  });

  it('when the batch failed before it was prepared (its summary, found by the derived id)', async () => {
    const { outcome } = await smoke({ versioned: true, orphan: true });

    const key = `${INBOX}products.csv`;
    const batchId = deriveBatchId(BATCH_NAME, { bucket: BUCKET, key, versionOrEtag: `v-${key}` });
    expect(outcome.failure).toBe(
      `batch ${batchId} failed before it was prepared: The batch could not be prepared: AccessDenied: not authorized to perform s3:GetObject`,
    );
  });

  it('when the batch has not ended by the deadline, which counts from the start', async () => {
    const { outcome, world } = await smoke(
      { waitsToEnd: Number.POSITIVE_INFINITY },
      { timeoutMs: 2 * 60_000 },
    );

    expect(outcome).toMatchObject({ passed: false, batchId: world.batchId, checks: [] });
    expect(outcome.failure).toBe(
      `batch ${world.batchId} not ended after 2 min 0 s (running · 0 of 3 rows ended · queued 3); it goes on running ` +
        `and its results will be in outbox/${world.batchId}/: give the smoke more time (--timeout)`,
    );
    // Said while waiting: the state, and again every 30 s when nothing changes.
    expect(
      world.said.filter((line) => line.startsWith('  running · 0 of 3 rows ended · queued 3')),
    ).toHaveLength(4);
  });

  it('when it is interrupted while the batch runs', async () => {
    const stop = new AbortController();
    const { outcome, world } = await smoke(
      { waitsToEnd: Number.POSITIVE_INFINITY, onWait: (waits) => waits === 4 && stop.abort() },
      { signal: stop.signal },
    );

    expect(outcome.failure).toMatch(new RegExp(`^batch ${world.batchId} stopped \\(running · `));
  });
});

describe('smokeBatchName', () => {
  it('is a new inbox folder per run, sorting by time', () => {
    expect(smokeBatchName(new Date('2026-11-25T13:05:01.123Z'), '3fa9')).toBe('smoke-20261125-130501-3fa9');
    expect(() => smokeBatchName(new Date(), 'a/b')).toThrow('not a batch folder name: smoke-');
  });
});
