/**
 * What the daily SIM sweep makes of one answer of `GET /sim-openings` for a verdict whose SIM
 * openings were still `verifying` (core/sim-watch.ts). Pure.
 *
 *   verifying (or nothing confirmed)  ─▶ wait: asked again tomorrow
 *   available, one opening            ─▶ the row's `sim_code` is that opening
 *   available, several                ─▶ the note lists them (as a `pending_choice` verdict's does);
 *                                        under the batch's `check_below` the row is `to_check`
 *   none                              ─▶ the note says the registry confirmed there is none
 *
 * A result that already shows a confirmation (a SIM code, openings to choose, none) is left as it
 * is: the sweep run again changes nothing.
 */
import { formatNcm } from '../../spreadsheet/write-csv.js';
import type { SimOpenings } from '../../tcs/schemas.js';
import { detailMessagesOf, detailOf } from '../../wording/details.js';
import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import type { CheckReason, SimChoice } from '../core/check-records.js';
import type { RowResult } from '../core/result-columns.js';
import { checkReasonsOfResult, withCheckMark } from '../core/verdict-check.js';

/** What the registry confirmed of a verdict's SIM openings: nothing yet (`wait`), one, several, or none. */
export type SimConfirmation =
  | { kind: 'wait' }
  | { kind: 'one'; opening: SimChoice }
  | { kind: 'several'; openings: readonly SimChoice[] }
  | { kind: 'none' };

/**
 * The registry's answer as the sweep reads it. `available` with no opening is not taken for a
 * confirmation (the spec: an empty list is never presented as confirmed), nor is a status this
 * client does not know.
 */
export const confirmationOf = (answer: Pick<SimOpenings, 'status' | 'openings'>): SimConfirmation => {
  const openings = answer.openings.map(({ code, description }) => ({ code, description }));
  if (answer.status === 'none') return { kind: 'none' };
  if (answer.status !== 'available') return { kind: 'wait' };
  const [only, ...others] = openings;
  if (only === undefined) return { kind: 'wait' };
  return others.length === 0 ? { kind: 'one', opening: only } : { kind: 'several', openings };
};

type Notes = Record<string, unknown>;
const NOTES = 'verdict_notes';

const notesOf = (messages: readonly Message[]): Notes | null =>
  (messages.find((said) => said.code === NOTES)?.params as Notes | undefined) ?? null;

/** Whether a result already says what the registry confirmed: a SIM code, openings to choose, none. */
export const showsSimConfirmed = (
  result: Pick<RowResult, 'sim_code' | 'detail' | 'detail_messages'>,
): boolean => {
  const notes = notesOf(detailMessagesOf(result));
  return (result.sim_code ?? '') !== '' || Array.isArray(notes?.sim_options) || notes?.sim_none === true;
};

/** The messages with the verdict's notes replaced (added after the others when it had none; dropped when empty). */
const withNotes = (messages: readonly Message[], notes: Notes): Message[] => {
  const said = Object.keys(notes).length > 0 ? [message(NOTES, notes)] : [];
  const at = messages.findIndex((m) => m.code === NOTES);
  if (at < 0) return [...messages, ...said];
  return [...messages.slice(0, at), ...said, ...messages.slice(at + 1)];
};

/**
 * A result once its SIM openings are confirmed: the new result, why it now waits for a person, and its
 * audit line.
 */
export type ConfirmedRow = {
  result: RowResult;
  /** Why the row now waits for a person (empty: it does not, or it was approved already). */
  reasons: CheckReason[];
  /** audit.csv's account of it (`confirmationDetail`). */
  detail: string;
};

/**
 * The result once the registry confirmed its verdict's SIM openings; null when it shows a
 * confirmation already, or there is none yet. `checkBelow` absent: nothing is marked for a person
 * (a cached verdict is updated without it).
 */
export const confirmedResult = (
  result: RowResult,
  confirmation: SimConfirmation,
  checkBelow: number | undefined,
): ConfirmedRow | null => {
  if (confirmation.kind === 'wait' || showsSimConfirmed(result)) return null;
  const messages = detailMessagesOf(result);
  const { sim_verifying: _verifying, ...kept } = notesOf(messages) ?? {};
  const dotted = (openings: readonly SimChoice[]) => openings.map((opening) => formatNcm(opening.code));
  const notes: Notes =
    confirmation.kind === 'several'
      ? { sim_options: dotted(confirmation.openings), ...kept }
      : confirmation.kind === 'none'
        ? { ...kept, sim_none: true }
        : kept;
  const confirmed: RowResult = {
    ...result,
    ...detailOf(withNotes(messages, notes)),
    ...(confirmation.kind === 'one' ? { sim_code: formatNcm(confirmation.opening.code) } : {}),
  };
  // checkReasonsOfResult: none for a verdict a person approved already, none without a threshold.
  const reasons = confirmation.kind === 'several' ? checkReasonsOfResult(confirmed, checkBelow) : [];
  return {
    result: reasons.length > 0 ? withCheckMark(confirmed, reasons) : confirmed,
    reasons,
    detail: confirmationDetail(confirmation),
  };
};

/** audit.csv's account of a confirmation: `SIM 8471.30.12.00`, `SIM to choose: …`, `no SIM opening`. */
export const confirmationDetail = (confirmation: SimConfirmation): string => {
  switch (confirmation.kind) {
    case 'one':
      return `SIM ${formatNcm(confirmation.opening.code)}`;
    case 'several':
      return `SIM to choose: ${confirmation.openings.map((opening) => formatNcm(opening.code)).join(', ')}`;
    case 'none':
      return 'no SIM opening';
    case 'wait':
      return '';
  }
};
