/**
 * Runs the synthesized Batch, Row and Answers workflow definitions in aws-local-stepfunctions,
 * with each Task state wired to its use case over in-memory ports and the real sandbox over HTTP.
 *
 *   drop(file) ─▶ Batch workflow (Prepare ─▶ WaitForRows ─▶ Finalize)
 *                   │ kick                       ▲ wake(token)
 *                   ▼                            │
 *               dispatcher ─▶ Row workflow per row attempt (Submit ─▶ Wait ─▶ Poll … ─▶ Complete)
 *                   ▲                            │
 *                   │ kick                       ▼ wake(token) of the round
 *   dropAnswers(file) ─▶ Answers workflow (PrepareAnswers ─▶ WaitForAnswers ─▶ FinalizeAnswers)
 *
 * An answers round goes through the same dispatcher, Row workflow and completion as a batch
 * (shared/pipeline/README.md, "Answer rounds"): WaitForAnswers is await-rows on the round id.
 *
 * Each use case gets the ports its function's description gives it (functions/catalogue.ts),
 * taken from one set of in-memory ports, as a deployed handler gets them from portsFor.
 *
 * What AWS would do around the workflows is done here the same way: the dispatcher runs on
 * every kick and on a short "schedule"; a Row execution that fails is reported to
 * `rowExecutionEnded` as the EventBridge rule would; `waitForTaskToken` resolves when the
 * last row wakes it. Waits are shortened by `waitTimeOverrides`; nothing sleeps.
 */
