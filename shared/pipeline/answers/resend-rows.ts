/**
 * PrepareAnswers' step for rows sent again (docs/answers-round.md, "Sending rows again"): each
 * line of a resend file names a rejected or failed row of the batch and the cells that change (a
 * description, an operation, a country, a new sheet). The row is planned again exactly as Prepare
 * plans a row (prepare/row-plans.ts, with the batch's defaults and columns); a row whose cells now
 * pass goes back to `queued` with the round and its next attempt, so Submit creates a new
 * classification under a new key. Nothing was billed for the row before (a rejected row was never
 * sent, a failed run costs nothing), and the new one is billed only if it resolves: once.
 *
 *   resend line ─▶ the row (rejected or failed?) ─▶ its cells corrected ─▶ planned again
 *        ─▶ still rejected (reported, nothing changes) | resent (queued, attempt + 1)
 */
import type { ColumnMapping, ColumnRef, MappedRow, PipelineColumn } from '../../spreadsheet/schemas.js';
import { message } from '../../wording/index.js';
import { type Message, textMessage } from '../../wording/message.js';
import { resentEvent } from '../audit/audit-events.js';
import { whoOf } from '../core/audit-records.js';
import { BatchOptions } from '../core/batch-options-schema.js';
import { answersFolder } from '../core/bucket-layout.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import type { Person } from '../core/people.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, RowRecord } from '../core/records.js';
import { afterMove, RESENDABLE_STATUSES, type RowMove } from '../core/row-life.js';
import { rowPlanner } from '../prepare/row-plans.js';
import { type ReportLine, reported } from './plan-answers.js';
import type { ResendLine } from './resend-file.js';

/** The ports sending rows again uses: the bucket (sheets), the rows, the service's countries, the audit log. */
export type ResendRowsPorts = Pick<PipelinePorts, 'objects' | 'batches' | 'service' | 'audit'>;

/** The round sending the rows, who sent them, and the time the step started (ISO). */
export type ResendTaking = {
  batch: BatchRecord;
  roundId: string;
  person: Person;
  statedBy: string | null;
  now: string;
};

/** Rows read at once: a file of 500 lines is never read one row after another. */
const READS_IN_FLIGHT = 16;

/** The cells a resend line may change, as the pipeline's columns. */
const CHANGEABLE: readonly (keyof Pick<ResendLine, 'description' | 'operation' | 'country' | 'sheet'>)[] = [
  'description',
  'operation',
  'country',
  'sheet',
];

/** The batch's columns as Prepare matched them (kept on the batch as `columns`), as a mapping again. */
const mappingOf = (batch: Pick<BatchRecord, 'columns'>): ColumnMapping => {
  const fields: Partial<Record<PipelineColumn, ColumnRef>> = {};
  const passthrough: ColumnRef[] = [];
  (batch.columns ?? []).forEach((use, index) => {
    if (use.understood_as) fields[use.understood_as] = { index, header: use.header };
    else passthrough.push({ index, header: use.header });
  });
  return { fields, passthrough };
};

/**
 * The row as the resend line corrects it: each non-empty cell of the line replaces the row's (in
 * its column when the file has one), and the names of what changed, for the audit.
 */
const correctedRow = (
  row: RowRecord,
  line: ResendLine,
  columns: ColumnMapping,
): { mapped: MappedRow; changed: string[] } => {
  const cells = [...row.cells];
  const fields: Partial<Record<PipelineColumn, string>> = {};
  for (const [field, ref] of Object.entries(columns.fields)) {
    fields[field as PipelineColumn] = cells[ref.index] ?? '';
  }
  const changed: string[] = [];
  for (const field of CHANGEABLE) {
    const value = line[field];
    if (value === '' || value === fields[field]) continue;
    fields[field] = value;
    const ref = columns.fields[field];
    if (ref) cells[ref.index] = value;
    // A description may hold anything (commas too): the audit says it changed; results.csv shows it.
    changed.push(field === 'description' ? 'description changed' : `${field} ${value}`);
  }
  return { mapped: { row: row.row, line: row.line, cells, fields, passthrough: [], flaws: [] }, changed };
};

