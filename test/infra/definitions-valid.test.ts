/**
 * Every synthesized state machine definition is one the Step Functions service would accept, as
 * asl-validator (the Amazon States Language schema, transitions, paths and intrinsics) judges it;
 * and the validator does refuse a definition the service would refuse.
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
