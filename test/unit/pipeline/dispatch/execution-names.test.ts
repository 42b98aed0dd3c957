import { describe, expect, it } from 'vitest';
import { deriveBatchId } from '../../../../shared/pipeline/core/keys.js';
import {
  EXECUTION_NAME_MAX,
  rowExecutionName,
  rowHolder,
} from '../../../../shared/pipeline/dispatch/execution-names.js';

const SAFE = /^[A-Za-z0-9_-]{1,80}$/;
const batchId = deriveBatchId('catalogo-nightly', {
  bucket: 'b',
  key: 'inbox/x/products.csv',
  versionOrEtag: 'v1',
});
const message = { batch_id: batchId, row: 42, attempt: 1, dispatch: 1 };

describe('rowExecutionName', () => {
  it('is readable and deterministic for the usual batch id', () => {
    expect(rowExecutionName(message)).toBe(`${batchId}-r42-a1-d1`);
    expect(rowExecutionName({ ...message })).toBe(rowExecutionName(message));
  });

  it('differs for every row, attempt and dispatch, so a requeued row starts a new execution', () => {
    const names = new Set([
      rowExecutionName(message),
      rowExecutionName({ ...message, row: 43 }),
      rowExecutionName({ ...message, attempt: 2 }),
      rowExecutionName({ ...message, dispatch: 2 }),
      rowExecutionName({ ...message, batch_id: `${batchId}x` }),
    ]);
    expect(names.size).toBe(5);
  });

  it('stays within 80 safe characters for the longest batch ids and rows', () => {
    const longest = deriveBatchId('n'.repeat(200), { bucket: 'b', key: 'k', versionOrEtag: 'e' });
    const name = rowExecutionName({ batch_id: longest, row: 9_999_999, attempt: 3, dispatch: 999 });
    expect(name).toMatch(SAFE);
    expect(name.length).toBeLessThanOrEqual(EXECUTION_NAME_MAX);
  });

  it('cleans and hashes an id it cannot use as is, keeping two such ids apart', () => {
    const a = rowExecutionName({ ...message, batch_id: `${'x'.repeat(90)}.a` });
    const b = rowExecutionName({ ...message, batch_id: `${'x'.repeat(90)}.b` });
    const dotted = rowExecutionName({ ...message, batch_id: 'lote 1/ção' });
    for (const name of [a, b, dotted]) {
      expect(name).toMatch(SAFE);
      expect(name.endsWith('-r42-a1-d1')).toBe(true);
    }
    expect(a).not.toBe(b);
    expect(rowExecutionName({ ...message, batch_id: 'lote 1/ção' })).toBe(dotted);
  });
});

describe('rowHolder', () => {
  it('is the row attempt: every dispatch of an attempt shares it, a new attempt does not', () => {
    expect(rowHolder(batchId, 42, 1)).toBe(`${batchId}:42#a1`);
    expect(rowHolder(batchId, 42, 2)).not.toBe(rowHolder(batchId, 42, 1));
  });
});