/** A line's report, the row it sent again, and what changed (absent on a retry: recorded the first time). */
type LineOutcome = { report: ReportLine; resent?: RowRecord; changed?: string[] };

const refused = (
  line: ResendLine,
  outcome: Exclude<ReportLine['outcome'], 'resent'>,
  ...said: Message[]
): LineOutcome => ({ report: { row: line.row, classification_id: '', outcome, ...reported(...said) } });

/** Where the line is, for its sentences: its row when it names one, else its line. */
const atOf = (line: ResendLine) => ({ row: line.row, line: line.line });

/** Why a row of the batch cannot go again: it follows another, or it is not rejected or failed. */
const notResendable = (line: ResendLine, row: RowRecord): LineOutcome | null => {
  const at = atOf(line);
  if (row.follows !== undefined)
    return refused(line, 'not_resendable', message('resend_follower', { ...at, leader: row.follows }));
  if (!RESENDABLE_STATUSES.includes(row.status))
    return refused(line, 'not_resendable', message('resend_not_ended_so', { ...at, status: row.status }));
  return null;
};

/** A line planned to go: its row as read, the move that sends it, and what changed. */
type PlannedMove = { line: ResendLine; row: RowRecord; move: RowMove; changed: string[] };

/** What every line of the round shares: its rows as read, the planners, the round on the row. */
type RoundContext = {
  roundId: string;
  now: string;
  rowOf: ReadonlyMap<number, RowRecord | null>;
  columns: ColumnMapping;
  /** Prepare's planner with the sheet looked for where the console uploads a new one. */
  inAnswers: ReturnType<typeof rowPlanner>;
  /** Prepare's planner with the row's own sheet looked for where the batch's was. */
  inBatchFolder: ReturnType<typeof rowPlanner>;
  round: NonNullable<RowRecord['round']>;
};

/**
 * The lines that name a row, each the first to name it; the others refused (no row number, a row
 * named again), in the file's order.
 */
const firstLinesOfRows = (lines: readonly ResendLine[]): (LineOutcome | (ResendLine & { row: number }))[] => {
  const seen = new Set<number>();
  return lines.map((line) => {
    if (line.row === null) return refused(line, 'unknown_row', message('resend_no_row_number', atOf(line)));
    if (seen.has(line.row)) return refused(line, 'duplicate', message('resend_twice', atOf(line)));
    seen.add(line.row);
    return { ...line, row: line.row };
  });
};

/** One line naming a row: refused (and why), taken already by this round, or a move planned. */
const planLine = async (
  context: RoundContext,
  line: ResendLine & { row: number },
): Promise<LineOutcome | PlannedMove> => {
  const row = context.rowOf.get(line.row) ?? null;
  // A retry of this round: the row is already taken, as the first try took it.
  if (row?.status === 'queued' && row.round?.round_id === context.roundId)
    return { report: resentLine(line, []), resent: row };
  if (row === null) return refused(line, 'unknown_row', message('resend_no_such_row', atOf(line)));
  const cannot = notResendable(line, row);
  if (cannot) return cannot;
  const { mapped, changed } = correctedRow(row, line, context.columns);
  const [plan] = await (line.sheet !== '' ? context.inAnswers : context.inBatchFolder)([mapped]);
  if (plan?.kind !== 'valid') {
    // Each issue as Prepare words it for a rejected row, naming the column as the file wrote it.
    const why =
      plan?.kind === 'rejected'
        ? plan.rejection.issues.map((issue) =>
            issue.params ? { code: issue.reason, params: issue.params } : textMessage(issue.detail),
          )
        : plan
          ? [message('service_item', { field: plan.mark.field, value: plan.mark.value })]
          : [];
    return refused(line, 'still_rejected', message('resend_still_rejected', atOf(line)), ...why);
  }
  const move: RowMove = {
    move: 'resent',
    round: context.round,
    product: plan.product,
    sheet: plan.sheet ?? undefined,
    identity: { product_key: plan.identity.product_key, fingerprint: plan.identity.fingerprint },
    cells: mapped.cells,
    attempt: row.attempt + 1,
    read_at: row.updated_at,
    at: context.now,
  };
  return { line, row, move, changed };
};

