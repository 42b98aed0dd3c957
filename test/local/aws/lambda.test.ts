/**
 * Lambda Invoke through the real @aws-sdk/client-lambda (restJson1) into functions
 * registered in this process.
 */
import {
  InvalidRequestContentException,
  InvokeCommand,
  LambdaClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FunctionErrorReport } from '../../../local/aws/lambda.js';
import { type LocalAws, startLocalAws } from '../../../local/aws/local-aws.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** For what the stand-ins do in the background, in real time. */
const WAIT = { timeout: 10_000, interval: 20 };
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const parsed = (payload: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(payload)) as unknown;

describe('Lambda stand-in', () => {
  let aws: LocalAws;
  let lambda: LambdaClient;

  beforeEach(async () => {
    aws = await startLocalAws({ log: 'silent' });
    lambda = new LambdaClient({ endpoint: aws.endpoint, region: aws.region, credentials });
  });

  afterEach(async () => {
    lambda.destroy();
    await aws.close();
  });

  it('answers a RequestResponse invoke with the function result and context', async () => {
    // Prepare
    const arn = aws.registerFunction('dispatch-rows', async (event, context) => ({
      echoed: event,
      functionName: context.functionName,
      invocationType: context.invocationType,
    }));

    // Act
    const byName = await lambda.send(
      new InvokeCommand({ FunctionName: 'dispatch-rows', Payload: json({ kick: 1 }) }),
    );
    const byArn = await lambda.send(new InvokeCommand({ FunctionName: arn, Payload: json({ kick: 2 }) }));

    // Assess
    expect(arn).toBe('arn:aws:lambda:us-east-1:000000000000:function:dispatch-rows');
    expect(byName.StatusCode).toBe(200);
    expect(byName.FunctionError).toBeUndefined();
    expect(parsed(byName.Payload)).toEqual({
      echoed: { kick: 1 },
      functionName: 'dispatch-rows',
      invocationType: 'RequestResponse',
    });
    expect(parsed(byArn.Payload)).toMatchObject({ echoed: { kick: 2 } });
  });

  it('returns 202 for an Event invoke and runs the function in the background', async () => {
    const seen: unknown[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    aws.registerFunction('dispatch-rows', async (event) => {
      await released; // still running when Invoke has answered
      seen.push(event);
    });

    const response = await lambda.send(
      new InvokeCommand({
        FunctionName: 'dispatch-rows',
        InvocationType: 'Event',
        Payload: json({ kick: true }),
      }),
    );
    expect(response.StatusCode).toBe(202);
    expect(seen).toEqual([]);

    release();
    await vi.waitFor(() => expect(seen, 'the background invocation').toHaveLength(1), WAIT);
    expect(seen).toEqual([{ kick: true }]);
  });

  it('reports a thrown error as Unhandled, as Lambda does, without failing the call', async () => {
    aws.registerFunction('row-submit', async () => {
      throw new TypeError('row 7 has no description');
    });

    const response = await lambda.send(new InvokeCommand({ FunctionName: 'row-submit', Payload: json({}) }));

    expect(response.StatusCode).toBe(200);
    expect(response.FunctionError).toBe('Unhandled');
    expect(parsed(response.Payload)).toMatchObject({
      errorType: 'TypeError',
      errorMessage: 'row 7 has no description',
    });
  });

  it('hands the error of a failed Event invoke to onFunctionError and keeps serving', async () => {
    const reports: FunctionErrorReport[] = [];
    aws.onFunctionError((report) => reports.push(report));
    aws.registerFunction('row-complete', async () => {
      throw new Error('crashed mid-row');
    });
    aws.registerFunction('ping', async () => 'pong');

    await lambda.send(new InvokeCommand({ FunctionName: 'row-complete', InvocationType: 'Event' }));
    await vi.waitFor(() => expect(reports, 'the error report').toHaveLength(1), WAIT);
    const after = await lambda.send(new InvokeCommand({ FunctionName: 'ping' }));

    expect(reports[0]).toMatchObject({ functionName: 'row-complete', invocationType: 'Event' });
    expect(reports[0]?.error).toEqual(new Error('crashed mid-row'));
    expect(parsed(after.Payload)).toBe('pong');
  });

  it('raises ResourceNotFoundException for an unknown function and InvalidRequestContentException for bad JSON', async () => {
    aws.registerFunction('known', async () => null);

    const missing = await lambda
      .send(new InvokeCommand({ FunctionName: 'unknown-function' }))
      .catch((caught: unknown) => caught);
    const badJson = await lambda
      .send(new InvokeCommand({ FunctionName: 'known', Payload: new TextEncoder().encode('{not json') }))
      .catch((caught: unknown) => caught);

    expect(missing).toBeInstanceOf(ResourceNotFoundException);
    expect((missing as ResourceNotFoundException).$metadata.httpStatusCode).toBe(404);
    expect((missing as ResourceNotFoundException).message).toContain('function:unknown-function');
    expect(badJson).toBeInstanceOf(InvalidRequestContentException);
  });
});
