/**
 * What a newer table says of a code it no longer holds in force: `ended`, nothing takes its place;
 * `replaced` by one code or `split` into several. Pure.
 *
 * The table lists the codes in force, not the correlation between an old code and its successors
 * (Gecex publishes that in each act's annex, not in the table). The successors are found by
 * prefix instead, because that is how the NCM changes almost always: a code is split into
 * new items of its own subitem (1513.21.10 → 1513.21.11 and 1513.21.19, Gecex 321/2022), or
 * renumbered within its subheading. So: the codes in force under its 7 digits (the subitem),
 * else under its 6 (the HS subheading, shared by every Mercosur member). A code moved to another
 * subheading (an HS amendment) reads as ended here: its successors are named by the act, which
 * a person checks.
 */
import { type NcmEntry, type NcmTable, ncmDigits } from './siscomex-table.js';

export type CodeChange =
  | { kind: 'in_force' }
  | { kind: 'ended' }
  | { kind: 'replaced' | 'split'; by: NcmEntry[]; under: string };

/** The prefixes successors are looked for under, narrowest first: the subitem, then the subheading. */
const SUCCESSOR_PREFIXES = [7, 6] as const;

/** What `table` says of `ncm` (dots allowed): in force, ended, or replaced by the codes in force under its prefix. */
export const codeChangeOf = (table: NcmTable, ncm: string): CodeChange => {
  if (table.inForce(ncm)) return { kind: 'in_force' };
  const digits = ncmDigits(ncm);
  for (const length of SUCCESSOR_PREFIXES) {
    if (digits.length < length) continue;
    const under = digits.slice(0, length);
    const by = table.codesUnder(under).filter((entry) => table.inForce(entry.code));
    if (by.length > 0) return { kind: by.length === 1 ? 'replaced' : 'split', by, under };
  }
  return { kind: 'ended' };
};
