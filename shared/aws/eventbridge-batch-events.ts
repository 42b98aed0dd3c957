/**
 * EventBridge (`BatchEvents` port): one `Batch Completed` event per finished batch, its
 * detail the batch's summary.json, so other systems can react without polling the bucket.
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { BATCH_COMPLETED_EVENT } from '../contract.js';
import type { BatchEvents } from '../pipeline/core/ports.js';

export type EventBridgeBatchEventsConfig = {
  client: EventBridgeClient;
  eventBusName: string;
  /** @default 'ncm-batch-classifier' */
  source?: string;
};

/** What an entry's detail may take of the 256 KB EventBridge allows an entry, its envelope aside. */
const MAX_DETAIL_BYTES = 240 * 1024;

/**
 * The event's detail: summary.json. Its `columns` lists every column of the input, which for a
 * file of thousands of columns is more than an event holds: the detail then lists only the columns
 * read as fields, and `columns_total` says how many the file has (summary.json lists them all).
 */
export const batchCompletedDetail = (summary: Record<string, unknown>): string => {
  const whole = JSON.stringify(summary);
  if (Buffer.byteLength(whole) <= MAX_DETAIL_BYTES) return whole;
  const { columns } = summary;
  const fewer = Array.isArray(columns)
    ? {
        ...summary,
        columns: columns.filter((use) => (use as { understood_as?: unknown })?.understood_as != null),
        columns_total: columns.length,
      }
    : summary;
  const detail = JSON.stringify(fewer);
  if (Buffer.byteLength(detail) <= MAX_DETAIL_BYTES) return detail;
  // Still too large: the problems and warnings keep their codes and parameters, without the
  // sentences summary.json holds for people (a file's problems are listed up to 50 of each kind).
  const codesOnly = (list: unknown) =>
    Array.isArray(list)
      ? list.map((said) => {
          if (typeof said !== 'object' || said === null) return said;
          const { text: _text, ...coded } = said as Record<string, unknown>;
          return coded;
        })
      : list;
  return JSON.stringify({
    ...fewer,
    problems: codesOnly(fewer.problems),
    warnings: codesOnly(fewer.warnings),
  });
};

export const createEventBridgeBatchEvents = (config: EventBridgeBatchEventsConfig): BatchEvents => ({
  batchCompleted: async (summary) => {
    const result = await config.client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: config.eventBusName,
            Source: config.source ?? BATCH_COMPLETED_EVENT.source,
            DetailType: BATCH_COMPLETED_EVENT.detailType,
            Detail: batchCompletedDetail(summary),
          },
        ],
      }),
    );
    // PutEvents answers 200 even when it refused the entry: the refusal is in the body.
    if ((result.FailedEntryCount ?? 0) > 0) {
      const entry = result.Entries?.[0];
      throw new Error(
        `PutEvents refused the Batch Completed event: ${entry?.ErrorCode ?? 'unknown'}${
          entry?.ErrorMessage ? ` (${entry.ErrorMessage})` : ''
        }`,
      );
    }
  },
});
