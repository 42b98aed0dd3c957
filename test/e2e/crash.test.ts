/**
 * End to end (d): a handler's process dies in the middle of a row. The row-poll function's
 * third invocation does its work (reads the classification, renews the lease) and then its
 * process exits with status 137 before answering, as an out-of-memory kill would. Step
 * Functions sees `Lambda.Unknown`, retries Poll in a fresh environment, and the row ends
 * resolved (or `error`), never stuck, with its slot lease released; the batch completes.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import {
  E2E_ASSEMBLY_DIR,
  E2E_TIME_SCALE,
  makeTempDir,
  readResults,
  resolvableRows,
  sumOf,
  writeCsv,
} from './helpers.js';

const temp = makeTempDir('crash');
afterAll(() => temp.remove());

const ROWS = 3;

describe('a handler crash mid-row', () => {
  it('ends the row retried or as error, releases its lease and completes the batch', async () => {
    // Prepare
    const file = writeCsv(
      join(temp.dir, 'crash.csv'),
      ['sku', 'description', 'operation', 'country'],
      resolvableRows(ROWS, 'C'),
    );
    const lines: string[] = [];
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-crash' },
      crash: { handler: 'row-poll', invocation: 3 },
      log: (line) => {
        if (line.startsWith('row-poll: ')) lines.push(line);
      },
    });
    try {
      // Act
      const { batchId } = await pipeline.submit({ file });
      const outcome = await pipeline.waitForBatch(batchId, { progressEveryMs: 100 });

      // Assess: the crash was a real process exit, in the middle of a row.
      expect(lines).toContain('row-poll: invocation 3 will crash its environment (fault)');
      expect(lines).toContain('row-poll: environment ended (exit status 137)');

      // Every row final (retried to resolved, or error), none left working, no lease held.
      expect(outcome.state).toBe('completed');
      const byStatus = outcome.summary.by_status as Record<string, number>;
      expect(sumOf(byStatus)).toBe(ROWS);
      expect((byStatus.resolved ?? 0) + (byStatus.error ?? 0)).toBe(ROWS);
      const progress = await pipeline.progress(batchId);
      expect(progress.leasesHeld).toBe(0);
      expect(progress.byStatus.in_progress ?? 0).toBe(0);

      const outDir = join(temp.dir, 'out');
      await pipeline.copyOutbox(batchId, outDir);
      const results = await readResults(join(outDir, 'results.csv'));
      expect(results.rows).toHaveLength(ROWS);
      // The sandbox billed exactly the rows that resolved: the crash lost no verdict and made no second one.
      expect(pipeline.sandbox?.stats().billed_count).toBe(byStatus.resolved);
    } finally {
      await pipeline.close();
    }
  }, 120_000);
});
