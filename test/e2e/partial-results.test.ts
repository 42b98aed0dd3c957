/**
 * Partial results while a batch runs, end to end through the local runtime: the first finishing
 * row asks for them (write-partial-results runs in its own process), a person can ask too, the
 * rows already final read exactly as they do in the final results.csv, and at the end the partial
 * files hold the final state.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, resolvableRows, writeCsv } from './helpers.js';

const temp = makeTempDir('partial');
afterAll(() => temp.remove());

/** One at a time (cap 1): rows are still working when the test asks, however loaded the machine. */
const ROWS = 12;
/**
 * Twice the other end-to-end files' pace: twelve rows one at a time then take 15 s or more, while
 * the person's ask runs in a background process (niceness 10) that a loaded machine may hold back
 * for seconds.
 */
const TIME_SCALE = 2 * E2E_TIME_SCALE;
const records = (path: string) =>
  Papa.parse<Record<string, string>>(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;

describe('partial results while a batch runs', () => {
  it('appear while rows are still working, agree with the final files, and end as the final state', async () => {
    const file = writeCsv(
      join(temp.dir, 'long.csv'),
      ['sku', 'description', 'operation', 'country'],
      resolvableRows(ROWS, 'P'),
    );
    const optionsFile = join(temp.dir, 'batch.json');
    writeFileSync(optionsFile, JSON.stringify({ partial_every_minutes: 1 }));
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-partial' },
      capOverride: 1,
    });
    try {
      // The function's process started before the batch, so asking later does not wait for it.
      expect(await pipeline.invoke('write-partial-results', { batch_id: 'none-0000000000' })).toMatchObject({
        written: false,
      });
      const { batchId } = await pipeline.submit({ file, optionsFile, sheetsDir: temp.dir });
      const during = join(temp.dir, 'during');

      // A finishing row asked for them: they appear while the batch still runs.
      const asked = await vi.waitFor(
        async () => {
          const requested = (await pipeline.tables.batches.getBatch(batchId))?.partial_requested_at;
          expect(requested, 'a finishing row asks for partial results').toBeTypeOf('string');
          return requested;
        },
        { timeout: 60_000, interval: 100 },
      );
      expect(asked).toMatch(/^2\d{3}-/);
      // And a person asks, while rows are still working.
      const report = await pipeline.invoke('write-partial-results', { batch_id: batchId });
      expect(report).toMatchObject({ batch_id: batchId, written: true });
      await pipeline.copyOutbox(batchId, during);
      const summary = JSON.parse(readFileSync(join(during, 'summary.partial.json'), 'utf8'));
      expect(summary).toMatchObject({ partial: true, rows_total: ROWS });
      const working = Object.values(summary.working as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(working).toBeGreaterThan(0);
      const partial = records(join(during, 'results.partial.csv'));
      expect(partial).toHaveLength(ROWS);

      const outcome = await pipeline.waitForBatch(batchId);
      expect(outcome.state).toBe('completed');
      const after = join(temp.dir, 'after');
      await pipeline.copyOutbox(batchId, after);
      const final = records(join(after, 'results.csv'));
      const finalRows = partial.filter((row) => row.status === 'resolved');
      expect(finalRows.length).toBeGreaterThan(0);
      for (const row of finalRows) expect(final[Number(row.row) - 1]).toEqual(row);

      // At the end the partial files hold the final state.
      expect(readFileSync(join(after, 'results.partial.csv'), 'utf8')).toBe(
        readFileSync(join(after, 'results.csv'), 'utf8'),
      );
      expect(JSON.parse(readFileSync(join(after, 'summary.partial.json'), 'utf8'))).toMatchObject({
        partial: false,
        working: {},
        by_status: { resolved: ROWS },
      });
    } finally {
      await pipeline.close();
    }
  }, 120_000);
});
