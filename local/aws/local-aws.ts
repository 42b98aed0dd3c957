/**
 * Starts the loopback stand-ins of SQS, Lambda Invoke, Step Functions, Secrets Manager and
 * EventBridge PutEvents behind one HTTP server, for the real AWS SDK v3 clients configured
 * with nothing but `endpoint` (or `AWS_ENDPOINT_URL_<SERVICE>`) and dummy credentials.
 * In-process code plugs in behind them: Lambda functions, state-machine runners, secrets,
 * event listeners.
 */

import { createMonotonicClock, type MonotonicClock } from '../sandbox/core/clock.js';
import { DebouncedWriter } from '../sandbox/persistence.js';
import { EventBus, type RecordedEvent } from './eventbridge.js';
import { type FunctionErrorReport, LambdaFunctions, type LocalFunction } from './lambda.js';
import { errorText, type LocalAwsLog, logSinkOf } from './log.js';
import { loadLocalAwsState, localAwsStatePath, saveLocalAwsState } from './persistence.js';
import { startRouter } from './router.js';
import { Secrets } from './secrets-manager.js';
import { type PublishedMessage, SnsTopics } from './sns.js';
import { createSqsService } from './sqs.js';
import { SqsQueues } from './sqs-queues.js';
import {
  type ExecutionRecord,
  type StateMachineRunner,
  StepFunctions,
  type TaskFailure,
  type TaskTokenOptions,
} from './step-functions.js';

export type LocalAwsOptions = {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Directory of the state file (SQS queues and messages); no persistence when absent or null. */
  dataDir?: string | null;
  /** Log sink: `'stderr'` (default, info and above), `'silent'`, or a function that gets every level. */
  log?: LocalAwsLog | 'stderr' | 'silent';
  /** The clock every time-based rule reads (default: real time, movable with `clock.advance`). */
  clock?: MonotonicClock;
  /** Region in ARNs and events (default `us-east-1`). */
  region?: string;
  /** Account in ARNs, queue URLs and events (default `000000000000`). */
  accountId?: string;
  /** Coalesces state-file writes (default 250 ms). */
  persistDebounceMs?: number;
  /**
   * Scales each queue's MessageRetentionPeriod, as the local runtime scales its Waits and
   * timeouts (default 1: SQS's own); nothing else of SQS is scaled (sqs-queues.ts says why).
   */
  timeScale?: number;
};

export type LocalAws = {
  /** `http://127.0.0.1:PORT`: the `endpoint` of every client. */
  endpoint: string;
  port: number;
  region: string;
  accountId: string;
  clock: MonotonicClock;
  /**
   * `AWS_ENDPOINT_URL_<SERVICE>` for the six services, to hand to code that builds its own
   * clients; `through`: a proxy in front of this origin (the local runtime's permission gate).
   */
  endpointEnvironment(through?: string): Record<string, string>;

  /** Creates the queue (or returns the existing one with the same attributes); returns its URL. */
  createQueue(name: string, attributes?: Record<string, string>): string;
  queueUrl(name: string): string;
  queueArn(name: string): string;

  /** Registers the function Invoke reaches by this name or ARN; returns its ARN. */
  registerFunction(nameOrArn: string, fn: LocalFunction): string;
  /** Failures of Event (async) invocations. Returns an unsubscribe. */
  onFunctionError(listener: (report: FunctionErrorReport) => void): () => void;

  stateMachineArn(name: string): string;
  registerStateMachine(arn: string, runner: StateMachineRunner): void;
  /** A task token answered by SendTaskSuccess (parsed output) or SendTaskFailure, once. */
  createTaskToken(
    onSuccess: (output: unknown) => void,
    onFailure: (failure: TaskFailure) => void,
    options?: TaskTokenOptions,
  ): string;
  /** The state machine whose execution issued a task token still waiting (null: none). */
  stateMachineOfTaskToken(token: string): string | null;
  /** Each execution that leaves RUNNING, once. Returns an unsubscribe. */
  onExecutionEnded(listener: (execution: ExecutionRecord) => void): () => void;
  execution(executionArn: string): ExecutionRecord | null;

  /** Stores a secret string under a name or ARN; returns its ARN. */
  putSecret(id: string, value: string): string;

  /** Makes a topic exist under its ARN (the template's), so Publish to it is taken. */
  createTopic(topicArn: string): void;
  /** Each message published to a topic, after the call answered. Returns an unsubscribe. */
  onPublish(listener: (message: PublishedMessage) => void): () => void;
  published(): readonly PublishedMessage[];

  /** Each event PutEvents accepted, after the call answered. Returns an unsubscribe. */
  onEvent(listener: (event: RecordedEvent) => void): () => void;
  events(): readonly RecordedEvent[];

  /** Writes the state file now (nothing without `dataDir`). */
  flush(): void;
  /** Stops the server, ends long polls and open connections, aborts running executions, saves the state. */
  close(): Promise<void>;
};

