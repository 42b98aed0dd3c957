/**
 * The local workflow runner follows a Task's TimeoutSecondsPath as Step Functions does (in the
 * state, where an earlier Task put the seconds), scaled by the time scale like its other
 * timeouts and never below a minute. Timers are frozen and moved by hand: nothing waits.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AslDefinition } from '../../../infra/definitions.js';
import { createWorkflowRunner } from '../../../local/runtime/workflow-runner.js';

const FUNCTION = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

/** Prepare ─▶ WaitForRows (a token Task timed out by `$.prepare.wait_seconds`) ─▶ Done, as the Batch workflow. */
const DEFINITION: AslDefinition = {
  StartAt: 'Prepare',
  States: {
    Prepare: { Type: 'Task', Resource: FUNCTION('prepare'), ResultPath: '$.prepare', Next: 'WaitForRows' },
    WaitForRows: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: { FunctionName: FUNCTION('await'), Payload: { 'task_token.$': '$$.Task.Token' } },
      TimeoutSecondsPath: '$.prepare.wait_seconds',
      ResultPath: '$.rows',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.wait_error', Next: 'Done' }],
      Next: 'Done',
    },
    Done: { Type: 'Pass', End: true },
  },
};

/** An execution whose Prepare says `waitSeconds`, and whose token is never answered. */
const start = (waitSeconds: number, timeScale: number) => {
  const runner = createWorkflowRunner({
    spec: {
      logicalId: 'Batch',
      name: 'batch',
      arn: 'arn:aws:states:us-east-1:000000000000:stateMachine:batch',
      definition: DEFINITION,
    },
    functionNameOf: (arn) => arn.split(':').at(-1) ?? null,
    timeoutSecondsOf: () => 60,
    invoke: async (name) => (name === 'prepare' ? { wait_seconds: waitSeconds } : {}),
    createTaskToken: () => 'token-1',
    timeScale,
    log: () => undefined,
  });
  let output: unknown = null;
  const done = runner({
    executionArn: 'arn:aws:states:us-east-1:000000000000:execution:batch:e1',
    stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:batch',
    name: 'e1',
    input: {},
    signal: new AbortController().signal,
  }).then((value) => {
    output = value;
  });
  return { done, output: () => output as { wait_error?: { Error: string } } | null };
};

describe('a Task timed out by a path in the state', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('times out after the seconds Prepare put there, scaled by the time scale', async () => {
    // Prepare: 100,000 s at a time scale of 1/1,000 are 100 s.
    vi.useFakeTimers();
    const execution = start(100_000, 0.001);

    // Act
    await vi.advanceTimersByTimeAsync(99_000);
    const before = execution.output();
    await vi.advanceTimersByTimeAsync(1_000);
    await execution.done;

    // Assess
    expect(before).toBeNull();
    expect(execution.output()?.wait_error).toMatchObject({ Error: 'States.Timeout' });
  });

  it('never times out under a minute, as every scaled timeout', async () => {
    // Prepare: 72 h at a time scale of 1/100,000 would be under 3 s.
    vi.useFakeTimers();
    const execution = start(259_200, 0.00001);

    // Act
    await vi.advanceTimersByTimeAsync(59_000);
    const before = execution.output();
    await vi.advanceTimersByTimeAsync(1_000);
    await execution.done;

    // Assess
    expect(before).toBeNull();
    expect(execution.output()?.wait_error).toMatchObject({ Error: 'States.Timeout' });
  });
});
