/**
 * `startLocalPipeline`: the deployable pipeline on this machine.
 *
 *   synthesize (cached) ─▶ templates ─▶ local resources
 *   local/aws (SQS, Lambda Invoke, Step Functions, Secrets Manager, EventBridge)   ┐
 *   dynalite (tables from the template) · s3rver (buckets) · the sandbox or the service ├ 127.0.0.1
 *   Lambda pool: one process per function, running the synthesized bundle          ┘
 *   workflows: the synthesized definitions in aws-local-stepfunctions, Tasks → Lambda pool
 *   rules: S3 Object Created ─▶ Batch workflow; Row FAILED/TIMED_OUT/ABORTED ─▶ row-execution-ended;
 *          rate(1 minute) ─▶ dispatch-rows every max(1 s, 60 s × timeScale)
 *
 * Everything is kept under `dataDir` (tables, objects, queued messages, the sandbox's
 * classifications), so a later pipeline on the same folder finds earlier batches.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { HandlerName } from '../../infra/contract.js';
import { createDynamoBatchStore } from '../../shared/aws/dynamo-batch-store.js';
import { createDynamoReviewStore } from '../../shared/aws/dynamo-review-store.js';
import { createDynamoSlotLeases } from '../../shared/aws/dynamo-slot-leases.js';
import { answersSourceFromEvent } from '../../shared/pipeline/answers/index.js';
import { batchSourceFromEvent } from '../../shared/pipeline/batch/index.js';
import type { BatchStore, ReviewItem, ReviewStore } from '../../shared/pipeline/core/index.js';
import { type ExecutionRecord, type LocalAws, startLocalAws } from '../aws/index.js';
import { type Sandbox, startSandbox } from '../sandbox/index.js';
import { synthesizeAssembly } from './assembly.js';
import { type BatchOutcome, createBatchWatch, createCapReader, type WaitOptions } from './batch-watch.js';
import { copyPrefix, dropAnswers, dropBatch } from './bucket.js';
import { lockDataDir } from './data-lock.js';
import { interruptRunningBatches } from './interrupt.js';
import { type CrashFault, LambdaPool } from './lambda-pool.js';
import type { BatchProgress } from './progress.js';
import { type FunctionSpec, queuesInCreationOrder, readLocalResources } from './resources.js';
import { envelope, LocalRules } from './rules.js';
import { sleep } from './sleep.js';
import { ensureTables, type RunningServer, startDynamo, startS3 } from './stand-ins.js';
import { LOCAL_REGION, TemplateResolver } from './template.js';
import { createWorkflowRunner } from './workflow-runner.js';

export type LocalPipelineOptions = {
  /** Persistent state: dynamodb/, s3/, aws/ (SQS), sandbox/, cdk.out/. */
  dataDir: string;
  /** Wipe dataDir's state first (the synthesized assembly, a build cache, is kept). */
  fresh?: boolean;
  /** Scales the sandbox's runs and every Wait, retry interval, timeout and schedule of the workflows. */
  timeScale: number;
  /** null/undefined: the built-in sandbox, in-process, persisting in dataDir/sandbox. */
  service?: { baseUrl: string; apiKey: string } | null;
  sandbox?: { seed?: string; faults?: string | Record<string, number>; concurrencyLimit?: number };
  capOverride?: number | null;
  /** Test fault: that handler's process exits during its Nth invocation (after the handler ran). */
  crash?: CrashFault | null;
  /** Diagnostics, one line each; default silent. */
  log?: (line: string) => void;
  /**
   * Where synthesized assemblies are cached (default `<dataDir>/cdk.out`). Tests share one
   * folder so each temporary data folder does not synthesize again.
   */
  assemblyDir?: string;
};

