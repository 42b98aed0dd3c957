/**
 * Step Functions through the real @aws-sdk/client-sfn (JSON 1.0): execution bookkeeping
 * around a pluggable runner, and the task-token calls.
 */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  InvalidName,
  InvalidToken,
  ListExecutionsCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LocalAws, startLocalAws } from '../../../local/aws/local-aws.js';
import type { ExecutionRecord, StartedExecution, TaskFailure } from '../../../local/aws/step-functions.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** For what the stand-ins do in the background, in real time. */
const WAIT = { timeout: 10_000, interval: 20 };

/** A runner that holds each execution until the test settles it. */
const controllableRunner = () => {
  const started: StartedExecution[] = [];
  const settle = new Map<string, { resolve: (output: unknown) => void; reject: (reason: unknown) => void }>();
  return {
    started,
    runner: (execution: StartedExecution) =>
      new Promise<unknown>((resolve, reject) => {
        started.push(execution);
        settle.set(execution.name, { resolve, reject });
      }),
    succeed: (name: string, output: unknown) => settle.get(name)?.resolve(output),
    fail: (name: string, reason: unknown) => settle.get(name)?.reject(reason),
  };
};

describe('Step Functions stand-in', () => {
  let aws: LocalAws;
  let sfn: SFNClient;
  let rowWorkflow: string;
  let runs: ReturnType<typeof controllableRunner>;
  let ended: ExecutionRecord[];

  beforeEach(async () => {
    aws = await startLocalAws({ log: 'silent' });
    sfn = new SFNClient({ endpoint: aws.endpoint, region: aws.region, credentials });
    rowWorkflow = aws.stateMachineArn('RowWorkflow');
    runs = controllableRunner();
    aws.registerStateMachine(rowWorkflow, runs.runner);
    ended = [];
    aws.onExecutionEnded((execution) => ended.push(execution));
  });

  afterEach(async () => {
    sfn.destroy();
    await aws.close();
  });

  it('starts an execution once per name: same input returns it, different input is ExecutionAlreadyExists', async () => {
    // Prepare
    const input = JSON.stringify({ batch_id: 'b1', row: 7 });

    // Act
    const first = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'b1-r7-a1', input }),
    );
    const repeated = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'b1-r7-a1', input }),
    );
    const conflicting = await sfn
      .send(new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'b1-r7-a1', input: '{"row":8}' }))
      .catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(runs.started, 'the runner to start').toHaveLength(1), WAIT);

    // Assess
    expect(first.executionArn).toBe('arn:aws:states:us-east-1:000000000000:execution:RowWorkflow:b1-r7-a1');
    expect(repeated.executionArn).toBe(first.executionArn);
    expect(repeated.startDate?.getTime()).toBe(first.startDate?.getTime());
    expect(conflicting).toBeInstanceOf(ExecutionAlreadyExists);
    expect(runs.started).toHaveLength(1);
    expect(runs.started[0]).toMatchObject({ name: 'b1-r7-a1', input: { batch_id: 'b1', row: 7 } });
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn: first.executionArn }));
    expect(described.status).toBe('RUNNING');
    expect(described.input).toBe(input);
  });

  it('records the output of a finished execution, tells the listener, and refuses its name afterwards', async () => {
    const input = '{"row":1}';
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'done-once', input }),
    );
    await vi.waitFor(() => expect(runs.started, 'the runner to start').toHaveLength(1), WAIT);

    runs.succeed('done-once', { outcome: 'stored' });
    await vi.waitFor(() => expect(ended, 'the end listener').toHaveLength(1), WAIT);
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    const restart = await sfn
      .send(new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'done-once', input }))
      .catch((caught: unknown) => caught);

    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output ?? 'null')).toEqual({ outcome: 'stored' });
    expect(described.stopDate).toBeInstanceOf(Date);
    expect(ended[0]).toMatchObject({ executionArn, status: 'SUCCEEDED', output: '{"outcome":"stored"}' });
    // AWS: "If the execution is closed … it returns a 400 ExecutionAlreadyExists error."
    expect(restart).toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('fails an execution whose runner rejects, with error and cause', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'boom' }),
    );
    await vi.waitFor(() => expect(runs.started, 'the runner to start').toHaveLength(1), WAIT);

    runs.fail('boom', Object.assign(new Error('Lambda crashed'), { name: 'States.TaskFailed' }));
    await vi.waitFor(() => expect(ended, 'the end listener').toHaveLength(1), WAIT);
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));

    expect(described).toMatchObject({
      status: 'FAILED',
      error: 'States.TaskFailed',
      cause: 'Lambda crashed',
    });
    expect(ended[0]?.status).toBe('FAILED');
  });

  it('aborts an execution on StopExecution and signals its runner', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'stop-me' }),
    );
    await vi.waitFor(() => expect(runs.started, 'the runner to start').toHaveLength(1), WAIT);

    await sfn.send(new StopExecutionCommand({ executionArn, error: 'Operator', cause: 'stopped by hand' }));
    runs.succeed('stop-me', 'too late');
    await vi.waitFor(() => expect(ended, 'the end listener').toHaveLength(1), WAIT);
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));

    expect(runs.started[0]?.signal.aborted).toBe(true);
    expect(described).toMatchObject({ status: 'ABORTED', error: 'Operator', cause: 'stopped by hand' });
    expect(described.output).toBeUndefined();
  });

  it('lists executions newest first and filters by status', async () => {
    for (const name of ['a', 'b', 'c']) {
      await sfn.send(new StartExecutionCommand({ stateMachineArn: rowWorkflow, name }));
    }
    await vi.waitFor(() => expect(runs.started, 'three runs').toHaveLength(3), WAIT);
    runs.succeed('b', {});
    await vi.waitFor(() => expect(ended, 'b to end').toHaveLength(1), WAIT);

    const all = await sfn.send(new ListExecutionsCommand({ stateMachineArn: rowWorkflow }));
    const running = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: rowWorkflow, statusFilter: 'RUNNING' }),
    );
    const firstPage = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: rowWorkflow, maxResults: 2 }),
    );
    const secondPage = await sfn.send(
      new ListExecutionsCommand({
        stateMachineArn: rowWorkflow,
        maxResults: 2,
        nextToken: firstPage.nextToken,
      }),
    );

    expect(all.executions?.map((execution) => execution.name)).toEqual(['c', 'b', 'a']);
    expect(running.executions?.map((execution) => execution.name)).toEqual(['c', 'a']);
    expect(firstPage.executions?.map((execution) => execution.name)).toEqual(['c', 'b']);
    expect(secondPage.executions?.map((execution) => execution.name)).toEqual(['a']);
    expect(secondPage.nextToken).toBeUndefined();
  });

  it('refuses an unknown state machine and a name AWS would refuse', async () => {
    const unknown = await sfn
      .send(new StartExecutionCommand({ stateMachineArn: aws.stateMachineArn('Nope') }))
      .catch((caught: unknown) => caught);
    const badName = await sfn
      .send(new StartExecutionCommand({ stateMachineArn: rowWorkflow, name: 'batch:1/row 2' }))
      .catch((caught: unknown) => caught);

    expect(unknown).toBeInstanceOf(StateMachineDoesNotExist);
    expect(badName).toBeInstanceOf(InvalidName);
  });
});

