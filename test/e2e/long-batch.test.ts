/**
 * End to end: a batch that lasts far longer than the rows queue keeps a message. At a time
 * scale of 7/1,000,000 the queue's 14 days of retention pass in 8.5 s and the old fixed 72 h wait
 * in 1.8 s, while the local runtime takes about 0.15 s of real time a row: 100 rows at a cap of 1
 * last about a month of simulated time (the poll policy's 6 h slow path, 151 ms, is never
 * reached: a row's run ends within its first poll). Every row must still be classified, once,
 * and the rows queue must never hold more than the batch's window: the backlog waits in the
 * batch table and the dispatcher tops the window up as it drains (docs/architecture.md,
 * property 3). Sending every row at Prepare, as the pipeline once did, loses the rows still
 * queued when the first messages turn 14 days old, and the batch never completes.
 */
import { join } from 'node:path';
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../local/runtime/loopback.js';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import { windowSizeFor } from '../../shared/pipeline/dispatch/rows-window.js';
import {
  adminClassifications,
  column,
  E2E_ASSEMBLY_DIR,
  makeTempDir,
  readResults,
  resolvableRows,
  writeCsv,
} from './helpers.js';

const temp = makeTempDir('long-batch');
afterAll(() => temp.remove());

/** 14 days of retention ≈ 8.5 s, 72 h ≈ 1.8 s, the poll policy's 6 h ≈ 0.15 s. */
const TIME_SCALE = 7e-6;
const CAP = 1;
const ROWS = 100;
/** The rows queue's window of a batch at this cap: 10 messages. */
const WINDOW = windowSizeFor(CAP);
const HEADER = ['sku', 'description', 'operation', 'country'];

/** Every message of the rows queue: waiting, in flight and delayed. */
const rowsQueueDepth = (aws: string) => {
  const sqs = new SQSClient({ endpoint: aws, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  let queueUrl: Promise<string> | null = null;
  const rowsQueueUrl = async () => {
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
    const found = QueueUrls.find((url) => /RowsQueue/.test(url) && !/DeadLetter/.test(url));
    if (!found) throw new Error(`no rows queue among ${QueueUrls.join(', ')}`);
    return found;
  };
  return {
    depth: async () => {
      queueUrl ??= rowsQueueUrl();
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: await queueUrl, AttributeNames: ['All'] }),
      );
      return (
        Number(Attributes.ApproximateNumberOfMessages) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible) +
        Number(Attributes.ApproximateNumberOfMessagesDelayed)
      );
    },
    close: () => sqs.destroy(),
  };
};

describe('a batch far longer than the queue keeps a message', () => {
  it('classifies every row once, the rows queue never holding more than the window', async () => {
    // Prepare
    const file = writeCsv(join(temp.dir, 'long.csv'), HEADER, resolvableRows(ROWS, 'L'));
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-long-batch', concurrencyLimit: CAP },
    });
    const queue = rowsQueueDepth(pipeline.endpoints.aws);
    const depths: number[] = [];
    const sampling: Promise<unknown>[] = [];
    try {
      // Act: watch the queue's depth while the batch runs.
      const { batchId } = await pipeline.submit({ file });
      const outcome = await pipeline.waitForBatch(batchId, {
        progressEveryMs: 50,
        onProgress: () => {
          sampling.push(queue.depth().then((depth) => void depths.push(depth)));
        },
      });
      await Promise.all(sampling);
      const outDir = join(temp.dir, 'out');
      await pipeline.copyOutbox(batchId, outDir);
      const classifications = await adminClassifications(pipeline.sandbox!.adminUrl);

      // Assess: one output row per input row, each resolved; each billed once.
      expect(outcome.state).toBe('completed');
      const results = await readResults(join(outDir, 'results.csv'));
      expect(results.rows).toHaveLength(ROWS);
      const status = column(results, 'status');
      expect(new Set(results.rows.map((row) => row.cells[status]))).toEqual(new Set(['resolved']));
      expect(classifications).toHaveLength(ROWS);
      expect(classifications.every((classification) => classification._sandbox.billed_times <= 1)).toBe(true);
      expect(new Set(classifications.map((classification) => classification.external_reference)).size).toBe(
        ROWS,
      );
      // The window, and at most one message per slot a dispatcher has claimed and not yet deleted.
      expect(depths.length).toBeGreaterThan(0);
      expect(Math.max(...depths)).toBeLessThanOrEqual(WINDOW + CAP);
    } finally {
      await Promise.allSettled(sampling);
      queue.close();
      await pipeline.close();
    }
  }, 120_000);
});
