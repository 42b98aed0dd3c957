/**
 * The nightly benchmark's ERP export: its sizes as the option spells them, its rows read back by
 * the pipeline's own reader (every row valid, a SKU each, one fingerprint per product), the same
 * bytes every time, and a mix of products the sandbox's classifier resolves, asks about and
 * fails as the export says it does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EXPORT_HEADER,
  exportProducts,
  exportRecords,
  parseNightlySizes,
  variantsOf,
  writeNightlyExport,
} from '../../../local/bench/nightly-export.js';
import { classify } from '../../../local/sandbox/classifier/classify.js';
import { COUNTRIES } from '../../../local/sandbox/classifier/countries.js';
import { productIdentity } from '../../../shared/pipeline/reuse/reuse.js';
import { normaliseRow } from '../../../shared/spreadsheet/normalise-row.js';
import { readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import type { ProductRow } from '../../../shared/spreadsheet/schemas.js';

const temp = mkdtempSync(join(tmpdir(), 'nightly-export-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The export written to a file and read back as Prepare reads it: each row's product, or why not. */
const readBack = async (rows: number, products: number) => {
  const file = join(temp, `export-${rows}-${products}.csv`);
  writeNightlyExport(file, { rows, products });
  const bytes = readFileSync(file);
  const read = await readSpreadsheet(bytes, 'erp-export.csv');
  const accepted = new Set(COUNTRIES.map((country) => country.code));
  const outcomes = read.rows.map((row) => normaliseRow(row, {}, accepted, read.columns));
  return { bytes, read, outcomes };
};

describe('--nightly sizes', () => {
  it('reads ROWS:PRODUCTS pairs, comma-separated, and nothing from an empty option', () => {
    expect(parseNightlySizes('100000:200, 400000:2000')).toEqual([
      { rows: 100_000, products: 200 },
      { rows: 400_000, products: 2_000 },
    ]);
    expect(parseNightlySizes('')).toEqual([]);
  });

  it('refuses a size that is not ROWS:PRODUCTS with a row for every product', () => {
    for (const wrong of ['100000', '100:0', '10:20', 'a:b', '10:2:1', '1.5:1'])
      expect(() => parseNightlySizes(wrong), wrong).toThrow(/--nightly/);
  });
});

describe('the export', () => {
  it('is read by the pipeline as an ERP export: its columns understood, every row valid, a SKU each', async () => {
    const { read, outcomes } = await readBack(2_000, 50);

    expect(read.header).toEqual([...EXPORT_HEADER]);
    expect(read.delimiter).toBe(';');
    expect(Object.keys(read.columns.fields).sort()).toEqual([
      'country',
      'current_ncm',
      'description',
      'operation',
      'sku',
    ]);
    expect(read.rows).toHaveLength(2_000);
    expect(outcomes.filter((outcome) => outcome.status !== 'valid')).toEqual([]);
    const products = outcomes.map((outcome) => (outcome as { product: ProductRow }).product);
    expect(new Set(products.map((product) => product.sku)).size).toBe(2_000);
  });

  it("gives a product's variants one fingerprint and each product its own", async () => {
    const { outcomes } = await readBack(2_000, 50);
    const identities = outcomes.map((outcome) =>
      productIdentity((outcome as { product: ProductRow }).product, null),
    );

    expect(new Set(identities.map((identity) => identity.product_key)).size).toBe(2_000);
    expect(new Set(identities.map((identity) => identity.fingerprint)).size).toBe(50);
    // Product by product, as the ERP lists them: 40 variants each, one fingerprint per run of rows.
    const runs = identities.filter((identity, i) => identity.fingerprint !== identities[i - 1]?.fingerprint);
    expect(runs).toHaveLength(50);
  });

  it('spreads rows that do not divide evenly over the first products, and names every variant apart', () => {
    expect([0, 1, 2].map((index) => variantsOf({ rows: 10, products: 3 }, index))).toEqual([4, 3, 3]);
    const skus = [...exportRecords({ rows: 500, products: 1 })].slice(1).map((record) => record[0]);

    expect(new Set(skus).size).toBe(500);
    expect(skus.slice(0, 2)).toEqual(['P00001-PRE-PP', 'P00001-BRA-PP']);
  });

  it('is the same bytes every time', async () => {
    const first = await readBack(1_000, 30);
    const again = await readBack(1_000, 30);

    expect(Buffer.compare(first.bytes, again.bytes)).toBe(0);
    expect(first.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });
});

describe("the products' mix", () => {
  const products = exportProducts(400);
  const verdicts = products.map((product) =>
    classify({
      operation: product.operation === 'Importação' ? 'import' : 'export',
      country: product.country,
      description: product.description,
      sheetText: null,
      answers: [],
      priorAttempts: 0,
      seed: 'bench',
      now: new Date('2026-11-27T00:00:00Z'),
    }),
  );

  it('is what the sandbox answers: most resolve, one in ten asks questions, one in twenty fails', () => {
    expect(verdicts.map((verdict) => verdict.status)).toEqual(products.map((product) => product.expected));
    const share = (status: string) => products.filter((product) => product.expected === status).length / 400;

    expect([share('resolved'), share('pending_data'), share('failed')]).toEqual([0.85, 0.1, 0.05]);
  });

  it('declares an NCM for two resolving products in three, the one the sandbox resolves to', () => {
    const declared = products.filter((product) => product.declaredNcm !== null);

    expect(declared.length).toBeGreaterThan(0);
    expect(declared.every((product) => product.expected === 'resolved')).toBe(true);
    expect(
      declared.length / products.filter((product) => product.expected === 'resolved').length,
    ).toBeCloseTo(2 / 3, 1);
    for (const [index, product] of products.entries()) {
      const verdict = verdicts[index];
      if (product.declaredNcm !== null && verdict?.status === 'resolved')
        expect(verdict.chosen_ncm, product.description).toBe(product.declaredNcm);
    }
  });
});
