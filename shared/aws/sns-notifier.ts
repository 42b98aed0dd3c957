/**
 * SNS (`Notifier` port): each notice published to the stack's topic of notices, its subject and
 * text as people read them, with `kind` and `batch_id` as message attributes, so a subscriber can
 * take only what it wants (a filter policy on `kind`). The topic's email subscriptions come from
 * the stack's configuration (`noticeEmails`); a chat or another system subscribes itself.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { Notifier } from '../pipeline/core/ports.js';

export type SnsNotifierConfig = { client: SNSClient; topicArn: string };

/** SNS takes up to 256 KB a message; a notice is a few lines, cut well short of that if ever longer. */
const MAX_TEXT_CHARS = 60_000;

export const createSnsNotifier = (config: SnsNotifierConfig): Notifier => ({
  publish: async (notice) => {
    await config.client.send(
      new PublishCommand({
        TopicArn: config.topicArn,
        Subject: notice.subject,
        Message: notice.text.slice(0, MAX_TEXT_CHARS),
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: notice.kind },
          batch_id: { DataType: 'String', StringValue: notice.batch_id },
        },
      }),
    );
  },
});
