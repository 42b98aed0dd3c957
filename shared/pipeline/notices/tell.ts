/**
 * Telling people (docs/architecture.md, "Told when needed"): each notice is added to its batch's
 * `notifications.log` in the outbox, the record anyone can open beside the results (and what
 * `npm run classify -- --status` shows here), then published to the stack's topic, whose
 * subscribers (emails from the stack's configuration, a chat) receive it. The log first: a notice
 * published is always one the log holds. A step retried after telling tells again: twice, never
 * zero times.
 */
import { NOTIFICATIONS_LOG, outboxKey } from '../core/bucket-layout.js';
import type { Notice } from '../core/notices.js';
import type { PipelinePorts } from '../core/ports.js';

/** One notice as the log keeps it: when and what kind, the subject, the text, a blank line. */
export const logEntry = (notice: Notice): string =>
  `${notice.at} ${notice.kind}\n${notice.subject}\n${notice.text}\n\n`;

/**
 * Takes the notices of one or more batches, adds each to its batch's notifications.log (read, then
 * written whole: a few lines a batch) and publishes it to the topic, in the order given.
 */
export const tell = async (
  ports: Pick<PipelinePorts, 'objects' | 'notifier'>,
  notices: readonly Notice[],
): Promise<void> => {
  const byBatch = new Map<string, Notice[]>();
  for (const notice of notices)
    byBatch.set(notice.batch_id, [...(byBatch.get(notice.batch_id) ?? []), notice]);
  for (const [batchId, told] of byBatch) {
    const key = outboxKey(batchId, NOTIFICATIONS_LOG);
    const before = await ports.objects.getBytes(key);
    const text = `${before ? Buffer.from(before).toString('utf8') : ''}${told.map(logEntry).join('')}`;
    await ports.objects.put(key, text, 'text/plain; charset=utf-8');
    for (const notice of told) await ports.notifier.publish(notice);
  }
};
