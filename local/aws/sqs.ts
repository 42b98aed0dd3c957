/**
 * SQS on the wire: the AWS JSON 1.0 protocol the current SDK speaks (`x-amz-target:
 * AmazonSQS.<Operation>`, `application/x-amz-json-1.0`), with errors in SQS's
 * query-compatible shape (`__type` plus `x-amzn-query-error: <code>;Sender`), which is how
 * the SDK picks QueueDoesNotExist and the other exception classes. Long polling lives here:
 * a receive that finds nothing waits on queue changes, clock jumps and the next message's
 * visibility time, whichever comes first, until its deadline.
 */
import type { MonotonicClock } from '../sandbox/core/clock.js';
import { AwsError } from './errors.js';
import { type InputReader, isJsonObject, type JsonObject, readInput } from './input.js';
import type { JsonRpcService, RequestContext } from './router.js';
import type { MessageAttribute } from './sqs-checksums.js';
import { sqsErrors } from './sqs-errors.js';
import {
  SENDER_ID,
  SQS_LIMITS,
  type SqsQueues,
  type StoredMessage,
  type StoredQueue,
  SYSTEM_ATTRIBUTE_NAMES,
} from './sqs-queues.js';

const inputOf = (input: JsonObject): InputReader =>
  readInput(input, {
    missing: (member) => sqsErrors.missingParameter(member),
    invalid: (member, reason) =>
      sqsErrors.invalidParameterValue(`Value for parameter ${member} is invalid. Reason: ${reason}.`),
  });

const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

const batchErrors = {
  empty: () =>
    new AwsError(
      'com.amazonaws.sqs#EmptyBatchRequest',
      'There should be at least one batch entry in the request.',
      {
        queryCode: 'AWS.SimpleQueueService.EmptyBatchRequest',
      },
    ),
  tooMany: (count: number) =>
    new AwsError(
      'com.amazonaws.sqs#TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${SQS_LIMITS.maxBatchEntries}. You have sent ${count}.`,
      { queryCode: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest' },
    ),
  notDistinct: (id: string) =>
    new AwsError('com.amazonaws.sqs#BatchEntryIdsNotDistinct', `Id ${id} repeated.`, {
      queryCode: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
    }),
  invalidId: (id: string) =>
    new AwsError(
      'com.amazonaws.sqs#InvalidBatchEntryId',
      `A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long. Got "${id}".`,
      { queryCode: 'AWS.SimpleQueueService.InvalidBatchEntryId' },
    ),
  tooLong: (size: number) =>
    new AwsError(
      'com.amazonaws.sqs#BatchRequestTooLong',
      `Batch requests cannot be longer than ${SQS_LIMITS.maxMessageBytes} bytes. You have sent ${size} bytes.`,
      { queryCode: 'AWS.SimpleQueueService.BatchRequestTooLong' },
    ),
};

/** Entries of a batch call as objects with distinct, well-formed ids (SQS checks these first). */
const batchEntries = (input: InputReader): { id: string; entry: InputReader }[] => {
  const raw = input.list('Entries');
  if (raw.length === 0) throw batchErrors.empty();
  if (raw.length > SQS_LIMITS.maxBatchEntries) throw batchErrors.tooMany(raw.length);
  const seen = new Set<string>();
  return raw.map((item) => {
    if (!isJsonObject(item)) throw sqsErrors.invalidParameterValue('Each batch entry must be an object.');
    const entry = inputOf(item);
    const id = entry.string('Id');
    if (!BATCH_ENTRY_ID.test(id)) throw batchErrors.invalidId(id);
    if (seen.has(id)) throw batchErrors.notDistinct(id);
    seen.add(id);
    return { id, entry };
  });
};

/** A failed batch entry, with the query code the SDK users match on (`InvalidParameterValue`, …). */
const failedEntry = (id: string, error: unknown) => {
  if (!(error instanceof AwsError)) throw error;
  return {
    Id: id,
    SenderFault: error.fault === 'Sender',
    Code: error.queryCode ?? error.code,
    Message: error.message,
  };
};

const messageAttributesOf = (entry: InputReader): Record<string, MessageAttribute> | undefined => {
  const raw = entry.optionalObject('MessageAttributes');
  if (raw === undefined) return undefined;
  const attributes: Record<string, MessageAttribute> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!isJsonObject(value) || typeof value.DataType !== 'string') {
      throw sqsErrors.invalidParameterValue(`The message attribute '${name}' must contain a DataType.`);
    }
    const attribute: MessageAttribute = { DataType: value.DataType };
    if (typeof value.StringValue === 'string') attribute.StringValue = value.StringValue;
    if (typeof value.BinaryValue === 'string') attribute.BinaryValue = value.BinaryValue;
    attributes[name] = attribute;
  }
  return attributes;
};