describe('Step Functions task tokens', () => {
  let aws: LocalAws;
  let sfn: SFNClient;

  beforeEach(async () => {
    aws = await startLocalAws({ log: 'silent' });
    sfn = new SFNClient({ endpoint: aws.endpoint, region: aws.region, credentials });
  });

  afterEach(async () => {
    sfn.destroy();
    await aws.close();
  });

  it('resolves a token once with the parsed output; a second answer is TaskTimedOut', async () => {
    const outputs: unknown[] = [];
    const failures: TaskFailure[] = [];
    const taskToken = aws.createTaskToken(
      (output) => outputs.push(output),
      (failure) => failures.push(failure),
    );

    await sfn.send(new SendTaskHeartbeatCommand({ taskToken }));
    await sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify({ batch_id: 'b1' }) }));
    const again = await sfn
      .send(new SendTaskSuccessCommand({ taskToken, output: '{}' }))
      .catch((caught: unknown) => caught);
    const failAfter = await sfn
      .send(new SendTaskFailureCommand({ taskToken, error: 'Late' }))
      .catch((caught: unknown) => caught);

    expect(outputs).toEqual([{ batch_id: 'b1' }]);
    expect(failures).toEqual([]);
    expect(again).toBeInstanceOf(TaskTimedOut);
    expect(failAfter).toBeInstanceOf(TaskTimedOut);
  });

  it('fails a token with error and cause', async () => {
    const failures: TaskFailure[] = [];
    const taskToken = aws.createTaskToken(
      () => undefined,
      (failure) => failures.push(failure),
    );

    await sfn.send(new SendTaskFailureCommand({ taskToken, error: 'Batch.Stopped', cause: 'key revoked' }));

    expect(failures).toEqual([{ error: 'Batch.Stopped', cause: 'key revoked' }]);
  });

  it('refuses a token it never issued with InvalidToken', async () => {
    const error = await sfn
      .send(new SendTaskSuccessCommand({ taskToken: 'AAAAKgAAAAIAAAAAAAAAA-made-up', output: '{}' }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidToken);
  });

  it('closes the tokens of an execution when it ends', async () => {
    const stateMachineArn = aws.stateMachineArn('BatchWorkflow');
    let token = '';
    let finish!: () => void;
    aws.registerStateMachine(stateMachineArn, async ({ executionArn }) => {
      token = aws.createTaskToken(
        () => undefined,
        () => undefined,
        { executionArn },
      );
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return {};
    });
    const ended: ExecutionRecord[] = [];
    aws.onExecutionEnded((execution) => ended.push(execution));

    await sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'batch-1' }));
    await vi.waitFor(() => expect(token, 'the token').not.toBe(''), WAIT);
    finish();
    await vi.waitFor(() => expect(ended, 'the execution to end').toHaveLength(1), WAIT);
    const late = await sfn
      .send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' }))
      .catch((caught: unknown) => caught);

    expect(late).toBeInstanceOf(TaskTimedOut);
  });
});
