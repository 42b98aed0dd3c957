/**
 * The rows queue (`RowQueue` port) on SQS: rows wait here for a slot, never in Step
 * Functions (docs/architecture.md, property 3). The body of a message is a `RowMessage` as JSON.
 *
 * A body that does not parse is not returned and not deleted: it becomes visible again
 * after the visibility timeout, and once it has been received `maxReceiveCount` times the
 * queue's redrive policy moves it to the dead-letter queue, where someone can read it.
 * Deleting would lose the evidence; releasing it at once would make the dispatcher spin
 * on it. `onMalformed` lets the composition root log that it happened (message id and
 * receive count only: never the body).
 */
import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { chunksOf, forEachLimited } from '../pipeline/core/calls-in-parallel.js';
import type { ReceivedRow, RowQueue } from '../pipeline/core/ports.js';
import { RowMessage } from '../pipeline/core/records.js';

export type SqsRowQueueConfig = {
  client: SQSClient;
  queueUrl: string;
  /** Told about each message whose body is not a RowMessage (left for the dead-letter queue). */
  onMalformed?: (message: { messageId: string; receiveCount: number }) => void;
};

/** SendMessageBatch takes at most 10 entries. */
const SEND_BATCH_SIZE = 10;
/** SendMessageBatch calls of one send in flight at once: a 400,000-row batch queues in minutes, not an hour. */
const SEND_BATCHES_IN_FLIGHT = 8;
/** SQS delays a message at most 15 minutes. */
const MAX_DELAY_SECONDS = 900;

const checkSeconds = (what: string, seconds: number, max: number) => {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > max)
    throw new RangeError(`${what} must be an integer in 0..${max}, got ${seconds}`);
};

type Failure = { message: RowMessage; code: string };

const describeFailures = (failures: readonly Failure[]) =>
  failures.map(({ message, code }) => `${message.batch_id}:${message.row} (${code})`).join(', ');

export const createSqsRowQueue = (config: SqsRowQueueConfig): RowQueue => {
  const { client } = config;
  const QueueUrl = config.queueUrl;

  /**
   * One SendMessageBatch; returns the entries SQS refused. Entry ids are the index in the
   * call, which is all SQS needs to tell them apart.
   */
  const sendBatch = async (
    entries: readonly { message: RowMessage; delaySeconds: number }[],
  ): Promise<{ failure: Failure; retryable: boolean; entry: (typeof entries)[number] }[]> => {
    const Entries: SendMessageBatchRequestEntry[] = entries.map(({ message, delaySeconds }, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(message),
      DelaySeconds: delaySeconds,
    }));
    const { Failed } = await client.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
    return (Failed ?? []).map((failed) => {
      const entry = entries[Number(failed.Id)];
      if (!entry) throw new Error(`SendMessageBatch reported an unknown entry id ${failed.Id}`);
      return {
        entry,
        failure: { message: entry.message, code: failed.Code ?? 'unknown' },
        // SenderFault: the entry itself is wrong (too large, bad delay); sending it again cannot help.
        retryable: failed.SenderFault !== true,
      };
    });
  };

  const send: RowQueue['send'] = async (messages) => {
    const entries = messages.map(({ message, delaySeconds = 0 }) => {
      checkSeconds('delaySeconds', delaySeconds, MAX_DELAY_SECONDS);
      return { message: RowMessage.parse(message), delaySeconds };
    });
    const failures: Failure[] = [];
    await forEachLimited(chunksOf(entries, SEND_BATCH_SIZE), SEND_BATCHES_IN_FLIGHT, async (batch) => {
      const refused = await sendBatch(batch);
      for (const { failure, retryable } of refused) if (!retryable) failures.push(failure);
      // SQS can refuse single entries of a batch for passing reasons: send those once more.
      const again = refused.filter((refusal) => refusal.retryable).map((refusal) => refusal.entry);
      if (again.length > 0) for (const { failure } of await sendBatch(again)) failures.push(failure);
    });
    if (failures.length > 0)
      throw new Error(`SQS refused ${failures.length} row message(s): ${describeFailures(failures)}`);
  };

  const toReceivedRow = (message: Message): ReceivedRow | null => {
    const receiveCount = Number(message.Attributes?.ApproximateReceiveCount ?? '1');
    let parsed: ReturnType<typeof RowMessage.safeParse> | null = null;
    try {
      parsed = RowMessage.safeParse(JSON.parse(message.Body ?? ''));
    } catch {
      parsed = null;
    }
    if (!parsed?.success || !message.ReceiptHandle) {
      config.onMalformed?.({ messageId: message.MessageId ?? 'unknown', receiveCount });
      return null;
    }
    return { message: parsed.data, receipt: message.ReceiptHandle, receiveCount };
  };

  const receive: RowQueue['receive'] = async (max) => {
    if (!Number.isInteger(max) || max < 1 || max > 10)
      throw new RangeError(`max must be an integer in 1..10, got ${max}`);
    const { Messages } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: max,
        // The dispatcher asks only for what is there now: it must not hold a Lambda waiting.
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    return (Messages ?? []).map(toReceivedRow).filter((row): row is ReceivedRow => row !== null);
  };

  const deleteMessage: RowQueue['delete'] = async (receipt) => {
    await client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: receipt }));
  };

  return { send, receive, delete: deleteMessage };
};
