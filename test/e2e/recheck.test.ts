/**
 * When the NCM table changes, end to end through the local runtime against the sandbox: a batch
 * classified; a newer table dropped into the bucket's reference/ncm/ (made here from the carried
 * one: one verdict's code removed outright, another's split in two under its prefix); the recheck
 * (`classify --recheck --table`, on the running pipeline) lists exactly those two; then the same
 * file with `reclassify: ended_codes` classifies (bills) exactly those two rows and reuses the rest
 * at no cost, as its plan said.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { planOptionsFile } from '../../local/cli/plan.js';
import { recheckOn } from '../../local/cli/recheck.js';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import { BatchPlan } from '../../shared/pipeline/prepare/batch-plan.js';
import { RecheckSummary } from '../../shared/pipeline/reuse/recheck-verdicts.js';
import { type SiscomexEntry, siscomexEntry } from '../helpers/siscomex-table.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, resolvableRows, writeCsv } from './helpers.js';

const temp = makeTempDir('recheck');
afterAll(() => temp.remove());

const CARRIED = fileURLToPath(
  new URL('../../shared/ncm-table/data/tabela-ncm-vigente-20260705.json.gz', import.meta.url),
);

const records = (path: string) =>
  Papa.parse<Record<string, string>>(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;

const digits = (code: string) => code.replace(/\D/g, '');

/**
 * The carried table as Siscomex would publish a newer one: every code under `ended`'s subheading
 * gone (nothing takes its place), every code under `split`'s subitem replaced by two new ones.
 */
const newerTable = (ended: string, split: string): { json: Buffer; replacing: string[] } => {
  const carried = JSON.parse(gunzipSync(readFileSync(CARRIED)).toString('utf8')) as {
    Data_Ultima_Atualizacao_NCM: string;
    Ato: string;
    Nomenclaturas: SiscomexEntry[];
  };
  const endedUnder = digits(ended).slice(0, 6);
  const splitUnder = digits(split).slice(0, 7);
  const dotted = (code: string) => `${code.slice(0, 4)}.${code.slice(4, 6)}.${code.slice(6)}`;
  const replacing = [`${splitUnder}1`, `${splitUnder}9`].map(dotted);
  const kept = carried.Nomenclaturas.filter((entry) => {
    const code = digits(entry.Codigo);
    return !(code.length === 8 && (code.startsWith(endedUnder) || code.startsWith(splitUnder)));
  });
  const added = replacing.map((code, i) =>
    siscomexEntry(code, i === 0 ? 'Novo item de teste' : 'Outros', { starts: '01/01/2027' }),
  );
  const table = {
    ...carried,
    Data_Ultima_Atualizacao_NCM: 'Vigente em 01/01/2027',
    Ato: 'Resolução Gecex nº 999/2026',
    Nomenclaturas: [...kept, ...added],
  };
  return { json: gzipSync(JSON.stringify(table)), replacing };
};

describe('when the NCM table changes', () => {
  it('a table with a code ended and one split produces the recheck list, and ended_codes re-classifies only those rows', async () => {
    // Prepare: four products classified once.
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-recheck' },
    });
    try {
      const file = writeCsv(
        join(temp.dir, 'produtos.csv'),
        ['sku', 'description', 'operation', 'country'],
        resolvableRows(4, 'RC'),
      );
      const first = await pipeline.submit({ file, sheetsDir: temp.dir });
      expect((await pipeline.waitForBatch(first.batchId)).state).toBe('completed');
      await pipeline.copyOutbox(first.batchId, join(temp.dir, 'first'));
      const verdicts = records(join(temp.dir, 'first', 'results.csv'));
      expect(verdicts.map((row) => row.status)).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
      const [ended, , split] = verdicts.map((row) => row.ncm ?? '');
      // The others' codes are under neither prefix, so they stay in force.
      for (const other of [verdicts[1]!.ncm!, verdicts[3]!.ncm!]) {
        expect(digits(other).startsWith(digits(ended!).slice(0, 6))).toBe(false);
        expect(digits(other).startsWith(digits(split!).slice(0, 7))).toBe(false);
      }
      const table = newerTable(ended!, split!);
      const tableFile = join(temp.dir, 'Tabela_NCM_Vigente_20270101.json.gz');
      writeFileSync(tableFile, table.json);

      // Act 1: the recheck, as `classify --recheck --table <file>` runs it.
      const recheck = await recheckOn(pipeline, { table: tableFile, outRoot: join(temp.dir, 'rechecks') });

      // Assess 1: exactly those two, the ended one and the split one with the codes replacing it.
      expect(recheck.error).toBeUndefined();
      expect(recheck.code).toBe(0);
      expect(recheck.lines.join('\n')).toContain(
        '2 earlier verdict(s) name a code no longer in force: 1 ended, 1 split, 0 replaced by another code.',
      );
      const listed = records(join(temp.dir, 'rechecks', '2027-01-01', 'recheck.csv'));
      expect(
        listed.map((row) => [row.batch_id, row.sku, row.keyed_by, row.ncm, row.change, row.replaced_by]),
      ).toEqual(
        expect.arrayContaining([
          [first.batchId, 'RC-0001', 'sku', ended, 'ended', ''],
          [first.batchId, 'RC-0003', 'sku', split, 'split', table.replacing.join('; ')],
        ]),
      );
      expect(listed).toHaveLength(2);
      const summary = RecheckSummary.parse(
        JSON.parse(readFileSync(join(temp.dir, 'rechecks', '2027-01-01', 'recheck.json'), 'utf8')),
      );
      expect(summary).toMatchObject({
        table: { source: 'reference/ncm/Tabela_NCM_Vigente_20270101.json.gz', as_of: '2027-01-01' },
        not_in_force: 2,
        ended: 1,
        split: 1,
      });

      // Act 2: the same file with reclassify: ended_codes, planned, then run.
      const options = join(temp.dir, 'ended-codes.json');
      writeFileSync(options, JSON.stringify({ reclassify: 'ended_codes' }));
      const planOptions = planOptionsFile(options);
      const planned = await pipeline
        .submit({ file, optionsFile: planOptions.path, sheetsDir: temp.dir })
        .finally(() => planOptions.remove());
      expect((await pipeline.waitForBatch(planned.batchId)).state).toBe('completed');
      const plan = BatchPlan.parse(
        JSON.parse(Buffer.from((await pipeline.outboxFile(planned.batchId, 'plan.json'))!).toString('utf8')),
      );
      const createdBefore = pipeline.sandbox!.stats().created;
      const second = await pipeline.submit({ file, optionsFile: options, sheetsDir: temp.dir });
      const outcome = await pipeline.waitForBatch(second.batchId);

      // Assess 2: the two rows whose code ended are classified and billed; the rest reused at no cost.
      expect(plan.rows).toMatchObject({ classify: 2, reuse: 2, no_earlier_verdict: 0 });
      expect(outcome.state).toBe('completed');
      await pipeline.copyOutbox(second.batchId, join(temp.dir, 'second'));
      const rows = records(join(temp.dir, 'second', 'results.csv'));
      expect(rows.map((row) => [row.sku, row.status, row.cost_usd])).toEqual([
        ['RC-0001', 'resolved', '2.00'],
        ['RC-0002', 'reused', '0.00'],
        ['RC-0003', 'resolved', '2.00'],
        ['RC-0004', 'reused', '0.00'],
      ]);
      expect(outcome.summary.billed_usd).toBe(4);
      // The sandbox was asked for exactly two new classifications.
      expect(pipeline.sandbox!.stats().created).toBe(createdBefore + 2);
    } finally {
      await pipeline.close();
    }
  }, 240_000);
});
