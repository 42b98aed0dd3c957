/**
 * Decisions on verdicts to check applied by an answers round (docs/answers-round.md, "Decisions"),
 * after plan-decisions.ts says which stand. Nothing is posted to the service: a decision costs
 * nothing. Each decision, in this order:
 *
 *   1. the check item decided (`CheckStore.decide`, conditional on `to_check`): the one write that
 *      says the decision was taken; a second round that got there first leaves this one
 *      `already_decided`
 *   2. the row moved `decided`: `check: approved` and the approved columns on
 *      its result, its status and cost unchanged; rows following it show it wherever they are read,
 *      and the other rows of a reused product take it in FinalizeAnswers (reused-product-rows.ts)
 *   3. the product cache's verdict, when it is this classification's, given the same columns, so
 *      a later batch reusing it serves the approved code and does not ask again
 *   4. one `decided` audit event, who = the round's person
 *
 * Idempotent under retry: a retried PrepareAnswers finds the item decided by its own round and
 * applies steps 2 to 4 again from the decision recorded (same values, same event key).
 */
import { type TableInForce, tableInForce } from '../../ncm-table/reference-table.js';
import { formatNcm } from '../../spreadsheet/write-csv.js';
import { message, wordMessage } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { whoOf } from '../core/audit-records.js';
import type { CheckDecision, CheckItem } from '../core/check-records.js';
import type { Person } from '../core/people.js';
import type { PipelinePorts } from '../core/ports.js';
import type { RowRecord } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { DECIDABLE_STATUSES, reuseKeysOf } from '../core/row-life.js';
import { goodsFingerprintOfRow } from '../reuse/reuse.js';
import type { DecisionLine } from './decisions-file.js';
import type { ReportLine } from './plan-answers.js';
import { type DecisionReport, type PlannedDecision, planDecisions } from './plan-decisions.js';

/**
 * The ports applying decisions uses: the bucket (the NCM table), rows, check items, the product cache,
 * the audit log.
 */
export type ApplyDecisionsPorts = Pick<PipelinePorts, 'objects' | 'batches' | 'checks' | 'cache' | 'audit'>;

/** The round whose decisions are applied: its batch, its id, the person, when, and the file's name. */
export type DecisionsRound = {
  batchId: string;
  roundId: string;
  /** The person who answered the round, and the name their file stated (core/people.ts). */
  person: Person;
  statedBy: string | null;
  /** When the decisions count as taken: the round's start, the same on a retry. */
  at: string;
  fileName: string;
};

/**
 * What applying a round's decisions did: a report line per decision line, messages, and how many were
 * decided.
 */
export type DecisionsApplied = {
  /** One line per decision line of the file, in its order, for answers-report.csv. */
  report: ReportLine[];
  /** For the round's messages: each refusal, then how many were decided. */
  problems: Message[];
  decided: number;
};

/** A verdict's result with a person's decision on it: what the row and the cached verdict show. */
export const approvedResult = (result: RowResult, decision: CheckDecision): RowResult => ({
  ...result,
  check: 'approved',
  approved_ncm: formatNcm(decision.ncm),
  approved_sim: decision.sim ? formatNcm(decision.sim) : '',
  decided_by: decision.by,
  decided_at: decision.at,
  decision_note: decision.note,
});

/** Who decided, as the decision keeps it: the person's fields, as an audit event names them (`whoOf`). */
const decidedByOf = (round: Pick<DecisionsRound, 'person' | 'statedBy'>) => {
  const { who, who_id, known_by, stated_by } = whoOf(round.person, round.statedBy);
  return { by: who, by_id: who_id, known_by, ...(stated_by ? { stated_by } : {}) };
};

/** The day of the NCM table a typed code is checked against, as a refusal names it. */
const tableDay = (ncm: TableInForce): string => ncm.table.asOf ?? ncm.table.act;

/** Step 1: the decision as recorded (this round's), or null when another round decided the item first. */
const takeDecision = async (
  ports: ApplyDecisionsPorts,
  round: DecisionsRound,
  planned: PlannedDecision,
): Promise<CheckDecision | null> => {
  const { item } = planned;
  if (planned.again && item.decision) return item.decision;
  const decision: CheckDecision = {
    ncm: planned.ncm,
    sim: planned.sim,
    note: planned.note,
    ...decidedByOf(round),
    at: round.at,
    round_id: round.roundId,
  };
  if (await ports.checks.decide(round.batchId, item.row, decision)) return decision;
  const now = await ports.checks.get(round.batchId, item.row);
  return now?.decision?.round_id === round.roundId ? now.decision : null;
};

/** Reads of a row a decision is written on, when another step keeps writing it meanwhile. */
const ROW_READS = 5;

/**
 * Step 2: writes a decision on a row's verdict (`check: approved` and the approved columns) and
 * returns the row as decided, or null when the row holds no verdict to decide. The move applies
 * only if the row is unchanged since it was read, so a row the daily sweep wrote in between is
 * read again (5 tries, then it throws).
 */
