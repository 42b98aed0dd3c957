/**
 * Decisions on verdicts to check (docs/answers-round.md, "Decisions"), planned line by line as
 * plan-answers.ts plans answers: what stands, and one report line each. Pure: the check items and
 * the NCM table in force are handed in; applying is apply-decisions.ts.
 *
 *   DecisionLine[] ──planDecisions(+ check items, NCM table in force, round)──▶
 *     DecisionsPlan { decide: decisions to apply, report: one outcome per line }
 *
 * A decision stands only when nothing about it is in doubt: it is what the tax team declares.
 */
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { formatNcm } from '../../spreadsheet/write-csv.js';
import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import type { CheckItem } from '../core/check-records.js';
import { declaredNcmDigits } from '../core/ncm-in-force.js';
import type { DecisionLine } from './decisions-file.js';

const DECISION_OUTCOMES = [
  'decided',
  'undecided',
  'already_decided',
  'not_to_check',
  'wrong_classification',
  'ncm_not_a_code',
  'ncm_not_in_force',
  'sim_not_a_code',
  'sim_not_an_option',
  'sim_not_of_ncm',
  'duplicate',
] as const;
/** What became of one decision line: `decided`, `undecided` (left empty), or why it was refused. */
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

/** A decision that stands, to apply to its row. */
export type PlannedDecision = {
  item: CheckItem;
  /** 8 digits. */
  ncm: string;
  /** 10 digits, or null when none was chosen. */
  sim: string | null;
  note: string;
  /** The item was decided by this very round before (a retried PrepareAnswers): applied again as it was. */
  again: boolean;
};

/**
 * One decision line's report: its row, its classification, the outcome, and the sentence that explains
 * it.
 */
export type DecisionReport = {
  row: number | null;
  classification_id: string;
  outcome: DecisionOutcome;
  /** The sentence, as a message: answers-report.csv words it, the round's messages keep it. */
  said: Message;
};

/** What a file's decision lines come to: the decisions that stand, and one report entry per line. */
export type DecisionsPlan = { decide: PlannedDecision[]; report: DecisionReport[] };

/** The ten digits of a SIM opening as typed (`8471.30.12.00`, `8471301200`, a number that lost its zero). */
const simDigits = (text: string): string => {
  const digits = text.replace(/[.\s-]/g, '');
  return /^[0-9]{9}$/.test(digits) ? `0${digits}` : digits;
};

type Judged = { outcome: DecisionOutcome; said: Message; decision?: PlannedDecision };

/** Every check after the line's row and item are known, in the order `planDecisions` lists them. */
const judge = (
  line: DecisionLine,
  item: CheckItem,
  context: { table: NcmTable; tableDate: string; roundId: string; by: string },
): Judged => {
  const at = { row: item.row, line: line.line };
  if (line.classification_id !== item.classification_id) {
    return {
      outcome: 'wrong_classification',
      said: message('decision_wrong_classification', {
        ...at,
        given: line.classification_id,
        expected: item.classification_id,
      }),
    };
  }
  if (item.state === 'decided' && item.decision) {
    const decision = item.decision;
    if (decision.round_id === context.roundId) {
      // This round decided it before it was retried: applied again, as it was recorded.
      return {
        outcome: 'decided',
        said: message('decision_applied', {
          ...at,
          ncm: formatNcm(decision.ncm),
          sim: decision.sim ? formatNcm(decision.sim) : '',
          by: decision.by,
          followers: item.followers,
        }),
        decision: { item, ncm: decision.ncm, sim: decision.sim, note: decision.note, again: true },
      };
    }
    return {
      outcome: 'already_decided',
      said: message('decision_already_made', {
        ...at,
        by: decision.by,
        at: decision.at,
        ncm: formatNcm(decision.ncm),
      }),
    };
  }
  const ncm = declaredNcmDigits(line.ncm) ?? '';
  if (!/^[0-9]{8}$/.test(ncm))
    return { outcome: 'ncm_not_a_code', said: message('decision_ncm_not_a_code', { ...at, text: line.ncm }) };
  if (!context.table.inForce(ncm)) {
    return {
      outcome: 'ncm_not_in_force',
      said: message('decision_ncm_not_in_force', { ...at, ncm: formatNcm(ncm), table: context.tableDate }),
    };
  }
  let sim: string | null = null;
  if (line.sim !== '') {
    sim = simDigits(line.sim);
    if (!/^[0-9]{10}$/.test(sim))
      return {
        outcome: 'sim_not_a_code',
        said: message('decision_sim_not_a_code', { ...at, text: line.sim }),
      };
    const options = item.sim_options.map((option) => option.code);
    if (options.length > 0 && !options.includes(sim)) {
      return {
        outcome: 'sim_not_an_option',
        said: message('decision_sim_not_an_option', {
          ...at,
          sim: formatNcm(sim),
          options: options.map(formatNcm),
        }),
      };
    }
    if (!sim.startsWith(ncm)) {
      return {
        outcome: 'sim_not_of_ncm',
        said: message('decision_sim_not_of_ncm', { ...at, sim: formatNcm(sim), ncm: formatNcm(ncm) }),
      };
    }
  }
  return {
    outcome: 'decided',
    said: message('decision_applied', {
      ...at,
      ncm: formatNcm(ncm),
      sim: sim ? formatNcm(sim) : '',
      by: context.by,
      followers: item.followers,
    }),
    decision: { item, ncm, sim, note: line.note, again: false },
  };
};

/**
 * Checks a file's decision lines against the batch's check items and the NCM table in force, and
 * returns the decisions that stand with one report entry per line. Pure.
 *
 * Per line, in file order: an empty decided NCM decides nothing (`undecided`); a row decided
 * earlier in the file is a `duplicate`; the row must have a check item (`not_to_check`) of the
 * same classification (`wrong_classification`) still `to_check` (`already_decided`, unless this
 * round decided it before a retry); the NCM 8 digits and in force in the NCM table; the SIM, when
 * given, 10 digits, one of the item's openings when it has some, and an opening of that NCM.
 */
export const planDecisions = (input: {
  lines: readonly DecisionLine[];
  items: readonly CheckItem[];
  table: NcmTable;
  /** The table's day, or its act when it names none: the refusal says which table. */
  tableDate: string;
  roundId: string;
  by: string;
}): DecisionsPlan => {
  const byRow = new Map(input.items.map((item) => [item.row, item]));
  const firstLine = new Map<number, number>();
  const decide: PlannedDecision[] = [];
  const report: DecisionReport[] = [];
  for (const line of input.lines) {
    const at = { row: line.row, line: line.line };
    const entry = (judged: Judged): DecisionReport => ({
      row: line.row,
      classification_id: line.classification_id,
      outcome: judged.outcome,
      said: judged.said,
    });
    if (line.ncm === '') {
      report.push(entry({ outcome: 'undecided', said: message('decision_undecided', at) }));
      continue;
    }
    const seenAt = line.row === null ? undefined : firstLine.get(line.row);
    if (seenAt !== undefined) {
      report.push(
        entry({ outcome: 'duplicate', said: message('decision_duplicate', { ...at, first_line: seenAt }) }),
      );
      continue;
    }
    if (line.row !== null) firstLine.set(line.row, line.line);
    const item = line.row === null ? undefined : byRow.get(line.row);
    if (!item) {
      report.push(entry({ outcome: 'not_to_check', said: message('decision_not_to_check', at) }));
      continue;
    }
    const judged = judge(line, item, input);
    if (judged.decision) decide.push(judged.decision);
    report.push(entry(judged));
  }
  return { decide, report };
};
