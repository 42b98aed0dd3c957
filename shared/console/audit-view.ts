/**
 * A batch's audit, as its page shows it: who did what to which row and when (the batch's
 * `AuditLog`, in the order the events happened), a page at a time. A person's answers and
 * decisions name the person who gave them (the console's signed-in user); the pipeline's own
 * events name nobody; a submission names the batch's sender once anything proves who that is. An `answered` event shows the answers given (from its review item) and a
 * `decided` event the note written with the decision (from its check item): audit.csv keeps only
 * how many answers and which round, in steady English for machines.
 */
import { type AuditEvent, auditEventKey, withSender } from '../pipeline/core/audit-records.js';
import { mapLimited } from '../pipeline/core/calls-in-parallel.js';
import { givenAnswersOf } from '../pipeline/core/records.js';
import { provenSenderOf } from '../pipeline/people/batch-sender.js';
import type { AuditEventView, AuditPage, AuditQuery } from './api.js';
import type { ConsolePorts } from './ports.js';
import { batchNotFound } from './refusals.js';

/** Items read at once for a page of events: never one after another. */
const READS_IN_FLIGHT = 16;

type Content = Pick<AuditEventView, 'answers' | 'note'>;
const NO_CONTENT: Content = { answers: null, note: null };

/**
 * What the page's answered and decided events said, each item read once: the answers given, as the
 * review item keeps them beside its questions; the decision's note, as the check item keeps it.
 */
const contentOf = async (
  ports: Pick<ConsolePorts, 'reviews' | 'checks'>,
  batchId: string,
  events: readonly AuditEvent[],
): Promise<(event: AuditEvent) => Content> => {
  const answered = [
    ...new Set(
      events.flatMap((e) => (e.event === 'answered' && e.classification_id ? [e.classification_id] : [])),
    ),
  ];
  const decided = [...new Set(events.flatMap((e) => (e.event === 'decided' ? [e.row] : [])))];
  const [items, checks] = await Promise.all([
    mapLimited(answered, READS_IN_FLIGHT, (id) => ports.reviews.get(id)),
    mapLimited(decided, READS_IN_FLIGHT, (row) => ports.checks.get(batchId, row)),
  ]);
  const answersOf = new Map(
    answered.map((id, index) => {
      const item = items[index];
      return [id, item ? givenAnswersOf(item) : null] as const;
    }),
  );
  const noteOf = new Map(decided.map((row, index) => [row, checks[index]?.decision?.note ?? null] as const));
  return (event) =>
    event.event === 'answered' && event.classification_id
      ? { answers: answersOf.get(event.classification_id) ?? null, note: null }
      : event.event === 'decided'
        ? { answers: null, note: noteOf.get(event.row) ?? null }
        : NO_CONTENT;
};

/**
 * Takes a batch and a page's position and gives that page of its audit, oldest first, each event with
 * who did it and, for answers and decisions, what they said; `next` names the following page.
 */
export const auditView = async (
  ports: Pick<ConsolePorts, 'audit' | 'batches' | 'reviews' | 'checks' | 'writers'>,
  batchId: string,
  query: AuditQuery,
): Promise<AuditPage> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  // One more than asked: whether a next page exists, without a count.
  const events = await ports.audit.page(batchId, { after: query.after ?? null, limit: query.limit + 1 });
  const shown = events.slice(0, query.limit);
  const last = shown.at(-1);
  // A sender S3's record proved only after Finalize (CloudTrail takes seconds to minutes): named
  // here as soon as it is known, read only when a submission of the page names no one.
  const unnamed = !batch.sent_by && shown.some((event) => event.event === 'submitted' && event.who === '');
  const sender = batch.sent_by ?? (unnamed ? ((await provenSenderOf(ports, batch)) ?? undefined) : undefined);
  const said = await contentOf(ports, batchId, shown);
  return {
    // A submission recorded before the batch's sender was proven names them, as audit.csv does.
    events: shown
      .map((logged) => withSender(logged, sender))
      .map((logged) => {
        const { at, row, event, who, who_id, known_by, stated_by, classification_id, detail } = logged;
        return {
          at,
          row,
          event,
          who,
          who_id: who_id || null,
          known_by: known_by ?? null,
          stated_by: stated_by ?? null,
          classification_id,
          detail,
          ...said(logged),
        };
      }),
    next: events.length > query.limit && last ? auditEventKey(last) : null,
  };
};
