/**
 * One verdict per product, whatever its origin, end to end: a catalogue of three products each
 * imported from three countries goes through the local runtime (synthesized workflows, bundled
 * handlers, the sandbox over HTTP) and makes three classifications, not nine; each row's duties
 * are those the sandbox's own `GET /tariffs` gives for its country; a second night makes none; the
 * same product exported and imported is classified once, the export row's SIM openings those of
 * `GET /sim-openings`; and `verdict_per_country: true` classifies each origin on its own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { DUTY_COLUMNS } from '../../shared/pipeline/core/result-columns.js';
import { formatNcm } from '../../shared/spreadsheet/write-csv.js';
import { createTcsClient, type TcsClient } from '../../shared/tcs/client.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, writeCsv } from './helpers.js';

const temp = makeTempDir('origins');
let pipeline: LocalPipeline;
/** The sandbox, asked directly: what the rows' duties are checked against. */
let service: TcsClient;

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-origins' },
  });
  const sandbox = pipeline.sandbox!;
  service = createTcsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.classify });
}, 120_000);

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

const PRODUCTS = [
  ['MOT-5CV', 'Motor elétrico trifásico 5 CV, 4 polos, carcaça 100L'],
  ['ROL-6204', 'Rolamento de esferas 6204-2RS, blindado'],
  ['CAF-1KG', 'Café torrado em grãos, pacote 1 kg'],
] as const;
/** China and the United States pay the extra-zone duty, Argentina (Mercosur) the intra-zone one. */
const COUNTRIES = ['CN', 'US', 'AR'] as const;

const catalogue = (name: string, rows: readonly (readonly string[])[]) =>
  writeCsv(join(temp.dir, `${name}.csv`), ['sku', 'description', 'operation', 'country'], rows);

