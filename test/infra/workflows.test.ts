import '../../local/polyfills.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { StateMachine as LocalStateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.js';
import {
  type AslDefinition,
  type RenderedDefinitions,
  renderStateMachineDefinitions,
} from '../../infra/definitions.js';
import { type SynthesizedAssembly, synthesizeAssembly } from '../../local/runtime/assembly.js';
import { timeoutPaths } from '../../local/runtime/workflow-runner.js';
import {
  ANSWERS_WORKFLOW_STATES,
  BATCH_WORKFLOW_STATES,
  HANDLER_NAMES,
  type HandlerName,
  ROW_WORKFLOW_STATES,
  TASK_HANDLERS,
} from '../../shared/contract.js';
import { E2E_ASSEMBLY_DIR } from '../e2e/helpers.js';
import { type CfnTemplate, resourcesOfType, type Synthesized, synthesize, TEST_CONTEXT } from './synth.js';

let synth: Synthesized;
let rendered: RenderedDefinitions;

beforeAll(() => {
  synth = synthesize();
  rendered = renderStateMachineDefinitions(synth.pipelineJson);
});

const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
];

/** The definition as the template holds it, references and all, as one string. */
const rawDefinitions = (template: CfnTemplate): string[] =>
  resourcesOfType(template, 'AWS::StepFunctions::StateMachine').map(([, machine]) => {
    const definition = machine.Properties?.DefinitionString as string | { 'Fn::Join': [string, unknown[]] };
    return typeof definition === 'string'
      ? definition
      : definition['Fn::Join'][1]
          .map((part) => (typeof part === 'string' ? part : JSON.stringify(part)))
          .join('');
  });

const retriedErrors = (definition: AslDefinition, state: string) =>
  ((definition.States[state]?.Retry ?? []) as { ErrorEquals: string[]; MaxAttempts: number }[]).map(
    (retry) => ({
      errors: retry.ErrorEquals,
      attempts: retry.MaxAttempts,
    }),
  );

describe('state machines', () => {
  it('are Standard, logged without execution data (task tokens never reach the logs) and traced', () => {
    const machines = resourcesOfType(synth.pipelineJson, 'AWS::StepFunctions::StateMachine');
    expect(machines).toHaveLength(3);
    for (const [, machine] of machines) {
      expect(machine.Properties).toMatchObject({
        StateMachineType: 'STANDARD',
        LoggingConfiguration: { IncludeExecutionData: false, Level: 'ALL' },
        TracingConfiguration: { Enabled: true },
      });
    }
  });

  it('use JSONPath only: no JSONata, no Assign, no ItemReader, no variables', () => {
    const raw = rawDefinitions(synth.pipelineJson);
    expect(raw).toHaveLength(3);
    for (const definition of raw) {
      expect(definition).not.toMatch(/"QueryLanguage"\s*:\s*"JSONata"/);
      expect(definition).not.toMatch(/JSONata/i);
      expect(definition).not.toContain('"Assign"');
      expect(definition).not.toContain('"ItemReader"');
      expect(definition).not.toContain('"Arguments"');
      expect(definition).not.toContain('{%');
    }
  });
});

