/**
 * Step Functions, locally: each execution of a synthesized state machine runs its definition
 * in aws-local-stepfunctions, with every Task state invoking its function in the Lambda pool.
 *
 *   StartExecution (local/aws) ─▶ runner ─▶ StateMachine.run(definition)
 *       Task (function ARN)                ─▶ invoke(fn, input)            ─▶ result
 *       Task (lambda:invoke)               ─▶ invoke(fn, Parameters.Payload) ─▶ { Payload, StatusCode }
 *       Task (lambda:invoke.waitForTaskToken) ─▶ invoke(fn, Payload) ─▶ wait for SendTaskSuccess/Failure
 *
 * Failures read as they do on AWS: an error the handler throws is a Task failure named by its
 * `errorType` with Lambda's JSON as the `Cause`; a dead or timed-out environment is
 * `Lambda.Unknown`. The definitions' Retry (States.TaskFailed) and Catch (States.ALL) see them.
 *
 * Time scale. Every Wait lasts its definition's seconds × timeScale: the seconds a task put
 * at a SecondsPath (the Row workflow's `$.step.wait_seconds`: 3 s, 30 s for long runs) are
 * read from that task's result, so the poll interval keeps its ratio to the service's run
 * time. Retry intervals are IntervalSeconds × BackoffRate^n × timeScale. Task and execution
 * timeouts are scaled too, never below a minute (see README).
 */
import '../polyfills.js';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { AslDefinition, AslState } from '../../infra/definitions.js';
import type { StartedExecution, StateMachineRunner, TaskFailure } from '../aws/index.js';
import { LambdaInvocationError } from './lambda-pool.js';
import type { StateMachineSpec } from './resources.js';

type Json = Parameters<StateMachine['run']>[0];

type TaskKind = 'function' | 'invoke' | 'token';
type TaskPlan = { kind: TaskKind; functionName: string | null };

type Retrier = {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
};

/** A scaled timeout never drops below this: local overheads are real milliseconds. */
const MIN_SCALED_TIMEOUT_SECONDS = 60;
/** Room a Task without TimeoutSeconds gets beyond its function's own timeout. */
const TASK_TIMEOUT_MARGIN_SECONDS = 60;
/** Node's timers overflow past 2^31 − 1 ms (about 24.8 days) and then fire at once. */
const LONGEST_TIMER_SECONDS = 2_000_000;
/** The Row workflow's base poll interval, when a Wait's seconds cannot be read (see README). */
const FALLBACK_WAIT_SECONDS = 3;

export type WorkflowRunnerOptions = {
  spec: StateMachineSpec;
  /** Function ARN or name → local function name. */
  functionNameOf: (arnOrName: string) => string | null;
  timeoutSecondsOf: (functionName: string) => number;
  invoke: (functionName: string, event: unknown) => Promise<unknown>;
  createTaskToken: (
    onSuccess: (output: unknown) => void,
    onFailure: (failure: TaskFailure) => void,
    options: { executionArn: string },
  ) => string;
  timeScale: number;
  log: (line: string) => void;
};

const LAMBDA_FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:/;

const planTask = (stateName: string, state: AslState, options: WorkflowRunnerOptions): TaskPlan => {
  const resource = state.Resource ?? '';
  if (LAMBDA_FUNCTION_ARN.test(resource)) {
    const functionName = options.functionNameOf(resource);
    if (!functionName) throw new Error(`${options.spec.name}.${stateName}: no local function ${resource}`);
    return { kind: 'function', functionName };
  }
  const kind: TaskKind | null =
    resource === 'arn:aws:states:::lambda:invoke'
      ? 'invoke'
      : resource === 'arn:aws:states:::lambda:invoke.waitForTaskToken'
        ? 'token'
        : null;
  if (!kind)
    throw new Error(`${options.spec.name}.${stateName}: Task resource ${resource} is not played locally`);
  const target = state.Parameters?.FunctionName;
  return { kind, functionName: typeof target === 'string' ? options.functionNameOf(target) : null };
};

const scaledTimeout = (seconds: number, timeScale: number): number =>
  Math.min(LONGEST_TIMER_SECONDS, Math.max(MIN_SCALED_TIMEOUT_SECONDS, Math.ceil(seconds * timeScale)));

