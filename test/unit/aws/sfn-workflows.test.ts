/** Step Functions adapters with a mocked client: starting Row workflows, waking the Batch workflow. */
import {
  ExecutionAlreadyExists,
  InvalidToken,
  SendTaskSuccessCommand,
  SFNClient,
  SFNServiceException,
  StartExecutionCommand,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createSfnBatchWaiters,
  createSfnRowWorkflows,
  TaskTokenCallError,
} from '../../../shared/aws/sfn-workflows.js';
import type { RowExecutionInput } from '../../../shared/pipeline/core/records.js';

const ARN = 'arn:aws:states:sa-east-1:123456789012:stateMachine:row';
const NOW = Date.parse('2026-11-21T12:00:00Z');
const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAVERY-SECRET-TOKEN';

const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: 'sa-east-1' });
const workflows = createSfnRowWorkflows({ client, stateMachineArn: ARN, now: () => NOW });
const waiters = createSfnBatchWaiters({ client });

const input: RowExecutionInput = {
  batch_id: 'nightly-abc',
  row: 12,
  attempt: 1,
  dispatch: 2,
  row_key: 'nightly-abc:12',
  holder: 'nightly-abc:12#a1',
};
const meta = { $metadata: { httpStatusCode: 400 } };

beforeEach(() => sfn.reset());

describe('start', () => {
  it('starts an execution with the name and the input as JSON', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(NOW + 40) });
    expect(await workflows.start('nightly-abc-12-a1-d2', input)).toBe('started');
    expect(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input).toEqual({
      stateMachineArn: ARN,
      name: 'nightly-abc-12-a1-d2',
      input: JSON.stringify(input),
    });
  });

  it('reports already_started when an execution of that name exists (ended, or other input)', async () => {
    sfn
      .on(StartExecutionCommand)
      .rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', ...meta }));
    expect(await workflows.start('n', input)).toBe('already_started');
  });

  it('reports already_started when Step Functions returns a running execution started before this call', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(NOW - 60_000) });
    expect(await workflows.start('n', input)).toBe('already_started');
  });

  it('reports started for a start date within clock skew of the call (an SDK retry of this very call)', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(NOW - 2_000) });
    expect(await workflows.start('n', input)).toBe('started');
  });

  it('lets other failures through', async () => {
    sfn.on(StartExecutionCommand).rejects(
      new SFNServiceException({
        name: 'ExecutionLimitExceeded',
        $fault: 'client',
        message: 'limit',
        ...meta,
      }),
    );
    await expect(workflows.start('n', input)).rejects.toThrow('limit');
  });
});

describe('wake', () => {
  it('sends task success with the batch id as output', async () => {
    sfn.on(SendTaskSuccessCommand).resolves({});
    await waiters.wake(TOKEN, { batch_id: 'nightly-abc' });
    expect(sfn.commandCalls(SendTaskSuccessCommand)[0]?.args[0].input).toEqual({
      taskToken: TOKEN,
      output: '{"batch_id":"nightly-abc"}',
    });
  });

  it.each([
    ['TaskTimedOut', new TaskTimedOut({ message: `Task Timed Out: '${TOKEN}'`, ...meta })],
    ['InvalidToken', new InvalidToken({ message: `Invalid Token: '${TOKEN}'`, ...meta })],
    ['TaskDoesNotExist', new TaskDoesNotExist({ message: 'Task does not exist', ...meta })],
  ])('ignores %s: the token is no longer waiting, so waking is idempotent', async (_name, error) => {
    sfn.on(SendTaskSuccessCommand).rejects(error);
    await expect(waiters.wake(TOKEN, { batch_id: 'b' })).resolves.toBeUndefined();
  });

  it('throws other failures without the token anywhere in the error', async () => {
    sfn.on(SendTaskSuccessCommand).rejects(
      new SFNServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        message: `Rate exceeded for token ${TOKEN}`,
        $metadata: { httpStatusCode: 400 },
      }),
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
