/**
 * What audit.csv records (docs/architecture.md, §12): each row's submission, questions, answers,
 * decision and reuse, with who and when, and the classification it concerns. Events are kept as
 * they happen (`AuditLog`), in the order of their keys, and the outbox's audit.csv only ever grows.
 */
import * as z from 'zod';
import { KnownBy, type Person } from './people.js';

/** Every kind of event audit.csv records about a row, in no particular order. */
export const AUDIT_EVENTS = [
  /** Prepare: the row reuses a verdict of an earlier batch (the classification named). */
  'reused',
  /** Prepare: the row is the same product as an earlier row and takes its outcome. */
  'follows',
  /** Prepare: the row joined an earlier batch's classification waiting for answers. */
  'joined',
  /** Prepare: the row was not sent (rejected, over budget, a stop); `detail` says why. */
  'not_sent',
  /** Submit: the classification was created (or, in a round, the answers were posted). */
  'submitted',
  /** Review: the classifier asked questions. */
  'questions',
  /** The verdict: resolved (NCM and confidence in `detail`). */
  'resolved',
  /** The verdict waits for a person's check (`detail`: why). */
  'to_check',
  /** The other endings of a sent row, as its status names them (`detail`: the reason). */
  'failed',
  'abandoned',
  'error',
  /** A person's answers were taken by a round. */
  'answered',
  /** A person sent a rejected or failed row again (`detail`: what they changed). */
  'resent',
  /** A person's decision on a verdict to check was applied. */
  'decided',
  /** A SIM opening that was being verified was confirmed by the daily sweep. */
  'sim_confirmed',
] as const;
/** One kind of audit event, as a schema. */
export const AuditEventKind = z.enum(AUDIT_EVENTS);
export type AuditEventKind = z.infer<typeof AuditEventKind>;

/**
 * One line of audit.csv before it is written: what happened to which row of which batch, when,
 * and who did it; a step records it when it happens, and audit.csv lists every event once.
 */
export const AuditEvent = z.object({
  /** ISO time, UTC, to the millisecond: the event's moment as the step that saw it recorded it. */
  at: z.string(),
  batch_id: z.string(),
  row: z.number().int().min(1),
  event: AuditEventKind,
  /** The person's name (who sent the batch, answered or decided: core/people.ts); "" for the pipeline. */
  who: z.string(),
  /** What tells the person apart (the token's `sub`, the principal's ARN, `cli:<user>`); absent for the pipeline. */
  who_id: z.string().optional(),
  /** How the person was known (`console`, `iam`, `cli`); absent for the pipeline. */
  known_by: KnownBy.optional(),
  /** The name the file stated about itself (its `answered-by` metadata, batch.json's `requested_by`), when it differs. */
  stated_by: z.string().optional(),
  classification_id: z.string().nullable(),
  /** The row's SKU, when the step that recorded the event had the row at hand; audit.csv looks it up otherwise. */
  sku: z.string().nullable().optional(),
  /** A short, machine-steady account (`NCM 8471.30.12, 86 %`); "" when the event says it all. */
  detail: z.string(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

/** The fields of an event that name its person: who, their id, how they were known, and the name the file stated. */
export type Who = Pick<AuditEvent, 'who' | 'who_id' | 'known_by' | 'stated_by'>;

/** Takes a person and the name their file stated (if any) and gives an event's fields naming them; `stated_by` only when it says another name. */
export const whoOf = (person: Person, statedBy?: string | null): Who => ({
  who: person.name,
  who_id: person.id,
  known_by: person.known_by,
  ...(statedBy && statedBy !== person.name ? { stated_by: statedBy } : {}),
});

/**
 * Takes an event and who sent its batch (when proven) and gives the event as audit.csv and the
 * console show it: a submission recorded before the sender was proven names them, the stated name
 * beside; any other event as it is.
 */
export const withSender = <E extends AuditEvent>(event: E, sentBy: Person | undefined): E =>
  event.event === 'submitted' && event.who === '' && sentBy
    ? { ...event, ...whoOf(sentBy, event.stated_by) }
    : event;

/** Takes what a row's answers round keeps of who answered and gives an event's fields naming them. */
export const whoAnswered = (round: {
  answered_by: string;
  answered_by_id?: string | undefined;
  known_by?: KnownBy | undefined;
  stated_by?: string | undefined;
}): Who => ({
  who: round.answered_by,
  ...(round.answered_by_id !== undefined ? { who_id: round.answered_by_id } : {}),
  ...(round.known_by !== undefined ? { known_by: round.known_by } : {}),
  ...(round.stated_by !== undefined ? { stated_by: round.stated_by } : {}),
});

/** An event's place in the log: time first, then row and kind, so a step recording it twice writes it once. */
export const auditEventKey = (event: Pick<AuditEvent, 'at' | 'row' | 'event'>): string =>
  `${event.at}#${String(event.row).padStart(7, '0')}#${event.event}`;

/**
 * An event recorded more than this after its time is recorded late. Writes of audit.csv look back
 * 3 hours for events recorded out of order (audit/audit-file.ts, `AUDIT_LOOKBACK_MS`); an event
 * later than half of that is also kept in the log's list of late events, in the order it was
 * recorded, until a write takes it: however late it comes (a row redriven from its dead-letter
 * queue days later), it is written at the next write. Half, so that a write still reading while
 * the event is recorded cannot carry the next write's look-back past it.
 */
export const RECORDED_LATE_AFTER_MS = 90 * 60_000;

/** An event as the log gives it back: `late` when it was recorded late, so it is written from the late list, not by its key. */
export type LoggedEvent = AuditEvent & { late?: true };

/**
 * A late event waiting for audit.csv: its marker (when it was recorded, then its key: the order of
 * recording) and the event.
 */
export type LateEvent = { marker: string; event: AuditEvent };

/** The event key a late event's marker holds after the time it was recorded. */
export const eventKeyOfMarker = (marker: string): string => marker.slice(marker.indexOf('#') + 1);