import '../../local/polyfills.js';
import { randomUUID } from 'node:crypto';
import { ExecutionError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { selectPorts } from '../../functions/catalogue.js';
import { type AslDefinition, renderStateMachineDefinitions } from '../../infra/definitions.js';
import { synthesizeAssembly } from '../../local/runtime/assembly.js';
import { timeoutPaths } from '../../local/runtime/workflow-runner.js';
import { type Sandbox, startSandbox } from '../../local/sandbox/sandbox.js';
import type { HandlerName } from '../../shared/contract.js';
import { finalizeAnswers } from '../../shared/pipeline/answers/finalize-answers.js';
import { prepareAnswers } from '../../shared/pipeline/answers/prepare-answers.js';
import { personOfPrincipal } from '../../shared/pipeline/core/people.js';
import type {
  BatchWaiters,
  ClassificationService,
  Clock,
  PartialResultsRequests,
  RowWorkflows,
} from '../../shared/pipeline/core/ports.js';
import type { KickReason, RowExecutionInput } from '../../shared/pipeline/core/records.js';
import { dispatchRows } from '../../shared/pipeline/dispatch/dispatch-rows.js';
import { awaitRows } from '../../shared/pipeline/finalize/await-rows.js';
import { finalizeBatch } from '../../shared/pipeline/finalize/finalize-batch.js';
import { writePartialResults } from '../../shared/pipeline/finalize/partial-results.js';
import { prepareBatch } from '../../shared/pipeline/prepare/prepare-batch.js';
import { completeRow } from '../../shared/pipeline/row/complete.js';
import { rowExecutionEnded } from '../../shared/pipeline/row/execution-ended.js';
import { pollRow } from '../../shared/pipeline/row/poll.js';
import { reviewRow } from '../../shared/pipeline/row/review.js';
import type { RowStepConfig } from '../../shared/pipeline/row/row-state.js';
import { storeRow } from '../../shared/pipeline/row/store.js';
import { submitRow } from '../../shared/pipeline/row/submit.js';
import { createTcsClient } from '../../shared/tcs/client.js';
import { assemblyCacheDir } from '../helpers/assembly-cache.js';
import {
  countingKick,
  memoryAuditLog,
  memoryBatchEvents,
  memoryBatchStore,
  memoryCheckStore,
  memoryNotifier,
  memoryObjectStore,
  memoryProductCache,
  memoryReviewStore,
  memoryRowQueue,
  memorySimWatchStore,
  memorySlotLeases,
  memoryWriterRecords,
} from '../helpers/memory-ports.js';

type Definitions = { batch: AslDefinition; row: AslDefinition; answers: AslDefinition };
let definitions: Promise<Definitions> | undefined;

/**
 * Shared by every workflow test file and kept between runs: synthesis costs each process seconds
 * of CPU, so the first file synthesizes and the others read the templates back (the local
 * runtime's cache, keyed by a hash of the code and the context).
 */
const WORKFLOW_ASSEMBLY_DIR = assemblyCacheDir('workflow');

/** The definitions exactly as `cdk synth` writes them (bundling off: no bundle is run here). */
export const synthesizedDefinitions = (): Promise<Definitions> => {
  definitions ??= synthesizeAssembly({
    assemblyDir: WORKFLOW_ASSEMBLY_DIR,
    context: { tcsBaseUrl: 'https://api.example.com/v1', 'aws:cdk:bundling-stacks': [] },
    log: () => undefined,
  }).then((assembly) => {
    const rendered = renderStateMachineDefinitions(assembly);
    return { batch: rendered.batch, row: rendered.row, answers: rendered.answers };
  });
  return definitions;
};

type Json = Parameters<StateMachine['run']>[0];
const asJson = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json;

type LocalHandlers = Record<string, (input: Json) => Promise<Json>>;

/**
 * The handlers of every Task state of a definition, refused when one is missing: without its
 * local handler aws-local-stepfunctions would call the Task's real Lambda ARN instead.
 */
const localHandlersFor = (definition: AslDefinition, handlers: LocalHandlers): LocalHandlers => {
  const missing = Object.entries(definition.States)
    .filter(([name, state]) => state.Type === 'Task' && !(name in handlers))
    .map(([name]) => name);
  if (missing.length > 0) throw new Error(`no local handler for Task state(s) ${missing.join(', ')}`);
  return handlers;
};

export type HarnessOptions = {
  /** Wraps the sandbox's client: the place to script a 429, an unknown status, a crash. */
  service?: (real: ClassificationService) => ClassificationService;
  /** @default 10 */
  cap?: number;
};

/** How much faster than production the sandbox runs here, and so the use cases' clock. */
const TIME_SCALE = 0.002;
/** Who puts the answers files the harness drops, as S3's record of the write names them. */
export const HARNESS_WRITER = 'arn:aws:sts::111122223333:assumed-role/Operations/ana.revisora';

export const startHarness = async (options: HarnessOptions = {}) => {
  const sandbox: Sandbox = await startSandbox({
    port: 0,
    timeScale: TIME_SCALE,
    log: 'silent',
    seed: 'workflow',
  });
  const real = createTcsClient({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.classify,
    retry: { retryRateLimited: false, baseDelayMs: 5, maxDelayMs: 20 },
  });
  const service = options.service ? options.service(real) : real;
  // Real time, production spans shortened as the sandbox's runs are: what the local runtime hands its functions.
  const clock: Clock = { now: () => new Date(), span: (productionMs) => productionMs * TIME_SCALE };
  const objects = memoryObjectStore();
  const queue = memoryRowQueue(clock);
  const batches = memoryBatchStore();
  const reviews = memoryReviewStore();
  const checks = memoryCheckStore();
  const simWatches = memorySimWatchStore();
  const writers = memoryWriterRecords();
  const notifier = memoryNotifier();
  const audit = memoryAuditLog(() => clock.now());
  const cache = memoryProductCache();
  const leases = memorySlotLeases();
  const events = memoryBatchEvents();
  const stepConfig: RowStepConfig = { leaseTtlMs: 60_000 };

  /** Every lease release, in order, with the holders still held after it: for "released on every path". */
  const releases: string[] = [];
  const release = leases.release.bind(leases);
  leases.release = async (holder) => {
    releases.push(holder);
    return release(holder);
  };

  const tokens = new Map<string, (output: unknown) => void>();
  const waiters: BatchWaiters & { woken: string[] } = {
    woken: [],
    wake: async (taskToken, output) => {
      const resolve = tokens.get(taskToken);
      if (!resolve) return; // already woken or unknown: waking is idempotent
      tokens.delete(taskToken);
      waiters.woken.push(output.batch_id);
      resolve(output);
    },
  };

  const {
    batch: batchDefinition,
    row: rowDefinition,
    answers: answersDefinition,
  } = await synthesizedDefinitions();
  // WaitForRows' TimeoutSecondsPath followed as Step Functions does, not in the Task's
  // effective input where the library would look (the local runner does the same, scaled). The
  // Batch workflow's year-long execution timeout is left out: Node's timers overflow past 24.8
  // days and would fire at once (the local runner scales it under that).
  const machineOf = (definition: AslDefinition) => {
    const timeouts = timeoutPaths(definition, (seconds) => seconds);
    const { TimeoutSeconds, ...rest } = timeouts.definition;
    const runnable =
      TimeoutSeconds !== undefined && TimeoutSeconds * 1000 < 2 ** 31 ? timeouts.definition : rest;
    const machine = new StateMachine(runnable as unknown as StateMachineDefinition, {
      validationOptions: { checkArn: true },
    });
    return { machine, timeouts };
  };
  const batchMachine = machineOf(batchDefinition);
  const rowMachine = machineOf(rowDefinition);
  const answersMachine = machineOf(answersDefinition);

  /** The ports the function `name` is given; `workflows` and `kick` are defined below, used later. */
  const portsOf = <N extends HandlerName>(name: N) =>
    selectPorts(name, {
      clock,
      service,
      objects,
      queue,
      batches,
      reviews,
      checks,
      simWatches,
      writers,
      notifier,
      audit,
      cache,
      leases,
      workflows,
      waiters,
      events,
      kick,
      partials,
    });
  /** The invoke of write-partial-results, awaited here so a test sees its files deterministically. */
  const partials: PartialResultsRequests & { requested: string[] } = {
    requested: [],
    request: async (batchId) => {
      partials.requested.push(batchId);
      await writePartialResults(portsOf('write-partial-results'), batchId);
    },
  };
  const executions = new Map<string, { input: RowExecutionInput; status: string; done: Promise<void> }>();
  const failures: unknown[] = [];
  /** Tests set these to act at a point of the run. */
  const hooks: { rowExecutionFailed?: (name: string) => void } = {};

  const workflows: RowWorkflows & { started: string[] } = {
    started: [],
    start: async (name, input) => {
      if (executions.has(name)) return 'already_started';
      workflows.started.push(name);
      const run = rowMachine.machine.run(asJson(input), {
        overrides: {
          taskResourceLocalHandlers: localHandlersFor(rowDefinition, {
            Submit: async (state) => asJson(await submitRow(portsOf('row-submit'), state)),
            Poll: async (state) => asJson(await pollRow(portsOf('row-poll'), stepConfig, state)),
            Store: async (state) => asJson(await storeRow(portsOf('row-store'), state)),
            Review: async (state) => asJson(await reviewRow(portsOf('row-review'), state)),
            Complete: async (state) => asJson(await completeRow(portsOf('row-complete'), state)),
          }),
          waitTimeOverrides: { WaitForRun: 5 },
          retryIntervalOverrides: { Submit: 1, Poll: 1, Store: 1, Review: 1, Complete: 1 },
        },
      });
      const record = { input, status: 'RUNNING', done: Promise.resolve() };
      record.done = run.result.then(
        () => {
          record.status = 'SUCCEEDED';
        },
        async (error: unknown) => {
          record.status = 'FAILED';
          hooks.rowExecutionFailed?.(name);
          // The EventBridge rule on Row executions that FAILED / TIMED_OUT / ABORTED.
          const cause = error instanceof ExecutionError ? error.message : String(error);
          try {
            await rowExecutionEnded(portsOf('row-execution-ended'), {
              'detail-type': 'Step Functions Execution Status Change',
              source: 'aws.states',
              detail: { status: 'FAILED', name, input: JSON.stringify(input), error: cause },
            });
          } catch (failure) {
            failures.push(failure);
          }
        },
      );
      executions.set(name, record);
      return 'started';
    },
  };

  // One dispatcher run at a time, as a reserved concurrency of 1 would (several would also be safe).
  let dispatching: Promise<unknown> = Promise.resolve();
  const dispatch = (reason?: KickReason) => {
    dispatching = dispatching
      .then(() =>
        dispatchRows(portsOf('dispatch-rows'), {
          capOverride: options.cap ?? null,
          leaseTtlMs: 60_000,
          maxRuntimeMs: 5_000,
          freedSlot: reason === 'slot_freed',
          // The "schedule" tops the windows up first, as the real one does.
          topUpFirst: reason === undefined,
          topUpHoldMs: 5_000,
        }),
      )
      .catch((error: unknown) => failures.push(error));
    return dispatching;
  };
  const kick = countingKick();
  const countKick = kick.kick;
  kick.kick = async (reason) => {
    await countKick(reason);
    void dispatch(reason);
  };

  /** The "Object Created" event EventBridge sends for an object of the input bucket. */
  const objectCreated = (key: string, options: { versioned: boolean }) => {
    const stored = objects.objects.get(key);
    const version = stored?.version ?? 0;
    return {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Object Created',
      source: 'aws.s3',
      time: new Date().toISOString(),
      region: 'us-east-1',
      detail: {
        bucket: { name: 'input-bucket' },
        object: {
          key,
          size: stored?.bytes.byteLength ?? 0,
          etag: `etag-v${version}`,
          // A versioned bucket names each upload: a redelivery carries the same one.
          ...(options.versioned ? { 'version-id': `version-${version}` } : {}),
        },
      },
    };
  };

  /** Puts `<folder>/<file>` and the files beside it, and returns the S3 event AWS would send. */
  const put = (
    folder: string,
    fileName: string,
    bytes: Uint8Array | string,
    extra: Record<string, Uint8Array | string>,
    options: { versioned: boolean },
  ) => {
    for (const [relative, body] of Object.entries(extra)) objects.set(`${folder}/${relative}`, body);
    const key = `${folder}/${fileName}`;
    objects.set(key, bytes);
    return objectCreated(key, options);
  };

  /** Drops `inbox/<name>/<file>` (and its sheets, options) and returns the S3 event AWS would send. */
  const drop = (
    batchName: string,
    fileName: string,
    bytes: Uint8Array | string,
    extra: Record<string, Uint8Array | string> = {},
  ) => put(`inbox/${batchName}`, fileName, bytes, extra, { versioned: false });

  /**
   * Drops a filled review file as `answers/<batch-id>/<file>` (and its sheets beside it) and
   * returns the S3 event AWS would send, with the object's `version-id`: delivering the same
   * event twice is one round; dropping again is a new version, a new round.
   */
  const dropAnswers = (
    batchId: string,
    fileName: string,
    bytes: Uint8Array | string,
    extra: Record<string, Uint8Array | string> = {},
  ) => {
    const event = put(`answers/${batchId}`, fileName, bytes, extra, { versioned: true });
    // S3's record of the write, as CloudTrail's event keeps it on AWS (record-writer): who put it.
    void writers.record({
      key: event.detail.object.key,
      version_id: event.detail.object['version-id'] ?? null,
      etag: null,
      person: personOfPrincipal(HARNESS_WRITER),
      at: event.time,
    });
    return event;
  };

  /**
   * A `.waitForTaskToken` Task over await-rows (WaitForRows, WaitForAnswers): its result is what
   * the wake of its token sends, whether await-rows wakes it at once or the last row does.
   */
  const awaitToken = async (input: Json): Promise<Json> => {
    const payload = (input as { Payload: { batch_id: string; task_token: string } }).Payload;
    const woken = new Promise((resolve) => tokens.set(payload.task_token, resolve));
    try {
      await awaitRows(portsOf('await-rows'), payload);
    } catch (error) {
      tokens.delete(payload.task_token);
      throw error;
    }
    return asJson(await woken);
  };

  /**
   * Runs one execution of a parent workflow (Batch, Answers) to its end, with the dispatcher's
   * schedule running meanwhile, then lets the Row executions and the dispatcher settle.
   */
  const runParent = async (
    parent: ReturnType<typeof machineOf>,
    workflow: string,
    event: unknown,
    overrides: { taskResourceLocalHandlers: LocalHandlers; retryIntervalOverrides: Record<string, number> },
  ) => {
    const executionId = `arn:aws:states:us-east-1:000000000000:execution:${workflow}:${randomUUID()}`;
    const taskToken = `token-${randomUUID()}`;
    const timeouts = parent.timeouts.forExecution();
    const taskResourceLocalHandlers = Object.fromEntries(
      Object.entries(overrides.taskResourceLocalHandlers).map(([state, handler]) => [
        state,
        async (input: Json) => {
          const result = await handler(input);
          timeouts.remember(state, result);
          return result;
        },
      ]),
    );
    const schedule = setInterval(() => void dispatch(), 25);
    try {
      const run = parent.machine.run(asJson(event), {
        context: {
          Execution: {
            Id: executionId,
            Name: executionId.split(':').at(-1),
            StartTime: new Date().toISOString(),
          },
          Task: { Token: taskToken },
          ...timeouts.context,
        } as never,
        overrides: { ...overrides, taskResourceLocalHandlers },
      });
      const output = (await run.result) as Record<string, unknown>;
      await Promise.all([...executions.values()].map((execution) => execution.done));
      await dispatching;
      return output;
    } finally {
      clearInterval(schedule);
    }
  };

  /** Runs one Batch workflow execution to its end, with the dispatcher's schedule running meanwhile. */
  const runBatch = (event: unknown) =>
    runParent(batchMachine, 'batch', event, {
      taskResourceLocalHandlers: localHandlersFor(batchDefinition, {
        Prepare: async (input) => asJson(await prepareBatch(portsOf('prepare-batch'), input as never)),
        WaitForRows: awaitToken,
        Finalize: async (input) => asJson(await finalizeBatch(portsOf('finalize-batch'), input)),
      }),
      retryIntervalOverrides: { Prepare: 1, Finalize: 1 },
    });

  /** Runs one Answers workflow execution to its end, with the dispatcher's schedule running meanwhile. */
  const runAnswers = (event: unknown) =>
    runParent(answersMachine, 'answers', event, {
      taskResourceLocalHandlers: localHandlersFor(answersDefinition, {
        PrepareAnswers: async (input) =>
          asJson(await prepareAnswers(portsOf('prepare-answers'), input as never)),
        WaitForAnswers: awaitToken,
        FinalizeAnswers: async (input) => asJson(await finalizeAnswers(portsOf('finalize-answers'), input)),
      }),
      retryIntervalOverrides: { PrepareAnswers: 1, WaitForAnswers: 1, FinalizeAnswers: 1 },
    });

  const rowsOf = async (batchId: string) => {
    const rows = [];
    for await (const row of batches.listRows(batchId)) rows.push(row);
    return rows;
  };

  return {
    sandbox,
    service,
    objects,
    queue,
    batches,
    reviews,
    checks,
    simWatches,
    writers,
    notifier,
    audit,
    portsOf,
    cache,
    leases,
    events,
    waiters,
    workflows,
    executions,
    releases,
    failures,
    hooks,
    kick,
    drop,
    dropAnswers,
    runBatch,
    runAnswers,
    rowsOf,
    close: () => sandbox.close(),
  };
};

export type Harness = Awaited<ReturnType<typeof startHarness>>;
