/** The dispatcher kick with a mocked Lambda client: best effort, never failing its caller. */
import { InvokeCommand, LambdaClient, TooManyRequestsException } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLambdaDispatcherKick } from '../../../shared/aws/lambda-dispatcher-kick.js';

const lambda = mockClient(LambdaClient);
const client = new LambdaClient({ region: 'sa-east-1' });

beforeEach(() => lambda.reset());
afterEach(() => vi.restoreAllMocks());

describe('kick', () => {
  it('invokes the dispatcher asynchronously with {"source":"kick"} and the reason', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    const errors: unknown[] = [];
    await createLambdaDispatcherKick({
      client,
      functionName: 'dispatch-rows',
      onError: (e) => errors.push(e),
    }).kick('slot_freed');

    const input = lambda.commandCalls(InvokeCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ FunctionName: 'dispatch-rows', InvocationType: 'Event' });
    expect(JSON.parse(new TextDecoder().decode(input?.Payload as Uint8Array))).toEqual({
      source: 'kick',
      reason: 'slot_freed',
    });
    expect(errors).toEqual([]);
  });

  it('swallows a failed invoke and reports it to onError', async () => {
    lambda
      .on(InvokeCommand)
      .rejects(
        new TooManyRequestsException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 } }),
      );
    const errors: unknown[] = [];
    const kick = createLambdaDispatcherKick({ client, functionName: 'f', onError: (e) => errors.push(e) });
    await expect(kick.kick('rows_queued')).resolves.toBeUndefined();
    expect(errors).toEqual([{ name: 'TooManyRequestsException', message: 'Rate exceeded' }]);
  });

  it('reports an answer other than 202 as a failure', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200 });
    const errors: unknown[] = [];
    await createLambdaDispatcherKick({ client, functionName: 'f', onError: (e) => errors.push(e) }).kick(
      'rows_queued',
    );
    expect(errors).toEqual([{ name: 'UnexpectedStatus', message: 'Invoke answered 200' }]);
  });

  it('warns on the console when no onError is given', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    lambda.on(InvokeCommand).rejects(new Error('socket hang up'));
    await createLambdaDispatcherKick({ client, functionName: 'f' }).kick('slot_freed');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(warn.mock.calls[0]?.[0]))).toEqual({
      level: 'WARN',
      message: 'dispatcher kick failed',
      error: { name: 'Error', message: 'socket hang up' },
    });
  });
});
