/**
 * Lines of a fiscal file that are services, not goods: only goods have an NCM, so such a line is
 * never sent to the service (and never billed). Brazil's own files say it in a field of their own:
 *
 *   SPED EFD register 0200   TIPO_ITEM 09 ("Serviços"; the item has a COD_LST, no COD_NCM)
 *   NF-e item (det/prod)     NCM 00 (the schema's value for a service)
 *
 * Any file is read the same way: a column headed `TIPO_ITEM` holding 09, or a declared NCM of
 * exactly `00`, which no NCM can be. Pure.
 */
import { collapseWhitespace, matchingKey } from './matching-key.js';
import type { ColumnMapping, MappedRow } from './schemas.js';

/** The field that says a line is a service, as the file names it, and the value it holds. */
export type ServiceMark = { field: string; value: string };

/** SPED EFD's register 0200 field for the kind of item, and its value for a service. */
const ITEM_KIND_FIELD = matchingKey('TIPO_ITEM');
const SERVICE_ITEM_KIND = '09';
/** The NF-e schema's NCM for a service: two digits, where goods have eight. */
const SERVICE_NCM = '00';

/**
 * Gives the field and value that mark a mapped row as a service (a `TIPO_ITEM` column holding
 * 09, or a declared NCM of 00), or null for a row of goods or one that does not say.
 */
export const serviceMarkOf = (
  mapped: Pick<MappedRow, 'fields' | 'passthrough'>,
  columns: ColumnMapping,
): ServiceMark | null => {
  const kindAt = columns.passthrough.findIndex((column) => matchingKey(column.header) === ITEM_KIND_FIELD);
  if (kindAt >= 0) {
    const kind = collapseWhitespace(mapped.passthrough[kindAt] ?? '');
    if (kind === SERVICE_ITEM_KIND) return { field: columns.passthrough[kindAt]!.header, value: kind };
  }
  const declared = collapseWhitespace(mapped.fields.current_ncm ?? '');
  if (declared === SERVICE_NCM)
    return { field: columns.fields.current_ncm?.header ?? 'NCM', value: declared };
  return null;
};
