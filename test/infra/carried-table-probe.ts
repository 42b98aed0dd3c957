/** A function that reads the carried NCM table: bundled by bundled-table.test.ts as every function is. */
import { carriedNcmTable } from '../../shared/ncm-table/carried-table.js';

export const handler = async () => {
  const table = carriedNcmTable();
  return { asOf: table.asOf, codeCount: table.codeCount };
};
