/**
 * PrepareAnswers' third step (docs/answers-round.md): each row the plan resumes is
 * taken by the round, in plan order. Its sheet, when the file names one, must be in the batch's
 * answers folder; the row must still wait for answers (or be this round's already); then the row
 * goes back to `queued` with its round and its review item is marked answered.
 */
import { normaliseSheetPath } from '../../spreadsheet/normalise-row.js';
import { message } from '../../wording/index.js';
import { answeredEvent } from '../audit/audit-events.js';
import { type AuditEvent, whoAnswered, whoOf } from '../core/audit-records.js';
import { answersFolder } from '../core/bucket-layout.js';
import { deriveAnswersKey } from '../core/keys.js';
import type { Person } from '../core/people.js';
import type { ObjectStore, PipelinePorts } from '../core/ports.js';
import type { RowRecord, SheetRef } from '../core/records.js';
import { afterMove, type RowMove } from '../core/row-life.js';
import { type SheetCheck, type SheetProblem, sheetChecker } from '../prepare/sheet-checker.js';
import { type AnswersPlan, type AnswersReportEntry, type ResumeRow, reported } from './plan-answers.js';

/** The ports taking resumed rows uses: the bucket (the sheets), the rows, and the review items. */
export type TakeResumedRowsPorts = Pick<PipelinePorts, 'objects' | 'batches' | 'reviews'>;

// ---------------------------------------------------------------------------
// Sheets sent with answers
// ---------------------------------------------------------------------------

/**
 * The `sheet` cells of an answers file, checked in `answers/<batch-id>/` as Prepare checks a
 * batch's sheets; a cell that is no usable path (absolute, leading out) is a sheet not found.
 */
const answersSheetChecker = (objects: ObjectStore, folder: string) => {
  const check = sheetChecker(objects, folder);
  return async (cell: string): Promise<SheetCheck> => {
    const path = normaliseSheetPath(cell);
    return 'invalid' in path ? { reason: 'sheet_not_found', why: path.invalid } : check(path.path);
  };
};

// ---------------------------------------------------------------------------
// Taking the rows
// ---------------------------------------------------------------------------

type RowRound = NonNullable<RowRecord['round']>;

/** Whether this round may take the row: still waiting for answers, or already taken by this round. */
const rowAwaitsRound = (row: RowRecord | null, resume: ResumeRow, roundId: string): row is RowRecord =>
  row !== null &&
  row.classification_id === resume.classification_id &&
  (row.status === 'pending_data' || (row.status === 'queued' && row.round?.round_id === roundId));

const rowNotPendingDetail = (resume: ResumeRow, row: RowRecord | null) =>
  reported(
    message('answers_row_moved_on', {
      row: resume.row,
      line: 1,
      why:
        row === null
          ? 'no_row'
          : row.classification_id !== resume.classification_id
            ? 'other_classification'
            : 'not_pending',
      now: row?.classification_id ?? '',
      status: row?.status ?? '',
      other_round: row?.round !== undefined,
    }),
  );

const sheetDetail = (resume: ResumeRow, folder: string, check: SheetProblem) =>
  reported(
    message('answers_sheet_missing', {
      row: resume.row,
      line: 1,
      sheet: resume.sheet ?? '',
      why: check.why,
      reason: check.reason,
      folder,
    }),
  );

/** The round taking the rows, who answered, and the time the step started (ISO). */
export type RoundTaking = {
  batchId: string;
  roundId: string;
  /** Who answered (core/people.ts), and the name their file stated, if any. */
  person: Person;
  statedBy: string | null;
  now: string;
};

/** What every row of the round shares: the round, and where its sheets must be. */
type TakingContext = RoundTaking & {
  /** The batch's answers folder, where a `sheet` cell's PDF must be. */
  folder: string;
  checkSheet: (cell: string) => Promise<SheetCheck>;
};

/** A resumed row this round took, or why its answers cannot go after all (the report's new entry). */
type Taken = { row: RowRecord } | { notSent: Pick<AnswersReportEntry, 'outcome' | 'detail' | 'said'> };

/** Who answered, as the row's round keeps it: the person's fields, as an audit event names them (`whoOf`). */
const answeredByOf = (taking: Pick<RoundTaking, 'person' | 'statedBy'>) => {
  const { who, who_id, known_by, stated_by } = whoOf(taking.person, taking.statedBy);
  return { answered_by: who, answered_by_id: who_id, known_by, ...(stated_by ? { stated_by } : {}) };
};

