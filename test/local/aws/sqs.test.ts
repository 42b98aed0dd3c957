/**
 * The SQS stand-in driven by the real @aws-sdk/client-sqs (JSON 1.0 protocol, MD5 checks
 * on). Time-based rules are exercised by moving the stand-in's clock, not by waiting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  PurgeQueueCommand,
  QueueDoesNotExist,
  QueueNameExists,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LocalAws, startLocalAws } from '../../../local/aws/local-aws.js';
import type { LocalAwsLog } from '../../../local/aws/log.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const sqsClient = (aws: LocalAws) =>
  new SQSClient({ endpoint: aws.endpoint, region: aws.region, credentials });

const counts = async (sqs: SQSClient, QueueUrl: string) => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    notVisible: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
    delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed),
  };
};

describe('SQS stand-in', () => {
  let aws: LocalAws;
  let sqs: SQSClient;
  let logged: { event: string; fields: Record<string, unknown> }[];
  const log: LocalAwsLog = (_level, event, fields = {}) => {
    logged.push({ event, fields });
  };
  /** Until the stand-in says a receive on `queue` is waiting: then a send tests the wake-up. */
  const longPollWaiting = (queue: string, count = 1) =>
    vi.waitFor(
      () =>
        expect(
          logged.filter((entry) => entry.event === 'sqs long poll waiting' && entry.fields.queue === queue)
            .length,
          `a long poll on ${queue}`,
        ).toBeGreaterThanOrEqual(count),
      { timeout: 5_000, interval: 20 },
    );

  beforeEach(async () => {
    logged = [];
    aws = await startLocalAws({ log });
    sqs = sqsClient(aws);
  });

  afterEach(async () => {
    vi.useRealTimers(); // also after a test that timed out with its timers frozen
    sqs.destroy();
    await aws.close();
  });

  it('sends, receives and deletes a message, with the body checksums the SDK validates', async () => {
    // Prepare
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'rows' }));
    const body = JSON.stringify({ description: 'Café torrado em grão, 1 kg — exportação 🇧🇷' });

    // Act
    const beforeSend = aws.clock.now();
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
    const afterSend = aws.clock.now();
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: 10,
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
      }),
    );

    // Assess
    expect(QueueUrl).toBe(`${aws.endpoint}/000000000000/rows`);
    expect(Messages).toHaveLength(1);
    const [message] = Messages ?? [];
    expect(message?.MessageId).toBe(sent.MessageId);
    expect(message?.Body).toBe(body);
    expect(message?.Attributes?.ApproximateReceiveCount).toBe('1');
    // Stamped by the stand-in's clock while the send was under way.
    expect(Number(message?.Attributes?.SentTimestamp)).toBeGreaterThanOrEqual(beforeSend);
    expect(Number(message?.Attributes?.SentTimestamp)).toBeLessThanOrEqual(afterSend);
    expect(await counts(sqs, QueueUrl!)).toEqual({ visible: 0, notVisible: 1, delayed: 0 });

    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message?.ReceiptHandle }));
    expect(await counts(sqs, QueueUrl!)).toEqual({ visible: 0, notVisible: 0, delayed: 0 });
  });

  it('carries message attributes with the MD5OfMessageAttributes SQS computes', async () => {
    const QueueUrl = aws.createQueue('attributes');
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'with attributes',
        MessageAttributes: { SellerName: { DataType: 'String', StringValue: 'Example Store' } },
      }),
    );
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ['All'] }),
    );

    // The digest other SQS implementations publish for this attribute.
    expect(sent.MD5OfMessageAttributes).toBe('cd28f3b68aeee4b2eac9c66f2f694b58');
    expect(Messages?.[0]?.MessageAttributes).toEqual({
      SellerName: { DataType: 'String', StringValue: 'Example Store' },
    });
    expect(Messages?.[0]?.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
  });

  it('raises QueueDoesNotExist for an unknown queue, as the SDK maps the query error header', async () => {
    const error = await sqs
      .send(new SendMessageCommand({ QueueUrl: `${aws.endpoint}/000000000000/missing`, MessageBody: 'x' }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QueueDoesNotExist);
    expect((error as QueueDoesNotExist).$metadata.httpStatusCode).toBe(400);

    const byName = await sqs
      .send(new GetQueueUrlCommand({ QueueName: 'missing' }))
      .catch((caught: unknown) => caught);
    expect(byName).toBeInstanceOf(QueueDoesNotExist);
  });

  it('returns the existing queue for the same attributes and refuses different ones', async () => {
    const first = await sqs.send(
      new CreateQueueCommand({ QueueName: 'q', Attributes: { VisibilityTimeout: '60' } }),
    );
    const again = await sqs.send(
      new CreateQueueCommand({ QueueName: 'q', Attributes: { VisibilityTimeout: '60' } }),
    );
    const different = await sqs
      .send(new CreateQueueCommand({ QueueName: 'q', Attributes: { VisibilityTimeout: '10' } }))
      .catch((caught: unknown) => caught);

    expect(again.QueueUrl).toBe(first.QueueUrl);
    expect(different).toBeInstanceOf(QueueNameExists);
  });

  it('delays batch entries by their own DelaySeconds until the clock reaches them', async () => {
    // Prepare: received messages stay in flight for the whole test.
    const QueueUrl = aws.createQueue('delayed', { VisibilityTimeout: '3600' });

    // Act
    const batch = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'now', MessageBody: 'now ✓' },
          { Id: 'half-minute', MessageBody: 'after 30 s', DelaySeconds: 30 },
          { Id: 'two-minutes', MessageBody: 'after 120 s', DelaySeconds: 120 },
        ],
      }),
    );
    const receiveBodies = async () =>
      ((await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages ?? []).map(
        (message) => message.Body,
      );

    // Assess
    expect(batch.Successful?.map((entry) => entry.Id).sort()).toEqual(['half-minute', 'now', 'two-minutes']);
    expect(batch.Failed ?? []).toEqual([]);
    expect(await counts(sqs, QueueUrl)).toEqual({ visible: 1, notVisible: 0, delayed: 2 });
    expect(await receiveBodies()).toEqual(['now ✓']);
    aws.clock.advance(29_000);
    expect(await receiveBodies()).toEqual([]);
    aws.clock.advance(1_000);
    expect(await receiveBodies()).toEqual(['after 30 s']);
    aws.clock.advance(90_000);
    expect(await receiveBodies()).toEqual(['after 120 s']);
  });

  it('reports a bad batch entry in Failed and sends the others', async () => {
    const QueueUrl = aws.createQueue('mixed');
    const batch = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'good', MessageBody: 'fine' },
          { Id: 'bad', MessageBody: 'nul \u0000 inside' },
        ],
      }),
    );
    expect(batch.Successful?.map((entry) => entry.Id)).toEqual(['good']);
    expect(batch.Failed).toEqual([
      expect.objectContaining({ Id: 'bad', SenderFault: true, Code: 'InvalidMessageContents' }),
    ]);
  });

  it('returns a message when its visibility timeout runs out, with a new receipt handle and count', async () => {
    // Prepare
    const QueueUrl = aws.createQueue('visibility', { VisibilityTimeout: '30' });
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'row 1' }));
    const receive = () =>
      sqs.send(
        new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 10, MessageSystemAttributeNames: ['All'] }),
      );

    // Act
    const first = (await receive()).Messages?.[0];
    const whileInvisible = (await receive()).Messages ?? [];
    aws.clock.advance(10_000);
    const second = (await receive()).Messages?.[0];

    // Assess
    expect(first?.Body).toBe('row 1');
    expect(whileInvisible).toEqual([]);
    expect(second?.MessageId).toBe(first?.MessageId);
    expect(second?.ReceiptHandle).not.toBe(first?.ReceiptHandle);
    expect(second?.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(second?.Attributes?.ApproximateFirstReceiveTimestamp).toBe(
      first?.Attributes?.ApproximateFirstReceiveTimestamp,
    );

    // A stale handle is accepted without deleting (SQS: "the message might not be deleted").
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first?.ReceiptHandle }));
    expect(await counts(sqs, QueueUrl)).toEqual({ visible: 0, notVisible: 1, delayed: 0 });
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: second?.ReceiptHandle }));
    expect(await counts(sqs, QueueUrl)).toEqual({ visible: 0, notVisible: 0, delayed: 0 });
    // Deleting what is gone is accepted too.
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: second?.ReceiptHandle }));
  });

  it('changes visibility with the latest receipt only', async () => {
    const QueueUrl = aws.createQueue('release');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
    const first = (await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages?.[0];

    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: first?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const again = (await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages?.[0];
    const stale = await sqs
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: first?.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      )
      .catch((caught: unknown) => caught);
    const garbage = await sqs
      .send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: 'not-a-handle' }))
      .catch((caught: unknown) => caught);

    expect(again?.MessageId).toBe(first?.MessageId);
    expect(stale).toBeInstanceOf(SQSServiceException);
    expect((stale as SQSServiceException).name).toBe('InvalidParameterValue');
    expect((garbage as SQSServiceException).name).toBe('ReceiptHandleIsInvalid');
  });

  it('moves a message to the dead-letter queue on the receive after maxReceiveCount', async () => {
    // Prepare
    const deadLetterUrl = aws.createQueue('rows-dlq');
    const QueueUrl = aws.createQueue('rows', {
      VisibilityTimeout: '60',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: aws.queueArn('rows-dlq'), maxReceiveCount: 2 }),
    });
    const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'poison' }));
    const receive = async (url: string) =>
      (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? [];

    // Act
    const first = await receive(QueueUrl);
    aws.clock.advance(60_000);
    const second = await receive(QueueUrl);
    aws.clock.advance(60_000);
    const third = await receive(QueueUrl);
    const dead = await receive(deadLetterUrl);

    // Assess
    expect(first.map((message) => message.MessageId)).toEqual([MessageId]);
    expect(second.map((message) => message.MessageId)).toEqual([MessageId]);
    expect(third).toEqual([]);
    expect(dead.map((message) => [message.MessageId, message.Body])).toEqual([[MessageId, 'poison']]);
    expect(await counts(sqs, QueueUrl)).toEqual({ visible: 0, notVisible: 0, delayed: 0 });
  });

  it('answers a long poll as soon as a message is sent meanwhile', async () => {
    // Timers frozen: the poll can neither end at its 10 s nor look again on a timer of its own,
    // so only the send can answer it (were the wake-up missing, it would never answer).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const QueueUrl = aws.createQueue('long-poll');
    const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 10 }));
    // The receive must be waiting before the send for this to test the wake-up, not a short poll.
    await longPollWaiting('long-poll');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'wake up' }));

    const { Messages } = await polling;
    expect(Messages?.map((message) => message.Body)).toEqual(['wake up']);
  });

  it('ends a long poll with a delayed message when the clock reaches it, and empty at its deadline', async () => {
    // Timers frozen, as above: only the clock's jump can answer these polls, not their 20 s.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const QueueUrl = aws.createQueue('long-poll-delay');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'later', DelaySeconds: 300 }));

    const waiting = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
    await longPollWaiting('long-poll-delay');
    aws.clock.advance(300_000);
    const delivered = await waiting;

    const empty = sqs.send(
      new ReceiveMessageCommand({ QueueUrl: aws.createQueue('idle'), WaitTimeSeconds: 20 }),
    );
    await longPollWaiting('idle');
    aws.clock.advance(20_000);
    const nothing = await empty;

    expect(delivered.Messages?.map((message) => message.Body)).toEqual(['later']);
    expect(nothing.Messages ?? []).toEqual([]);
  });

  it('purges a queue and deletes in batches', async () => {
    const QueueUrl = aws.createQueue('batch-delete');
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [1, 2, 3].map((n) => ({ Id: `m${n}`, MessageBody: `m${n}` })),
      }),
    );
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 2 }));
    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: [
          ...Messages.map((message, index) => ({ Id: `d${index}`, ReceiptHandle: message.ReceiptHandle })),
          { Id: 'bogus', ReceiptHandle: 'garbage' },
        ],
      }),
    );
    expect(deleted.Successful?.map((entry) => entry.Id)).toEqual(['d0', 'd1']);
    expect(deleted.Failed?.map((entry) => [entry.Id, entry.Code])).toEqual([
      ['bogus', 'ReceiptHandleIsInvalid'],
    ]);
    expect(await counts(sqs, QueueUrl)).toEqual({ visible: 1, notVisible: 0, delayed: 0 });

    await sqs.send(new PurgeQueueCommand({ QueueUrl }));
    expect(await counts(sqs, QueueUrl)).toEqual({ visible: 0, notVisible: 0, delayed: 0 });
  });

  it('is reached through AWS_ENDPOINT_URL_SQS with no endpoint in the client', async () => {
    const saved = process.env.AWS_ENDPOINT_URL_SQS;
    process.env.AWS_ENDPOINT_URL_SQS = aws.endpointEnvironment().AWS_ENDPOINT_URL_SQS;
    const fromEnvironment = new SQSClient({ region: aws.region, credentials });
    try {
      const { QueueUrl } = await fromEnvironment.send(new CreateQueueCommand({ QueueName: 'env' }));
      await fromEnvironment.send(new SendMessageCommand({ QueueUrl, MessageBody: 'via env' }));
      expect(await counts(sqs, QueueUrl!)).toEqual({ visible: 1, notVisible: 0, delayed: 0 });
    } finally {
      fromEnvironment.destroy();
      if (saved === undefined) delete process.env.AWS_ENDPOINT_URL_SQS;
      else process.env.AWS_ENDPOINT_URL_SQS = saved;
    }
  });
});

