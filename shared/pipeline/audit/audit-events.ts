/**
 * The audit events each step records (core/audit-records.ts), made from what the step just stored,
 * with the time stored beside it: a step run twice makes the same event, under the same key, and
 * the log keeps it once (docs/answers-round.md, "audit.csv"). Pure.
 *
 *   Prepare     reused · follows · joined · not_sent    made from the rows when audit.csv is first
 *                                                       written (`preparedEvents`), never logged
 *   Submit      submitted (the creation, or a round's answers posted)
 *   Review      questions
 *   the result  resolved (+ to_check) · failed · abandoned · error, where the row's result is stored
 *   a round     answered (PrepareAnswers), decided (a decision applied)
 *   the sweep   sim_confirmed
 */
import { formatNcm } from '../../spreadsheet/write-csv.js';
import type { AuditEvent, AuditEventKind, Who } from '../core/audit-records.js';
import type { RowRecord } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { simOptionsOfResult } from '../core/verdict-check.js';

/** The row an event is about; its SKU when the step has the row at hand. */
type RowOf = { batch_id: string; row: number; sku?: string | null | undefined };

const eventOf = (
  row: RowOf,
  event: AuditEventKind,
  at: string,
  fields: { who?: Who; classification_id?: string | null | undefined; detail?: string } = {},
): AuditEvent => ({
  at,
  batch_id: row.batch_id,
  row: row.row,
  event,
  who: '',
  ...fields.who,
  classification_id: fields.classification_id ?? null,
  detail: fields.detail ?? '',
  ...(row.sku !== undefined ? { sku: row.sku } : {}),
});

/** `NCM 8471.30.12, 86 %` (and the SIM opening when one was chosen): what a verdict said. */
const verdictDetail = (result: Pick<RowResult, 'ncm' | 'confidence' | 'sim_code'>): string => {
  const parts: string[] = [];
  if (result.ncm) parts.push(`NCM ${formatNcm(result.ncm)}`);
  if (result.sim_code) parts.push(`SIM ${formatNcm(result.sim_code)}`);
  if (result.confidence) parts.push(`${result.confidence} %`);
  return parts.join(', ');
};

/** Why a verdict waits for a person, as far as its result says: its confidence, a SIM opening to choose. */
const toCheckDetail = (result: RowResult): string => {
  const simToChoose = simOptionsOfResult(result).length > 0;
  return [
    ...(result.confidence ? [`confidence ${result.confidence} %`] : []),
    ...(simToChoose && !result.sim_code ? ['SIM opening to choose'] : []),
  ].join(', ');
};

/**
 * The events a row's final result makes, at `at` (the time the result was stored on the row). A
 * verdict marked `to_check` makes two: `resolved`, then `to_check` (the same time; the key orders
 * them). `pending_data` makes none here (Review records `questions`); the statuses final at
 * Prepare (rejected, reused, not_submitted) are told by `preparedEvents`.
 */
export const resultEvents = (row: RowOf, result: RowResult, at: string): AuditEvent[] => {
  const classification_id = result.classification_id ?? null;
  const reason = result.reason ?? '';
  switch (result.status) {
    case 'resolved':
      return [
        eventOf(row, 'resolved', at, { classification_id, detail: verdictDetail(result) }),
        ...(result.check === 'to_check'
          ? [eventOf(row, 'to_check', at, { classification_id, detail: toCheckDetail(result) })]
          : []),
      ];
    case 'failed':
    case 'abandoned':
    case 'error':
      return [eventOf(row, result.status, at, { classification_id, detail: reason })];
    default:
      return [];
  }
};

/**
 * The `submitted` event Submit records: the row's classification created, or a round's answers
 * posted (`answers`), by `who` (the batch's `requested_by`), at the time stored on the row.
 */
export const submittedEvent = (
  row: RowOf,
  submission: { at: string; classification_id: string; who: Who; answers?: boolean },
): AuditEvent =>
  eventOf(row, 'submitted', submission.at, {
    who: submission.who,
    classification_id: submission.classification_id,
    detail: submission.answers ? 'answers posted' : '',
  });

/**
 * The `questions` event Review records: the classifier asked a row questions, at the review item's
 * `created_at`.
 */
export const questionsEvent = (
  row: RowOf,
  asked: { at: string; classification_id: string; questions: number },
): AuditEvent =>
  eventOf(row, 'questions', asked.at, {
    classification_id: asked.classification_id,
    detail: `${asked.questions} ${asked.questions === 1 ? 'question' : 'questions'}`,
  });

/**
 * The `answered` event PrepareAnswers records: a person's answers taken for a row in a round (`who`
 * answered, `at` when).
 */
export const answeredEvent = (
  row: RowOf,
  answered: { at: string; classification_id: string | null; who: Who; answers: number; round_id: string },
): AuditEvent =>
  eventOf(row, 'answered', answered.at, {
    who: answered.who,
    classification_id: answered.classification_id,
    detail: `${answered.answers} ${answered.answers === 1 ? 'answer' : 'answers'}, round ${answered.round_id}`,
  });

/**
 * Takes a row a resend round took and gives audit.csv's `resent`: who sent it again, when, and what
 * they changed (`detail`: `sheet valvula.pdf, operation import, round …`; `as it was` when nothing).
 */
export const resentEvent = (
  row: RowOf,
  resent: { at: string; who: Who; changed: readonly string[]; round_id: string },
): AuditEvent =>
  eventOf(row, 'resent', resent.at, {
    who: resent.who,
    detail: `${resent.changed.length > 0 ? resent.changed.join(', ') : 'as it was'}, round ${resent.round_id}`,
  });

/**
 * What Prepare made of a row, told from the row as it stands: a follower (`follows`, its leader
 * named), a verdict reused (and `to_check` when the reused verdict waits for a person), a row that
 * joined an earlier batch's classification waiting for answers, a row not sent (rejected, over the
 * budget, a stop: its reason). At the time Prepare wrote it (a final row's `finished_at`, else its
 * `updated_at`, which a follower never changes). A row Prepare queued makes none here: Submit
 * records it. Prepare's choices are the pipeline's: `who` is empty.
 */
export const preparedEvents = (
  row: Pick<
    RowRecord,
    | 'product'
    | 'batch_id'
    | 'row'
    | 'status'
    | 'result'
    | 'follows'
    | 'classification_id'
    | 'submitted_at'
    | 'finished_at'
    | 'updated_at'
  >,
): AuditEvent[] => {
  const at = row.finished_at ?? row.updated_at;
  const of: RowOf = { batch_id: row.batch_id, row: row.row, sku: row.product?.sku ?? null };
  if (row.follows !== undefined) return [eventOf(of, 'follows', at, { detail: `row ${row.follows}` })];
  const result = row.result;
  if (row.status === 'reused' && result) {
    const classification_id = result.classification_id ?? row.classification_id ?? null;
    return [
      eventOf(of, 'reused', at, { classification_id, detail: verdictDetail(result) }),
      ...(result.check === 'to_check'
        ? [eventOf(of, 'to_check', at, { classification_id, detail: toCheckDetail(result) })]
        : []),
    ];
  }
  if (row.status === 'rejected' || row.status === 'not_submitted')
    return [eventOf(of, 'not_sent', at, { detail: result?.reason ?? row.status })];
  // Joined at Prepare: a classification of its own that it never submitted.
  if (row.classification_id !== undefined && row.submitted_at === undefined)
    return [eventOf(of, 'joined', at, { classification_id: row.classification_id })];
  return [];
};
