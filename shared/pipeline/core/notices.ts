/**
 * What the pipeline tells people, and when (docs/architecture.md, "Told when needed"): a notice
 * is one message about one batch, worded in the batch's language, kept in the batch's outbox
 * (`notifications.log`) and published to the stack's topic (`Notifier`), whose subscribers (an
 * email, a chat) read it.
 */
import * as z from 'zod';

/** The kinds of notice, each a message attribute subscribers can filter on. */
const NOTICE_KINDS = [
  /** Finalize: the batch finished, with its counts and where its results are. */
  'batch_finished',
  /** Finalize: rows wait for answers, and how long before the service abandons them. */
  'questions_waiting',
  /** The daily sweep: questions still unanswered on the reminder day, with the days left. */
  'questions_reminder',
  /** Finalize: verdicts wait for a person's check (`check_below`). */
  'verdicts_to_check',
] as const;
export const NoticeKind = z.enum(NOTICE_KINDS);
export type NoticeKind = z.infer<typeof NoticeKind>;

/** One notice: which batch, what kind, when, and its subject and text as people read them. */
export const Notice = z.object({
  batch_id: z.string(),
  kind: NoticeKind,
  /** ISO time the notice was made. */
  at: z.string(),
  /** A short line, an email's subject. */
  subject: z.string(),
  text: z.string(),
});
export type Notice = z.infer<typeof Notice>;