describe('Batch workflow definition', () => {
  it('has exactly the states the README names, in the documented shape', () => {
    const { batch } = rendered;
    expect(Object.keys(batch.States).sort()).toEqual([...BATCH_WORKFLOW_STATES].sort());
    expect(batch.StartAt).toBe('Prepare');
    expect(batch.States.Prepare).toMatchObject({
      Type: 'Task',
      Resource: rendered.functionArns['prepare-batch'],
      Parameters: { 'event.$': '$', 'execution_id.$': '$$.Execution.Id' },
      ResultPath: '$.prepare',
      Next: 'RouteAfterPrepare',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Finalize' }],
    });
    expect(batch.States.RouteAfterPrepare).toEqual({
      Type: 'Choice',
      Choices: [
        { Variable: '$.prepare.next', StringEquals: 'wait', Next: 'WaitForRows' },
        { Variable: '$.prepare.next', StringEquals: 'finalize', Next: 'Finalize' },
        { Variable: '$.prepare.next', StringEquals: 'planned', Next: 'Planned' },
        // Prepare writes a batch's rows in legs: called again while it answers "again".
        { Variable: '$.prepare.next', StringEquals: 'again', Next: 'Prepare' },
      ],
      Default: 'Duplicate',
    });
    expect(batch.States.Planned).toMatchObject({ Type: 'Succeed' });
    expect(batch.States.WaitForRows).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: {
        FunctionName: rendered.functionArns['await-rows'],
        Payload: { 'batch_id.$': '$.prepare.batch_id', 'task_token.$': '$$.Task.Token' },
      },
      ResultPath: '$.rows',
      // As long as Prepare says this batch may need (its rows at the cap, with a margin).
      TimeoutSecondsPath: '$.prepare.wait_seconds',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.wait_error', Next: 'Finalize' }],
      Next: 'Finalize',
    });
    expect(batch.States.WaitForRows?.TimeoutSeconds).toBeUndefined();
    expect(batch.States.Finalize).toMatchObject({
      Type: 'Task',
      Resource: rendered.functionArns['finalize-batch'],
      ResultPath: '$.finalized',
      Next: 'FinalizeAgain',
    });
    // Finalize settles rows in legs: called again while it answers `next: "again"`.
    expect(batch.States.FinalizeAgain).toEqual({
      Type: 'Choice',
      Choices: [
        {
          And: [
            { Variable: '$.finalized.next', IsPresent: true },
            { Variable: '$.finalized.next', StringEquals: 'again' },
          ],
          Next: 'Finalize',
        },
      ],
      Default: 'Done',
    });
    // The whole state goes to Finalize: no Parameters, no InputPath.
    expect(batch.States.Finalize?.Parameters).toBeUndefined();
    expect(batch.States.Finalize?.InputPath).toBeUndefined();
    expect(batch.States.Finalize?.Catch).toBeUndefined();
    expect(batch.States.Duplicate).toMatchObject({ Type: 'Succeed' });
    expect(batch.States.Done).toEqual({ Type: 'Succeed' });
    // The longest wait (the context's ceiling here), plus the 3 h for Prepare and Finalize.
    expect(batch.TimeoutSeconds).toBe((TEST_CONTEXT.batchTimeoutHours + 3) * 3600);
  });

  it('waits at most a year less the time around the wait without a ceiling: a Standard execution runs a year', () => {
    const built = buildApp({
      context: { tcsBaseUrl: 'https://api.example.com/v1', 'aws:cdk:bundling-stacks': [] },
      nag: false,
    });
    const { batch, answers } = renderStateMachineDefinitions(Template.fromStack(built.pipeline).toJSON());
    expect(batch.TimeoutSeconds).toBe(365 * 24 * 3600);
    expect(batch.States.WaitForRows?.TimeoutSecondsPath).toBe('$.prepare.wait_seconds');
    // An answers round keeps a fixed wait: 72 h without a ceiling.
    expect(answers.States.WaitForAnswers?.TimeoutSeconds).toBe(72 * 3600);
  });

  it('retries Lambda service errors everywhere and handler failures a bounded number of times', () => {
    for (const state of ['Prepare', 'WaitForRows', 'Finalize']) {
      const retries = retriedErrors(rendered.batch, state);
      expect(retries[0]?.errors, state).toEqual(LAMBDA_SERVICE_ERRORS);
      expect(retries[1]?.errors, state).toEqual(['States.TaskFailed']);
      expect(retries[1]?.attempts, state).toBeLessThanOrEqual(3);
    }
  });
});

