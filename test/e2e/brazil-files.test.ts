/**
 * Brazil's own files end to end: the sample SPED EFD file and the sample month of NF-e invoices,
 * each planned (no creating call reaches the service) and classified through the local runtime
 * (synthesized workflows, bundled handlers, the sandbox over HTTP), as `npm run classify` runs
 * them; the ZIP also planned by the command itself. One output row per item, an item on several
 * invoices classified once, every declared NCM compared with the verdict and with the NCM table
 * in force.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planOptionsFile } from '../../local/cli/plan.js';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { BatchSummary } from '../../shared/pipeline/outbox/results-files.js';
import { BatchPlan } from '../../shared/pipeline/prepare/batch-plan.js';
import { commandDataDir, E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = join(ROOT, 'sample-data');
const temp = makeTempDir('brazil');
/**
 * The sample's batch.json (import, BR), re-classifying everything: the two files share products
 * (the same bearing, bolt and motor, bought in Brazil), which would otherwise be reused across them.
 */
const OPTIONS = join(temp.dir, 'batch.json');
const SPED = join(SAMPLE, 'sped-efd.txt');
const NFE_ZIP = join(SAMPLE, 'notas-fiscais-2026-10.zip');

let pipeline: LocalPipeline;

beforeAll(async () => {
  const sample = JSON.parse(readFileSync(join(SAMPLE, 'batch.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(OPTIONS, JSON.stringify({ ...sample, reclassify: 'all' }));
  pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-brazil' },
  });
}, 120_000);

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

/** The creating calls the sandbox has answered so far, all routes: it counts every request by route. */
const creatingRequests = (): number =>
  Object.entries(pipeline.sandbox?.stats().requests_by_route ?? {})
    .filter(([route]) => route.startsWith('POST'))
    .reduce((sum, [, count]) => sum + Number(count), 0);

const records = (text: string) =>
  Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true })
    .data;

/** A file planned; no creating call reaches the service while it is. */
const planOf = async (file: string) => {
  const planOptions = planOptionsFile(OPTIONS);
  const creatingBefore = creatingRequests();
  try {
    const { batchId } = await pipeline.submit({ file, optionsFile: planOptions.path, sheetsDir: SAMPLE });
    expect((await pipeline.waitForBatch(batchId)).state).toBe('completed');
    const out = join(temp.dir, batchId);
    await pipeline.copyOutbox(batchId, out);
    expect(creatingRequests()).toBe(creatingBefore);
    return BatchPlan.parse(JSON.parse(readFileSync(join(out, 'plan.json'), 'utf8')));
  } finally {
    planOptions.remove();
  }
};

const runOf = async (file: string) => {
  const { batchId } = await pipeline.submit({ file, optionsFile: OPTIONS, sheetsDir: SAMPLE });
  expect((await pipeline.waitForBatch(batchId, { signal: AbortSignal.timeout(240_000) })).state).toBe(
    'completed',
  );
  const out = join(temp.dir, batchId);
  await pipeline.copyOutbox(batchId, out);
  return {
    summary: BatchSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))),
    results: records(readFileSync(join(out, 'results.csv'), 'utf8')),
    workbook: unzipSync(readFileSync(join(out, 'results.xlsx'))),
  };
};

