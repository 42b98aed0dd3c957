/**
 * A batch's audit, as its page shows it: who did what to which row and when (the batch's
 * `AuditLog`, in the order the events happened), a page at a time. A person's answers and
 * decisions name the person who gave them (the console's signed-in user); the pipeline's own
 * events name nobody.
 */
import { auditEventKey, withSender } from '../pipeline/core/audit-records.js';
import type { AuditPage, AuditQuery } from './api.js';
import type { ConsolePorts } from './ports.js';
import { batchNotFound } from './refusals.js';

export const auditView = async (
  ports: Pick<ConsolePorts, 'audit' | 'batches'>,
  batchId: string,
  query: AuditQuery,
): Promise<AuditPage> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  // One more than asked: whether a next page exists, without a count.
  const events = await ports.audit.page(batchId, { after: query.after ?? null, limit: query.limit + 1 });
  const shown = events.slice(0, query.limit);
  const last = shown.at(-1);
  return {
    // A submission recorded before the batch's sender was proven names them, as audit.csv does.
    events: shown
      .map((logged) => withSender(logged, batch.sent_by))
      .map(({ at, row, event, who, who_id, known_by, stated_by, classification_id, detail }) => ({
        at,
        row,
        event,
        who,
        who_id: who_id || null,
        known_by: known_by ?? null,
        stated_by: stated_by ?? null,
        classification_id,
        detail,
      })),
    next: events.length > query.limit && last ? auditEventKey(last) : null,
  };
};