describe('Answers workflow definition', () => {
  it('has exactly the states the contract names, shaped like the Batch workflow', () => {
    const { answers } = rendered;
    expect(Object.keys(answers.States).sort()).toEqual([...ANSWERS_WORKFLOW_STATES].sort());
    expect(answers.StartAt).toBe('PrepareAnswers');
    expect(answers.States.PrepareAnswers).toMatchObject({
      Type: 'Task',
      Resource: rendered.functionArns['prepare-answers'],
      Parameters: { 'event.$': '$', 'execution_id.$': '$$.Execution.Id' },
      ResultPath: '$.prepare',
      Next: 'RouteAfterPrepareAnswers',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'FinalizeAnswers' }],
    });
    expect(answers.States.RouteAfterPrepareAnswers).toEqual({
      Type: 'Choice',
      Choices: [
        { Variable: '$.prepare.next', StringEquals: 'wait', Next: 'WaitForAnswers' },
        { Variable: '$.prepare.next', StringEquals: 'finalize', Next: 'FinalizeAnswers' },
        // Called again while S3's record of who wrote the file has not come.
        { Variable: '$.prepare.next', StringEquals: 'again', Next: 'PrepareAnswers' },
      ],
      Default: 'AnswersSkipped',
    });
    expect(answers.States.WaitForAnswers).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: {
        FunctionName: rendered.functionArns['await-rows'],
        // The round record keeps the token: await-rows is given the round id as its batch id.
        Payload: { 'batch_id.$': '$.prepare.round_id', 'task_token.$': '$$.Task.Token' },
      },
      ResultPath: '$.rows',
      TimeoutSeconds: TEST_CONTEXT.batchTimeoutHours * 3600,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.wait_error', Next: 'FinalizeAnswers' }],
      Next: 'FinalizeAnswers',
    });
    expect(answers.States.FinalizeAnswers).toMatchObject({
      Type: 'Task',
      Resource: rendered.functionArns['finalize-answers'],
      ResultPath: '$.finalized',
      Next: 'FinalizeAnswersAgain',
    });
    // FinalizeAnswers revises a batch's files in legs: called again while it answers `next: "again"`.
    expect(answers.States.FinalizeAnswersAgain).toEqual({
      Type: 'Choice',
      Choices: [
        {
          And: [
            { Variable: '$.finalized.next', IsPresent: true },
            { Variable: '$.finalized.next', StringEquals: 'again' },
          ],
          Next: 'FinalizeAnswers',
        },
      ],
      Default: 'AnswersDone',
    });
    expect(answers.States.FinalizeAnswers?.Parameters).toBeUndefined();
    expect(answers.States.FinalizeAnswers?.InputPath).toBeUndefined();
    expect(answers.States.FinalizeAnswers?.Catch).toBeUndefined();
    expect(answers.States.AnswersSkipped).toMatchObject({ Type: 'Succeed' });
    expect(answers.States.AnswersDone).toEqual({ Type: 'Succeed' });
    expect(answers.TimeoutSeconds).toBeGreaterThan(TEST_CONTEXT.batchTimeoutHours * 3600);
  });

  it('retries Lambda service errors everywhere and handler failures a bounded number of times', () => {
    for (const state of ['PrepareAnswers', 'WaitForAnswers', 'FinalizeAnswers']) {
      const retries = retriedErrors(rendered.answers, state);
      expect(retries[0]?.errors, state).toEqual(LAMBDA_SERVICE_ERRORS);
      expect(retries[1]?.errors, state).toEqual(['States.TaskFailed']);
      expect(retries[1]?.attempts, state).toBeLessThanOrEqual(3);
    }
  });
});

