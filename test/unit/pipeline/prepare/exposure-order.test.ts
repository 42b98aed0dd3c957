/** Exposure order: the value and priority cells as people write them, and the columns that give them. */
import { describe, expect, it } from 'vitest';
import {
  amountOf,
  exposureColumnsOf,
  priorityOf,
} from '../../../../shared/pipeline/prepare/exposure-order.js';

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
