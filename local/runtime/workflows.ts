/**
 * The template's state machines, registered with local/aws: each StartExecution runs the
 * synthesized definition (workflow-runner.ts) with its Tasks invoking functions in the pool.
 */
import type { LocalAws } from '../aws/local-aws.js';
import type { LambdaPool } from './lambda-pool.js';
import type { FunctionSpec, StateMachineSpec } from './resources.js';
import { functionNameOfArn } from './template.js';
import { createWorkflowRunner } from './workflow-runner.js';

export const registerWorkflows = (deps: {
  stateMachines: readonly StateMachineSpec[];
  functions: readonly FunctionSpec[];
  localAws: LocalAws;
  pool: LambdaPool;
  timeScale: number;
  log: (line: string) => void;
}): void => {
  const { localAws, pool } = deps;
  const functionNames = new Set(deps.functions.map((fn) => fn.name));
  for (const spec of deps.stateMachines) {
    localAws.registerStateMachine(
      spec.arn,
      createWorkflowRunner({
        spec,
        functionNameOf: (arnOrName) => {
          const name = functionNameOfArn(arnOrName);
          return functionNames.has(name) ? name : null;
        },
        timeoutSecondsOf: (name) => pool.spec(name).timeoutSeconds,
        invoke: (name, event) => pool.invoke(name, event),
        createTaskToken: (onSuccess, onFailure, tokenOptions) =>
          localAws.createTaskToken(onSuccess, onFailure, tokenOptions),
        timeScale: deps.timeScale,
        log: deps.log,
      }),
    );
  }
};
