/**
 * erp-update.csv: the file the ERP that exported the catalogue takes the changes back from. One
 * line per product (by its SKU, as the file gave it) whose code to declare differs from the NCM
 * it declared, or that declared none: the verdict's NCM, or the one a person approved, as eight
 * digits without dots (as ERPs import it), with the EX TIPI and CEST the file gave, the
 * classification, and who approved it and when (empty for a verdict nobody checked).
 *
 * Rows still waiting for answers or for a person's decision are left out (summary.json counts
 * them): their code is not settled. A product without a SKU has nothing an ERP could match it by:
 * it is left out and counted too. Written by the results pass beside results.csv, from the same
 * reading of the rows; each answers or decisions round writes it again, with what it settled.
 */
import type { Delimiter } from '../../spreadsheet/schemas.js';
import { formatCsvRecord } from '../../spreadsheet/write-csv.js';
import { declaredNcmDigits } from '../core/ncm-in-force.js';
import type { RowRecord } from '../core/records.js';
import type { ShownResult } from '../core/result-columns.js';
import type { ShownRow } from './results-files.js';

/** erp-update.csv's name in the outbox. */
export const ERP_UPDATE_FILE = 'erp-update.csv';

/** erp-update.csv's columns, in order. */
const ERP_UPDATE_COLUMNS = [
  'sku',
  'declared_ncm',
  'ncm',
  'ex_tipi',
  'cest',
  'classification_id',
  'approved_by',
  'approved_at',
] as const;

/** Input headers (compared without case, spaces, dots, dashes or underscores) that hold the EX TIPI. */
const EX_TIPI_HEADERS = new Set(['extipi', 'exipi']);
/** Input headers that hold the CEST. */
const CEST_HEADERS = new Set(['cest', 'codcest', 'codigocest']);

const headerName = (header: string): string =>
  header
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[\s._-]+/g, '');

/**
 * Gives where the input file keeps the EX TIPI and the CEST (SPED's `EX_IPI` and `CEST`, NF-e's
 * `EXTIPI` and `CEST`, a spreadsheet's columns of those names), by column index; null where it has none.
 */
export const erpColumnsOf = (header: readonly string[]): { exTipi: number | null; cest: number | null } => {
  const named = header.map(headerName);
  const find = (names: ReadonlySet<string>) => {
    const index = named.findIndex((name) => names.has(name));
    return index < 0 ? null : index;
  };
  return { exTipi: find(EX_TIPI_HEADERS), cest: find(CEST_HEADERS) };
};

/** Says whether a row's code is not settled yet: it waits for answers, or for a person's decision. */
const waitsToSettle = (shown: Pick<ShownResult, 'status' | 'check'>): boolean =>
  shown.status === 'pending_data' || shown.check === 'to_check';

/**
 * Gives what a row brings to erp-update.csv: its line (and the SKU it is keyed by) when its code
 * to declare differs from the declared one or none was declared; `waiting` while that code is not
 * settled; `no_sku` for such a row without a SKU; null for a row with nothing to change.
 */
export const erpUpdateOf = (
  shown: { row: Pick<RowRecord, 'product' | 'cells'>; result: ShownResult },
  columns: { exTipi: number | null; cest: number | null },
): { sku: string; line: string[] } | 'waiting' | 'no_sku' | null => {
  const { row, result } = shown;
  if (waitsToSettle(result)) return 'waiting';
  if (result.status !== 'resolved' && result.status !== 'reused') return null;
  const approved = result.check === 'approved';
  const code = ((approved && result.approved_ncm) || result.ncm || '').replace(/\D/g, '');
  if (code.length !== 8) return null;
  const declared = row.product?.current_ncm ?? null;
  if (declaredNcmDigits(declared) === code) return null;
  const sku = row.product?.sku ?? '';
  if (sku === '') return 'no_sku';
  const cell = (index: number | null) => (index === null ? '' : (row.cells[index] ?? ''));
  return {
    sku,
    line: [
      sku,
      declared ?? '',
      code,
      cell(columns.exTipi),
      cell(columns.cest),
      result.classification_id ?? '',
      approved ? (result.decided_by ?? '') : '',
      approved ? (result.decided_at ?? '') : '',
    ],
  };
};

/**
 * Gives erp-update.csv's text a row at a time: `header` once, then `add` gives each new product's
 * line (a SKU already written gives ""). `skus` is what was written so far (an earlier leg's, read
 * back), so a file written in legs has each SKU once.
 */
export const erpUpdateLines = (
  header: readonly string[],
  delimiter: Delimiter,
  skus: Set<string> = new Set(),
) => {
  const columns = erpColumnsOf(header);
  return {
    header: (): string => formatCsvRecord([...ERP_UPDATE_COLUMNS], delimiter),
    add: (shown: ShownRow): string => {
      const update = erpUpdateOf(shown, columns);
      if (update === null || typeof update === 'string' || skus.has(update.sku)) return '';
      skus.add(update.sku);
      return formatCsvRecord(update.line, delimiter);
    },
  };
};
