/** Exposure order: the value and priority cells as people write them, the columns that give them, the ranking. */
import { describe, expect, it } from 'vitest';
import {
  amountOf,
  exposureColumnsOf,
  exposureRanker,
  priorityOf,
} from '../../../../shared/pipeline/prepare/exposure-order.js';
import type { RowPlan } from '../../../../shared/pipeline/prepare/row-plans.js';

describe('a value cell', () => {
  it('reads money as Brazilian, Spanish and English files write it', () => {
    expect(amountOf('1.234,56')).toBe(1234.56);
    expect(amountOf('1,234.56')).toBe(1234.56);
    expect(amountOf('R$ 99,90')).toBe(99.9);
    expect(amountOf('US$ 1 200.5')).toBe(1200.5);
    expect(amountOf('1234.5')).toBe(1234.5);
    expect(amountOf('1.000.000')).toBe(1_000_000);
    expect(amountOf('12')).toBe(12);
  });

  it('reads nothing from an empty, negative or wordy cell', () => {
    expect(amountOf('')).toBeNull();
    expect(amountOf('-5,00')).toBeNull();
    expect(amountOf('sob consulta')).toBeNull();
  });
});

describe('a priority cell', () => {
  it('reads numbers as written and the three levels in pt, es and en, 1 first', () => {
    expect(['1', '2,5', 'Alta', 'média', 'BAJA', 'low', 'Urgente'].map(priorityOf)).toEqual([
      1, 2.5, 1, 2, 3, 3, 1,
    ]);
    expect(priorityOf('')).toBeNull();
    expect(priorityOf('talvez')).toBeNull();
  });
});

describe('the columns that say how much a row matters', () => {
  it('are the first passed-through columns headed as a value and as a priority', () => {
    const passthrough = ['Fornecedor', 'Valor total', 'vProd', 'Prioridad'].map((header, index) => ({
      header,
      index: index + 3,
    }));
    expect(exposureColumnsOf({ passthrough })).toEqual({
      value: { header: 'Valor total', position: 1 },
      priority: { header: 'Prioridad', position: 3 },
    });
    expect(exposureColumnsOf({ passthrough: [{ header: 'Valor unitário', index: 2 }] })).toEqual({});
  });
});

describe('the ranking', () => {
  /** A valid row of product `product` whose value cell (the only passed-through column) is `value`. */
  const plan = (row: number, product: string, value: string) =>
    ({
      kind: 'valid',
      mapped: { row, passthrough: [value] },
      identity: { fingerprint: `${product}-BR`, product_fingerprint: product },
    }) as unknown as RowPlan;
  const ranker = () =>
    exposureRanker(
      { duplicates: 'classify_once', verdict_per_country: false },
      { value: { header: 'Valor', position: 0 } },
    );

  it('puts the products covering most rows first, then the most valuable, then the first in the file', () => {
    // Prepare: a (row 1, 2 rows, 10), b (row 2, 1 row, 500), c (row 3, 2 rows, 90), d (row 5, 1 row, 500).
    const ranked = ranker();
    ranked.add([plan(1, 'a', '5'), plan(2, 'b', '500'), plan(3, 'c', '45'), plan(4, 'c', '45')]);
    ranked.add([plan(5, 'd', '500'), plan(6, 'a', '5')]);

    // Act
    const summary = ranked.rank();

    // Assess
    expect(['a', 'b', 'c', 'd'].map((p, i) => ranked.placeOf(plan(i + 1, p, '') as never))).toEqual([
      2, 3, 1, 4,
    ]);
    expect(summary).toEqual({
      products: 4,
      value_header: 'Valor',
      unread_cells: 0,
      value_total_cents: 110_000,
      unread_rows: [],
    });
    // What each product's verdict covers, in cents: all its rows' value.
    expect(['a', 'b', 'c', 'd'].map((p, i) => ranked.coversValueOf(plan(i + 1, p, '') as never))).toEqual([
      1_000, 50_000, 9_000, 50_000,
    ]);
    // Two classifications cover c and a: 4 of 6 rows, 100 of 1,100 in value.
    expect(ranked.coverageAfter([0, 2, 10])).toEqual([
      { rows: 0, value: 0 },
      { rows: 4 / 6, value: 100 / 1100 },
      { rows: 1, value: 1 },
    ]);
  });

  it('gives each row its own place under `duplicates: classify_each`', () => {
    const ranked = exposureRanker({ duplicates: 'classify_each', verdict_per_country: false }, {});
    ranked.add([plan(1, 'a', ''), plan(2, 'a', ''), plan(3, 'b', '')]);
    ranked.rank();
    expect([1, 2, 3].map((row) => ranked.placeOf(plan(row, 'a', '') as never))).toEqual([1, 2, 3]);
  });
});
