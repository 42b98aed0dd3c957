/**
 * End to end (c): two batches dropped at the same moment share the organisation's cap (4
 * here): both complete, every row of each is accounted for, and the sandbox never sees more
 * than 4 classifications in progress. One lease item holds every batch's slots, so the two
 * dispatchers' runs never add up past the cap.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, resolvableRows, sumOf, writeCsv } from './helpers.js';

const temp = makeTempDir('shared-cap');
afterAll(() => temp.remove());

const CAP = 4;
const ROWS_PER_BATCH = 16;
const HEADER = ['sku', 'description', 'operation', 'country'];

describe('two batches dropped at once', () => {
  it('both complete within the shared cap', async () => {
    // Prepare
    const north = writeCsv(join(temp.dir, 'north.csv'), HEADER, resolvableRows(ROWS_PER_BATCH, 'N'));
    const south = writeCsv(join(temp.dir, 'south.csv'), HEADER, resolvableRows(ROWS_PER_BATCH, 'S'));
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-shared-cap', concurrencyLimit: CAP },
    });
    try {
      // Act: both drops at once; watch the leases while they run.
      const submitted = await Promise.all([
        pipeline.submit({ file: north }),
        pipeline.submit({ file: south }),
      ]);
      expect(new Set(submitted.map(({ batchId }) => batchId)).size).toBe(2);
      let leasesMax = 0;
      // When each batch had rows at the service: the two windows must overlap.
      const active = submitted.map(() => ({ first: Number.POSITIVE_INFINITY, last: 0 }));
      const outcomes = await Promise.all(
        submitted.map(({ batchId }, index) =>
          pipeline.waitForBatch(batchId, {
            progressEveryMs: 100,
            onProgress: (progress) => {
              leasesMax = Math.max(leasesMax, progress.leasesHeld);
              expect(progress.cap).toBe(CAP);
              const window = active[index];
              if (window && (progress.byStatus.submitting ?? 0) + (progress.byStatus.in_progress ?? 0) > 0) {
                window.first = Math.min(window.first, Date.now());
                window.last = Date.now();
              }
            },
          }),
        ),
      );
      const progressOf = await Promise.all(submitted.map(({ batchId }) => pipeline.progress(batchId)));

      // Assess
      for (const outcome of outcomes) {
        expect(outcome.state).toBe('completed');
        const byStatus = outcome.summary.by_status as Record<string, number>;
        expect(sumOf(byStatus)).toBe(ROWS_PER_BATCH);
        expect(byStatus.resolved).toBe(ROWS_PER_BATCH);
      }
      const [a, b] = active as [{ first: number; last: number }, { first: number; last: number }];
      expect(Math.max(a.first, b.first)).toBeLessThanOrEqual(Math.min(a.last, b.last));
      const stats = pipeline.sandbox?.stats();
      expect(stats?.concurrency_limit).toBe(CAP);
      expect(stats?.in_progress_max).toBeGreaterThan(1);
      expect(stats?.in_progress_max).toBeLessThanOrEqual(CAP);
      expect(stats?.billed_count).toBe(2 * ROWS_PER_BATCH);
      expect(leasesMax).toBeLessThanOrEqual(CAP);
      expect(progressOf.every((progress) => progress.leasesHeld === 0)).toBe(true);
    } finally {
      await pipeline.close();
    }
  }, 120_000);
});