describe('SQS stand-in retention', () => {
  it("deletes a message once the queue's retention has passed since its send, received or not", async () => {
    // Prepare: retention read from the queue, as the template sets it (14 days).
    const aws = await startLocalAws({ log: 'silent' });
    const sqs = sqsClient(aws);
    try {
      const QueueUrl = aws.createQueue('kept', {
        MessageRetentionPeriod: '1209600',
        VisibilityTimeout: '60',
      });
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'old, in flight' }));
      await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
      aws.clock.advance(7 * 86_400_000);
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'a week younger' }));

      // Act: the first message's 14 days are up; the second has a week left.
      aws.clock.advance(7 * 86_400_000);
      const afterFourteenDays = await counts(sqs, QueueUrl);
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));

      // Assess
      expect(afterFourteenDays).toEqual({ visible: 1, notVisible: 0, delayed: 0 });
      expect(received.Messages?.map((message) => message.Body)).toEqual(['a week younger']);
    } finally {
      sqs.destroy();
      await aws.close();
    }
  });

  it('scales the retention by the time scale, as the local runtime scales its Waits and timeouts', async () => {
    // Prepare: 14 days of retention at a time scale of 1/100,000 last about 12 s of the clock.
    const aws = await startLocalAws({ log: 'silent', timeScale: 1e-5 });
    const sqs = sqsClient(aws);
    try {
      const QueueUrl = aws.createQueue('scaled', { MessageRetentionPeriod: '1209600' });
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'waits' }));

      // Act
      aws.clock.advance(12_000);
      const before = await counts(sqs, QueueUrl);
      aws.clock.advance(96);
      const after = await counts(sqs, QueueUrl);
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));

      // Assess: 1,209,600 s × 1e-5 = 12.096 s
      expect(before).toEqual({ visible: 1, notVisible: 0, delayed: 0 });
      expect(after).toEqual({ visible: 0, notVisible: 0, delayed: 0 });
      expect(received.Messages ?? []).toEqual([]);
    } finally {
      sqs.destroy();
      await aws.close();
    }
  });

  it('refuses a time scale that is not a number above 0', async () => {
    await expect(startLocalAws({ log: 'silent', timeScale: 0 })).rejects.toThrow(/timeScale/);
  });
});