describe('Row workflow definition', () => {
  it('has exactly the states the README names, each step writing $.step', () => {
    const { row } = rendered;
    expect(Object.keys(row.States).sort()).toEqual([...ROW_WORKFLOW_STATES].sort());
    expect(row.StartAt).toBe('Submit');
    expect(row.States.RouteStep).toEqual({
      Type: 'Choice',
      Choices: [
        { Variable: '$.step.next', StringEquals: 'wait', Next: 'WaitForRun' },
        { Variable: '$.step.next', StringEquals: 'store', Next: 'Store' },
        { Variable: '$.step.next', StringEquals: 'review', Next: 'Review' },
      ],
      Default: 'Complete',
    });
    expect(row.States.WaitForRun).toEqual({ Type: 'Wait', SecondsPath: '$.step.wait_seconds', Next: 'Poll' });
    const next = { Submit: 'RouteStep', Poll: 'RouteStep', Store: 'Complete', Review: 'Complete' } as const;
    for (const [state, after] of Object.entries(next)) {
      const handler = TASK_HANDLERS.row[state as keyof typeof next];
      expect(row.States[state], state).toMatchObject({
        Type: 'Task',
        Resource: rendered.functionArns[handler],
        ResultPath: '$.step',
        Next: after,
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Complete' }],
      });
      expect(row.States[state]?.Parameters, state).toBeUndefined();
      const retries = retriedErrors(row, state);
      expect(retries.map((retry) => retry.errors)).toEqual([LAMBDA_SERVICE_ERRORS, ['States.TaskFailed']]);
      expect(retries[1]?.attempts).toBe(2);
    }
    expect(row.States.Complete).toMatchObject({
      Type: 'Task',
      Resource: rendered.functionArns['row-complete'],
      ResultPath: '$.completion',
      End: true,
    });
    expect(row.States.Complete?.Catch).toBeUndefined();
    expect(retriedErrors(row, 'Complete')[1]).toEqual({ errors: ['States.TaskFailed'], attempts: 6 });
    expect(row.TimeoutSeconds).toBe(7 * 3600);
  });
});