/** The row's `round`: its answers, with the sheet's hash in the key, and who answered when. */
const roundOfRow = (
  row: RowRecord,
  resume: ResumeRow,
  sheet: SheetRef | undefined,
  taking: TakingContext,
): RowRound => ({
  round_id: taking.roundId,
  answers: resume.answers,
  answers_key: sheet
    ? deriveAnswersKey(resume.classification_id, resume.answers, sheet.sha256)
    : resume.answers_key,
  ...(sheet ? { sheet } : {}),
  ...answeredByOf(taking),
  answered_at: row.round?.round_id === taking.roundId ? row.round.answered_at : taking.now,
});

/** One resumed row of the plan: its sheet checked, then the row put back to work and its item answered. */
const takeRow = async (
  ports: TakeResumedRowsPorts,
  taking: TakingContext,
  resume: ResumeRow,
): Promise<Taken> => {
  let sheet: SheetRef | undefined;
  if (resume.sheet !== null) {
    const checked = await taking.checkSheet(resume.sheet);
    if (!('sheet' in checked)) {
      // plan-answers.ts has no sheet outcome: `incomplete` is the closest (the row cannot go as sent).
      return { notSent: { outcome: 'incomplete', ...sheetDetail(resume, taking.folder, checked) } };
    }
    sheet = checked.sheet;
  }
  const row = await ports.batches.getRow(taking.batchId, resume.row);
  if (!rowAwaitsRound(row, resume, taking.roundId)) {
    return { notSent: { outcome: 'not_pending', ...rowNotPendingDetail(resume, row) } };
  }
  const rowRound = roundOfRow(row, resume, sheet, taking);
  // The row first, then its item: a retry in between finds the row taken by this round and the
  // item still pending, and plans it again. The other order would leave the item `answered`
  // and the row `pending_data`, which a retry reads as already answered: a row never resumed.
  // A retry finds the row already taken by this round (`rowAwaitsRound`) and leaves it as it is;
  // the move's guard refuses a row another round took since it was read.
  const move: RowMove = { move: 'resumed', round: rowRound, at: taking.now };
  const taken = row.status === 'queued' || (await ports.batches.moveRow(taking.batchId, row.row, move));
  if (!taken) {
    const now = await ports.batches.getRow(taking.batchId, resume.row);
    return { notSent: { outcome: 'not_pending', ...rowNotPendingDetail(resume, now) } };
  }
  await ports.reviews.update(resume.classification_id, {
    state: 'answered',
    answers: resume.answers,
    answered_by: rowRound.answered_by,
    answered_at: rowRound.answered_at,
  });
  return { row: row.status === 'queued' ? row : afterMove(row, move) };
};

/** audit.csv's `answered` of a row this round took: who answered, when, how many answers. */
export const answeredEventsOf = (row: RowRecord, roundId: string): AuditEvent[] =>
  row.round?.round_id === roundId
    ? [
        answeredEvent(
          { batch_id: row.batch_id, row: row.row, sku: row.product?.sku ?? null },
          {
            at: row.round.answered_at,
            classification_id: row.classification_id ?? null,
            who: whoAnswered(row.round),
            answers: row.round.answers.length,
            round_id: roundId,
          },
        ),
      ]
    : [];

/**
 * Takes the plan's resumed rows for the round one by one, in the plan's order, and returns the rows
 * this round put back to work with the plan's report, a resumed entry rewritten for each row that
 * could not go (its sheet missing, or the row no longer waiting). Safe to run again for the same round.
 */
export const takeResumedRows = async (
  ports: TakeResumedRowsPorts,
  round: RoundTaking,
  plan: AnswersPlan,
): Promise<{ resumed: RowRecord[]; report: AnswersReportEntry[] }> => {
  const folder = answersFolder(round.batchId);
  const taking: TakingContext = { ...round, folder, checkSheet: answersSheetChecker(ports.objects, folder) };
  const report: AnswersReportEntry[] = [...plan.report];
  const resumed: RowRecord[] = [];
  for (const resume of plan.resume) {
    const taken = await takeRow(ports, taking, resume);
    if ('row' in taken) {
      resumed.push(taken.row);
      continue;
    }
    const index = report.findIndex(
      (e) => e.classification_id === resume.classification_id && e.outcome === 'resumed',
    );
    if (index >= 0) report[index] = { ...report[index]!, ...taken.notSent };
  }
  return { resumed, report };
};