/** The definition with timeouts scaled, and a timeout on Tasks that had none (the library's default is 60 s). */
const adaptDefinition = (
  definition: AslDefinition,
  plans: ReadonlyMap<string, TaskPlan>,
  options: WorkflowRunnerOptions,
): AslDefinition => {
  const states: Record<string, AslState> = {};
  for (const [name, state] of Object.entries(definition.States)) {
    const plan = plans.get(name);
    if (!plan) {
      states[name] = state;
      continue;
    }
    const own = typeof state.TimeoutSeconds === 'number' ? state.TimeoutSeconds : null;
    const functionTimeout = plan.functionName ? options.timeoutSecondsOf(plan.functionName) : 900;
    // A token task waits for its token, not its function: AWS lets it wait a year.
    const unset =
      plan.kind === 'token' ? LONGEST_TIMER_SECONDS : functionTimeout + TASK_TIMEOUT_MARGIN_SECONDS;
    states[name] = {
      ...state,
      TimeoutSeconds: own !== null ? scaledTimeout(own, options.timeScale) : unset,
    };
  }
  return {
    ...definition,
    States: states,
    ...(definition.TimeoutSeconds !== undefined
      ? { TimeoutSeconds: scaledTimeout(definition.TimeoutSeconds, options.timeScale) }
      : {}),
  };
};

/** `$.a.b` → ['a', 'b']; null for anything but a plain dotted path. */
const dottedPath = (path: string): string[] | null =>
  /^\$(\.[A-Za-z0-9_]+)*$/.test(path) ? path.split('.').slice(1) : null;

