/**
 * Step Functions on the wire (AWS JSON 1.0, `x-amz-target: AWSStepFunctions.<Operation>`):
 * the execution bookkeeping and the task-token calls. Running a state machine is somebody
 * else's job — the local runtime registers a runner per state machine ARN (it drives
 * aws-local-stepfunctions) — so this file keeps only what AWS keeps: names, statuses, dates,
 * input and output, and which task tokens are still waiting.
 *
 * Rules kept from AWS (client-sfn's StartExecution / SendTask* docs):
 * - StartExecution with the name of a RUNNING execution and the same input returns that
 *   execution; a different input, or an execution that has closed, is ExecutionAlreadyExists.
 * - A task token is answered once. A token this stand-in never issued is InvalidToken; one it
 *   issued that is no longer waiting (answered, or its execution ended) is TaskTimedOut
 *   ("the task associated with the token has already been closed").
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { MonotonicClock } from '../sandbox/core/clock.js';
import { AwsError } from './errors.js';
import { type JsonObject, readInput } from './input.js';
import { errorText, type LocalAwsLog } from './log.js';
import type { JsonRpcService } from './router.js';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

/** What a runner gets: the execution, its parsed input, and a signal aborted by StopExecution or close. */
export type StartedExecution = {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: unknown;
  signal: AbortSignal;
};

/** Resolves with the execution's output; rejects to fail it (see `failureOf` for the error/cause). */
export type StateMachineRunner = (execution: StartedExecution) => Promise<unknown>;

/**
 * An execution as DescribeExecution and the "Step Functions Execution Status Change" event
 * describe it (dates in epoch milliseconds, as in that event's detail).
 */
export type ExecutionRecord = {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate: number | null;
  input: string;
  output: string | null;
  error: string | null;
  cause: string | null;
};

export type TaskFailure = { error?: string; cause?: string };

export type TaskTokenOptions = {
  /** The token stops waiting (TaskTimedOut) when this execution ends. */
  executionArn?: string;
  onHeartbeat?: () => void;
};

type WaitingTask = {
  onSuccess: (output: unknown) => void;
  onFailure: (failure: TaskFailure) => void;
  options: TaskTokenOptions;
};

type Execution = ExecutionRecord & { controller: AbortController };