/** `All`, `.*`, `prefix.*` or exact names, as ReceiveMessage's MessageAttributeNames. */
const selectMessageAttributes = (
  attributes: Record<string, MessageAttribute>,
  requested: readonly string[],
): Record<string, MessageAttribute> => {
  const selected: Record<string, MessageAttribute> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const wanted = requested.some(
      (pattern) =>
        pattern === 'All' ||
        pattern === '.*' ||
        pattern === name ||
        (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))),
    );
    if (wanted) selected[name] = value;
  }
  return selected;
};

const systemAttributesOf = (
  message: StoredMessage,
  requested: ReadonlySet<string>,
): Record<string, string> => {
  const all: Record<string, string> = {
    SenderId: SENDER_ID,
    SentTimestamp: String(message.sentAt),
    ApproximateReceiveCount: String(message.receiveCount),
    ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
  };
  const selected: Record<string, string> = {};
  for (const name of SYSTEM_ATTRIBUTE_NAMES) {
    if (requested.has('All') || requested.has(name)) selected[name] = all[name]!;
  }
  return selected;
};

export type SqsServiceOptions = {
  queues: SqsQueues;
  clock: MonotonicClock;
  /** `<origin>/<account>/<name>`: the SDK sends each call to its QueueUrl's origin. */
  queueUrl: (name: string) => string;
};

