/**
 * EventBridge (`BatchEvents` port): one `Batch Completed` event per finished batch, its
 * detail the batch's summary.json, so other systems can react without polling the bucket.
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { BatchEvents } from '../pipeline/core/index.js';

export type EventBridgeBatchEventsConfig = {
  client: EventBridgeClient;
  eventBusName: string;
  /** @default 'ncm-batch-classifier' */
  source?: string;
};

export const BATCH_COMPLETED_DETAIL_TYPE = 'Batch Completed';
export const DEFAULT_EVENT_SOURCE = 'ncm-batch-classifier';

export const createEventBridgeBatchEvents = (config: EventBridgeBatchEventsConfig): BatchEvents => ({
  batchCompleted: async (summary) => {
    const result = await config.client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: config.eventBusName,
            Source: config.source ?? DEFAULT_EVENT_SOURCE,
            DetailType: BATCH_COMPLETED_DETAIL_TYPE,
            Detail: JSON.stringify(summary),
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