describe('SQS stand-in persistence', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'local-aws-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps queues, messages and in-flight receipts across a restart', async () => {
    // Prepare: one message waiting, one in flight.
    const before = await startLocalAws({ dataDir, log: 'silent' });
    const sqsBefore = sqsClient(before);
    const queueUrlBefore = before.createQueue('rows', { VisibilityTimeout: '600' });
    await sqsBefore.send(new SendMessageCommand({ QueueUrl: queueUrlBefore, MessageBody: 'first' }));
    const inFlight = (await sqsBefore.send(new ReceiveMessageCommand({ QueueUrl: queueUrlBefore })))
      .Messages?.[0];
    await sqsBefore.send(new SendMessageCommand({ QueueUrl: queueUrlBefore, MessageBody: 'second' }));
    sqsBefore.destroy();
    await before.close();

    // Act
    const after = await startLocalAws({ dataDir, log: 'silent' });
    const sqsAfter = sqsClient(after);
    try {
      const { QueueUrl } = await sqsAfter.send(new GetQueueUrlCommand({ QueueName: 'rows' }));
      const countsAfter = await counts(sqsAfter, QueueUrl!);
      const waiting = (await sqsAfter.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 })))
        .Messages;
      const bothInFlight = await counts(sqsAfter, QueueUrl!);
      await sqsAfter.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: inFlight?.ReceiptHandle }));

      // Assess
      expect(QueueUrl).toBe(`${after.endpoint}/000000000000/rows`);
      expect(countsAfter).toEqual({ visible: 1, notVisible: 1, delayed: 0 });
      expect(waiting?.map((message) => message.Body)).toEqual(['second']);
      expect(inFlight?.Body).toBe('first');
      // The receipt from before the restart still deletes its message.
      expect(bothInFlight).toEqual({ visible: 0, notVisible: 2, delayed: 0 });
      expect(await counts(sqsAfter, QueueUrl!)).toEqual({ visible: 0, notVisible: 1, delayed: 0 });
    } finally {
      sqsAfter.destroy();
      await after.close();
    }
  });
});
