/**
 * Every declared NCM and every verdict checked against the official NCM table in force
 * (shared/ncm-table/): an NF-e whose NCM is not in force is refused by SEFAZ (rejection 778), so a
 * code that is not is flagged on its row, never passed on in silence. Pure.
 *
 * Checked where rows are shown, not stored: a newer table dropped into `reference/ncm/` is what the
 * next results, summary and console page check against.
 */
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import type { RowResult, ShownResult } from './result-columns.js';

/**
 * The two columns saying whether the declared NCM and the verdict's NCM are in force (`yes`, `no`,
 * absent).
 */
export type InForceColumns = Pick<RowResult, 'current_ncm_in_force' | 'ncm_in_force'>;

/**
 * Gives a declared NCM as the table writes its codes: 8 digits, a 7-digit one given back the leading
 * zero a spreadsheet dropped; null when nothing was declared; anything else as typed, which no code
 * of the table matches.
 */
export const declaredNcmDigits = (declared: string | null | undefined): string | null => {
  const digits = (declared ?? '').replace(/[.\s-]/g, '');
  if (/^[0-9]{8}$/.test(digits)) return digits;
  if (/^[0-9]{7}$/.test(digits)) return `0${digits}`;
  return digits === '' ? null : digits;
};

/** Whether the row's declared NCM is in force: `yes`, `no`, or empty when it declared none. */
export const declaredInForce = (declared: string | null | undefined, table: NcmTable): string => {
  const digits = declaredNcmDigits(declared);
  if (digits === null) return '';
  return table.inForce(digits) ? 'yes' : 'no';
};

/** Whether a verdict's NCM is in force: `yes`, `no`, or empty when the row shows no verdict. */
const verdictInForce = (result: Pick<ShownResult, 'status' | 'ncm'>, table: NcmTable): string => {
  const digits = (result.ncm ?? '').replace(/\D/g, '');
  if (digits.length !== 8 || (result.status !== 'resolved' && result.status !== 'reused')) return '';
  return table.inForce(digits) ? 'yes' : 'no';
};

/** The two columns for a shown row. */
const inForceColumns = (
  declared: string | null | undefined,
  result: Pick<ShownResult, 'status' | 'ncm'>,
  table: NcmTable,
): InForceColumns => {
  const columns: InForceColumns = {};
  const ofDeclared = declaredInForce(declared, table);
  const ofVerdict = verdictInForce(result, table);
  if (ofDeclared) columns.current_ncm_in_force = ofDeclared;
  if (ofVerdict) columns.ncm_in_force = ofVerdict;
  return columns;
};

/**
 * Gives a shown result with its two in-force columns added, checked against `table`; unchanged when
 * no table is at hand.
 */
export const checkedAgainst = <T extends ShownResult>(
  result: T,
  declared: string | null | undefined,
  table: NcmTable | undefined,
): T => (table ? { ...result, ...inForceColumns(declared, result, table) } : result);