/** The round's context: the rows the lines name read together, the countries, the planners. */
const roundContext = async (
  ports: ResendRowsPorts,
  taking: ResendTaking,
  lines: readonly ResendLine[],
): Promise<RoundContext> => {
  const { batch, roundId } = taking;
  const numbers = [...new Set(lines.flatMap((line) => (line.row === null ? [] : [line.row])))];
  const [rows, countries] = await Promise.all([
    mapLimited(numbers, READS_IN_FLIGHT, (row) => ports.batches.getRow(batch.batch_id, row)),
    ports.service.listCountries(),
  ]);
  const columns = mappingOf(batch);
  const planner = (folder: string) =>
    rowPlanner(ports, {
      options: BatchOptions.parse(batch.options ?? {}),
      acceptedCountries: new Set(countries.map((country) => country.code)),
      folder,
      columns,
    });
  const who = whoOf(taking.person, taking.statedBy);
  return {
    roundId,
    now: taking.now,
    rowOf: new Map(numbers.map((number, index) => [number, rows[index] ?? null])),
    columns,
    inAnswers: planner(answersFolder(batch.batch_id)),
    inBatchFolder: planner(batch.source.folder),
    round: {
      round_id: roundId,
      kind: 'resend',
      answers: [],
      answers_key: '',
      answered_by: who.who,
      answered_by_id: who.who_id,
      known_by: who.known_by,
      ...(who.stated_by ? { stated_by: who.stated_by } : {}),
      answered_at: taking.now,
    },
  };
};

/**
 * Takes the round's resend lines and gives the rows it sent back to work (each `queued` with the
 * round and its next attempt) and one report line per resend line, in the file's order. A line whose
 * row is not rejected or failed, or whose cells still fail Prepare's checks, changes nothing. Safe to
 * run again for the same round: a row this round already took is taken as it is.
 */
export const resendRows = async (
  ports: ResendRowsPorts,
  taking: ResendTaking,
  lines: readonly ResendLine[],
): Promise<{ resent: RowRecord[]; report: ReportLine[] }> => {
  if (lines.length === 0) return { resent: [], report: [] };
  const batchId = taking.batch.batch_id;
  const context = await roundContext(ports, taking, lines);
  // Every line planned (in memory, each named sheet looked at), then every move written, each a
  // few at a time, then one audit record: no row waits for the one before it.
  const planned = await mapLimited(firstLinesOfRows(lines), READS_IN_FLIGHT, (line) =>
    'report' in line ? Promise.resolve(line) : planLine(context, line),
  );
  const outcomes = await mapLimited(planned, READS_IN_FLIGHT, async (entry): Promise<LineOutcome> => {
    if (!('move' in entry)) return entry;
    const { line, row, move, changed } = entry;
    if (!(await ports.batches.moveRow(batchId, row.row, move)))
      return refused(line, 'not_resendable', message('resend_moved_meanwhile', atOf(line)));
    return { report: resentLine(line, changed), resent: afterMove(row, move), changed };
  });
  const who = whoOf(taking.person, taking.statedBy);
  await ports.audit.record(
    outcomes.flatMap(({ resent: row, changed }) =>
      row && changed
        ? [
            resentEvent(
              { batch_id: batchId, row: row.row, sku: row.product?.sku ?? null },
              { at: taking.now, who, changed, round_id: taking.roundId },
            ),
          ]
        : [],
    ),
  );
  return {
    resent: outcomes.flatMap((outcome) => (outcome.resent ? [outcome.resent] : [])),
    report: outcomes.map((outcome) => outcome.report),
  };
};

const resentLine = (line: ResendLine, changed: readonly string[]): ReportLine => ({
  row: line.row,
  classification_id: '',
  outcome: 'resent',
  ...reported(message('resend_sent', { ...atOf(line), changed: [...changed] })),
});
