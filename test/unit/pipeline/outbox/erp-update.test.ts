/** erp-update.csv's lines (shared/pipeline/outbox/erp-update.ts): what the ERP takes back. */
import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import type { ShownResult } from '../../../../shared/pipeline/core/result-columns.js';
import { erpColumnsOf, erpUpdateLines, erpUpdateOf } from '../../../../shared/pipeline/outbox/erp-update.js';

const HEADER = ['COD_ITEM', 'DESCR_ITEM', 'COD_NCM', 'EX_IPI', 'CEST'];

const shown = (
  row: number,
  sku: string | null,
  declared: string | null,
  result: ShownResult,
): { row: RowRecord; result: ShownResult } => ({
  row: {
    row,
    cells: [sku ?? '', 'Motor', declared ?? '', '01', '0101500'],
    product: { sku, current_ncm: declared },
  } as unknown as RowRecord,
  result,
});

const RESOLVED: ShownResult = {
  status: 'resolved',
  classification_id: 'cls_7KQ2M9XW4RTB',
  ncm: '8501.52.10',
  cost_usd: '2.00',
};

describe('erp-update.csv', () => {
  it('finds the EX TIPI and CEST columns of a SPED file, an NF-e and a spreadsheet by their names', () => {
    expect(erpColumnsOf(HEADER)).toEqual({ exTipi: 3, cest: 4 });
    expect(erpColumnsOf(['cProd', 'NCM', 'EXTIPI', 'CEST'])).toEqual({ exTipi: 2, cest: 3 });
    expect(erpColumnsOf(['SKU', 'Ex TIPI', 'Código CEST'])).toEqual({ exTipi: 1, cest: 2 });
    expect(erpColumnsOf(['SKU', 'Descrição'])).toEqual({ exTipi: null, cest: null });
  });

  it('writes a product whose code differs, or that declared none, once per SKU, as eight digits', () => {
    const lines = erpUpdateLines(HEADER, ';');
    expect(lines.header()).toBe(
      'sku;declared_ncm;ncm;ex_tipi;cest;classification_id;approved_by;approved_at\r\n',
    );
    expect(lines.add(shown(1, 'MOT-1', '85015290', RESOLVED))).toBe(
      'MOT-1;85015290;85015210;01;0101500;cls_7KQ2M9XW4RTB;;\r\n',
    );
    // The same SKU on another row (another origin): already written.
    expect(lines.add(shown(2, 'MOT-1', '85015290', { ...RESOLVED, cost_usd: '0.00' }))).toBe('');
    expect(lines.add(shown(3, 'MOT-2', null, { ...RESOLVED, status: 'reused' }))).toBe(
      'MOT-2;;85015210;01;0101500;cls_7KQ2M9XW4RTB;;\r\n',
    );
    // The declared code, a lost leading zero put back: nothing to change.
    expect(lines.add(shown(4, 'CAF-1', '9012100', { ...RESOLVED, ncm: '0901.21.00' }))).toBe('');
  });

  it('takes the code a person approved, with who and when, over the service’s', () => {
    const approved: ShownResult = {
      ...RESOLVED,
      check: 'approved',
      approved_ncm: '8501.53.10',
      decided_by: 'Ana Revisora',
      decided_at: '2026-12-01T10:00:00.000Z',
    };
    expect(erpUpdateOf(shown(1, 'MOT-1', '85015210', approved), erpColumnsOf(HEADER))).toEqual({
      sku: 'MOT-1',
      line: [
        'MOT-1',
        '85015210',
        '85015310',
        '01',
        '0101500',
        'cls_7KQ2M9XW4RTB',
        'Ana Revisora',
        '2026-12-01T10:00:00.000Z',
      ],
    });
  });

  it('leaves out a code not settled, a row without a verdict, and a product without a SKU, saying which', () => {
    const columns = erpColumnsOf(HEADER);
    expect(erpUpdateOf(shown(1, 'A', null, { status: 'pending_data', cost_usd: '0.00' }), columns)).toBe(
      'waiting',
    );
    expect(erpUpdateOf(shown(1, 'A', null, { ...RESOLVED, check: 'to_check' }), columns)).toBe('waiting');
    expect(erpUpdateOf(shown(1, 'A', null, { status: 'failed', cost_usd: '0.00' }), columns)).toBeNull();
    expect(erpUpdateOf(shown(1, null, null, RESOLVED), columns)).toBe('no_sku');
    expect(erpUpdateOf(shown(1, null, '85015210', RESOLVED), columns)).toBeNull();
  });
});
