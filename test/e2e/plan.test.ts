/**
 * A plan before spending, end to end: the sample and a messy file planned through the local
 * runtime (synthesized workflows, bundled handlers, the sandbox over HTTP) reach no creating
 * endpoint; the messy file's estimate is then exactly what its real run bills, nothing reused.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { planOptionsFile } from '../../local/cli/plan.js';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { BatchPlan } from '../../shared/pipeline/prepare/batch-plan.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, RESOLVING_DESCRIPTIONS } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../sample-data/', import.meta.url));
const temp = makeTempDir('plan');
afterAll(() => temp.remove());

/** What a creating call would have reached: the sandbox counts every request by route. */
const creatingRequests = (pipeline: LocalPipeline): string[] =>
  Object.keys(pipeline.sandbox?.stats().requests_by_route ?? {}).filter((route) => route.startsWith('POST'));

const planOf = async (
  pipeline: LocalPipeline,
  file: string,
  options: string | undefined,
  sheetsDir: string,
) => {
  const planOptions = planOptionsFile(options);
  try {
    const { batchId } = await pipeline.submit({ file, optionsFile: planOptions.path, sheetsDir });
    const outcome = await pipeline.waitForBatch(batchId);
    expect(outcome.state).toBe('completed');
    const out = join(temp.dir, batchId);
    await pipeline.copyOutbox(batchId, out);
    return { plan: BatchPlan.parse(JSON.parse(readFileSync(join(out, 'plan.json'), 'utf8'))), out };
  } finally {
    planOptions.remove();
  }
};

/** `;`-separated, Portuguese headers, a column nobody maps, copies of one product, bad rows. */
const MESSY = [
  'Código;Descrição do produto;Operação;País de origem;NCM atual;Comprador',
  `M-1;${RESOLVING_DESCRIPTIONS[0]};importação;Brasil;9012100;Ana`,
  `M-2;${RESOLVING_DESCRIPTIONS[1]};importação;BR;;Rui`,
  `M-3;${RESOLVING_DESCRIPTIONS[0]};importação;brasil;;Ana`,
  'M-4;curta;importação;BR;;Rui',
  `M-5;${RESOLVING_DESCRIPTIONS[3]};importação;Narnia;;Ana`,
  `M-6;${RESOLVING_DESCRIPTIONS[1]};importação;BR;;Ana`,
  `M-7;${RESOLVING_DESCRIPTIONS[6]};exportação;AR;;Rui`,
].join('\r\n');

describe('a plan before spending', () => {
  it('plans the sample and a messy file without creating anything, and the estimate is what the run bills', async () => {
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-plan' },
    });
    try {
      const sample = await planOf(pipeline, join(SAMPLE, 'products.csv'), join(SAMPLE, 'batch.json'), SAMPLE);
      expect(sample.plan.rows).toEqual({
        total: 34,
        classify: 27,
        same_product: 0,
        reuse: 0,
        rejected: 4,
        over_budget: 3,
        no_earlier_verdict: 0,
        service_item: 0,
        reuse_to_check: 0,
      });
      expect(sample.plan.estimate).toMatchObject({ classifications: 27, max_usd: 54, cap: 10 });
      // The sample's headers are Portuguese: its warnings are said in Portuguese, with their codes.
      expect(sample.plan.warnings.map((warning) => warning.code)).toEqual(
        expect.arrayContaining(['vague_descriptions', 'scanned_sheets']),
      );
      expect(sample.plan.warnings.map((warning) => warning.text).join(' ')).toMatch(
        /linhas 10, 16, 24 e 29: a descrição nomeia um grupo/,
      );
      expect(sample.plan.warnings.map((warning) => warning.text).join(' ')).toContain(
        '"valvula-esfera-digitalizada.pdf" (linha 20) não tem camada de texto',
      );

      const messyFile = join(temp.dir, 'messy.csv');
      writeFileSync(messyFile, MESSY);
      const messy = await planOf(pipeline, messyFile, undefined, temp.dir);
      expect(messy.plan.rows).toMatchObject({ total: 7, classify: 3, same_product: 2, rejected: 2 });
      expect(messy.plan.columns.find((column) => column.header === 'Comprador')?.understood_as).toBeNull();
      expect(messy.plan.warnings.map((warning) => warning.text).join(' ')).toContain('NCM de 7 dígitos');
      expect(readFileSync(join(messy.out, 'plan.csv'), 'utf8').split('\r\n')[0]).toContain(';');

      // Nothing was created, uploaded or answered while planning.
      expect(creatingRequests(pipeline)).toEqual([]);
      expect(pipeline.sandbox?.stats().created).toBe(0);

      // The same file for real: it bills exactly the plan's most.
      const { batchId } = await pipeline.submit({ file: messyFile, sheetsDir: temp.dir });
      const outcome = await pipeline.waitForBatch(batchId);
      expect(outcome.summary.billed_usd).toBe(messy.plan.estimate.max_usd);
      expect(pipeline.sandbox?.stats().billed_usd).toBe(messy.plan.estimate.max_usd);
      expect(pipeline.sandbox?.stats().created).toBe(messy.plan.estimate.classifications);
    } finally {
      await pipeline.close();
    }
  }, 120_000);
});
