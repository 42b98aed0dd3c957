/** What matters first, as the benchmark measures it: the long-tail catalogue it drops, and the coverage curve it reads. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  coverageCurve,
  longTailProducts,
  writeLongTailCatalogue,
} from '../../../local/bench/first-verdicts.js';

const dir = mkdtempSync(join(tmpdir(), 'first-verdicts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the long-tail catalogue', () => {
  it('has a fifth of its products carrying about four fifths of the rows and value, in an order that says nothing of it', () => {
    // Prepare
    const products = longTailProducts({ rows: 20_000, products: 2_000 });

    // Act
    const byRows = [...products].sort((a, b) => b.rows - a.rows);
    const rows = (list: typeof products) => list.reduce((sum, p) => sum + p.rows, 0);
    const value = (list: typeof products) => list.reduce((sum, p) => sum + p.rows * p.unitValue, 0);
    const topFifth = byRows.slice(0, 400);
    const firstFifthInFile = products.slice(0, 400);

    // Assess
    expect(products).toHaveLength(2_000);
    expect(rows(products)).toBe(20_000);
    expect(rows(topFifth) / 20_000).toBeGreaterThan(0.75);
    expect(value(topFifth) / value(products)).toBeGreaterThan(0.75);
    // The file's first fifth of products is no heavier than any fifth.
    expect(rows(firstFifthInFile) / 20_000).toBeLessThan(0.5);
    expect(longTailProducts({ rows: 20_000, products: 2_000 })).toEqual(products);
  });

  it("writes each product's rows together, with the value as a Brazilian ERP writes it", () => {
    const file = join(dir, 'catalogue.csv');
    writeLongTailCatalogue(file, [
      { code: 'P000001', description: 'Café torrado em grãos, linha P000001', rows: 2, unitValue: 1234.5 },
    ]);
    expect(readFileSync(file, 'utf8').split('\r\n').filter(Boolean)).toEqual([
      '\uFEFFCódigo;Descrição;Operação;País;Valor',
      'P000001-1;Café torrado em grãos, linha P000001;Importação;CN;1.234,50',
      'P000001-2;Café torrado em grãos, linha P000001;Importação;CN;1.234,50',
    ]);
  });
});

describe('the coverage curve', () => {
  it('adds up what the first 10, 20 and 50 % of the classifications covered, in the order they resolved', () => {
    const resolved = [
      { resolvedAt: '2026-12-04T10:00:03Z', rows: 10, value: 100 },
      { resolvedAt: '2026-12-04T10:00:01Z', rows: 50, value: 400 },
      { resolvedAt: '2026-12-04T10:00:02Z', rows: 20, value: 300 },
      { resolvedAt: '2026-12-04T10:00:04Z', rows: 20, value: 200 },
    ];
    expect(coverageCurve(resolved, { classifications: 10, rows: 100, value: 1_000 })).toEqual([
      { classifications: 0.1, rows: 0.5, value: 0.4 },
      { classifications: 0.2, rows: 0.7, value: 0.7 },
      { classifications: 0.5, rows: 1, value: 1 },
    ]);
  });
});