const options = (name: string, value: Record<string, unknown>) => {
  const path = join(temp.dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
};

/** Runs a file as `npm run classify` drops it; gives its results.csv's rows and its summary. */
const run = async (file: string, optionsFile: string) => {
  const created = () => pipeline.sandbox!.stats().created;
  const before = { created: created(), billed: pipeline.sandbox!.stats().billed_usd };
  const { batchId } = await pipeline.submit({ file, optionsFile, sheetsDir: temp.dir });
  const outcome = await pipeline.waitForBatch(batchId, { signal: AbortSignal.timeout(240_000) });
  expect(outcome.state).toBe('completed');
  const out = join(temp.dir, batchId);
  await pipeline.copyOutbox(batchId, out);
  const rows = Papa.parse<Record<string, string>>(
    readFileSync(join(out, 'results.csv'), 'utf8').replace(/^\uFEFF/, ''),
    { header: true, skipEmptyLines: true },
  ).data;
  return {
    rows,
    summary: outcome.summary,
    created: created() - before.created,
    billed: pipeline.sandbox!.stats().billed_usd - before.billed,
  };
};

/** The duty columns of a row, as results.csv writes them (empty when the row has none). */
const duties = (row: Record<string, string>) =>
  Object.fromEntries(DUTY_COLUMNS.map((column) => [column, row[column] ?? '']));

/** What the sandbox's GET /tariffs says for a row's NCM, country and operation, as those columns. */
const sandboxDuties = async (row: Record<string, string>) => {
  const found = await service.getTariffs({
    ncm: row.ncm!.replace(/\D/g, ''),
    country: row.country!,
    operation: row.operation as 'import' | 'export',
  });
  const text = (value: number | null | undefined) =>
    value === null || value === undefined ? '' : String(value);
  if (!found.found) return { ...duties({}), tariff_source: found.source };
  return found.operation === 'import'
    ? {
        ...duties({}),
        import_duty_applicable: text(found.import_duty_applicable),
        duty_kind: found.duty_kind,
        statistical_rate: text(found.statistical_rate),
        aec: text(found.aec),
        tariff_source: found.source,
      }
    : {
        ...duties({}),
        export_duty: text(found.export_duty),
        export_refund: text(found.export_refund),
        tariff_source: found.source,
      };
};

describe('one verdict per product, whatever its origin', () => {
  const everyOrigin = PRODUCTS.flatMap(([sku, description]) =>
    COUNTRIES.map((country) => [sku, description, 'import', country]),
  );

  it('classifies 3 products × 3 countries three times, each row with its own country’s duties, and nothing the next night', async () => {
    const file = catalogue('every-origin', everyOrigin);
    const first = await run(file, options('shared', {}));

    expect(first.created).toBe(3);
    expect(first.billed).toBe(6);
    expect(first.summary.billed_usd).toBe(6);
    expect(first.rows.map((row) => row.status)).toEqual(Array(9).fill('resolved'));
    expect(first.rows.map((row) => row.cost_usd)).toEqual([
      '2.00',
      '0.00',
      '0.00',
      '2.00',
      '0.00',
      '0.00',
      '2.00',
      '0.00',
      '0.00',
    ]);
    for (const [i, row] of first.rows.entries()) {
      const leader = first.rows[i - (i % 3)]!;
      expect(row.classification_id).toBe(leader.classification_id);
      expect(row.ncm).toBe(leader.ncm);
      // The row's duties, checked against the sandbox, not against the pipeline's own output.
      expect(duties(row)).toEqual(await sandboxDuties(row));
      expect(row.verdict_from).toBe(i % 3 === 0 ? '' : `${leader.classification_id} (CN, import)`);
    }
    expect(first.rows.map((row) => formatNcm(row.ncm!.replace(/\D/g, '')))).toEqual(
      ['8501.52.10', '8482.10.10', '0901.21.00'].flatMap((ncm) => [ncm, ncm, ncm]),
    );
    // Argentina is inside Mercosur: its duty is not China's, so the columns really are its own.
    expect(first.rows[2]!.duty_kind).toBe('intrazone');
    expect(first.rows[0]!.duty_kind).toBe('extrazone');

    const second = await run(file, options('shared', {}));
    expect(second.created).toBe(0);
    expect(second.billed).toBe(0);
    expect(second.rows.map((row) => row.status)).toEqual(Array(9).fill('reused'));
    for (const row of second.rows) expect(duties(row)).toEqual(await sandboxDuties(row));
  }, 300_000);

  it('classifies the same product exported and imported once; the export row’s SIM openings are GET /sim-openings’s', async () => {
    const file = catalogue('both-ways', [
      ['MOT-EXP', 'Motor elétrico trifásico 7,5 CV, 4 polos, carcaça 112M', 'import', 'CN'],
      ['MOT-EXP', 'Motor elétrico trifásico 7,5 CV, 4 polos, carcaça 112M', 'export', 'MX'],
    ]);
    const { rows, created } = await run(file, options('both-ways', { reclassify: 'all' }));

    expect(created).toBe(1);
    expect(rows.map((row) => [row.status, row.cost_usd])).toEqual([
      ['resolved', '2.00'],
      ['resolved', '0.00'],
    ]);
    const [imported, exported] = rows as [Record<string, string>, Record<string, string>];
    expect(exported.verdict_from).toBe(`${imported.classification_id} (CN, import)`);
    expect(duties(exported)).toEqual(await sandboxDuties(exported));
    expect(exported.sim_code).toBe('');
    const openings = await service.getSimOpenings({
      ncm: imported.ncm!.replace(/\D/g, ''),
      operation: 'export',
    });
    expect(openings.status).toBe('available');
    expect(exported.detail).toContain(
      `SIM opening to be chosen among ${openings.openings.map((opening) => formatNcm(opening.code)).join(', ')}`,
    );
  }, 300_000);

  it('classifies each country on its own with verdict_per_country: nine classifications, as before', async () => {
    const file = catalogue(
      'per-country',
      everyOrigin.map(([sku, ...rest]) => [`${sku}-B`, ...rest]),
    );
    const { rows, created, billed } = await run(
      file,
      options('per-country', { verdict_per_country: true, reclassify: 'all' }),
    );

    expect(created).toBe(9);
    expect(billed).toBe(18);
    expect(rows.map((row) => [row.status, row.cost_usd, row.verdict_from])).toEqual(
      Array(9).fill(['resolved', '2.00', '']),
    );
  }, 300_000);
});