const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:([A-Za-z0-9_-]{1,80})$/;
/** Whitespace, brackets, wildcards, the special characters and control characters are refused in names. */
const isValidExecutionName = (name: string): boolean =>
  name.length >= 1 &&
  name.length <= 80 &&
  !/[\s<>{}[\]?*"#%\\^|~`$&,;:/]/.test(name) &&
  ![...name].some((character) => {
    const code = character.codePointAt(0) ?? 0;
    return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
  });
const TOKEN_PREFIX = 'ltt1';

const sfnErrors = {
  validation: (message: string) => new AwsError('ValidationException', message),
  invalidArn: (arn: string) => new AwsError('InvalidArn', `Invalid Arn: '${arn}'`),
  invalidName: (name: string) => new AwsError('InvalidName', `Invalid Name: '${name}'`),
  invalidExecutionInput: (reason: string) =>
    new AwsError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${reason}'`),
  invalidOutput: (reason: string) => new AwsError('InvalidOutput', `Invalid Output: '${reason}'`),
  stateMachineDoesNotExist: (arn: string) =>
    new AwsError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`),
  executionDoesNotExist: (arn: string) =>
    new AwsError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`),
  executionAlreadyExists: (arn: string) =>
    new AwsError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`),
  invalidToken: () => new AwsError('InvalidToken', "Invalid Token: 'Unable to deserialize token'"),
  taskTimedOut: () => new AwsError('TaskTimedOut', "Task Timed Out: 'Provided task does not exist anymore'"),
};

const inputOf = (input: JsonObject) =>
  readInput(input, {
    missing: (member) =>
      sfnErrors.validation(
        `1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`,
      ),
    invalid: (member, reason) => sfnErrors.validation(`Value at '${member}' ${reason}`),
  });

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false; reason: string } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
};

/**
 * How a runner's rejection reads as the execution's `error` and `cause`. An
 * aws-local-stepfunctions ExecutionError carries the States error in its `cause`.
 */
const failureOf = (reason: unknown): { status: ExecutionStatus; error: string; cause: string } => {
  if (reason instanceof Error && reason.name === 'ExecutionError' && reason.cause instanceof Error) {
    return failureOf(reason.cause);
  }
  if (reason instanceof Error && reason.name === 'ExecutionAbortedError') {
    return { status: 'ABORTED', error: 'States.Aborted', cause: reason.message };
  }
  if (reason instanceof Error && reason.name === 'ExecutionTimeoutError') {
    return { status: 'TIMED_OUT', error: 'States.Timeout', cause: reason.message };
  }
  if (typeof reason === 'object' && reason !== null && typeof (reason as TaskFailure).error === 'string') {
    const failure = reason as TaskFailure;
    return { status: 'FAILED', error: failure.error ?? 'Error', cause: failure.cause ?? '' };
  }
  if (reason instanceof Error) return { status: 'FAILED', error: reason.name, cause: reason.message };
  return { status: 'FAILED', error: 'Error', cause: String(reason) };
};

const seconds = (ms: number): number => ms / 1000;

export type StepFunctionsOptions = {
  clock: MonotonicClock;
  region: string;
  accountId: string;
  log: LocalAwsLog;
};

export class StepFunctions {
  private readonly runners = new Map<string, StateMachineRunner>();
  private readonly executions = new Map<string, Execution>();
  private readonly tasks = new Map<string, WaitingTask>();
  private readonly endListeners = new Set<(execution: ExecutionRecord) => void>();
  private readonly clock: MonotonicClock;
  private readonly region: string;
  private readonly accountId: string;
  private readonly log: LocalAwsLog;
  private closed = false;

  constructor({ clock, region, accountId, log }: StepFunctionsOptions) {
    this.clock = clock;
    this.region = region;
    this.accountId = accountId;
    this.log = log;
  }

  stateMachineArn(name: string): string {
    return `arn:aws:states:${this.region}:${this.accountId}:stateMachine:${name}`;
  }

  registerStateMachine(arn: string, runner: StateMachineRunner): void {
    if (!STATE_MACHINE_ARN.test(arn)) throw new RangeError(`not a state machine ARN: ${arn}`);
    this.runners.set(arn, runner);
  }

  /** Called once per execution when it leaves RUNNING. Returns an unsubscribe. */
  onExecutionEnded(listener: (execution: ExecutionRecord) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /** An opaque token for a `.waitForTaskToken` task; SendTaskSuccess/Failure answer it once. */
  createTaskToken(
    onSuccess: (output: unknown) => void,
    onFailure: (failure: TaskFailure) => void,
    options: TaskTokenOptions = {},
  ): string {
    const token = `${TOKEN_PREFIX}.${randomBytes(48).toString('base64url')}`;
    this.tasks.set(token, { onSuccess, onFailure, options });
    return token;
  }

  /** The state machine whose execution issued a token still waiting; null for any other token. */
  stateMachineOfTaskToken(token: string): string | null {
    const executionArn = this.tasks.get(token)?.options.executionArn;
    if (!executionArn) return null;
    return executionArn.replace(':execution:', ':stateMachine:').replace(/:[^:]*$/, '');
  }

  execution(executionArn: string): ExecutionRecord | null {
    const execution = this.executions.get(executionArn);
    return execution ? this.recordOf(execution) : null;
  }

  /** Aborts running executions without telling listeners: the process is going away. */
  shutdown(): void {
    this.closed = true;
    for (const execution of this.executions.values()) {
      if (execution.status !== 'RUNNING') continue;
      execution.status = 'ABORTED';
      execution.stopDate = this.clock.now();
      execution.controller.abort(new Error('local AWS closed'));
    }
    this.tasks.clear();
  }

  readonly service: JsonRpcService = {
    service: 'sfn',
    targetPrefix: 'AWSStepFunctions',
    jsonVersion: '1.0',
    errorMessageMember: 'message',
    operations: {
      StartExecution: (raw) => this.startExecution(raw),
      DescribeExecution: (raw) => {
        const executionArn = inputOf(raw).string('executionArn');
        const execution = this.executions.get(executionArn);
        if (!execution) throw sfnErrors.executionDoesNotExist(executionArn);
        return this.describe(execution);
      },
      StopExecution: (raw) => {
        const input = inputOf(raw);
        const executionArn = input.string('executionArn');
        const execution = this.executions.get(executionArn);
        if (!execution) throw sfnErrors.executionDoesNotExist(executionArn);
        if (execution.status === 'RUNNING') {
          this.end(execution, {
            status: 'ABORTED',
            error: input.optionalString('error') ?? null,
            cause: input.optionalString('cause') ?? null,
          });
          execution.controller.abort(new Error('StopExecution'));
        }
        return { stopDate: seconds(execution.stopDate ?? this.clock.now()) };
      },
      ListExecutions: (raw) => this.listExecutions(raw),
      SendTaskSuccess: (raw) => {
        const input = inputOf(raw);
        const task = this.takeTask(input.string('taskToken'));
        const output = parseJson(input.string('output'));
        if (!output.ok) throw sfnErrors.invalidOutput(output.reason);
        this.tasks.delete(input.string('taskToken'));
        this.callSafely('task success callback', () => task.onSuccess(output.value));
        return {};
      },
      SendTaskFailure: (raw) => {
        const input = inputOf(raw);
        const token = input.string('taskToken');
        const error = input.optionalString('error');
        const cause = input.optionalString('cause');
        if (error !== undefined && error.length > 256)
          throw sfnErrors.validation('error must be at most 256 characters');
        if (cause !== undefined && cause.length > 32_768) {
          throw sfnErrors.validation('cause must be at most 32768 characters');
        }
        const task = this.takeTask(token);
        this.tasks.delete(token);
        const failure: TaskFailure = {};
        if (error !== undefined) failure.error = error;
        if (cause !== undefined) failure.cause = cause;
        this.callSafely('task failure callback', () => task.onFailure(failure));
        return {};
      },
      SendTaskHeartbeat: (raw) => {
        const task = this.takeTask(inputOf(raw).string('taskToken'));
        if (task.options.onHeartbeat) this.callSafely('task heartbeat callback', task.options.onHeartbeat);
        return {};
      },
    },
  };

  private startExecution(raw: JsonObject): JsonObject {
    const input = inputOf(raw);
    const stateMachineArn = input.string('stateMachineArn');
    if (!STATE_MACHINE_ARN.test(stateMachineArn)) throw sfnErrors.invalidArn(stateMachineArn);
    const runner = this.runners.get(stateMachineArn);
    if (!runner) throw sfnErrors.stateMachineDoesNotExist(stateMachineArn);
    const name = input.optionalString('name') ?? randomUUID();
    if (!isValidExecutionName(name)) throw sfnErrors.invalidName(name);
    const rawInput = input.optionalString('input') ?? '{}';
    const parsed = parseJson(rawInput);
    if (!parsed.ok) throw sfnErrors.invalidExecutionInput(parsed.reason);

    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === rawInput) {
        return { executionArn, startDate: seconds(existing.startDate) };
      }
      throw sfnErrors.executionAlreadyExists(executionArn);
    }

    const execution: Execution = {
      executionArn,
      stateMachineArn,
      name,
      status: 'RUNNING',
      startDate: this.clock.now(),
      stopDate: null,
      input: rawInput,
      output: null,
      error: null,
      cause: null,
      controller: new AbortController(),
    };
    this.executions.set(executionArn, execution);
    this.log('debug', 'execution started', { execution_arn: executionArn });
    // The call answers at once; the run goes on in the background, as in AWS. An execution
    // started while the process closes, or stopped before it ran, never runs: nothing would
    // abort it again, and its timers would keep the process alive.
    setImmediate(() => {
      if (this.closed || execution.controller.signal.aborted) {
        if (execution.status === 'RUNNING') {
          execution.status = 'ABORTED';
          execution.stopDate = this.clock.now();
        }
        return;
      }
      Promise.resolve()
        .then(() =>
          runner({
            executionArn,
            stateMachineArn,
            name,
            input: parsed.value,
            signal: execution.controller.signal,
          }),
        )
        .then(
          (result) => {
            let output: string;
            try {
              output = JSON.stringify(result) ?? 'null';
            } catch (error) {
              this.end(execution, { status: 'FAILED', error: 'States.Runtime', cause: errorText(error) });
              return;
            }
            this.end(execution, { status: 'SUCCEEDED', output });
          },
          (reason: unknown) => this.end(execution, failureOf(reason)),
        );
    });
    return { executionArn, startDate: seconds(execution.startDate) };
  }

  private listExecutions(raw: JsonObject): JsonObject {
    const input = inputOf(raw);
    const stateMachineArn = input.string('stateMachineArn');
    if (!this.runners.has(stateMachineArn)) throw sfnErrors.stateMachineDoesNotExist(stateMachineArn);
    const statusFilter = input.optionalString('statusFilter');
    const maxResults = input.optionalInteger('maxResults', 0, 1000) || 100;
    const nextToken = input.optionalString('nextToken');
    const offset = nextToken === undefined ? 0 : Number(Buffer.from(nextToken, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) {
      throw new AwsError('InvalidToken', `Invalid Token: '${nextToken}'`);
    }
    // Newest first, as AWS lists them.
    const matching = [...this.executions.values()]
      .filter((execution) => execution.stateMachineArn === stateMachineArn)
      .filter((execution) => statusFilter === undefined || execution.status === statusFilter)
      .reverse();
    const page = matching.slice(offset, offset + maxResults);
    const more = offset + maxResults < matching.length;
    return {
      executions: page.map((execution) => ({
        executionArn: execution.executionArn,
        stateMachineArn: execution.stateMachineArn,
        name: execution.name,
        status: execution.status,
        startDate: seconds(execution.startDate),
        ...(execution.stopDate === null ? {} : { stopDate: seconds(execution.stopDate) }),
      })),
      ...(more ? { nextToken: Buffer.from(String(offset + maxResults)).toString('base64url') } : {}),
    };
  }

  private describe(execution: Execution): JsonObject {
    const described: JsonObject = {
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: seconds(execution.startDate),
      input: execution.input,
      inputDetails: { included: true },
    };
    if (execution.stopDate !== null) described.stopDate = seconds(execution.stopDate);
    if (execution.output !== null) {
      described.output = execution.output;
      described.outputDetails = { included: true };
    }
    if (execution.error !== null) described.error = execution.error;
    if (execution.cause !== null) described.cause = execution.cause;
    return described;
  }

  /** The waiting task behind a token, or the error AWS gives for it. Does not consume it. */
  private takeTask(token: string): WaitingTask {
    if (token.length < 1 || token.length > 2048)
      throw sfnErrors.validation('taskToken must be 1 to 2048 characters');
    const task = this.tasks.get(token);
    if (task) return task;
    if (token.startsWith(`${TOKEN_PREFIX}.`)) throw sfnErrors.taskTimedOut();
    throw sfnErrors.invalidToken();
  }

  private end(
    execution: Execution,
    outcome: { status: ExecutionStatus; output?: string; error?: string | null; cause?: string | null },
  ): void {
    // StopExecution (or close) may have ended it first; the runner's late result is dropped.
    if (execution.status !== 'RUNNING') return;
    execution.status = outcome.status;
    execution.stopDate = this.clock.now();
    execution.output = outcome.output ?? null;
    execution.error = outcome.error ?? null;
    execution.cause = outcome.cause ?? null;
    for (const [token, task] of this.tasks) {
      if (task.options.executionArn === execution.executionArn) this.tasks.delete(token);
    }
    this.log('debug', 'execution ended', { execution_arn: execution.executionArn, status: execution.status });
    if (this.closed) return;
    const record = this.recordOf(execution);
    setImmediate(() => {
      for (const listener of [...this.endListeners]) {
        this.callSafely('onExecutionEnded listener', () => listener(record));
      }
    });
  }

  private recordOf(execution: Execution): ExecutionRecord {
    const { controller: _controller, ...record } = execution;
    return { ...record };
  }

  private callSafely(what: string, call: () => unknown): void {
    try {
      const result = call();
      if (result instanceof Promise) {
        result.catch((error: unknown) => this.log('error', `${what} failed`, { error: errorText(error) }));
      }
    } catch (error) {
      this.log('error', `${what} threw`, { error: errorText(error) });
    }
  }
}