export const createSqsService = ({ queues, clock, queueUrl }: SqsServiceOptions): JsonRpcService => {
  const queueOf = (input: InputReader): StoredQueue => queues.queueForUrl(input.string('QueueUrl'));

  /**
   * Waits until `take` returns messages, the deadline passes or the caller goes away. Looks
   * again whenever the queue changes, the clock jumps, or the next delayed/in-flight message
   * is due — so a send during the wait answers at once.
   */
  const longPoll = (
    queueName: string,
    deadline: number,
    take: () => StoredMessage[],
    signal: AbortSignal,
  ): Promise<StoredMessage[]> =>
    new Promise((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const stopListening: (() => void)[] = [];
      const finish = (messages: StoredMessage[]): void => {
        done = true;
        clearTimeout(timer);
        for (const stop of stopListening) stop();
        resolve(messages);
      };
      /** Messages to answer with, [] to answer empty, or null to keep waiting. */
      const outcome = (): StoredMessage[] | null => {
        // Gone caller: take nothing, or its messages would vanish into a closed socket.
        if (signal.aborted) return [];
        let messages: StoredMessage[];
        try {
          messages = take();
        } catch {
          return []; // the queue was deleted meanwhile
        }
        if (messages.length > 0) return messages;
        return clock.now() >= deadline ? [] : null;
      };
      const look = (): void => {
        if (done) return;
        const messages = outcome();
        if (messages !== null) {
          finish(messages);
          return;
        }
        const now = clock.now();
        const wakeAt = Math.min(deadline, queues.nextVisibleAt(queueName) ?? Number.POSITIVE_INFINITY);
        clearTimeout(timer);
        timer = setTimeout(look, Math.max(0, wakeAt - now) + 1);
      };
      // Deferred: a change is announced inside the call that made it (a send), before its
      // own response; the waiter looks once that call has finished.
      const lookSoon = (): void => void queueMicrotask(look);
      stopListening.push(queues.onChange((name) => name === queueName && lookSoon()));
      stopListening.push(clock.onAdvance(lookSoon));
      signal.addEventListener('abort', lookSoon, { once: true });
      stopListening.push(() => signal.removeEventListener('abort', lookSoon));
      look();
    });

  const renderMessage = (
    message: StoredMessage,
    systemNames: ReadonlySet<string>,
    attributeNames: readonly string[],
  ): JsonObject => {
    const rendered: JsonObject = {
      MessageId: message.messageId,
      ReceiptHandle: message.receipt,
      MD5OfBody: message.md5OfBody,
      Body: message.body,
    };
    const attributes = systemAttributesOf(message, systemNames);
    if (Object.keys(attributes).length > 0) rendered.Attributes = attributes;
    const messageAttributes = selectMessageAttributes(message.messageAttributes, attributeNames);
    if (Object.keys(messageAttributes).length > 0) {
      rendered.MessageAttributes = messageAttributes;
      rendered.MD5OfMessageAttributes = message.md5OfMessageAttributes;
    }
    return rendered;
  };

  const operations: JsonRpcService['operations'] = {
    CreateQueue: (raw) => {
      const input = inputOf(raw);
      const { queue } = queues.createQueue(input.string('QueueName'), input.optionalStringMap('Attributes'));
      return { QueueUrl: queueUrl(queue.name) };
    },

    GetQueueUrl: (raw) => {
      const input = inputOf(raw);
      return { QueueUrl: queueUrl(queues.queue(input.string('QueueName')).name) };
    },

    ListQueues: (raw) => {
      const input = inputOf(raw);
      const prefix = input.optionalString('QueueNamePrefix') ?? '';
      const max = input.optionalInteger('MaxResults', 1, 1000) ?? 1000;
      return {
        QueueUrls: queues
          .names()
          .filter((name) => name.startsWith(prefix))
          .slice(0, max)
          .map(queueUrl),
      };
    },

    DeleteQueue: (raw) => {
      queues.deleteQueue(queueOf(inputOf(raw)));
      return {};
    },

    GetQueueAttributes: (raw) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const attributes = queues.attributes(queue, input.optionalStringList('AttributeNames') ?? []);
      return Object.keys(attributes).length > 0 ? { Attributes: attributes } : {};
    },

    SetQueueAttributes: (raw) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const attributes = input.optionalStringMap('Attributes');
      if (attributes === undefined) throw sqsErrors.missingParameter('Attributes');
      queues.setAttributes(queue, attributes);
      return {};
    },

    SendMessage: (raw) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const sent = queues.send(queue, {
        body: input.string('MessageBody'),
        delaySeconds: input.optionalInteger('DelaySeconds', 0, SQS_LIMITS.maxDelaySeconds),
        messageAttributes: messageAttributesOf(input),
      });
      return {
        MessageId: sent.messageId,
        MD5OfMessageBody: sent.md5OfBody,
        ...(sent.md5OfMessageAttributes ? { MD5OfMessageAttributes: sent.md5OfMessageAttributes } : {}),
      };
    },

    SendMessageBatch: (raw) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const entries = batchEntries(input);
      const size = entries.reduce((total, { entry }) => {
        const body = entry.optionalString('MessageBody') ?? '';
        return total + Buffer.byteLength(body);
      }, 0);
      if (size > SQS_LIMITS.maxMessageBytes) throw batchErrors.tooLong(size);
      const Successful: JsonObject[] = [];
      const Failed: JsonObject[] = [];
      for (const { id, entry } of entries) {
        try {
          const sent = queues.send(queue, {
            body: entry.string('MessageBody'),
            delaySeconds: entry.optionalInteger('DelaySeconds', 0, SQS_LIMITS.maxDelaySeconds),
            messageAttributes: messageAttributesOf(entry),
          });
          Successful.push({
            Id: id,
            MessageId: sent.messageId,
            MD5OfMessageBody: sent.md5OfBody,
            ...(sent.md5OfMessageAttributes ? { MD5OfMessageAttributes: sent.md5OfMessageAttributes } : {}),
          });
        } catch (error) {
          Failed.push(failedEntry(id, error));
        }
      }
      return { Successful, Failed };
    },

    ReceiveMessage: async (raw, context: RequestContext) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const maxMessages = input.optionalInteger('MaxNumberOfMessages', 1, SQS_LIMITS.maxBatchEntries) ?? 1;
      const visibilityTimeoutSeconds = input.optionalInteger(
        'VisibilityTimeout',
        0,
        SQS_LIMITS.maxVisibilitySeconds,
      );
      const waitSeconds =
        input.optionalInteger('WaitTimeSeconds', 0, SQS_LIMITS.maxWaitSeconds) ??
        queues.receiveWaitSeconds(queue);
      // `AttributeNames` is the deprecated spelling of `MessageSystemAttributeNames`; SQS honours both.
      const systemNames = new Set([
        ...(input.optionalStringList('MessageSystemAttributeNames') ?? []),
        ...(input.optionalStringList('AttributeNames') ?? []),
      ]);
      const attributeNames = input.optionalStringList('MessageAttributeNames') ?? [];
      const take = () => queues.receive(queues.queue(queue.name), { maxMessages, visibilityTimeoutSeconds });
      let messages = take();
      if (messages.length === 0 && waitSeconds > 0) {
        context.log('debug', 'sqs long poll waiting', { queue: queue.name, wait_seconds: waitSeconds });
        messages = await longPoll(queue.name, clock.now() + waitSeconds * 1000, take, context.signal);
      }
      return { Messages: messages.map((message) => renderMessage(message, systemNames, attributeNames)) };
    },

    DeleteMessage: (raw, context) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const outcome = queues.deleteMessage(queue, input.string('ReceiptHandle'));
      if (outcome !== 'deleted')
        context.log('debug', 'sqs delete had no effect', { queue: queue.name, outcome });
      return {};
    },

    DeleteMessageBatch: (raw) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const Successful: JsonObject[] = [];
      const Failed: JsonObject[] = [];
      for (const { id, entry } of batchEntries(input)) {
        try {
          queues.deleteMessage(queue, entry.string('ReceiptHandle'));
          Successful.push({ Id: id });
        } catch (error) {
          Failed.push(failedEntry(id, error));
        }
      }
      return { Successful, Failed };
    },

    ChangeMessageVisibility: (raw) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const seconds = input.optionalInteger('VisibilityTimeout', 0, SQS_LIMITS.maxVisibilitySeconds);
      if (seconds === undefined) throw sqsErrors.missingParameter('VisibilityTimeout');
      queues.changeVisibility(queue, input.string('ReceiptHandle'), seconds);
      return {};
    },

    ChangeMessageVisibilityBatch: (raw) => {
      const input = inputOf(raw);
      const queue = queueOf(input);
      const Successful: JsonObject[] = [];
      const Failed: JsonObject[] = [];
      for (const { id, entry } of batchEntries(input)) {
        try {
          const seconds = entry.optionalInteger('VisibilityTimeout', 0, SQS_LIMITS.maxVisibilitySeconds) ?? 0;
          queues.changeVisibility(queue, entry.string('ReceiptHandle'), seconds);
          Successful.push({ Id: id });
        } catch (error) {
          Failed.push(failedEntry(id, error));
        }
      }
      return { Successful, Failed };
    },

    PurgeQueue: (raw) => {
      queues.purge(queueOf(inputOf(raw)));
      return {};
    },
  };

  return {
    service: 'sqs',
    targetPrefix: 'AmazonSQS',
    jsonVersion: '1.0',
    errorMessageMember: 'message',
    operations,
  };
};