export type LocalPipeline = {
  submit(input: {
    file: string;
    sheetsDir?: string;
    optionsFile?: string;
    batchName?: string;
  }): Promise<{ batchId: string; batchName: string }>;
  /**
   * Drops a filled review file (and the sheets it names) into `answers/<batch-id>/`, as a user
   * would on AWS: the template's rule starts an Answers workflow. Wait for it with
   * `waitForBatch(roundId)`: a round is tracked like a batch and ends in the batch's outbox.
   */
  submitAnswers(input: {
    file: string;
    batchId: string;
    sheets?: readonly string[];
    sheetsDir?: string;
    answeredBy: string;
  }): Promise<{ roundId: string; missingSheets: string[] }>;
  /** A batch, or an answers round by its round id. */
  waitForBatch(batchId: string, options?: WaitOptions): Promise<BatchOutcome>;
  progress(batchId: string): Promise<BatchProgress>;
  /** What an operator reads in the tables: batch records and review items. */
  tables: {
    batches: Pick<BatchStore, 'getBatch'>;
    reviews: Pick<ReviewStore, 'get' | 'listByBatch'>;
    /** Every review item still waiting for answers, across batches. */
    pendingReviews(): Promise<ReviewItem[]>;
  };
  /** Copies outbox/<batch-id>/** to outDir; returns the paths written. */
  copyOutbox(batchId: string, outDir: string): Promise<string[]>;
  /** The in-process sandbox, when one was started. */
  sandbox: Sandbox | null;
  /** 'built-in sandbox (simulated verdicts)' or the service's origin. */
  serviceLabel: string;
  /** What listens on loopback while the pipeline runs (closed by close()). */
  endpoints: { aws: string; dynamodb: string; s3: string; service: string | null };
  /**
   * Invokes a function once, synchronously, as `aws lambda invoke` would (an operator running a
   * scheduled job now, e.g. `sweep-reviews`); resolves with its result.
   */
  invoke(handler: HandlerName, event?: unknown): Promise<unknown>;
  /** Peak memory of a function's process so far, in MiB (for the bench); null if unknown. */
  peakMemoryMb(handler: HandlerName): number | null;
  /** Stops everything it started; nothing is left listening. */
  close(): Promise<void>;
};

export const SANDBOX_LABEL = 'built-in sandbox (simulated verdicts)';

/**
 * The functions between a classification leaving in_progress and the next POST: Poll sees it
 * and releases the lease, the dispatcher takes the slot, Submit posts. The others (Store,
 * Review, Complete, Prepare, Finalize…) run at a lower OS priority (lambda-pool.ts): on two
 * shared cores at a benchmark's time scale, a freed slot otherwise waits behind the filing of
 * results, which no AWS environment would make it do.
 */
const SLOT_REFILL_PATH: ReadonlySet<string> = new Set<HandlerName>([
  'row-poll',
  'dispatch-rows',
  'row-submit',
]);

/** The folders `fresh` wipes: state, not the synthesized assembly. */
const STATE_FOLDERS = ['dynamodb', 's3', 'aws', 'sandbox'] as const;
/** Credentials every local client signs with; s3rver's own pair, ignored by the others. */
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The variable naming the API key's secret (shared/pipeline/README.md, "Environment of the handlers"). */
const API_KEY_SECRET_VARIABLE = 'TCS_API_KEY_SECRET_ARN';
const SERVICE_URL_VARIABLE = 'TCS_BASE_URL';

const checkOptions = (options: LocalPipelineOptions) => {
  if (!(Number.isFinite(options.timeScale) && options.timeScale > 0 && options.timeScale <= 1000)) {
    throw new RangeError(`timeScale must be a number above 0 and at most 1000, got ${options.timeScale}`);
  }
  if (options.capOverride != null && !(Number.isInteger(options.capOverride) && options.capOverride >= 1)) {
    throw new RangeError(`capOverride must be a positive integer, got ${options.capOverride}`);
  }
  if (options.service && !(options.service.baseUrl && options.service.apiKey)) {
    throw new RangeError('service needs both baseUrl and apiKey');
  }
};

/** `arn:aws:lambda:…:function:name[:qualifier]` or `name` → `name`. */
const functionNameOfArn = (arnOrName: string): string => {
  const match = /:function:([^:]+)/.exec(arnOrName);
  return match?.[1] ?? arnOrName;
};

/** "Step Functions Execution Status Change", as EventBridge delivers it. */
const statusChangeEvent = (execution: ExecutionRecord) =>
  envelope({
    source: 'aws.states',
    detailType: 'Step Functions Execution Status Change',
    resources: [execution.executionArn],
    time: new Date(execution.stopDate ?? Date.now()),
    detail: {
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: execution.startDate,
      stopDate: execution.stopDate,
      input: execution.input,
      inputDetails: { included: true },
      output: execution.output,
      outputDetails: execution.output === null ? null : { included: true },
      error: execution.error,
      cause: execution.cause,
    },
  });

