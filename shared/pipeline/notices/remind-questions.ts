/**
 * The reminder (docs/architecture.md, "Told when needed"): once a day, the questions still
 * unanswered on the reminder day (default 21, counted from when the row asked) are told again,
 * batch by batch, naming the rows and the days left before the service abandons them on day 30.
 * Each item is reminded once (`reminded_at`), after the reminder was told: a sweep that stops in
 * between reminds again the next day, never not at all.
 */
import type { PipelinePorts } from '../core/ports.js';
import type { ReviewItem } from '../core/records.js';
import { DEFAULT_REMINDER_DAY, questionReminder } from './batch-notices.js';
import { tell } from './tell.js';

/** The ports the reminder uses: the review items, the batches, the outbox's log and the topic. */
export type RemindPorts = Pick<PipelinePorts, 'clock' | 'reviews' | 'batches' | 'objects' | 'notifier'>;

/** What the reminder did: the batches told, and how many items it covered. */
export type RemindReport = { batches: string[]; items: number };

/**
 * Takes the review items still waiting (all batches) and the reminder day, tells each batch whose
 * items reached it, and marks those items reminded; returns which batches and how many items.
 */
export const remindWaitingQuestions = async (
  ports: RemindPorts,
  pending: readonly ReviewItem[],
  reminderDay: number = DEFAULT_REMINDER_DAY,
): Promise<RemindReport> => {
  const now = ports.clock.now();
  const byBatch = new Map<string, ReviewItem[]>();
  for (const item of pending) byBatch.set(item.batch_id, [...(byBatch.get(item.batch_id) ?? []), item]);
  const report: RemindReport = { batches: [], items: 0 };
  for (const [batchId, items] of [...byBatch].sort(([a], [b]) => a.localeCompare(b))) {
    const batch = await ports.batches.getBatch(batchId);
    if (!batch) continue;
    const due = questionReminder(batch, items, now, reminderDay);
    if (!due) continue;
    await tell(ports, [due.notice]);
    const at = now.toISOString();
    for (const item of due.items) await ports.reviews.update(item.classification_id, { reminded_at: at });
    report.batches.push(batchId);
    report.items += due.items.length;
  }
  return report;
};