const DEFAULT_REGION = 'us-east-1';
const DEFAULT_ACCOUNT = '000000000000';

export const startLocalAws = async (options: LocalAwsOptions = {}): Promise<LocalAws> => {
  const { port = 0, dataDir = null, region = DEFAULT_REGION, accountId = DEFAULT_ACCOUNT } = options;
  if (!(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new RangeError(`port must be an integer from 0 to 65535, got ${port}`);
  }
  if (!/^\d{12}$/.test(accountId)) throw new RangeError(`accountId must be 12 digits, got ${accountId}`);
  const log = logSinkOf(options.log);
  const clock = options.clock ?? createMonotonicClock();

  const queues = new SqsQueues({ clock, region, accountId, timeScale: options.timeScale ?? 1 });
  let writer: DebouncedWriter | null = null;
  if (dataDir !== null) {
    const saved = loadLocalAwsState(dataDir);
    if (saved) {
      queues.restore(saved);
      log('info', 'state loaded', {
        file: localAwsStatePath(dataDir),
        queues: saved.queues.length,
        messages: saved.queues.reduce((total, queue) => total + queue.messages.length, 0),
      });
    }
    const target = dataDir;
    writer = new DebouncedWriter(
      () => saveLocalAwsState(target, queues.snapshot()),
      options.persistDebounceMs ?? 250,
      (error) => log('error', 'could not save the local AWS state', { error: errorText(error) }),
    );
    const pending = writer;
    queues.onChange(() => pending.schedule());
  }

  const lambda = new LambdaFunctions({ region, accountId, log });
  const stepFunctions = new StepFunctions({ clock, region, accountId, log });
  const secrets = new Secrets({ clock, region, accountId });
  const events = new EventBus({ clock, region, accountId, log });
  const topics = new SnsTopics();

  // The queue URL needs the origin, known once the server listens; no call arrives before.
  let origin = '';
  const queueUrl = (name: string): string => `${origin}/${accountId}/${name}`;
  const server = await startRouter({
    port,
    log,
    jsonServices: [
      createSqsService({ queues, clock, queueUrl }),
      stepFunctions.service,
      secrets.service,
      events.service,
    ],
    restRoutes: [lambda.route, topics.route],
  });
  origin = server.origin;
  log('info', 'local AWS ready', { endpoint: origin, data_dir: dataDir });

  let closing: Promise<void> | null = null;
  return {
    endpoint: origin,
    port: server.port,
    region,
    accountId,
    clock,
    endpointEnvironment: (through = origin) => ({
      AWS_ENDPOINT_URL_SQS: through,
      AWS_ENDPOINT_URL_LAMBDA: through,
      AWS_ENDPOINT_URL_SFN: through,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: through,
      AWS_ENDPOINT_URL_EVENTBRIDGE: through,
      AWS_ENDPOINT_URL_SNS: through,
    }),
    createQueue: (name, attributes) => queueUrl(queues.createQueue(name, attributes).queue.name),
    queueUrl,
    queueArn: (name) => queues.queueArn(name),
    registerFunction: (nameOrArn, fn) => lambda.register(nameOrArn, fn),
    onFunctionError: (listener) => lambda.onFunctionError(listener),
    stateMachineArn: (name) => stepFunctions.stateMachineArn(name),
    registerStateMachine: (arn, runner) => stepFunctions.registerStateMachine(arn, runner),
    createTaskToken: (onSuccess, onFailure, tokenOptions) =>
      stepFunctions.createTaskToken(onSuccess, onFailure, tokenOptions),
    stateMachineOfTaskToken: (token) => stepFunctions.stateMachineOfTaskToken(token),
    onExecutionEnded: (listener) => stepFunctions.onExecutionEnded(listener),
    execution: (executionArn) => stepFunctions.execution(executionArn),
    putSecret: (id, value) => secrets.put(id, value),
    createTopic: (topicArn) => topics.createTopic(topicArn),
    onPublish: (listener) => topics.onPublish(listener),
    published: () => topics.published(),
    onEvent: (listener) => events.onEvent(listener),
    events: () => events.events(),
    flush: () => writer?.flush(),
    close() {
      closing ??= (async () => {
        stepFunctions.shutdown();
        await server.close();
        writer?.flush();
        log('info', 'local AWS closed', { endpoint: origin });
      })();
      return closing;
    },
  };
};