export const startLocalPipeline = async (options: LocalPipelineOptions): Promise<LocalPipeline> => {
  checkOptions(options);
  const dataDir = resolve(options.dataDir);
  // The SDK's notice that Node 20 support ends is not this tool's news (handlers get the same).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  try {
    if (options.fresh) {
      for (const folder of STATE_FOLDERS) rmSync(join(dataDir, folder), { recursive: true, force: true });
    }
    return await startUnlocked(options, dataDir, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
};

/** Everything after the data folder is locked; `unlock` is the last thing close() does. */
const startUnlocked = async (
  options: LocalPipelineOptions,
  dataDir: string,
  unlock: () => void,
): Promise<LocalPipeline> => {
  const log = options.log ?? (() => undefined);
  const verbose = options.log !== undefined;
  const { timeScale } = options;

  const assembly = await synthesizeAssembly({
    assemblyDir: options.assemblyDir ?? join(dataDir, 'cdk.out'),
    context: {
      'aws:cdk:enable-asset-metadata': true,
      ...(options.capOverride != null ? { capOverride: options.capOverride } : {}),
    },
    log,
  });
  log(`assembly ${assembly.cached ? 'cached' : 'synthesized'} in ${assembly.ms} ms: ${assembly.dir}`);

  // Everything started so far, stopped by rank on close or on a failed start:
  //   -1 running batches (interrupt.ts)  0 waits  1 schedules, listeners  2 local AWS (aborts
  //   executions before the functions they call stop)  3 Lambda processes  4 DynamoDB, S3,
  //   sandbox  5 SDK clients  9 the data folder's lock
  const stops: { name: string; rank: number; stop: () => Promise<void> }[] = [
    { name: 'data folder lock', rank: 9, stop: async () => unlock() },
  ];
  const stopAll = async () => {
    for (const { name, stop } of stops.splice(0).sort((a, b) => a.rank - b.rank)) {
      try {
        await stop();
      } catch (error) {
        log(`stopping ${name} failed: ${String(error)}`);
      }
    }
  };
  const closing = new AbortController();

  try {
    const localAws: LocalAws = await startLocalAws({
      port: 0,
      dataDir: join(dataDir, 'aws'),
      log: verbose
        ? (level, event, fields) => log(`aws ${level}: ${event} ${JSON.stringify(fields ?? {})}`)
        : 'silent',
    });
    stops.push({ name: 'local AWS', rank: 2, stop: () => localAws.close() });

    const resolver = new TemplateResolver(assembly.stacks, { queueUrl: (name) => localAws.queueUrl(name) });
    const resources = readLocalResources(resolver, assembly.dir);

    const sandboxStarting: Promise<Sandbox | null> = options.service
      ? Promise.resolve(null)
      : startSandbox({
          port: 0,
          timeScale,
          dataDir: join(dataDir, 'sandbox'),
          log: verbose
            ? (event, fields) => log(`sandbox: ${event} ${JSON.stringify(fields ?? {})}`)
            : 'silent',
          ...(options.sandbox?.seed !== undefined ? { seed: options.sandbox.seed } : {}),
          ...(options.sandbox?.faults !== undefined ? { faults: options.sandbox.faults } : {}),
          ...(options.sandbox?.concurrencyLimit !== undefined
            ? { concurrencyLimit: options.sandbox.concurrencyLimit }
            : {}),
        });
    const [dynamo, s3, sandbox] = await Promise.allSettled([
      startDynamo(dataDir),
      startS3(dataDir, resources.buckets),
      sandboxStarting,
    ]).then((results) => {
      const names = ['DynamoDB', 'S3', 'sandbox'];
      results.forEach((result, index) => {
        if (result.status !== 'fulfilled' || !result.value) return;
        const value = result.value as RunningServer | Sandbox;
        stops.push({ name: names[index] ?? 'server', rank: 4, stop: () => value.close() });
      });
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as [
        RunningServer,
        RunningServer,
        Sandbox | null,
      ];
    });

    const service = options.service ?? {
      baseUrl: (sandbox as Sandbox).baseUrl,
      apiKey: (sandbox as Sandbox).keys.classify,
    };
    const serviceLabel = sandbox ? SANDBOX_LABEL : new URL(service.baseUrl).origin;

    const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
    const dynamoClient = new DynamoDBClient({ ...clientConfig, endpoint: dynamo.endpoint });
    const s3Client = new S3Client({
      ...clientConfig,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const sfnClient = new SFNClient({ ...clientConfig, endpoint: localAws.endpoint });
    stops.push({
      name: 'SDK clients',
      rank: 5,
      stop: async () => {
        for (const client of [dynamoClient, s3Client, sfnClient]) client.destroy();
      },
    });

    await ensureTables(dynamoClient, resources.tables);
    for (const queue of queuesInCreationOrder(resources.queues))
      localAws.createQueue(queue.name, queue.attributes);
    // The key goes where the template says the functions read it, never into an environment.
    const secretArns = new Set(
      resources.functions.flatMap((fn) => fn.environment[API_KEY_SECRET_VARIABLE] ?? []),
    );
    for (const arn of secretArns) localAws.putSecret(arn, service.apiKey);

    const runtimeEnvironment = (fn: FunctionSpec): Record<string, string> => ({
      PATH: process.env.PATH ?? '',
      TZ: 'UTC',
      LANG: 'en_US.UTF-8',
      AWS_REGION: LOCAL_REGION,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_LAMBDA_FUNCTION_NAME: fn.name,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      ...localAws.endpointEnvironment(),
      S3_FORCE_PATH_STYLE: 'true',
      TIME_SCALE: String(timeScale),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // The template's placeholder (or the deployed URL) stands for the service this run talks to.
      ...(fn.environment[SERVICE_URL_VARIABLE] !== undefined
        ? { [SERVICE_URL_VARIABLE]: service.baseUrl }
        : {}),
    });

    const pool = new LambdaPool({
      functions: resources.functions,
      environmentOf: runtimeEnvironment,
      crash: options.crash ?? null,
      background: (fn) => !SLOT_REFILL_PATH.has(fn.name),
      log,
    });
    stops.push({ name: 'Lambda pool', rank: 3, stop: () => pool.close() });

    /** Background work (rule deliveries, asynchronous invocations) close() may wait for. */
    const inFlight = new Set<Promise<unknown>>();
    const track = <T>(work: Promise<T>): Promise<T> => {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work)).catch(() => undefined);
      return work;
    };

    /**
     * An asynchronous invocation (a rule target, a kick): Lambda retries a failed one per the
     * function's EventInvokeConfig, after about 1 and 2 minutes (scaled here). Never rejects.
     */
    const invokeAsync = async (name: string, event: unknown): Promise<void> => {
      const retries = pool.spec(name).asyncRetryAttempts;
      for (let attempt = 0; ; attempt++) {
        try {
          await pool.invoke(name, event);
          return;
        } catch (error) {
          if (closing.signal.aborted) return;
          if (attempt >= retries) {
            log(`${name}: asynchronous invocation failed after ${attempt + 1} attempt(s): ${String(error)}`);
            return;
          }
          await sleep(Math.max(100, 60_000 * 2 ** attempt * timeScale), closing.signal);
        }
      }
    };

    for (const fn of resources.functions) {
      localAws.registerFunction(fn.name, (event, context) =>
        context.invocationType === 'Event' ? track(invokeAsync(fn.name, event)) : pool.invoke(fn.name, event),
      );
    }

    const functionNames = new Set(resources.functions.map((fn) => fn.name));
    for (const spec of resources.stateMachines) {
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
          timeScale,
          log,
        }),
      );
    }

    const rules = new LocalRules(
      resources.rules,
      {
        startExecution: async (stateMachineArn, input) => {
          const { executionArn } = await sfnClient.send(
            new StartExecutionCommand({ stateMachineArn, name: randomUUID(), input: JSON.stringify(input) }),
          );
          if (!executionArn) throw new Error(`StartExecution of ${stateMachineArn} returned no execution`);
          return executionArn;
        },
        invokeAsync: (functionArn, event) => track(invokeAsync(functionNameOfArn(functionArn), event)),
      },
      log,
    );
    stops.push({ name: 'schedules', rank: 1, stop: async () => rules.stopSchedules() });
    const executionListeners = new Set<(execution: ExecutionRecord) => void>();
    const unsubscribeEnded = localAws.onExecutionEnded((execution) => {
      for (const listener of executionListeners) listener(execution);
      track(
        rules
          .route('default', statusChangeEvent(execution))
          .catch((error: unknown) =>
            log(`routing ${execution.status} of ${execution.name} failed: ${String(error)}`),
          ),
      );
    });
    const unsubscribeEvents = localAws.onEvent(({ eventBusName, event }) => {
      track(
        rules
          .route(eventBusName, event)
          .catch((error: unknown) => log(`routing ${event['detail-type']} failed: ${String(error)}`)),
      );
    });
    stops.push({
      name: 'listeners',
      rank: 1,
      stop: async () => {
        unsubscribeEnded();
        unsubscribeEvents();
      },
    });
    rules.startSchedules(timeScale);
    stops.push({ name: 'waits', rank: 0, stop: async () => closing.abort() });

    // --- What the operator reads. --------------------------------------------------------

    const environmentValue = (variable: string): string => {
      const value = resources.functions
        .map((fn) => fn.environment[variable])
        .find((found) => found !== undefined);
      if (value === undefined) throw new Error(`No function of the template has ${variable}`);
      return value;
    };
    const bucket = environmentValue('BUCKET_NAME');
    const batches = createDynamoBatchStore({
      client: dynamoClient,
      tableName: environmentValue('BATCH_TABLE'),
    });
    const reviewTable = environmentValue('REVIEW_TABLE');
    const reviews = createDynamoReviewStore({ client: dynamoClient, tableName: reviewTable });
    const pendingReviews = async (): Promise<ReviewItem[]> =>
      (await reviews.listPending()).sort((a, b) => a.batch_id.localeCompare(b.batch_id) || a.row - b.row);
    const leases = createDynamoSlotLeases({
      client: dynamoClient,
      tableName: environmentValue('LEASE_TABLE'),
      scope: resources.functions.map((fn) => fn.environment.LEASE_SCOPE).find(Boolean) ?? 'org',
    });

    /** Batch id (or round id) → the Batch (or Answers) workflow execution this process started for it. */
    const batchExecutions = new Map<string, string>();
    const watch = createBatchWatch({
      batches,
      leases,
      cap: createCapReader({ sandbox, service, capOverride: options.capOverride ?? null }),
      s3: s3Client,
      bucket,
      executionOf: (batchId) => {
        const executionArn = batchExecutions.get(batchId);
        return executionArn ? localAws.execution(executionArn) : null;
      },
      onExecutionEnded: (listener) => {
        executionListeners.add(listener);
        return () => executionListeners.delete(listener);
      },
      closing: closing.signal,
    });

    stops.push({
      name: 'running batches',
      rank: -1,
      stop: async () => {
        const running = new Map(
          [...batchExecutions].filter(([, arn]) => localAws.execution(arn)?.status === 'RUNNING'),
        );
        if (running.size === 0) return;
        rules.stopSchedules();
        await interruptRunningBatches({
          running,
          batches,
          sfn: sfnClient,
          stateMachineArns: resources.stateMachines.map((machine) => machine.arn),
          inFlight,
          log,
        });
      },
    });

    let closed: Promise<void> | null = null;
    const pipeline: LocalPipeline = {
      sandbox,
      serviceLabel,
      endpoints: {
        aws: localAws.endpoint,
        dynamodb: dynamo.endpoint,
        s3: s3.endpoint,
        service: sandbox?.origin ?? null,
      },
      submit: async (input) => {
        const batchName = input.batchName ?? basename(input.file, extname(input.file));
        const event = await dropBatch(s3Client, bucket, {
          file: input.file,
          batchName,
          ...(input.sheetsDir !== undefined ? { sheetsDir: input.sheetsDir } : {}),
          ...(input.optionsFile !== undefined ? { optionsFile: input.optionsFile } : {}),
        });
        const found = batchSourceFromEvent(event);
        if (!found)
          throw new Error(`${basename(input.file)} is not a batch file (a .csv or .xlsx in inbox/<name>/)`);
        const routed = await rules.route('default', event);
        const executionArn = routed.find((delivery) => delivery.executionArn)?.executionArn;
        if (!executionArn) throw new Error(`No rule of the template starts a batch for ${found.source.key}`);
        batchExecutions.set(found.batchId, executionArn);
        log(`batch ${found.batchId}: ${found.source.key} started ${executionArn}`);
        return { batchId: found.batchId, batchName: found.batchName };
      },
      submitAnswers: async (input) => {
        const { event, missingSheets } = await dropAnswers(s3Client, bucket, {
          file: input.file,
          batchId: input.batchId,
          sheets: input.sheets ?? [],
          sheetsDir: input.sheetsDir ?? dirname(input.file),
          requester: input.answeredBy,
        });
        const found = answersSourceFromEvent(event);
        if (!found)
          throw new Error(
            `${basename(input.file)} is not an answers file (a .csv or .xlsx in answers/<batch-id>/)`,
          );
        const routed = await rules.route('default', event);
        const executionArn = routed.find((delivery) => delivery.executionArn)?.executionArn;
        if (!executionArn)
          throw new Error(`No rule of the template starts an answers round for ${found.source.key}`);
        batchExecutions.set(found.roundId, executionArn);
        log(`round ${found.roundId}: ${found.source.key} started ${executionArn}`);
        return { roundId: found.roundId, missingSheets };
      },
      waitForBatch: watch.waitForBatch,
      tables: { batches, reviews, pendingReviews },
      progress: watch.progress,
      copyOutbox: (batchId, outDir) => copyPrefix(s3Client, bucket, `outbox/${batchId}/`, outDir),
      invoke: (handler, event = {}) => pool.invoke(handler, event),
      peakMemoryMb: (handler) => pool.peakMemoryMb(handler),
      close: () => {
        closed ??= stopAll();
        return closed;
      },
    };
    return pipeline;
  } catch (error) {
    closing.abort();
    await stopAll();
    throw error;
  }
};

export type { BatchOutcome, BatchProgress, HandlerName, WaitOptions };
