/**
 * End to end (b): a batch of 60 rows against a sandbox that answers 10 % of requests with a
 * 5xx, drops 5 % of connections after doing the work and sends 5 % spurious 429s. Every row
 * must end in exactly one output row, no classification may be billed twice (the same
 * attempt's retries carry the same Idempotency-Key), and the cap is never exceeded.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import {
  adminClassifications,
  E2E_ASSEMBLY_DIR,
  E2E_TIME_SCALE,
  makeTempDir,
  readResults,
  resolvableRows,
  sumOf,
  writeCsv,
} from './helpers.js';

const temp = makeTempDir('faults');
afterAll(() => temp.remove());

/** Each fault many times over: one run saw 61 answers 5xx, 28 connections dropped, 36 spurious 429s. */
const ROWS = 60;
const FAULTS = 'http5xx=0.1,reset_after=0.05,rate_limit_burst=0.05';
const WORKING = ['queued', 'submitting', 'in_progress'];

describe('a batch against a faulty service', () => {
  it('accounts for every row, bills each classification once and never exceeds the cap', async () => {
    // Prepare
    const file = writeCsv(
      join(temp.dir, 'faulty.csv'),
      ['sku', 'description', 'operation', 'country'],
      resolvableRows(ROWS, 'F'),
    );
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-faults', faults: FAULTS },
    });
    try {
      const sandbox = pipeline.sandbox;
      if (!sandbox) throw new Error('expected the built-in sandbox');

      // Act
      const { batchId } = await pipeline.submit({ file });
      const outcome = await pipeline.waitForBatch(batchId, { progressEveryMs: 250 });

      // Assess: every row accounted for, once.
      expect(outcome.state).toBe('completed');
      const byStatus = outcome.summary.by_status as Record<string, number>;
      expect(sumOf(byStatus)).toBe(ROWS);
      const progress = await pipeline.progress(batchId);
      expect(progress.rowsTotal).toBe(ROWS);
      for (const status of WORKING) expect(progress.byStatus[status] ?? 0).toBe(0);
      expect(progress.leasesHeld).toBe(0);
      const outDir = join(temp.dir, 'out');
      await pipeline.copyOutbox(batchId, outDir);
      const results = await readResults(join(outDir, 'results.csv'));
      expect(results.rows).toHaveLength(ROWS);

      // The faults did happen.
      const stats = sandbox.stats();
      expect(stats.faults_injected.http5xx).toBeGreaterThan(0);
      expect(stats.faults_injected.reset_after).toBeGreaterThan(0);
      expect(stats.faults_injected.rate_limit_burst).toBeGreaterThan(0);

      // No classification billed twice, no row resolved twice, the money agrees.
      expect(Object.values(stats.billed_per_classification).every((times) => times === 1)).toBe(true);
      const resolvedPerRow = new Map<string, number>();
      for (const classification of await adminClassifications(sandbox.adminUrl)) {
        expect(classification._sandbox.billed_times).toBeLessThanOrEqual(1);
        if (classification.status !== 'resolved') continue;
        const key = classification.external_reference ?? classification.id;
        resolvedPerRow.set(key, (resolvedPerRow.get(key) ?? 0) + 1);
      }
      expect([...resolvedPerRow.values()].every((count) => count === 1)).toBe(true);
      expect(resolvedPerRow.size).toBe(stats.billed_count);
      expect(outcome.summary.billed_usd).toBe(stats.billed_usd);
      expect(byStatus.resolved).toBe(stats.billed_count);

      // The cap held throughout.
      expect(stats.in_progress_max).toBeGreaterThan(1);
      expect(stats.in_progress_max).toBeLessThanOrEqual(stats.concurrency_limit);
    } finally {
      await pipeline.close();
    }
  }, 180_000);
});
