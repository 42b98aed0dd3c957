/** The rows queue adapter with a mocked SQS client. */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSqsRowQueue } from '../../../shared/aws/sqs-row-queue.js';
import type { RowMessage } from '../../../shared/pipeline/core/records.js';

const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/123456789012/rows';
const sqs = mockClient(SQSClient);
const client = new SQSClient({ region: 'sa-east-1' });
const queue = createSqsRowQueue({ client, queueUrl: QUEUE_URL });

const message = (row: number): RowMessage => ({ batch_id: 'nightly-abc', row, attempt: 1, dispatch: 1 });

beforeEach(() => sqs.reset());

describe('send', () => {
  it('sends 10 entries per SendMessageBatch, each with its body and delay', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const messages = Array.from({ length: 23 }, (_, i) => ({
      message: message(i + 1),
      delaySeconds: i === 21 ? 45 : undefined,
    }));

    await queue.send(messages);

    const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(calls.map((input) => input.Entries?.length)).toEqual([10, 10, 3]);
    expect(calls.every((input) => input.QueueUrl === QUEUE_URL)).toBe(true);
    expect(calls[2]?.Entries).toEqual([
      { Id: '0', MessageBody: JSON.stringify(message(21)), DelaySeconds: 0 },
      { Id: '1', MessageBody: JSON.stringify(message(22)), DelaySeconds: 45 },
      { Id: '2', MessageBody: JSON.stringify(message(23)), DelaySeconds: 0 },
    ]);
  });

  it('sends an entry SQS refused for a passing reason once more', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }], Successful: [] })
      .resolves({ Failed: [], Successful: [] });

    await queue.send([{ message: message(1) }, { message: message(2), delaySeconds: 5 }]);

    const second = sqs.commandCalls(SendMessageBatchCommand)[1]?.args[0].input.Entries;
    expect(second).toEqual([{ Id: '0', MessageBody: JSON.stringify(message(2)), DelaySeconds: 5 }]);
  });

  it('throws naming the rows still refused after the second try, and those refused for their own fault', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Failed: [
          { Id: '0', Code: 'InternalError', SenderFault: false },
          { Id: '2', Code: 'InvalidParameterValue', SenderFault: true },
        ],
        Successful: [],
      })
      .resolves({ Failed: [{ Id: '0', Code: 'ServiceUnavailable', SenderFault: false }], Successful: [] });

    await expect(
      queue.send([{ message: message(1) }, { message: message(2) }, { message: message(3) }]),
    ).rejects.toThrow(
      'SQS refused 2 row message(s): nightly-abc:3 (InvalidParameterValue), nightly-abc:1 (ServiceUnavailable)',
    );
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(2);
  });

  it('refuses a delay SQS cannot honour, and an invalid message, before sending anything', async () => {
    await expect(queue.send([{ message: message(1), delaySeconds: 901 }])).rejects.toThrow(RangeError);
    await expect(queue.send([{ message: { ...message(1), row: 0 } }])).rejects.toThrow();
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });
});

describe('receive', () => {
  it('asks for up to max visible messages without waiting, with the receive count', async () => {
    sqs.on(ReceiveMessageCommand).resolves({
      Messages: [
        {
          MessageId: 'm1',
          ReceiptHandle: 'r1',
          Body: JSON.stringify(message(1)),
          Attributes: { ApproximateReceiveCount: '3' },
        },
      ],
    });

    expect(await queue.receive(7)).toEqual([{ message: message(1), receipt: 'r1', receiveCount: 3 }]);
    expect(sqs.commandCalls(ReceiveMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      MaxNumberOfMessages: 7,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
    });
  });

  it('returns nothing for an empty queue', async () => {
    sqs.on(ReceiveMessageCommand).resolves({});
    expect(await queue.receive(10)).toEqual([]);
  });

  it('leaves malformed bodies for the dead-letter queue: not returned, not deleted, reported by id', async () => {
    const malformed: { messageId: string; receiveCount: number }[] = [];
    const reporting = createSqsRowQueue({
      client,
      queueUrl: QUEUE_URL,
      onMalformed: (m) => malformed.push(m),
    });
    sqs.on(ReceiveMessageCommand).resolves({
      Messages: [
        {
          MessageId: 'bad-json',
          ReceiptHandle: 'r1',
          Body: '{"batch_id":',
          Attributes: { ApproximateReceiveCount: '2' },
        },
        {
          MessageId: 'bad-shape',
          ReceiptHandle: 'r2',
          Body: '{"batch_id":"b","row":"one"}',
          Attributes: { ApproximateReceiveCount: '1' },
        },
        {
          MessageId: 'good',
          ReceiptHandle: 'r3',
          Body: JSON.stringify(message(9)),
          Attributes: { ApproximateReceiveCount: '1' },
        },
      ],
    });

    expect(await reporting.receive(10)).toEqual([{ message: message(9), receipt: 'r3', receiveCount: 1 }]);
    expect(malformed).toEqual([
      { messageId: 'bad-json', receiveCount: 2 },
      { messageId: 'bad-shape', receiveCount: 1 },
    ]);
    expect(sqs.commandCalls(DeleteMessageCommand)).toHaveLength(0);
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)).toHaveLength(0);
  });

  it('refuses a max outside 1..10 (SQS would)', async () => {
    await expect(queue.receive(0)).rejects.toThrow(RangeError);
    await expect(queue.receive(11)).rejects.toThrow(RangeError);
    expect(sqs.commandCalls(ReceiveMessageCommand)).toHaveLength(0);
  });
});

describe('delete', () => {
  it('deletes by receipt handle', async () => {
    sqs.on(DeleteMessageCommand).resolves({});
    await queue.delete('r1');
    expect(sqs.commandCalls(DeleteMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      ReceiptHandle: 'r1',
    });
  });
});
