/**
 * The rows of a CSV catalogue Prepare would reject, found in the browser before anything is sent,
 * so nothing is rejected by surprise: each row goes through the pipeline's own column matching and
 * row checks (`matchColumns`, `mapRow`, `normaliseRow`), once, as the page reads the file. A row
 * whose only faults are an empty operation or country depends on the batch's defaults, so the page
 * says, as the person fills them in, which rows would still be rejected, without reading again.
 *
 * Whether the service accepts a country is the service's list, which Prepare reads; here every
 * well-formed code passes, so the preview catches what the file itself says wrong.
 */
import {
  type ColumnMapping,
  type Message,
  mapRow,
  matchColumns,
  normaliseRow,
  type RejectionReason,
} from '../../shared/console/web-contract.js';

/** Rows kept per kind of fault, to name them; the count says the rest. */
const ROWS_KEPT = 5;

/** The faults that a batch default mends: the cell is empty, and a default fills it. */
const MENDED_BY_DEFAULT = { operation_missing: 'operation', country_missing: 'country' } as const;

/** Rows with the same faults: their reasons in column order, the first rows, and the first row's messages. */
type FaultGroup = { reasons: RejectionReason[]; messages: Message[]; rows: number[]; rowCount: number };

export type RejectionsPreview = {
  /** Rows read (data rows, blank ones skipped, as Prepare numbers them). */
  rows: number;
  groups: FaultGroup[];
};

/** The defaults the person has set: each mends its empty cells. */
export type DefaultsSet = { operation: boolean; country: boolean };

/** Why some rows would be rejected: the first reason left once the defaults mend theirs, and its message. */
export type WouldReject = { reason: RejectionReason; message: Message; rows: number[]; rowCount: number };

/** Every code passes: the service's own list of countries is Prepare's to apply. */
class EveryCountryCode extends Set<string> {
  override has(): boolean {
    return true;
  }
}
const ANY_COUNTRY = new EveryCountryCode();

/**
 * Starts a preview of a catalogue's rejections: `header` once, then `row` for each data row in
 * order; `result` gives what was found. A header the pipeline refuses (two columns meaning one
 * thing, neither a description nor a sheet) gives no preview: Prepare says so as the batch starts.
 */
export const rejectionsPreview = (fileName: string) => {
  let columns: ColumnMapping | null = null;
  let refused = false;
  let rows = 0;
  const groups = new Map<string, FaultGroup>();
  return {
    header: (cells: readonly string[]) => {
      try {
        columns = matchColumns(cells, fileName);
      } catch {
        refused = true;
      }
    },
    row: (row: number, line: number, cells: string[]) => {
      if (columns === null) return;
      rows = row;
      // No defaults: every empty operation or country shows, and the page weighs the defaults later.
      const outcome = normaliseRow(mapRow({ row, line, cells }, columns), {}, ANY_COUNTRY, columns);
      if (outcome.status !== 'rejected') return;
      const issues = outcome.rejection.issues;
      const reasons = issues.map((issue) => issue.reason);
      const key = reasons.join(' ');
      const group = groups.get(key) ?? {
        reasons,
        messages: issues.map((issue) => ({ code: issue.reason, params: issue.params ?? {} })),
        rows: [],
        rowCount: 0,
      };
      if (group.rows.length < ROWS_KEPT) group.rows.push(row);
      group.rowCount += 1;
      groups.set(key, group);
    },
    result: (): RejectionsPreview | null =>
      refused || columns === null ? null : { rows, groups: [...groups.values()] },
  };
};

/**
 * Takes a preview and the defaults set, and gives the rows that would still be rejected, grouped
 * by the first fault no default mends (in column order), the groups with most rows first.
 */
export const wouldReject = (preview: RejectionsPreview, defaults: DefaultsSet): WouldReject[] => {
  const byReason = new Map<RejectionReason, WouldReject>();
  for (const group of preview.groups) {
    const left = group.reasons.findIndex((reason) => {
      const mendedBy = MENDED_BY_DEFAULT[reason as keyof typeof MENDED_BY_DEFAULT];
      return mendedBy === undefined || !defaults[mendedBy];
    });
    if (left < 0) continue;
    const reason = group.reasons[left] as RejectionReason;
    const found = byReason.get(reason) ?? {
      reason,
      message: group.messages[left] as Message,
      rows: [],
      rowCount: 0,
    };
    found.rows = [...found.rows, ...group.rows].sort((a, b) => a - b).slice(0, ROWS_KEPT);
    found.rowCount += group.rowCount;
    byReason.set(reason, found);
  }
  return [...byReason.values()].sort((a, b) => b.rowCount - a.rowCount);
};

/** Takes a preview and gives whether a default operation, or a default country, would mend some row. */
export const defaultsWanted = (preview: RejectionsPreview): DefaultsSet => ({
  operation: preview.groups.some((group) => group.reasons.includes('operation_missing')),
  country: preview.groups.some((group) => group.reasons.includes('country_missing')),
});