export const decideRow = async (
  batches: ApplyDecisionsPorts['batches'],
  batchId: string,
  row: number,
  decision: CheckDecision,
): Promise<RowRecord | null> => {
  for (let read = 1; read <= ROW_READS; read += 1) {
    const found = await batches.getRow(batchId, row);
    if (!found?.result || !DECIDABLE_STATUSES.includes(found.status)) return null;
    const result = approvedResult(found.result, decision);
    const moved = await batches.moveRow(batchId, row, {
      move: 'decided',
      result,
      read_at: found.updated_at,
      at: decision.at,
    });
    if (moved) return { ...found, result };
  }
  throw new Error(`Row ${row} of ${batchId} kept changing while its decision was written.`);
};

/** Steps 2 to 4 for a decision taken. */
const applyDecision = async (
  ports: ApplyDecisionsPorts,
  round: DecisionsRound,
  item: CheckItem,
  decision: CheckDecision,
): Promise<void> => {
  const row = await decideRow(ports.batches, round.batchId, item.row, decision);
  if (row) {
    const { product_key, fingerprint } = row;
    const product_fingerprint = goodsFingerprintOfRow(row);
    const keys =
      product_key && fingerprint ? reuseKeysOf({ product_key, fingerprint, product_fingerprint }) : [];
    const cached = keys.length > 0 ? await ports.cache.getMany(keys) : new Map();
    for (const verdict of cached.values()) {
      if (verdict.classification_id !== item.classification_id) continue;
      await ports.cache.put({ ...verdict, result: approvedResult(verdict.result, decision) });
    }
  }
  const sim = decision.sim ? `, SIM ${formatNcm(decision.sim)}` : '';
  await ports.audit.record([
    {
      at: decision.at,
      batch_id: round.batchId,
      row: item.row,
      event: 'decided',
      who: decision.by,
      ...(decision.by_id !== undefined ? { who_id: decision.by_id } : {}),
      ...(decision.known_by !== undefined ? { known_by: decision.known_by } : {}),
      ...(decision.stated_by !== undefined ? { stated_by: decision.stated_by } : {}),
      classification_id: item.classification_id,
      detail: `NCM ${formatNcm(decision.ncm)}${sim}`,
    },
  ]);
};

/** Another round decided the item between the plan and the write: said as the plan would have. */
const decidedElsewhere = async (
  ports: ApplyDecisionsPorts,
  round: DecisionsRound,
  entry: DecisionReport,
  item: CheckItem,
): Promise<DecisionReport> => {
  const now = await ports.checks.get(round.batchId, item.row);
  const decision = now?.decision;
  return {
    ...entry,
    outcome: 'already_decided',
    said: message('decision_already_made', {
      row: item.row,
      line: Number(entry.said.params.line ?? 0),
      by: decision?.by ?? '',
      at: decision?.at ?? '',
      ncm: decision ? formatNcm(decision.ncm) : '',
    }),
  };
};

/**
 * Checks a round's decision lines against the batch's check items and the NCM table in force,
 * applies each decision that stands (steps 1 to 4 above), and returns a report line per decision
 * line with the messages for the round. Safe to run again for the same round.
 */
export const applyDecisions = async (
  ports: ApplyDecisionsPorts,
  round: DecisionsRound,
  lines: readonly DecisionLine[],
): Promise<DecisionsApplied> => {
  if (lines.length === 0) return { report: [], problems: [], decided: 0 };
  const ncm = await tableInForce(ports.objects);
  const plan = planDecisions({
    lines,
    items: await ports.checks.listByBatch(round.batchId),
    table: ncm.table,
    tableDate: tableDay(ncm),
    roundId: round.roundId,
    by: round.person.name,
  });
  const report = [...plan.report];
  for (const planned of plan.decide) {
    const decision = await takeDecision(ports, round, planned);
    const index = report.findIndex((entry) => entry.outcome === 'decided' && entry.row === planned.item.row);
    if (decision === null) {
      report[index] = await decidedElsewhere(ports, round, report[index]!, planned.item);
      continue;
    }
    await applyDecision(ports, round, planned.item, decision);
  }
  const decided = report.filter((entry) => entry.outcome === 'decided').length;
  const refused = report.filter((entry) => entry.outcome !== 'decided' && entry.outcome !== 'undecided');
  const tried = report.filter((entry) => entry.outcome !== 'undecided').length;
  return {
    report: report.map((entry) => ({
      row: entry.row,
      classification_id: entry.classification_id,
      outcome: entry.outcome,
      // English for logs; answers-report.csv words `said` in the batch's language when it chose one.
      detail: wordMessage(entry.said, 'en'),
      said: [entry.said],
    })),
    problems: [
      ...refused.map((entry) => entry.said),
      ...(tried > 0 ? [message('decisions_applied', { decided, of: tried, file: round.fileName })] : []),
    ],
    decided,
  };
};