describe('renderStateMachineDefinitions', () => {
  it('maps every Task state to its handler, as the contract says', () => {
    expect(rendered.taskHandlers).toEqual(TASK_HANDLERS);
    for (const name of HANDLER_NAMES) {
      expect(rendered.functionArns[name]).toBe(`arn:aws:lambda:us-east-1:000000000000:function:${name}`);
    }
    expect(JSON.stringify([rendered.batch, rendered.row, rendered.answers])).not.toMatch(
      /Fn::|"Ref"|\$\{Token/,
    );
  });

  it('yields definitions aws-local-stepfunctions accepts with ARN checks on', () => {
    for (const definition of [rendered.batch, rendered.row, rendered.answers]) {
      expect(
        () =>
          new LocalStateMachine(definition as StateMachineDefinition, {
            validationOptions: { checkArn: true },
          }),
      ).not.toThrow();
    }
  });

  it('takes a region and account, and refuses a template without both workflows', () => {
    const elsewhere = renderStateMachineDefinitions(synth.pipelineJson, {
      region: 'sa-east-1',
      account: '123456789012',
    });
    expect(elsewhere.batch.States.Prepare?.Resource).toBe(
      'arn:aws:lambda:sa-east-1:123456789012:function:prepare-batch',
    );
    expect(elsewhere.answers.States.PrepareAnswers?.Resource).toBe(
      'arn:aws:lambda:sa-east-1:123456789012:function:prepare-answers',
    );
    expect(() => renderStateMachineDefinitions(synth.statefulJson)).toThrow(
      /all of the Batch, Row and Answers workflows/,
    );
  });
});

/** Runs a rendered definition locally, each Task answered by a scripted handler. */
const run = async (
  definition: AslDefinition,
  input: Record<string, unknown>,
  handlers: Record<string, (input: Record<string, unknown>) => unknown>,
) => {
  // WaitForRows' TimeoutSecondsPath followed in the state, as Step Functions does (the library
  // would look in the Task's effective input): the local runner's way, unscaled.
  const timeouts = timeoutPaths(definition, (seconds) => seconds);
  const execution = timeouts.forExecution();
  const machine = new LocalStateMachine(timeouts.definition as StateMachineDefinition, {
    validationOptions: { checkArn: true },
  });
  const visited: string[] = [];
  const taskResourceLocalHandlers = Object.fromEntries(
    Object.entries(handlers).map(([state, handler]) => [
      state,
      async (taskInput: Record<string, unknown>) => {
        visited.push(state);
        const result = await handler(taskInput);
        execution.remember(state, result);
        return result;
      },
    ]),
  );
  const running = machine.run(input as Parameters<LocalStateMachine['run']>[0], {
    overrides: {
      taskResourceLocalHandlers: taskResourceLocalHandlers as never,
      waitTimeOverrides: { WaitForRun: 0 },
      retryIntervalOverrides: Object.fromEntries(Object.keys(handlers).map((state) => [state, 0])),
    },
    context: {
      Execution: { Id: 'arn:aws:states:us-east-1:000000000000:execution:batch:e1' },
      Task: { Token: 'token-1' },
      ...execution.context,
    } as never,
  });
  return { output: (await running.result) as Record<string, unknown>, visited };
};

describe('the rendered definitions run locally', () => {
  const rowInput = { batch_id: 'b1', row: 1, attempt: 1, dispatch: 1, row_key: 'k', holder: 'b1:1#a1' };

  it('row: submit, two polls, store, complete', async () => {
    let polls = 0;
    const { output, visited } = await run(rendered.row, rowInput, {
      Submit: () => ({ next: 'wait', wait_seconds: 3 }),
      Poll: () => (++polls < 2 ? { next: 'wait', wait_seconds: 3 } : { next: 'store' }),
      Store: () => ({ next: 'complete' }),
      Complete: (state) => ({ completed_with: Object.keys(state).sort() }),
    });
    expect(visited).toEqual(['Submit', 'Poll', 'Poll', 'Store', 'Complete']);
    expect(output.completion).toEqual({ completed_with: [...Object.keys(rowInput), 'step'].sort() });
  });

  it('row: pending_data goes to Review; a failing Poll is caught into Complete with $.error', async () => {
    const review = await run(rendered.row, rowInput, {
      Submit: () => ({ next: 'review' }),
      Review: () => ({ next: 'complete' }),
      Complete: () => ({ ok: true }),
    });
    expect(review.visited).toEqual(['Submit', 'Review', 'Complete']);

    const failing = await run(rendered.row, rowInput, {
      Submit: () => ({ next: 'wait', wait_seconds: 3 }),
      Poll: () => {
        throw new Error('boom');
      },
      Complete: (state) => ({ error: state.error }),
    });
    // Poll is retried (States.TaskFailed, twice), then caught.
    expect(failing.visited).toEqual(['Submit', 'Poll', 'Poll', 'Poll', 'Complete']);
    expect(failing.output.completion).toMatchObject({ error: { Error: 'Error' } });
  });

  it('batch: wait for the rows with the task token, then finalize; a duplicate stops at once', async () => {
    const waited = await run(
      rendered.batch,
      { detail: { object: { key: 'inbox/n/p.csv' } } },
      {
        Prepare: (input) => ({
          next: 'wait',
          batch_id: 'b1',
          execution_id: input.execution_id,
          wait_seconds: 259_200,
        }),
        WaitForRows: (input) => ({ woken: input }),
        Finalize: (state) => ({ keys: Object.keys(state).sort() }),
      },
    );
    expect(waited.visited).toEqual(['Prepare', 'WaitForRows', 'Finalize']);
    expect(waited.output.prepare).toMatchObject({
      execution_id: 'arn:aws:states:us-east-1:000000000000:execution:batch:e1',
    });
    expect(waited.output.rows).toEqual({
      woken: {
        FunctionName: rendered.functionArns['await-rows'],
        Payload: { batch_id: 'b1', task_token: 'token-1' },
      },
    });
    expect(waited.output.finalized).toEqual({ keys: ['detail', 'prepare', 'rows'] });

    const duplicate = await run(rendered.batch, { detail: {} }, { Prepare: () => ({ next: 'duplicate' }) });
    expect(duplicate.visited).toEqual(['Prepare']);
  });

  it('batch: calls Prepare again while it answers "again", each leg given the last one’s answer', async () => {
    const legs: unknown[] = [];
    const looped = await run(
      rendered.batch,
      { detail: { object: { key: 'inbox/n/p.csv' } } },
      {
        Prepare: (input) => {
          legs.push((input.event as { prepare?: unknown }).prepare ?? null);
          return legs.length < 3
            ? { next: 'again', batch_id: 'b1', written_through: legs.length * 500 }
            : { next: 'finalize', batch_id: 'b1' };
        },
        Finalize: () => ({ next: 'done' }),
      },
    );
    expect(looped.visited).toEqual(['Prepare', 'Prepare', 'Prepare', 'Finalize']);
    expect(legs).toEqual([
      null,
      { next: 'again', batch_id: 'b1', written_through: 500 },
      { next: 'again', batch_id: 'b1', written_through: 1000 },
    ]);
  });

  it('batch: calls Finalize again while it answers "again", each leg given where the last stopped', async () => {
    const legs: unknown[] = [];
    const looped = await run(
      rendered.batch,
      { detail: { object: { key: 'inbox/n/p.csv' } } },
      {
        Prepare: () => ({ next: 'finalize', batch_id: 'b1' }),
        Finalize: (state) => {
          legs.push(state.finalized ?? null);
          return legs.length < 3
            ? { next: 'again', settling: { settled_through: legs.length * 500, ended_now: 0 } }
            : { next: 'done', state: 'completed' };
        },
      },
    );
    expect(looped.visited).toEqual(['Prepare', 'Finalize', 'Finalize', 'Finalize']);
    expect(legs).toEqual([
      null,
      { next: 'again', settling: { settled_through: 500, ended_now: 0 } },
      { next: 'again', settling: { settled_through: 1000, ended_now: 0 } },
    ]);
    expect(looped.output.finalized).toEqual({ next: 'done', state: 'completed' });
  });

  const answersEvent = { detail: { object: { key: 'answers/b1/review.csv' } } };

  it('answers: wait for the round with the task token on the round id, then finalize the whole state', async () => {
    const waited = await run(rendered.answers, answersEvent, {
      PrepareAnswers: (input) => ({
        next: 'wait',
        batch_id: 'b1',
        round_id: 'b1~abc',
        execution_id: input.execution_id,
        event_key: (input.event as typeof answersEvent).detail.object.key,
      }),
      WaitForAnswers: (input) => ({ woken: input }),
      FinalizeAnswers: (state) => ({ keys: Object.keys(state).sort() }),
    });
    expect(waited.visited).toEqual(['PrepareAnswers', 'WaitForAnswers', 'FinalizeAnswers']);
    expect(waited.output.prepare).toMatchObject({
      execution_id: 'arn:aws:states:us-east-1:000000000000:execution:batch:e1',
      event_key: 'answers/b1/review.csv',
    });
    expect(waited.output.rows).toEqual({
      woken: {
        FunctionName: rendered.functionArns['await-rows'],
        Payload: { batch_id: 'b1~abc', task_token: 'token-1' },
      },
    });
    expect(waited.output.finalized).toEqual({ keys: ['detail', 'prepare', 'rows'] });
  });

  it('answers: nothing resumed goes straight to FinalizeAnswers; a skip stops; a failed prepare is finalized', async () => {
    const nothing = await run(rendered.answers, answersEvent, {
      PrepareAnswers: () => ({ next: 'finalize', batch_id: 'b1', round_id: 'b1~abc' }),
      FinalizeAnswers: (state) => ({ keys: Object.keys(state).sort() }),
    });
    expect(nothing.visited).toEqual(['PrepareAnswers', 'FinalizeAnswers']);
    expect(nothing.output.finalized).toEqual({ keys: ['detail', 'prepare'] });

    const skipped = await run(rendered.answers, answersEvent, {
      PrepareAnswers: () => ({ next: 'skip', batch_id: null, round_id: null }),
    });
    expect(skipped.visited).toEqual(['PrepareAnswers']);

    const failed = await run(rendered.answers, answersEvent, {
      PrepareAnswers: () => {
        throw new Error('boom');
      },
      FinalizeAnswers: (state) => ({ error: state.error, keys: Object.keys(state).sort() }),
    });
    // PrepareAnswers is retried (States.TaskFailed, twice), then caught into FinalizeAnswers.
    expect(failed.visited).toEqual(['PrepareAnswers', 'PrepareAnswers', 'PrepareAnswers', 'FinalizeAnswers']);
    expect(failed.output.finalized).toMatchObject({ error: { Error: 'Error' }, keys: ['detail', 'error'] });
  });
});

describe('bundling, as the local runtime synthesizes', () => {
  let assembly: SynthesizedAssembly;
  beforeAll(async () => {
    // The local runtime's own synthesis with its context, into the end-to-end tests' cache: esbuild
    // bundles every handler with the AWS SDK inside, seconds of work done once for all of them.
    assembly = await synthesizeAssembly({
      assemblyDir: E2E_ASSEMBLY_DIR,
      context: { 'aws:cdk:enable-asset-metadata': true },
      log: () => undefined,
    });
  }, 300_000);

  /** Every function of every stack whose code is an asset folder, with that folder. */
  const functionAssets = () =>
    assembly.stacks.flatMap((stack) =>
      resourcesOfType(stack.template as CfnTemplate, 'AWS::Lambda::Function').flatMap(
        ([logicalId, resource]) => {
          const assetPath = resource.Metadata?.['aws:asset:path'];
          return typeof assetPath === 'string'
            ? [{ at: `${stack.stackName}/${logicalId}`, resource, dir: join(assembly.dir, assetPath) }]
            : [];
        },
      ),
    );

  it('bundles every handler into one ESM file with a require shim and a source map, found by asset metadata', () => {
    const fromAssembly = renderStateMachineDefinitions(assembly);
    expect(fromAssembly.taskHandlers).toEqual(TASK_HANDLERS);

    const template = assembly.stacks.find((stack) => stack.stackName === 'NcmBatchClassifier-Pipeline')
      ?.template as CfnTemplate;
    const bundled = new Set<HandlerName>();
    for (const [, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const name = resource.Metadata?.['ncm-batch-classifier:handler'] as HandlerName;
      const assetPath = resource.Metadata?.['aws:asset:path'];
      expect(typeof assetPath, name).toBe('string');
      const bundle = readFileSync(join(assembly.dir, String(assetPath), 'index.mjs'), 'utf8');
      expect(bundle.startsWith("import { createRequire } from 'node:module'")).toBe(true);
      // The map is the handler's own, and names its sources where they are from the asset folder.
      const mapFile = join(assembly.dir, String(assetPath), 'index.mjs.map');
      const { sources } = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[] };
      const handlerSource = sources.find((source) => source.endsWith(`functions/${name}/handler.ts`));
      expect(handlerSource, name).toBeDefined();
      expect(existsSync(new URL(handlerSource ?? '', pathToFileURL(mapFile)))).toBe(true);
      bundled.add(name);
    }
    expect([...bundled].sort()).toEqual([...HANDLER_NAMES].sort());
  });

  it('ships no knob of the local runtime: no TIME_SCALE in any environment or bundle, no local-only package', () => {
    const assets = functionAssets();
    // The pipeline's handlers and the console's functions, at least.
    expect(assets.length).toBeGreaterThan(HANDLER_NAMES.length);
    const found: string[] = [];
    let packagedModules = 0;
    for (const { at, resource, dir } of assets) {
      const environment = (resource.Properties?.Environment as { Variables?: object } | undefined)?.Variables;
      if (environment && 'TIME_SCALE' in environment) found.push(`${at}: TIME_SCALE in its environment`);
      for (const file of readdirSync(dir).filter((name) => /\.(mjs|js|cjs)$/.test(name))) {
        if (readFileSync(join(dir, file), 'utf8').includes('TIME_SCALE'))
          found.push(`${at}: TIME_SCALE in ${file}`);
        // The source map names every module esbuild put in the bundle, node_modules path and all.
        const map = join(dir, `${file}.map`);
        if (!existsSync(map)) continue;
        const sources = (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources;
        for (const source of sources) {
          if (source.includes('node_modules/')) packagedModules += 1;
          const local = /node_modules\/(s3rver|pdfkit|pdfjs-dist)\//.exec(source);
          if (local) found.push(`${at}: ${local[1]} bundled (${source})`);
        }
      }
    }
    expect(found).toEqual([]);
    // The maps do name the packages bundled (the AWS SDK, at least): the look above saw them.
    expect(packagedModules).toBeGreaterThan(0);
  });
});
