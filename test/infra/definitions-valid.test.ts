/**
 * Every synthesized state machine definition is one the Step Functions service would accept, as
 * asl-validator (the Amazon States Language schema, transitions, paths and intrinsics) judges it;
 * and the validator does refuse a definition the service would refuse. Beyond the schema, each
 * Task's integration is one the service documents: its Resource ARN, the Parameters that
 * integration takes, a task token where it waits for one, and only documented intrinsics and
 * `States.*` error names.
 */
import aslValidator from 'asl-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AslDefinition,
  type RenderedDefinitions,
  renderStateMachineDefinitions,
} from '../../infra/definitions.js';
import { synthesize } from './synth.js';

let rendered: RenderedDefinitions;

beforeAll(() => {
  rendered = renderStateMachineDefinitions(synthesize().pipelineJson);
});

const errorsOf = (definition: AslDefinition) => {
  const { isValid, errors } = aslValidator(definition);
  return { isValid, codes: errors.map((error) => error['Error code']) };
};

describe('the workflows as the Step Functions service reads them', () => {
  it.each(['batch', 'row', 'answers'] as const)('the %s workflow is valid ASL', (name) => {
    const { isValid, errors } = aslValidator(rendered[name]);
    expect(errors).toEqual([]);
    expect(isValid).toBe(true);
  });

  it('a definition with a transition to a state that does not exist is refused', () => {
    const broken = structuredClone(rendered.row);
    const [first] = Object.keys(broken.States);
    (broken.States[first as string] as Record<string, unknown>).Next = 'NoSuchState';
    delete (broken.States[first as string] as Record<string, unknown>).End;
    expect(errorsOf(broken)).toMatchObject({
      isValid: false,
      codes: expect.arrayContaining(['MISSING_TRANSITION_TARGET']),
    });
  });

  it('a definition with a malformed path is refused', () => {
    const broken = structuredClone(rendered.batch);
    const [first] = Object.keys(broken.States);
    (broken.States[first as string] as Record<string, unknown>).ResultPath = 'step.result';
    expect(errorsOf(broken).isValid).toBe(false);
  });
});

/** The optimized Lambda integration's parameters (Step Functions developer guide, "Invoke Lambda"). */
const LAMBDA_INVOKE_PARAMETERS = [
  'FunctionName',
  'Payload',
  'InvocationType',
  'Qualifier',
  'ClientContext',
  'LogType',
];
const LAMBDA_INVOKE = /^arn:aws:states:::lambda:invoke(\.waitForTaskToken)?$/;
/** A function ARN as a Task's Resource: the request-response Lambda invoke, Parameters as the payload. */
const FUNCTION_ARN = /^arn:aws:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$/;
/** The intrinsic functions the Amazon States Language documents. */
const INTRINSICS = new Set([
  'States.Format',
  'States.StringToJson',
  'States.JsonToString',
  'States.Array',
  'States.ArrayPartition',
  'States.ArrayContains',
  'States.ArrayRange',
  'States.ArrayGetItem',
  'States.ArrayLength',
  'States.ArrayUnique',
  'States.Base64Encode',
  'States.Base64Decode',
  'States.Hash',
  'States.JsonMerge',
  'States.MathRandom',
  'States.MathAdd',
  'States.StringSplit',
  'States.UUID',
]);
/** The predefined error names (ASL, "Error names"). */
const ERROR_NAMES = new Set([
  'States.ALL',
  'States.DataLimitExceeded',
  'States.ExceedToleratedFailureThreshold',
  'States.HeartbeatTimeout',
  'States.Http.Socket',
  'States.IntrinsicFailure',
  'States.ItemReaderFailed',
  'States.NoChoiceMatched',
  'States.ParameterPathFailure',
  'States.Permissions',
  'States.ResultPathMatchFailure',
  'States.ResultWriterFailed',
  'States.Runtime',
  'States.TaskFailed',
  'States.Timeout',
]);

type State = Record<string, unknown> & { Type: string };

/** What in a definition the service would not take as an integration, one sentence each. */
const integrationProblems = (definition: AslDefinition): string[] => {
  const problems: string[] = [];
  for (const [name, state] of Object.entries(definition.States as Record<string, State>)) {
    const text = JSON.stringify(state);
    for (const [, intrinsic] of text.matchAll(/(States\.[A-Za-z]+)\(/g))
      if (!INTRINSICS.has(intrinsic as string))
        problems.push(`${name}: intrinsic ${intrinsic} is not documented`);
    const handlers = [
      ...((state.Retry as { ErrorEquals: string[] }[]) ?? []),
      ...((state.Catch as { ErrorEquals: string[] }[]) ?? []),
    ];
    for (const error of handlers.flatMap((handler) => handler.ErrorEquals))
      if (error.startsWith('States.') && !ERROR_NAMES.has(error))
        problems.push(`${name}: error name ${error} is not documented`);
    if (state.Type !== 'Task') continue;
    const resource = String(state.Resource);
    const parameters = Object.keys((state.Parameters as Record<string, unknown>) ?? {}).map((key) =>
      key.replace(/\.\$$/, ''),
    );
    if (LAMBDA_INVOKE.test(resource)) {
      for (const key of parameters)
        if (!LAMBDA_INVOKE_PARAMETERS.includes(key))
          problems.push(`${name}: lambda:invoke takes no parameter ${key}`);
      if (!parameters.includes('FunctionName')) problems.push(`${name}: lambda:invoke needs FunctionName`);
      if (resource.endsWith('.waitForTaskToken') && !text.includes('$$.Task.Token'))
        problems.push(`${name}: waits for a task token but never passes $$.Task.Token`);
    } else if (!FUNCTION_ARN.test(resource))
      problems.push(`${name}: Resource ${resource} is no documented integration`);
  }
  return problems;
};

describe('each Task is an integration the service documents', () => {
  it.each(['batch', 'row', 'answers'] as const)(
    'the %s workflow: Resource, Parameters, token, intrinsics, error names',
    (name) => {
      expect(integrationProblems(rendered[name])).toEqual([]);
    },
  );

  it('refuses what the service would: an unknown lambda:invoke parameter, a wait with no token, an unknown intrinsic, an unknown error name', () => {
    const broken = structuredClone(rendered.batch);
    const states = broken.States as Record<string, State>;
    const wait = Object.values(states).find((state) =>
      String(state.Resource).endsWith('.waitForTaskToken'),
    ) as State;
    wait.Parameters = { FunctionName: 'await-rows', 'Input.$': '$' };
    const task = Object.values(states).find((state) => state.Type === 'Task' && state !== wait) as State;
    task.Parameters = { 'id.$': 'States.Uuid()' };
    task.Retry = [{ ErrorEquals: ['States.Everything'], MaxAttempts: 1 }];
    expect(integrationProblems(broken)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('lambda:invoke takes no parameter Input'),
        expect.stringContaining('never passes $$.Task.Token'),
        expect.stringContaining('intrinsic States.Uuid is not documented'),
        expect.stringContaining('error name States.Everything is not documented'),
      ]),
    );
  });
});
