/**
 * Closing the runtime while a batch runs (Ctrl-C in `npm run classify`). On AWS the
 * executions would go on; here they end with the process, so close() ends them the AWS way:
 * the batch is stopped, each running Row execution is aborted and the template's rule runs
 * row-execution-ended, so its row ends `error` and its slot lease is released. The next run on
 * the same data folder starts with every slot free and never submits the stopped batch's rows.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import { E2E_ASSEMBLY_DIR, makeTempDir, resolvableRows, sumOf, writeCsv } from './helpers.js';

const temp = makeTempDir('interrupted');
afterAll(() => temp.remove());

const CAP = 3;
const ROWS = 12;
/**
 * Runs of 4–8 s: long enough to close while rows are at the service. At 2–4 s, on a loaded
 * machine, a row could finish between being seen in progress and the close.
 */
const SLOW_TIME_SCALE = 0.1;
const HEADER = ['sku', 'description', 'operation', 'country'];

const start = (fresh: boolean) =>
  startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh,
    timeScale: SLOW_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-interrupted', concurrencyLimit: CAP },
  });

/** How long each step it waits for may take, in real time, looked at every 50 ms. */
const WAIT = { timeout: 20_000, interval: 50 };

describe('closing while a batch runs', () => {
  it('releases the leases, ends in-flight rows as error and submits nothing more', async () => {
    // Prepare: a batch with rows at the service.
    const file = writeCsv(join(temp.dir, 'long.csv'), HEADER, resolvableRows(ROWS, 'L'));
    const first = await start(true);
    let batchId: string;
    try {
      ({ batchId } = await first.submit({ file }));
      await vi.waitFor(
        async () =>
          expect(
            (await first.progress(batchId)).byStatus.in_progress ?? 0,
            'rows in progress',
          ).toBeGreaterThanOrEqual(2),
        WAIT,
      );
    } finally {
      // Act
      await first.close();
    }

    // Assess: a new run on the same folder.
    const second = await start(false);
    try {
      const after = await second.progress(batchId);
      expect(after.leasesHeld).toBe(0);
      expect(after.byStatus.in_progress ?? 0).toBe(0);
      expect(after.byStatus.submitting ?? 0).toBe(0);
      expect(after.byStatus.error ?? 0).toBeGreaterThanOrEqual(2);
      expect(sumOf(after.byStatus)).toBe(ROWS);
      const createdBefore = second.sandbox?.stats().created ?? 0;

      // The stopped batch's queued rows end not_submitted as the dispatcher meets them, and
      // a new batch runs with every slot.
      const next = writeCsv(join(temp.dir, 'next.csv'), HEADER, resolvableRows(2, 'X'));
      const { batchId: nextId } = await second.submit({ file: next });
      // A deadline of its own: a batch that never completes says so here, not as the test's timeout.
      const outcome = await second.waitForBatch(nextId, {
        progressEveryMs: 100,
        signal: AbortSignal.timeout(60_000),
      });
      expect(outcome.state).toBe('completed');
      expect((outcome.summary.by_status as Record<string, number>).resolved).toBe(2);
      await vi.waitFor(
        async () =>
          expect(
            (await second.progress(batchId)).byStatus.queued ?? 0,
            'the stopped batch’s queue drained',
          ).toBe(0),
        WAIT,
      );
      const stopped = await second.progress(batchId);
      expect(stopped.byStatus.not_submitted ?? 0).toBe(ROWS - (stopped.byStatus.error ?? 0));
      expect(second.sandbox?.stats().created).toBe(createdBefore + 2);
    } finally {
      await second.close();
    }
  }, 120_000);
});