describe('Brazil’s own files, end to end', () => {
  it('plans and classifies the SPED EFD sample item by item, its declared NCMs compared', async () => {
    const plan = await planOf(SPED);
    expect(plan.rows).toMatchObject({ total: 14, classify: 14, rejected: 0 });
    expect(plan.problems.map((problem) => problem.code)).toContain('sped_registers_skipped');
    expect(
      plan.warnings.find((warning) => warning.code === 'declared_ncm_not_in_force')?.params,
    ).toMatchObject({
      header: 'COD_NCM',
      codes: ['8517.12.31'],
      total: 1,
    });

    const { summary, results } = await runOf(SPED);
    expect(results).toHaveLength(14);
    expect(results.every((row) => row.status === 'resolved')).toBe(true);
    expect(summary.billed_usd).toBe(28);
    const bySku = new Map(results.map((row) => [row.COD_ITEM, row]));
    expect(bySku.get('CAF-0101')).toMatchObject({
      ncm: '0901.21.00',
      current_ncm_matches: 'yes',
      current_ncm_in_force: 'yes',
    });
    expect(bySku.get('PAS-0301')).toMatchObject({ ncm: '8708.30.90', current_ncm_matches: 'no' });
    expect(bySku.get('CEL-128')).toMatchObject({ current_ncm_in_force: 'no', ncm_in_force: 'yes' });
    expect(bySku.get('PAP-A4')).toMatchObject({ current_ncm_matches: '', current_ncm_in_force: '' });
    expect(summary.declared_ncm_not_in_force).toBe(1);
    expect(summary.ncm_table).toMatchObject({ as_of: '2026-07-05', source: 'carried' });
  }, 300_000);

  it('plans and classifies a ZIP of NF-e invoices: one row per item, an item on several invoices classified once', async () => {
    const plan = await planOf(NFE_ZIP);
    expect(plan.rows).toMatchObject({ total: 17, classify: 11, same_product: 6, rejected: 0 });

    const { summary, results, workbook } = await runOf(NFE_ZIP);
    expect(results).toHaveLength(17);
    expect(summary.billed_usd).toBe(22);
    expect(summary.duplicates.rows).toBe(6);
    const rolamentos = results.filter((row) => row.cProd === '100231');
    expect(new Set(rolamentos.map((row) => row.chNFe)).size).toBe(3);
    expect(new Set(rolamentos.map((row) => row.classification_id)).size).toBe(1);
    const smartphone = results.find((row) => row.cProd === '400301')!;
    expect(smartphone).toMatchObject({ operação: 'importação', país: 'CN', current_ncm_in_force: 'no' });
    expect(results.find((row) => row.cProd === '500012')).toMatchObject({
      operação: 'exportação',
      país: 'AR',
    });
    // The divergence sheet is in the workbook beside the results and the summary.
    expect(Object.keys(workbook).filter((name) => name.startsWith('xl/worksheets/sheet'))).toHaveLength(3);
  }, 300_000);

  it('sends no service (SPED TIPO_ITEM 09, NF-e NCM 00) and classifies an item declared 00000000 with no warning', async () => {
    const dir = join(temp.dir, 'services');
    mkdirSync(dir, { recursive: true });
    // The sample's first lines, then a service and an item of use and consumption, as an ERP writes them.
    const spedFile = join(dir, 'efd-servicos.txt');
    writeFileSync(
      spedFile,
      [
        '|0000|020|0|01102026|31102026|ATLANTICO IMPORTACAO LTDA|47185236000103||SP|147258361110|3550308|||A|1|',
        '|0001|0|',
        '|0200|CAF-0101|CAFE TORRADO EM GRAOS 1KG|7896012345016||KG|00|09012100||||18,00||',
        '|0200|SRV-MANUT|SERVICO DE MANUTENCAO DE EMPILHADEIRA|||UN|09|||||14.01|0,00||',
        '|0200|PAR-M10|PARAFUSO SEXTAVADO M10 COM PORCA|SEM GTIN||UN|07|00000000||||18,00||',
        '|0990|5|',
        '|9999|7|',
        '',
      ].join('\r\n'),
      'latin1',
    );
    const invoice = readdirSync(join(SAMPLE, 'notas-fiscais'))[0]!;
    const xml = readFileSync(join(SAMPLE, 'notas-fiscais', invoice), 'utf8');
    // The invoice's first item made a service, as the NF-e schema writes one: NCM 00.
    const serviceXml = xml.replace(/<NCM>\d{8}<\/NCM>/, '<NCM>00</NCM>');
    expect(serviceXml).toContain('<NCM>00</NCM>');
    const nfeFile = join(dir, 'nota-com-servico.xml');
    writeFileSync(nfeFile, serviceXml);

    const sped = await runOf(spedFile);
    const bySku = new Map(sped.results.map((row) => [row.COD_ITEM, row]));
    expect(bySku.get('SRV-MANUT')).toMatchObject({
      status: 'not_submitted',
      reason: 'service_item',
      cost_usd: '0.00',
    });
    expect(bySku.get('SRV-MANUT')?.detail).toContain('TIPO_ITEM 09');
    expect(bySku.get('CAF-0101')?.status).toBe('resolved');
    expect(bySku.get('PAR-M10')).toMatchObject({ status: 'resolved', current_ncm_in_force: '' });
    expect(sped.summary.billed_usd).toBe(4);
    expect(sped.summary.declared_ncm_not_in_force).toBe(0);
    expect(sped.summary.warnings.map((warning) => warning.code)).not.toContain('declared_ncm_not_in_force');

    const nfe = await runOf(nfeFile);
    const services = nfe.results.filter((row) => row.reason === 'service_item');
    expect(services).toHaveLength(1);
    expect(services[0]).toMatchObject({ status: 'not_submitted', cost_usd: '0.00' });
    expect(services[0]!.detail).toContain('NCM 00');
    expect(nfe.results.filter((row) => row.status === 'resolved')).toHaveLength(nfe.results.length - 1);
    expect(nfe.summary.billed_usd).toBe(2 * (nfe.results.length - 1));
  }, 300_000);

  it('refuses an NF-e with an external entity and a damaged ZIP of invoices, each in one line, writing no row', async () => {
    const dir = join(temp.dir, 'refused');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'segredo.txt'), 'TOP-SECRET-CONTENT');
    // The sample's first invoice with an entity that would read a local file into its first item.
    const invoice = readdirSync(join(SAMPLE, 'notas-fiscais'))[0]!;
    const xml = readFileSync(join(SAMPLE, 'notas-fiscais', invoice), 'utf8')
      .replace(
        /^(<\?xml[^>]*\?>)/,
        `$1<!DOCTYPE nfeProc [<!ENTITY leak SYSTEM "file://${join(dir, 'segredo.txt')}">]>`,
      )
      .replace(/<xProd>[^<]*<\/xProd>/, '<xProd>&leak;</xProd>');
    expect(xml).toContain('<!ENTITY leak');
    writeFileSync(join(dir, 'nota-com-entidade.xml'), xml);
    // The sample ZIP cut at two thirds: its directory, at the end, is gone.
    const zip = readFileSync(NFE_ZIP);
    writeFileSync(join(dir, 'notas-cortadas.zip'), zip.subarray(0, Math.floor((zip.length * 2) / 3)));

    for (const [file, said] of [
      ['nota-com-entidade.xml', /nota-com-entidade\.xml.*(entidade|entity)/i],
      ['notas-cortadas.zip', /notas-cortadas\.zip.*ZIP/],
    ] as const) {
      const { batchId } = await pipeline.submit({
        file: join(dir, file),
        optionsFile: OPTIONS,
        sheetsDir: dir,
      });
      expect((await pipeline.waitForBatch(batchId, { signal: AbortSignal.timeout(120_000) })).state).toBe(
        'failed',
      );
      const out = join(dir, batchId);
      await pipeline.copyOutbox(batchId, out);
      const summary = BatchSummary.parse(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')));
      expect(summary.rows_total).toBe(0);
      const problems = summary.problems.filter((problem) => problem.code === 'file_refused');
      expect(problems).toHaveLength(1);
      expect(problems[0]!.text).toMatch(said);
      const everything = readdirSync(out)
        .filter((name) => name.endsWith('.json') || name.endsWith('.csv'))
        .map((name) => readFileSync(join(out, name), 'utf8'))
        .join('');
      expect(everything).not.toContain('TOP-SECRET');
      expect(records(readFileSync(join(out, 'results.csv'), 'utf8'))).toEqual([]);
    }
  }, 300_000);

  it('plans the ZIP with npm run classify as a user types it, every invoice read', async () => {
    // The test above classifies this ZIP; test/e2e/cli.test.ts classifies through the command.
    // Here the command takes the ZIP as typed and reads every invoice; a plan sends nothing.
    const data = commandDataDir(join(temp.dir, 'cli-data'));
    const out = join(temp.dir, 'cli-out');
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'local', 'cli', 'bootstrap.mjs'),
        'classify',
        NFE_ZIP,
        '--plan',
        '--out',
        out,
        '--data-dir',
        data,
        '--time-scale',
        '0.015',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, INIT_CWD: ROOT, TCS_API_KEY: '', TCS_BASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('17 rows: classify 11, same product as an earlier row 6');
    expect(stdout).toContain('Read: notas-fiscais-2026-10.zip: 6 NF-e lidas, 17 itens');
    expect(stdout).toContain('At most USD 22.00 (11 classification(s), billed only when resolved)');
    expect(stdout).toContain('Nothing was sent for classification.');
    expect(stdout).toMatch(
      /Look at: Coluna "NCM", linha 7: a NCM declarada 8517\.12\.31 não está na tabela NCM vigente/,
    );
    expect(records(readFileSync(join(out, 'plan.csv'), 'utf8'))).toHaveLength(17);
  }, 300_000);
});
