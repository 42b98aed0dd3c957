/**
 * The declared NCMs a file holds that are no code in the NCM table in force, said before anything
 * is spent (the plan, summary.json, the console): an NF-e whose NCM is not in force is refused by
 * SEFAZ (rejection 778). The rows are classified all the same; their results say it again
 * (`current_ncm_in_force`). Holds the first codes and rows and their counts, never the rows. Pure.
 */
import type { TableInForce } from '../../ncm-table/reference-table.js';
import { formatNcm } from '../../spreadsheet/write-csv.js';
import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { declaredInForce, declaredNcmDigits } from '../core/ncm-in-force.js';
import type { RowPlan } from './row-plans.js';

/** How many codes and rows the warning names before it only counts them. */
const CODES_NAMED = 10;
const ROWS_NAMED = 10;

/**
 * Gives a collector Prepare feeds its row plans: its `messages` are the warnings for the batch,
 * the table refused (if a newer one was dropped and not taken) and the declared codes not in force,
 * naming the first ten codes and rows and counting the rest.
 */
export const declaredNcmCollector = (ncm: TableInForce, declaredHeader = 'current_ncm') => {
  const codes = new Set<string>();
  let moreCodes = 0;
  const seenBeyond = new Set<string>();
  const rows: number[] = [];
  let total = 0;
  return {
    add(plans: readonly RowPlan[]): void {
      for (const plan of plans) {
        if (plan.kind !== 'valid' || declaredInForce(plan.product.current_ncm, ncm.table) !== 'no') continue;
        total += 1;
        if (rows.length < ROWS_NAMED) rows.push(plan.mapped.row);
        const digits = declaredNcmDigits(plan.product.current_ncm)!;
        const code = digits.length === 8 ? formatNcm(digits) : (plan.product.current_ncm ?? digits);
        if (codes.has(code)) continue;
        if (codes.size < CODES_NAMED) codes.add(code);
        // Codes past the named ones are counted once each, up to a bound: a sentence, not an index.
        else if (!seenBeyond.has(code) && seenBeyond.size < 10_000) {
          seenBeyond.add(code);
          moreCodes += 1;
        }
      }
    },
    messages(): Message[] {
      const said: Message[] = [];
      const table = { as_of: ncm.table.asOf, act: ncm.table.act };
      if (ncm.refused) said.push(message('ncm_table_not_taken', { ...ncm.refused, ...table }));
      if (total > 0) {
        said.push(
          message('declared_ncm_not_in_force', {
            header: declaredHeader,
            codes: [...codes],
            more_codes: moreCodes,
            rows,
            total,
            ...table,
          }),
        );
      }
      return said;
    },
  };
};
