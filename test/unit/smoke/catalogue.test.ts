/**
 * The smoke's catalogue (sample-data/smoke/): small, billed at most USD 6.00, its sheet the
 * sample's own, read by the pipeline's reader; and the loader's refusals of a folder that would
 * not make a smoke.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSmokeCatalogue, maxCostUsd, SMOKE_CATALOGUE_DIR } from '../../../shared/smoke/catalogue.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A copy of the smoke's folder with `change` made to it. */
const copyWith = (change: (dir: string) => void): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ncm-smoke-catalogue-'));
  folders.push(dir);
  mkdirSync(join(dir, 'sheets'));
  for (const file of ['products.csv', 'batch.json', 'sheets/bomba-submersivel.pdf'])
    copyFileSync(join(SMOKE_CATALOGUE_DIR, file), join(dir, file));
  change(dir);
  return `${dir}/`;
};

describe('the smoke catalogue', () => {
  it('is three rows, one with a technical sheet, batch.json first, classified again each run', async () => {
    const catalogue = await loadSmokeCatalogue();

    expect(catalogue.spreadsheet).toMatchObject({ path: 'products.csv', contentType: 'text/csv' });
    expect(catalogue.attachments.map(({ path, contentType }) => [path, contentType])).toEqual([
      ['batch.json', 'application/json'],
      ['sheets/bomba-submersivel.pdf', 'application/pdf'],
    ]);
    expect(catalogue.header).toEqual(['sku', 'description', 'operation', 'country', 'sheet']);
    expect(catalogue.rows.map((row) => [row.row, row.cells[0]])).toEqual([
      [1, 'SMOKE-BOM-0207'],
      [2, 'SMOKE-ROL-6204'],
      [3, 'SMOKE-PEC-DIV'],
    ]);
    // A verdict reused from an earlier smoke would skip the service: every run classifies.
    expect(catalogue.options).toMatchObject({ reclassify: 'all', max_usd: 6, plan_only: false });
    expect(maxCostUsd(catalogue)).toBe(6);
  });

  it("holds the sample's own pump sheet, byte for byte", () => {
    const sample = readFileSync(
      new URL('../../../sample-data/sheets/bomba-submersivel.pdf', import.meta.url),
    );
    expect(readFileSync(join(SMOKE_CATALOGUE_DIR, 'sheets/bomba-submersivel.pdf')).equals(sample)).toBe(true);
  });

  it('costs no more than its budget, nor than its rows', () => {
    const rows = [
      { row: 1, cells: [] },
      { row: 2, cells: [] },
    ];
    expect(maxCostUsd({ rows, options: { max_usd: 2 } as never })).toBe(2);
    expect(maxCostUsd({ rows, options: {} as never })).toBe(4);
  });
});

describe('loadSmokeCatalogue refuses', () => {
  it('a plan-only batch.json, which would classify nothing', async () => {
    const dir = copyWith((folder) => writeFileSync(join(folder, 'batch.json'), '{"plan_only": true}'));
    await expect(loadSmokeCatalogue(dir)).rejects.toThrow(`${dir}batch.json asks for a plan only`);
  });

  it('a row naming a sheet the folder does not hold', async () => {
    const dir = copyWith((folder) => rmSync(join(folder, 'sheets/bomba-submersivel.pdf')));
    await expect(loadSmokeCatalogue(dir)).rejects.toThrow(
      `products.csv row 1 names sheet sheets/bomba-submersivel.pdf, not in ${dir}`,
    );
  });

  it('a folder with two catalogues', async () => {
    const dir = copyWith((folder) => copyFileSync(join(folder, 'products.csv'), join(folder, 'more.csv')));
    await expect(loadSmokeCatalogue(dir)).rejects.toThrow(
      'must hold exactly one .csv or .xlsx catalogue, it holds 2',
    );
  });
});
