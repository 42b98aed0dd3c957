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
 * timeouts are scaled too, never below a minute (see README), a Task's TimeoutSecondsPath too
 * (the Batch workflow's WaitForRows: `$.prepare.wait_seconds`, sized by Prepare): read, as a
 * SecondsPath is, from the result of the Task whose ResultPath holds the path (`timeoutPaths`).
 */
import '../polyfills.js';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { AslDefinition, AslState } from '../../infra/definitions.js';
import type { StartedExecution, StateMachineRunner, TaskFailure } from '../aws/step-functions.js';
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
    // Its seconds come from the state: timeoutPaths reads them, scaled, through the context.
    if (!plan || typeof state.TimeoutSecondsPath === 'string') {
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

/** For each Task, the states whose seconds its result holds, and where inside the result. */
type PathSources = Map<string, { reader: string; inResult: string[] }[]>;

/**
 * For each state of `type` whose `field` is a path in the state (a Wait's SecondsPath, a Task's
 * TimeoutSecondsPath), the Tasks whose result lands under that path, and where inside the result
 * the seconds are: `ResultPath $.step` + `SecondsPath $.step.wait_seconds` → the result's
 * `wait_seconds`.
 */
const pathSources = (
  definition: AslDefinition,
  type: 'Wait' | 'Task',
  field: 'SecondsPath' | 'TimeoutSecondsPath',
): PathSources => {
  const sources: PathSources = new Map();
  for (const [reader, state] of Object.entries(definition.States)) {
    const path = state.Type === type && typeof state[field] === 'string' ? dottedPath(state[field]) : null;
    if (!path) continue;
    for (const [taskState, task] of Object.entries(definition.States)) {
      if (task.Type !== 'Task' || task.ResultPath === null) continue;
      const resultPath = dottedPath(typeof task.ResultPath === 'string' ? task.ResultPath : '$');
      if (!resultPath?.every((key, index) => path[index] === key)) continue;
      const list = sources.get(taskState) ?? [];
      list.push({ reader, inResult: path.slice(resultPath.length) });
      sources.set(taskState, list);
    }
  }
  return sources;
};

const waitSources = (definition: AslDefinition): PathSources =>
  pathSources(definition, 'Wait', 'SecondsPath');

/** Keeps the seconds a Task's result holds for the states that read them (see pathSources). */
const rememberSeconds = (
  sources: PathSources,
  seconds: Map<string, number>,
  taskState: string,
  result: unknown,
) => {
  for (const source of sources.get(taskState) ?? []) {
    const value = valueAt(result, source.inResult);
    if (typeof value === 'number') seconds.set(source.reader, value);
    else seconds.delete(source.reader);
  }
};

/** Where, in the context, a Task finds the seconds of its TimeoutSecondsPath (see timeoutPaths). */
const TIMEOUTS_IN_CONTEXT = 'LocalTimeoutSeconds';

/**
 * A Task's TimeoutSecondsPath as aws-local-stepfunctions can follow it. Step Functions reads the
 * path in the state's input; the library reads it in the Task's effective input, after
 * `Parameters`, where `$.prepare.wait_seconds` is not. So the seconds are taken, as a Wait's
 * SecondsPath's are, from the result of the Task whose ResultPath holds the path, and the Task
 * reads them from the execution's context (`$$.LocalTimeoutSeconds.<state>`), through `scale`.
 * A value missing there is missing to the library too: the Task fails, as on AWS.
 */
export const timeoutPaths = (definition: AslDefinition, scale: (seconds: number) => number) => {
  const sources = pathSources(definition, 'Task', 'TimeoutSecondsPath');
  const readers = Object.entries(definition.States)
    .filter(([, state]) => state.Type === 'Task' && typeof state.TimeoutSecondsPath === 'string')
    .map(([name]) => name);
  const states = Object.fromEntries(
    Object.entries(definition.States).map(([name, state]) => [
      name,
      readers.includes(name) ? { ...state, TimeoutSecondsPath: `$$.${TIMEOUTS_IN_CONTEXT}.${name}` } : state,
    ]),
  );
  return {
    definition: { ...definition, States: states } as AslDefinition,
    /** One execution's: the context entry to run it with, and what to tell of each Task's result. */
    forExecution: () => {
      const seconds = new Map<string, number>();
      const inContext = Object.defineProperties(
        {},
        Object.fromEntries(
          readers.map((name) => {
            const read = () => {
              const value = seconds.get(name);
              return value === undefined ? undefined : scale(value);
            };
            return [name, { enumerable: true, get: read }];
          }),
        ),
      );
      return {
        context: { [TIMEOUTS_IN_CONTEXT]: inContext },
        remember: (taskState: string, result: unknown) =>
          rememberSeconds(sources, seconds, taskState, result),
      };
    },
  };
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

/** A definition ready to run: its Tasks planned, its timeouts adapted, the library's machine built once. */
type PreparedWorkflow = {
  options: WorkflowRunnerOptions;
  definition: AslDefinition;
  plans: ReadonlyMap<string, TaskPlan>;
  machine: StateMachine;
  sources: PathSources;
  timeouts: ReturnType<typeof timeoutPaths>;
  usesToken: boolean;
};

/** What one execution remembers from state to state. */
type ExecutionMemory = {
  /** Seconds the next Wait will read, by Wait state. */
  waitSeconds: Map<string, number>;
  /** Seconds the Tasks with a TimeoutSecondsPath will read. */
  timeouts: ReturnType<ReturnType<typeof timeoutPaths>['forExecution']>;
  /** Each state's consecutive failures. */
  failures: Map<string, { count: number; errorName: string }>;
  /** The answer to the execution's task token; resolves to null at once when no Task waits for one. */
  tokenOutcome: Promise<unknown>;
};

const prepareWorkflow = (options: WorkflowRunnerOptions): PreparedWorkflow => {
  const plans = new Map<string, TaskPlan>();
  for (const [name, state] of Object.entries(options.spec.definition.States)) {
    if (state.Type === 'Task') plans.set(name, planTask(name, state, options));
  }
  const timeouts = timeoutPaths(adaptDefinition(options.spec.definition, plans, options), (seconds) =>
    scaledTimeout(seconds, options.timeScale),
  );
  const { definition } = timeouts;
  // Not validated again here: test/infra/definitions-valid.test.ts checks every synthesized
  // definition against the ASL schema, and validating costs half a second of CPU per start.
  const machine = new StateMachine(definition as unknown as StateMachineDefinition, {
    validationOptions: { noValidate: true },
  });
  const sources = waitSources(definition);
  const usesToken = [...plans.values()].some((plan) => plan.kind === 'token');
  return { options, definition, plans, machine, sources, timeouts, usesToken };
};

/** The execution's task token (null when no Task waits for one) and the answer it will get. */
const createTokenWait = (
  workflow: PreparedWorkflow,
  execution: StartedExecution,
): { token: string | null; tokenOutcome: Promise<unknown> } => {
  if (!workflow.usesToken) return { token: null, tokenOutcome: Promise.resolve(null) };
  let token: string | null = null;
  const tokenOutcome = new Promise((resolve, reject) => {
    token = workflow.options.createTaskToken(
      resolve,
      (failure) => {
        const error = new Error(failure.cause ?? '');
        error.name = failure.error ?? 'States.TaskFailed';
        reject(error);
      },
      { executionArn: execution.executionArn },
    );
    // A stopped execution's wait ends too: a Task still waiting would keep its timer, and the
    // process, alive after close.
    const stopped = () => reject(new Error('the execution was stopped'));
    if (execution.signal.aborted) stopped();
    else execution.signal.addEventListener('abort', stopped, { once: true });
  });
  tokenOutcome.catch(() => undefined); // observed by the Task that waits for it
  return { token, tokenOutcome };
};

/** The function a Task invokes and the event it gets: the state's input, or its Parameters' Payload. */
const invocationOf = (stateName: string, plan: TaskPlan, input: Json, options: WorkflowRunnerOptions) => {
  const parameters = (input ?? {}) as Record<string, unknown>;
  const functionName =
    plan.kind === 'function'
      ? plan.functionName
      : typeof parameters.FunctionName === 'string'
        ? options.functionNameOf(parameters.FunctionName)
        : plan.functionName;
  if (!functionName) throw taskErrorOf(new Error(`${stateName}: the function to invoke is unknown`));
  return { functionName, event: plan.kind === 'function' ? input : parameters.Payload };
};

/** The local handler of one Task state: invoke, remember, and answer as the Task's resource does. */
const taskHandler =
  (workflow: PreparedWorkflow, memory: ExecutionMemory, stateName: string, plan: TaskPlan) =>
  async (input: Json) => {
    const { functionName, event } = invocationOf(stateName, plan, input, workflow.options);
    const failed = (failure: Error): Error => {
      const before = memory.failures.get(stateName)?.count ?? 0;
      memory.failures.set(stateName, { count: before + 1, errorName: failure.name });
      return failure;
    };
    let result: unknown;
    try {
      result = await workflow.options.invoke(functionName, event);
    } catch (error) {
      throw failed(taskErrorOf(error));
    }
    rememberSeconds(workflow.sources, memory.waitSeconds, stateName, result);
    memory.timeouts.remember(stateName, result);
    if (plan.kind === 'invoke')
      return { ExecutedVersion: '$LATEST', Payload: result, StatusCode: 200 } as Json;
    if (plan.kind === 'token') {
      try {
        const output = (await memory.tokenOutcome) as Json;
        memory.failures.delete(stateName);
        return output;
      } catch (error) {
        throw failed(error as Error);
      }
    }
    memory.failures.delete(stateName);
    return result as Json;
  };

/** Each Wait's milliseconds: its seconds (or those its SecondsPath reads) × timeScale. */
const waitTimeOverrides = (workflow: PreparedWorkflow, memory: ExecutionMemory) => {
  const { definition, options } = workflow;
  return computedRecord((stateName) => {
    const state = definition.States[stateName];
    if (state?.Type !== 'Wait') return undefined;
    if (typeof state.Seconds === 'number') return state.Seconds * 1000 * options.timeScale;
    if (typeof state.SecondsPath !== 'string') return undefined; // timestamps: real time
    const seconds = memory.waitSeconds.get(stateName);
    if (seconds === undefined) {
      options.log(
        `${options.spec.name}.${stateName}: cannot read ${state.SecondsPath}; waiting ${FALLBACK_WAIT_SECONDS} s scaled`,
      );
      return FALLBACK_WAIT_SECONDS * 1000 * options.timeScale;
    }
    return seconds * 1000 * options.timeScale;
  });
};

/** Each failed state's next retry interval: IntervalSeconds × BackoffRate^n × timeScale, capped. */
const retryIntervalOverrides = (workflow: PreparedWorkflow, memory: ExecutionMemory) =>
  computedRecord((stateName) => {
    const state = workflow.definition.States[stateName];
    const failed = memory.failures.get(stateName);
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
    return capped * 1000 * workflow.options.timeScale;
  });

const runExecution = async (workflow: PreparedWorkflow, execution: StartedExecution) => {
  const { token, tokenOutcome } = createTokenWait(workflow, execution);
  const timeouts = workflow.timeouts.forExecution();
  const memory: ExecutionMemory = { waitSeconds: new Map(), timeouts, failures: new Map(), tokenOutcome };
  const taskResourceLocalHandlers = Object.fromEntries(
    [...workflow.plans].map(([stateName, plan]) => [
      stateName,
      taskHandler(workflow, memory, stateName, plan),
    ]),
  );
  const run = workflow.machine.run(execution.input as Json, {
    overrides: {
      taskResourceLocalHandlers,
      waitTimeOverrides: waitTimeOverrides(workflow, memory),
      retryIntervalOverrides: retryIntervalOverrides(workflow, memory),
    },
    context: {
      Execution: { Id: execution.executionArn, Name: execution.name },
      StateMachine: { Id: execution.stateMachineArn, Name: workflow.options.spec.name },
      Task: { Token: token },
      ...timeouts.context,
    } as never,
  });
  const abort = () => run.abort();
  execution.signal.addEventListener('abort', abort, { once: true });
  // Stopped between its start and this run: the listener would never hear it.
  if (execution.signal.aborted) abort();
  try {
    return await run.result;
  } finally {
    execution.signal.removeEventListener('abort', abort);
  }
};

export const createWorkflowRunner = (options: WorkflowRunnerOptions): StateMachineRunner => {
  const workflow = prepareWorkflow(options);
  return (execution: StartedExecution) => runExecution(workflow, execution);
};
