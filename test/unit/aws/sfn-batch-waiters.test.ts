/**
 * Waking a waiting workflow (shared/aws/sfn-batch-waiters.ts) with the requests to Step Functions
 * stood in for: what is sent, what is idempotent, and errors that never hold the token.
 * (test/contract/step-functions.contract.test.ts wakes the local Step Functions stand-in.)
 */
import { describe, expect, it } from 'vitest';
import { createSfnBatchWaiters, TaskTokenCallError } from '../../../shared/aws/sfn-batch-waiters.js';
import { AwsRequestError, type AwsRequester } from '../../../shared/aws/signed-requests.js';

const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAVERY-SECRET-TOKEN';

type Sent = Parameters<AwsRequester>[0];

/** Requests to Step Functions that keep what they were sent and answer 200, or throw `error`. */
const stepFunctions = (error?: AwsRequestError) => {
  const sent: Sent[] = [];
  const sfn: AwsRequester = async (request) => {
    sent.push(request);
    if (error) throw error;
    return new Response('{}', { status: 200 });
  };
  return { sent, waiters: createSfnBatchWaiters({ sfn }) };
};

describe('wake', () => {
  it('sends task success with the batch id as output', async () => {
    const { sent, waiters } = stepFunctions();
    await waiters.wake(TOKEN, { batch_id: 'nightly-abc' });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers).toMatchObject({ 'x-amz-target': 'AWSStepFunctions.SendTaskSuccess' });
    expect(JSON.parse(String(sent[0]?.body))).toEqual({
      taskToken: TOKEN,
      output: '{"batch_id":"nightly-abc"}',
    });
  });

  it.each([
    ['TaskTimedOut', `Task Timed Out: '${TOKEN}'`],
    ['InvalidToken', `Invalid Token: '${TOKEN}'`],
    ['TaskDoesNotExist', 'Task does not exist'],
  ])('ignores %s: the token is no longer waiting, so waking is idempotent', async (name, message) => {
    const { waiters } = stepFunctions(new AwsRequestError(name, message, 400, null));
    await expect(waiters.wake(TOKEN, { batch_id: 'b' })).resolves.toBeUndefined();
  });

  it('throws other failures without the token anywhere in the error', async () => {
    const { waiters } = stepFunctions(
      new AwsRequestError('ThrottlingException', `Rate exceeded for token ${TOKEN}`, 400, 'req-1'),
    );
    const error = await waiters.wake(TOKEN, { batch_id: 'b' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskTokenCallError);
    expect(error).toMatchObject({ errorName: 'ThrottlingException', httpStatusCode: 400 });
    expect((error as Error).message).toBe('SendTaskSuccess failed: ThrottlingException (HTTP 400)');
    const everything = [
      String(error),
      (error as Error).stack,
      JSON.stringify(error),
      String((error as Error).cause),
    ];
    expect(everything.join('\n')).not.toContain('SECRET');
  });
});
