/**
 * The shared server: routing, close, and what never reaches the log.
 */
import { connect } from 'node:net';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ListExecutionsCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it, vi } from 'vitest';
import { startLocalAws } from '../../../local/aws/local-aws.js';
import type { LocalAwsLog } from '../../../local/aws/log.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

const portIsClosed = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('local AWS server', () => {
  it('leaves nothing listening after close, even with a long poll and a kept-alive connection open', async () => {
    // Prepare
    const events: string[] = [];
    const aws = await startLocalAws({ log: (_level, event) => void events.push(event) });
    const sqs = new SQSClient({ endpoint: aws.endpoint, region: aws.region, credentials });
    const QueueUrl = aws.createQueue('rows');
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'kept alive' }));
    await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
    const pendingPoll = sqs
      .send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }))
      .catch((error: unknown) => error);
    await vi.waitFor(() => expect(events, 'the long poll to wait').toContain('sqs long poll waiting'), {
      timeout: 10_000,
      interval: 20,
    });

    // Act: close, with a timer armed at the same moment. close() ends the long poll and drops the
    // kept-alive connection itself, so it settles within the event-loop turn it is called in:
    // before that timer can fire, however busy the machine (even when it is overdue by then).
    // Had close() waited for the poll's 20 s or for the connection's keep-alive timeout, it
    // could only settle once some timer had fired, and this one fires first.
    let timerFired = false;
    const timer = setTimeout(() => {
      timerFired = true;
    }, 0);
    await aws.close();
    clearTimeout(timer);

    // Assess
    expect(timerFired).toBe(false);
    expect(await portIsClosed(aws.port)).toBe(true);
    expect(await pendingPoll).toBeInstanceOf(Error);
    sqs.destroy();
  });

  it('reaches every stand-in through the AWS_ENDPOINT_URL_<SERVICE> variables it hands out', async () => {
    // Prepare: clients built with no endpoint, as handler code builds them.
    const aws = await startLocalAws({ log: 'silent' });
    const environment = aws.endpointEnvironment();
    const saved = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));
    Object.assign(process.env, environment);
    const config = { region: aws.region, credentials };
    const clients = {
      sqs: new SQSClient(config),
      lambda: new LambdaClient(config),
      sfn: new SFNClient(config),
      secrets: new SecretsManagerClient(config),
      events: new EventBridgeClient(config),
      sns: new SNSClient(config),
    };
    try {
      aws.registerFunction('ping', async () => 'pong');
      const TopicArn = `arn:aws:sns:${aws.region}:${aws.accountId}:notices`;
      aws.createTopic(TopicArn);
      aws.registerStateMachine(aws.stateMachineArn('Row'), async () => ({}));
      aws.putSecret('key', 'value');

      // Act
      const QueueUrl = aws.createQueue('rows');
      const sent = await clients.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x' }));
      const invoked = await clients.lambda.send(new InvokeCommand({ FunctionName: 'ping' }));
      const listed = await clients.sfn.send(
        new ListExecutionsCommand({ stateMachineArn: aws.stateMachineArn('Row') }),
      );
      const secret = await clients.secrets.send(new GetSecretValueCommand({ SecretId: 'key' }));
      const put = await clients.events.send(
        new PutEventsCommand({ Entries: [{ Source: 's', DetailType: 'd', Detail: '{}' }] }),
      );
      const published = await clients.sns.send(
        new PublishCommand({
          TopicArn,
          Subject: 'Lote 7 terminado',
          Message: 'O lote 7 terminou: 3 linhas, ação concluída',
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'batch_finished' } },
        }),
      );
      // SNS's own refusals, in its Query protocol's error shape: an unknown topic, a subject not ASCII.
      await expect(
        clients.sns.send(new PublishCommand({ TopicArn: `${TopicArn}-other`, Message: 'x' })),
      ).rejects.toMatchObject({ name: 'NotFoundException' });
      await expect(
        clients.sns.send(new PublishCommand({ TopicArn, Subject: 'Lote 7: ação', Message: 'x' })),
      ).rejects.toMatchObject({ name: 'InvalidParameterException' });

      // Assess
      expect(Object.keys(environment).sort()).toEqual([
        'AWS_ENDPOINT_URL_EVENTBRIDGE',
        'AWS_ENDPOINT_URL_LAMBDA',
        'AWS_ENDPOINT_URL_SECRETS_MANAGER',
        'AWS_ENDPOINT_URL_SFN',
        'AWS_ENDPOINT_URL_SNS',
        'AWS_ENDPOINT_URL_SQS',
      ]);
      expect(sent.MessageId).toBeDefined();
      expect(new TextDecoder().decode(invoked.Payload)).toBe('"pong"');
      expect(listed.executions).toEqual([]);
      expect(secret.SecretString).toBe('value');
      expect(put.FailedEntryCount).toBe(0);
      expect(aws.events()).toHaveLength(1);
      expect(aws.published()).toEqual([
        {
          messageId: published.MessageId,
          topicArn: TopicArn,
          subject: 'Lote 7 terminado',
          message: 'O lote 7 terminou: 3 linhas, ação concluída',
          attributes: { kind: 'batch_finished' },
        },
      ]);
    } finally {
      for (const client of Object.values(clients)) client.destroy();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await aws.close();
    }
  });

  it('answers an operation it does not emulate with UnknownOperationException', async () => {
    const aws = await startLocalAws({ log: 'silent' });
    try {
      const response = await fetch(aws.endpoint, {
        method: 'POST',
        headers: {
          'x-amz-target': 'AmazonSQS.StartMessageMoveTask',
          'content-type': 'application/x-amz-json-1.0',
        },
        body: '{}',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ __type: 'UnknownOperationException' });
    } finally {
      await aws.close();
    }
  });

  it('never logs message bodies, secret values, task tokens or payloads, at any level', async () => {
    // Prepare
    const lines: string[] = [];
    const log: LocalAwsLog = (level, event, fields) => {
      lines.push(JSON.stringify({ level, event, ...fields }));
    };
    const aws = await startLocalAws({ log });
    const clients = {
      sqs: new SQSClient({ endpoint: aws.endpoint, region: aws.region, credentials }),
      secrets: new SecretsManagerClient({ endpoint: aws.endpoint, region: aws.region, credentials }),
      sfn: new SFNClient({ endpoint: aws.endpoint, region: aws.region, credentials }),
      lambda: new LambdaClient({ endpoint: aws.endpoint, region: aws.region, credentials }),
    };
    try {
      // Act
      const QueueUrl = aws.createQueue('rows');
      await clients.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'BODY-SENTINEL' }));
      await clients.sqs.send(new ReceiveMessageCommand({ QueueUrl }));
      aws.putSecret('key', 'SECRET-SENTINEL');
      await clients.secrets.send(new GetSecretValueCommand({ SecretId: 'key' }));
      const taskToken = aws.createTaskToken(
        () => undefined,
        () => undefined,
      );
      await clients.sfn.send(new SendTaskSuccessCommand({ taskToken, output: '{"o":"OUTPUT-SENTINEL"}' }));
      await clients.sfn.send(new SendTaskSuccessCommand({ taskToken, output: '{}' })).catch(() => undefined);
      aws.registerFunction('fails', async () => {
        throw new Error('boom');
      });
      await clients.lambda.send(
        new InvokeCommand({ FunctionName: 'fails', Payload: new TextEncoder().encode('"PAYLOAD-SENTINEL"') }),
      );

      // Assess
      const text = lines.join('\n');
      expect(lines.length).toBeGreaterThan(5);
      for (const sentinel of [
        'BODY-SENTINEL',
        'SECRET-SENTINEL',
        'OUTPUT-SENTINEL',
        'PAYLOAD-SENTINEL',
        taskToken,
      ]) {
        expect(text).not.toContain(sentinel);
      }
    } finally {
      for (const client of Object.values(clients)) client.destroy();
      await aws.close();
    }
  });
});
