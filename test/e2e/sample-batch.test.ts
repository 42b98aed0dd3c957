/**
 * End to end (a): a small catalogue shaped like the sample goes through the synthesized
 * workflows and the bundled handlers on the local stand-ins against the sandbox, reaches every
 * row status the sandbox can give, bills exactly what the sandbox billed; a second pipeline on
 * the same data folder finds the product cache and the sandbox's state, so dropping the same
 * file again reuses the verdicts and bills nothing. And close() leaves nothing listening.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, SANDBOX_LABEL, startLocalPipeline } from '../../local/runtime/pipeline.js';
import {
  E2E_ASSEMBLY_DIR,
  E2E_TIME_SCALE,
  expectRefused,
  makeTempDir,
  readResults,
  sumOf,
  writeCsv,
} from './helpers.js';

const temp = makeTempDir('sample');
afterAll(() => temp.remove());

/**
 * Budget 8 USD = 4 classifications: rows 1–4 are submitted (2 resolve, 1 asks, 1 fails for
 * good), row 5 is rejected, rows 6–7 come after the budget. On the re-run rows 1–2 are reused,
 * which frees budget for 6–7: they fail for good too, so the re-run bills nothing.
 */
const CATALOGUE = [
  ['S-001', 'Café torrado em grãos', 'import', 'BR'],
  ['S-002', 'Smartphone 128 GB', 'import', 'BR'],
  ['S-003', 'Peças diversas', 'import', 'BR'],
  ['S-004', 'Rodamientos de bolas 6204 [sandbox:fail=unexpected_format]', 'import', 'AR'],
  ['S-005', '', 'import', 'BR'],
  ['S-006', 'Repuestos varios [sandbox:fail=no_valid_candidates]', 'export', 'UY'],
  ['S-007', 'Lâmpada LED 9W E27 [sandbox:fail=unexpected_format]', 'import', 'PY'],
];

const start = (fresh: boolean) =>
  startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-sample' },
  });

describe('a sample-like batch through the local runtime', () => {
  const file = writeCsv(
    join(temp.dir, 'products.csv'),
    ['sku', 'description', 'operation', 'country'],
    CATALOGUE,
  );
  const optionsFile = join(temp.dir, 'batch.json');
  writeFileSync(optionsFile, JSON.stringify({ max_usd: 8 }));

  it('reaches every status, bills what the sandbox billed, then re-runs from the cache for free', async () => {
    // Prepare / Act: the first run, as `npm run classify` would drop the folder.
    let first: LocalPipeline | null = await start(true);
    let endpoints = first.endpoints;
    let billedFirst: number;
    try {
      expect(first.serviceLabel).toBe(SANDBOX_LABEL);
      const { batchId, batchName } = await first.submit({ file, optionsFile, sheetsDir: temp.dir });
      expect(batchName).toBe('products');
      const progressStages = new Set<string>();
      const outcome = await first.waitForBatch(batchId, {
        onProgress: (progress) => progressStages.add(progress.stage),
        progressEveryMs: 100,
      });

      // Assess: every status, money agreeing with the sandbox's meter, one output row per input row.
      expect(outcome.state).toBe('completed');
      const byStatus = outcome.summary.by_status as Record<string, number>;
      expect(byStatus).toMatchObject({
        resolved: 2,
        pending_data: 1,
        failed: 1,
        rejected: 1,
        not_submitted: 2,
      });
      expect(sumOf(byStatus)).toBe(CATALOGUE.length);
      billedFirst = first.sandbox?.stats().billed_usd ?? Number.NaN;
      expect(billedFirst).toBe(4);
      expect(outcome.summary.billed_usd).toBe(billedFirst);
      expect(progressStages.has('completed')).toBe(true);

      const outDir = join(temp.dir, 'out-first');
      const written = await first.copyOutbox(batchId, outDir);
      expect(written.map((path) => path.slice(outDir.length + 1)).sort()).toEqual(
        expect.arrayContaining(['results.csv', 'review.csv', 'summary.json']),
      );
      expect(written.filter((path) => path.endsWith('.pdf'))).toHaveLength(2);
      const results = await readResults(join(outDir, 'results.csv'));
      expect(results.rows).toHaveLength(CATALOGUE.length);
    } finally {
      await first.close();
      first = null;
    }

    // close() stopped every listener it started.
    await Promise.all(
      [endpoints.aws, endpoints.dynamodb, endpoints.s3, endpoints.service]
        .filter((url): url is string => url !== null)
        .map((url) => expectRefused(url)),
    );

    // Act: the same file dropped again, by a new pipeline on the same data folder.
    const second = await start(false);
    endpoints = second.endpoints;
    try {
      const stats = () => second.sandbox?.stats();
      expect(stats()?.billed_usd).toBe(billedFirst); // the sandbox's meter was kept
      const { batchId } = await second.submit({ file, optionsFile, sheetsDir: temp.dir });
      const outcome = await second.waitForBatch(batchId);

      // Assess: the resolved products are reused, nothing new is billed.
      expect(outcome.state).toBe('completed');
      const byStatus = outcome.summary.by_status as Record<string, number>;
      expect(byStatus.reused).toBe(2);
      expect(byStatus.resolved).toBe(0);
      expect(sumOf(byStatus)).toBe(CATALOGUE.length);
      expect(outcome.summary.billed_usd).toBe(0);
      expect(outcome.summary.saved_usd).toBe(4);
      expect(stats()?.billed_usd).toBe(billedFirst);
    } finally {
      await second.close();
    }
    await expectRefused(endpoints.aws);
  }, 120_000);
});