const valueAt = (value: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>(
    (node, key) =>
      typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined,
    value,
  );

/**
 * For each Wait with a SecondsPath, the Tasks whose result lands under that path, and where
 * inside the result the seconds are: `ResultPath $.step` + `SecondsPath $.step.wait_seconds`
 * → the result's `wait_seconds`.
 */
const waitSources = (definition: AslDefinition) => {
  const sources = new Map<string, { waitState: string; inResult: string[] }[]>();
  for (const [waitState, wait] of Object.entries(definition.States)) {
    if (wait.Type !== 'Wait' || typeof wait.SecondsPath !== 'string') continue;
    const secondsPath = dottedPath(wait.SecondsPath);
    if (!secondsPath) continue;
    for (const [taskState, task] of Object.entries(definition.States)) {
      if (task.Type !== 'Task' || task.ResultPath === null) continue;
      const resultPath = dottedPath(typeof task.ResultPath === 'string' ? task.ResultPath : '$');
      if (!resultPath?.every((key, index) => secondsPath[index] === key)) continue;
      const list = sources.get(taskState) ?? [];
      list.push({ waitState, inResult: secondsPath.slice(resultPath.length) });
      sources.set(taskState, list);
    }
  }
  return sources;
};

/** Read-only views whose properties are computed when the library reads them. */
const computedRecord = (compute: (key: string) => number | undefined): Record<string, number> =>
  new Proxy({} as Record<string, number>, {
    get: (_, key) => (typeof key === 'string' ? compute(key) : undefined),
  });

const taskErrorOf = (error: unknown): Error => {
  if (error instanceof LambdaInvocationError) {
    const failure = new Error(error.toPayload());
    failure.name = error.fromRuntime ? 'Lambda.Unknown' : error.errorType;
    return failure;
  }
  const failure = new Error(error instanceof Error ? error.message : String(error));
  failure.name = 'Lambda.ServiceException';
  return failure;
};

export const createWorkflowRunner = (options: WorkflowRunnerOptions): StateMachineRunner => {
  const { spec, timeScale } = options;
  const plans = new Map<string, TaskPlan>();
  for (const [name, state] of Object.entries(spec.definition.States)) {
    if (state.Type === 'Task') plans.set(name, planTask(name, state, options));
  }
  const definition = adaptDefinition(spec.definition, plans, options);
  const machine = new StateMachine(definition as unknown as StateMachineDefinition, {
    validationOptions: { checkArn: true },
  });
  const sources = waitSources(definition);
  const usesToken = [...plans.values()].some((plan) => plan.kind === 'token');

  return async (execution: StartedExecution) => {
    // Per execution: seconds the next Wait will read, and each state's consecutive failures.
    const waitSeconds = new Map<string, number>();
    const failures = new Map<string, { count: number; errorName: string }>();

    let tokenOutcome: Promise<unknown> = Promise.resolve(null);
    let token: string | null = null;
    if (usesToken) {
      tokenOutcome = new Promise((resolve, reject) => {
        token = options.createTaskToken(
          resolve,
          (failure) => {
            const error = new Error(failure.cause ?? '');
            error.name = failure.error ?? 'States.TaskFailed';
            reject(error);
          },
          { executionArn: execution.executionArn },
        );
      });
      tokenOutcome.catch(() => undefined); // observed by the Task that waits for it
    }

    const invokeFor = (stateName: string, plan: TaskPlan) => async (input: Json) => {
      const parameters = (input ?? {}) as Record<string, unknown>;
      const functionName =
        plan.kind === 'function'
          ? plan.functionName
          : typeof parameters.FunctionName === 'string'
            ? options.functionNameOf(parameters.FunctionName)
            : plan.functionName;
      if (!functionName) throw taskErrorOf(new Error(`${stateName}: the function to invoke is unknown`));
      const event = plan.kind === 'function' ? input : parameters.Payload;
      const failed = (failure: Error): Error => {
        const before = failures.get(stateName)?.count ?? 0;
        failures.set(stateName, { count: before + 1, errorName: failure.name });
        return failure;
      };
      let result: unknown;
      try {
        result = await options.invoke(functionName, event);
      } catch (error) {
        throw failed(taskErrorOf(error));
      }
      for (const source of sources.get(stateName) ?? []) {
        const seconds = valueAt(result, source.inResult);
        if (typeof seconds === 'number') waitSeconds.set(source.waitState, seconds);
        else waitSeconds.delete(source.waitState);
      }
      if (plan.kind === 'invoke')
        return { ExecutedVersion: '$LATEST', Payload: result, StatusCode: 200 } as Json;
      if (plan.kind === 'token') {
        try {
          const output = (await tokenOutcome) as Json;
          failures.delete(stateName);
          return output;
        } catch (error) {
          throw failed(error as Error);
        }
      }
      failures.delete(stateName);
      return result as Json;
    };

    const taskResourceLocalHandlers = Object.fromEntries(
      [...plans].map(([stateName, plan]) => [stateName, invokeFor(stateName, plan)]),
    );

    const waitTimeOverrides = computedRecord((stateName) => {
      const state = definition.States[stateName];
      if (state?.Type !== 'Wait') return undefined;
      if (typeof state.Seconds === 'number') return state.Seconds * 1000 * timeScale;
      if (typeof state.SecondsPath !== 'string') return undefined; // timestamps: real time
      const seconds = waitSeconds.get(stateName);
      if (seconds === undefined) {
        options.log(
          `${spec.name}.${stateName}: cannot read ${state.SecondsPath}; waiting ${FALLBACK_WAIT_SECONDS} s scaled`,
        );
        return FALLBACK_WAIT_SECONDS * 1000 * timeScale;
      }
      return seconds * 1000 * timeScale;
    });

    const retryIntervalOverrides = computedRecord((stateName) => {
      const state = definition.States[stateName];
      const failed = failures.get(stateName);
      const retriers = (state?.Retry ?? []) as Retrier[];
      if (!state || !failed) return undefined;
      const retrier = retriers.find((candidate) =>
        candidate.ErrorEquals.some(
          (name) =>
            name === failed.errorName ||
            name === 'States.ALL' ||
            (name === 'States.TaskFailed' && state.Type === 'Task'),
        ),
      );
      if (!retrier) return undefined;
      const seconds = (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** (failed.count - 1);
      const capped =
        retrier.MaxDelaySeconds === undefined ? seconds : Math.min(seconds, retrier.MaxDelaySeconds);
      return capped * 1000 * timeScale;
    });

    const run = machine.run(execution.input as Json, {
      overrides: { taskResourceLocalHandlers, waitTimeOverrides, retryIntervalOverrides },
      context: {
        Execution: { Id: execution.executionArn, Name: execution.name },
        StateMachine: { Id: execution.stateMachineArn, Name: spec.name },
        Task: { Token: token },
      } as never,
    });
    const abort = () => run.abort();
    execution.signal.addEventListener('abort', abort, { once: true });
    try {
      return await run.result;
    } finally {
      execution.signal.removeEventListener('abort', abort);
    }
  };
};
