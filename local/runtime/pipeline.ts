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
 * This file holds the order of the start; each step is its own file: loopback.ts (the
 * stand-ins, the SDK clients), provision.ts (tables, queues, secret), lambda-functions.ts,
 * workflows.ts, event-routing.ts, operator-view.ts, batch-starts.ts; shutdown.ts stops what
 * started, by rank.
 *
 * Everything is kept under `dataDir` (tables, objects, queued messages, the sandbox's
 * classifications), so a later pipeline on the same folder finds earlier batches.
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { ConsoleHandlerName } from '../../shared/console/api.js';
import type { HandlerName } from '../../shared/contract.js';
import { AUDIT_WRITES_FOLDER, outboxFolder, outboxKey } from '../../shared/pipeline/core/bucket-layout.js';
import type { CheckItem } from '../../shared/pipeline/core/check-records.js';
import type { BatchStore, ReviewStore } from '../../shared/pipeline/core/ports.js';
import type { ReviewItem } from '../../shared/pipeline/core/records.js';
import type { LocalAws } from '../aws/local-aws.js';
import type { PublishedMessage } from '../aws/sns.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { type SynthesizedAssembly, synthesizeAssembly } from './assembly.js';
import {
  type AnswersSubmission,
  type BatchStarts,
  type BatchSubmission,
  createBatchStarts,
} from './batch-starts.js';
import { type BatchOutcome, createBatchWatch, createCapReader, type WaitOptions } from './batch-watch.js';
import { copyPartialFiles, copyPrefix, getBytes, objectCreated } from './bucket.js';
import { findConsoleSite } from './console-gateway.js';
import { lockDataDir } from './data-lock.js';
import { type EventRouting, startEventRouting } from './event-routing.js';
import { interruptRunningBatches } from './interrupt.js';
import { startLambdaFunctions } from './lambda-functions.js';
import type { CrashFault, LambdaPool } from './lambda-pool.js';
import {
  createRuntimeClients,
  type RuntimeClients,
  type SandboxSettings,
  type Servers,
  startLocalAwsStandIn,
  startServers,
} from './loopback.js';
import { type OperatorView, openOperatorView } from './operator-view.js';
import { GRANT_USAGE_DIR_VARIABLE, type PermissionGates, startPermissionGates } from './permissions/index.js';
import type { ObjectWritten } from './permissions/object-writes.js';
import type { RequestCount } from './permissions/request-counts.js';
import type { BatchProgress } from './progress.js';
import { createTemplateResources } from './provision.js';
import { type LocalResources, readLocalResources } from './resources.js';
import { envelope } from './rules.js';
import {
  type BackgroundWork,
  createBackgroundWork,
  createShutdown,
  type Shutdown,
  STOP_RANK,
} from './shutdown.js';
import { describeLocalStack, type LocalStackDescription } from './stack-description.js';
import { LOCAL_ACCOUNT, type StackTemplate, TemplateResolver } from './template.js';
import { registerWorkflows } from './workflows.js';

export type LocalPipelineOptions = {
  /** Persistent state: dynamodb/, s3/, aws/ (SQS), sandbox/, cdk.out/. */
  dataDir: string;
  /** Wipe dataDir's state first (the synthesized assembly, a build cache, is kept). */
  fresh?: boolean;
  /** Scales the sandbox's runs and every Wait, retry interval, timeout and schedule of the workflows. */
  timeScale: number;
  /** null/undefined: the built-in sandbox, in-process, persisting in dataDir/sandbox. */
  service?: { baseUrl: string; apiKey: string } | null;
  sandbox?: SandboxSettings;
  /**
   * A cap below the organisation's, as the CDK context `capOverride` sets it: given to the
   * functions that read it as their CAP_OVERRIDE, the way the stack sets it, without a synthesis
   * of its own (lambda-functions.ts).
   */
  capOverride?: number | null;
  /** Test fault: that handler's process exits during its Nth invocation (after the handler ran). */
  crash?: CrashFault | null;
  /** Diagnostics, one line each; default silent. */
  log?: (line: string) => void;
  /**
   * Every object created in the bucket goes through the template's rules, as S3's EventBridge
   * notifications do on AWS: what a browser uploads (the console) starts its batch or round.
   * Off for the commands, which route their own drops to know the execution they started.
   */
  bucketNotifications?: boolean;
  /**
   * Every call a function makes is weighed against its role in the template, and refused with
   * AccessDenied when IAM would refuse it (permissions/). Default on; off only when asked.
   */
  permissionChecks?: boolean;
  /** Tests only: changes the synthesized templates before anything is read from them (a grant removed). */
  editTemplates?: (stacks: StackTemplate[]) => void;
  /**
   * Where synthesized assemblies are cached (default `<dataDir>/cdk.out`). Tests share one
   * folder so each temporary data folder does not synthesize again.
   */
  assemblyDir?: string;
};

export type LocalPipeline = {
  submit(input: BatchSubmission): Promise<{ batchId: string; batchName: string }>;
  /**
   * Drops a filled review file (and the sheets it names) into `answers/<batch-id>/`, as a user
   * would on AWS: the template's rule starts an Answers workflow. Wait for it with
   * `waitForBatch(roundId)`: a round is tracked like a batch and ends in the batch's outbox.
   */
  submitAnswers(input: AnswersSubmission): Promise<{ roundId: string; missingSheets: string[] }>;
  /** A batch, or an answers round by its round id. */
  waitForBatch(batchId: string, options?: WaitOptions): Promise<BatchOutcome>;
  progress(batchId: string): Promise<BatchProgress>;
  /** What an operator reads in the tables: batch records and review items. */
  tables: {
    batches: Pick<BatchStore, 'getBatch' | 'getRow'>;
    reviews: Pick<ReviewStore, 'get' | 'listByBatch'>;
    /** Every review item still waiting for answers, across batches. */
    pendingReviews(): Promise<ReviewItem[]>;
    /** Every verdict still waiting for a person's check, across batches. */
    openChecks(): Promise<CheckItem[]>;
  };
  /** Copies outbox/<batch-id>/** to outDir; returns the paths written. */
  copyOutbox(batchId: string, outDir: string): Promise<string[]>;
  /**
   * Copies the batch's partial files (results.partial.csv, summary.partial.json) to outDir when
   * the outbox has them; returns their `as_of`, or null when there are none.
   */
  copyPartialResults(batchId: string, outDir: string): Promise<string | null>;
  /** The in-process sandbox, when one was started. */
  sandbox: Sandbox | null;
  /** 'built-in sandbox (simulated verdicts)' or the service's origin. */
  serviceLabel: string;
  /** What listens on loopback while the pipeline runs (closed by close()). */
  endpoints: {
    aws: string;
    dynamodb: string;
    s3: string;
    /**
     * S3 as a person at this machine reaches it: through the permission gate, which tells of who
     * wrote each object (their writes into answers/ and inbox/ are recorded, as CloudTrail does on
     * AWS, when the bucket tells of its objects); the stand-in itself when the checks are off.
     */
    s3ForPeople: string;
    service: string | null;
  };
  /**
   * Invokes a function once, synchronously, as `aws lambda invoke` would (an operator running a
   * scheduled job now, e.g. `sweep-reviews`); resolves with its result.
   */
  invoke(handler: HandlerName | ConsoleHandlerName, event?: unknown): Promise<unknown>;
  /** Peak memory of a function's process so far, in MiB (for the bench); null if unknown. */
  peakMemoryMb(handler: HandlerName): number | null;
  /** How many invocations of a function have ended (for the bench: Prepare done). */
  endedInvocations(handler: HandlerName): number;
  /**
   * The requests the functions made to DynamoDB, S3 and local/aws since the start or the last
   * reset, by function, service and API operation (for the bench); empty when the permission
   * checks are off, since the gates are what counts them.
   */
  functionRequests(): RequestCount[];
  resetFunctionRequests(): void;
  /** What the functions published to the stack's topics (the notices), in order. */
  published(): readonly PublishedMessage[];
  /** One file of a batch's outbox (`results.csv`, `summary.json`…); null when it is not there. */
  outboxFile(batchId: string, name: string): Promise<Uint8Array | null>;
  /**
   * Puts bytes into the bucket under `key`, as a person would upload a file (a newer NCM table into
   * `reference/ncm/`); no rule is told (unless `bucketNotifications`): the caller delivers the
   * event it wants, e.g. by `invoke`.
   */
  putObject(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** The console's page as the CDK app staged it for deployment; null when the app has none. */
  consoleSite(): Promise<string | null>;
  /** A stack as DescribeStacks would describe it (outputs resolved to local names); null: no such stack. */
  describeStack(stackName: string): LocalStackDescription | null;
  /** Stops everything it started; nothing is left listening. */
  close(): Promise<void>;
};

export const SANDBOX_LABEL = 'built-in sandbox (simulated verdicts)';

/** The folders `fresh` wipes: state, not the synthesized assembly. */
const STATE_FOLDERS = ['dynamodb', 's3', 'aws', 'sandbox'] as const;

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

const synthesize = async (options: LocalPipelineOptions, dataDir: string, log: (line: string) => void) => {
  const assembly = await synthesizeAssembly({
    assemblyDir: options.assemblyDir ?? join(dataDir, 'cdk.out'),
    context: { 'aws:cdk:enable-asset-metadata': true },
    log,
  });
  log(`assembly ${assembly.cached ? 'cached' : 'synthesized'} in ${assembly.ms} ms: ${assembly.dir}`);
  return assembly;
};

/** The stand-ins listening, the template's stateful resources in them, the service this run talks to. */
type StandIns = {
  assembly: SynthesizedAssembly;
  localAws: LocalAws;
  resources: LocalResources;
  servers: Servers;
  service: { baseUrl: string; apiKey: string };
  serviceLabel: string;
  clients: RuntimeClients;
  /** null when the permission checks are off. */
  permissions: PermissionGates | null;
  /** Each object write the S3 gate saw succeed, with who made it (permissions/object-writes.ts). */
  objectWrites: Set<(written: ObjectWritten) => void>;
};

/** Everything running once the pipeline has started, for the handle it returns. */
type Running = StandIns & {
  options: LocalPipelineOptions;
  pool: LambdaPool;
  routing: EventRouting;
  background: BackgroundWork;
  closing: AbortController;
  shutdown: Shutdown;
  log: (line: string) => void;
};

/** Everything after the data folder is locked; `unlock` is the last thing close() does. */
const startUnlocked = async (
  options: LocalPipelineOptions,
  dataDir: string,
  unlock: () => void,
): Promise<LocalPipeline> => {
  const log = options.log ?? (() => undefined);
  const assembly = await synthesize(options, dataDir, log);

  // Everything started from here on is registered with the shutdown as it comes up.
  const shutdown = createShutdown(log);
  shutdown.add('data folder lock', STOP_RANK.dataFolderLock, async () => unlock());
  const closing = new AbortController();
  // Every wait of the run listens to it (an asynchronous invocation's retry, a batch watch, a
  // queue's long poll): hundreds at once under load, none of them a leak.
  setMaxListeners(0, closing.signal);
  try {
    const standIns = await startStandIns(options, dataDir, assembly, shutdown);
    const running = startPipelineStack(standIns, { options, closing, shutdown, log });
    shutdown.add('waits', STOP_RANK.waits, async () => closing.abort());
    return openPipeline(running);
  } catch (error) {
    closing.abort();
    await shutdown.stopAll();
    throw error;
  }
};

/**
 * local/aws first (the template's queue URLs name it), then the resources read from the
 * templates, DynamoDB, S3 and the sandbox, the runtime's own clients, and the tables, queues
 * and secret created in them.
 */
const startStandIns = async (
  options: LocalPipelineOptions,
  dataDir: string,
  assembly: SynthesizedAssembly,
  shutdown: Shutdown,
): Promise<StandIns> => {
  const localAws = await startLocalAwsStandIn(dataDir, options.timeScale, options.log, shutdown);
  options.editTemplates?.(assembly.stacks);
  const resolver = new TemplateResolver(assembly.stacks, { queueUrl: (name) => localAws.queueUrl(name) });
  const resources = readLocalResources(resolver, assembly.dir);
  const servers = await startServers(
    {
      dataDir,
      buckets: resources.buckets,
      useService: Boolean(options.service),
      timeScale: options.timeScale,
      sandbox: options.sandbox,
      diagnostics: options.log,
      bucketNotifications: options.bucketNotifications ?? false,
    },
    shutdown,
  );
  const { dynamo, s3, sandbox } = servers;
  const service = options.service ?? {
    baseUrl: (sandbox as Sandbox).baseUrl,
    apiKey: (sandbox as Sandbox).keys.classify,
  };
  const serviceLabel = sandbox ? SANDBOX_LABEL : new URL(service.baseUrl).origin;
  const clients = createRuntimeClients(
    { dynamodb: dynamo.endpoint, s3: s3.endpoint, aws: localAws.endpoint },
    shutdown,
  );
  await createTemplateResources({ dynamo: clients.dynamo, localAws, resources, apiKey: service.apiKey });
  const objectWrites = new Set<(written: ObjectWritten) => void>();
  const permissions =
    options.permissionChecks === false
      ? null
      : await startPermissionChecks(
          resolver,
          resources,
          servers,
          localAws,
          options.log,
          shutdown,
          (written) => {
            for (const listener of objectWrites) listener(written);
          },
        );
  return {
    assembly,
    localAws,
    resources,
    servers,
    service,
    serviceLabel,
    clients,
    permissions,
    objectWrites,
  };
};

/** The gates between the functions and the stand-ins (permissions/), and the usage they record. */
const startPermissionChecks = async (
  resolver: TemplateResolver,
  resources: LocalResources,
  servers: Servers,
  localAws: LocalAws,
  log: ((line: string) => void) | undefined,
  shutdown: Shutdown,
  onObjectWritten: (written: ObjectWritten) => void,
): Promise<PermissionGates> => {
  const gates = await startPermissionGates({
    onObjectWritten,
    resolver,
    functions: resources.functions,
    upstreams: { dynamodb: servers.dynamo.endpoint, s3: servers.s3.endpoint, aws: localAws.endpoint },
    stateMachineOfTaskToken: (token) => localAws.stateMachineOfTaskToken(token),
    log: log ?? (() => undefined),
  });
  shutdown.add('permission gates', STOP_RANK.servers, async () => {
    const usageDir = process.env[GRANT_USAGE_DIR_VARIABLE];
    if (usageDir) gates.usage.writeTo(usageDir);
    await gates.close();
  });
  return gates;
};

/** The pipeline stack's logic on the stand-ins: the functions in their processes, the workflows, the rules. */
const startPipelineStack = (
  standIns: StandIns,
  run: Pick<Running, 'options' | 'closing' | 'shutdown' | 'log'>,
): Running => {
  const { localAws, resources, servers, clients } = standIns;
  const { options, shutdown, log } = run;
  const { timeScale } = options;
  const background = createBackgroundWork();
  const { pool, invokeAsync } = startLambdaFunctions(
    {
      functions: resources.functions,
      localAws,
      endpoints: standIns.permissions?.endpoints ?? {
        dynamodb: servers.dynamo.endpoint,
        s3: servers.s3.endpoint,
        aws: localAws.endpoint,
      },
      sessionTokenOf: standIns.permissions?.sessionTokenOf ?? null,
      serviceBaseUrl: standIns.service.baseUrl,
      timeScale,
      capOverride: options.capOverride ?? null,
      crash: options.crash ?? null,
      closing: run.closing.signal,
      background,
      log,
    },
    shutdown,
  );
  const { functions, stateMachines, rules } = resources;
  registerWorkflows({ stateMachines, functions, localAws, pool, timeScale, log });
  const routing = startEventRouting(
    { rules, localAws, sfn: clients.sfn, invokeAsync, background, timeScale, log },
    shutdown,
  );
  if (options.bucketNotifications) {
    routeBucketNotifications(servers.s3, routing, background, shutdown, log);
    routeObjectWrites(standIns.objectWrites, routing, background, shutdown, log);
  }
  return { ...standIns, ...run, pool, routing, background };
};

/**
 * S3's record of each write the gate saw, delivered to the template's rules as CloudTrail's data
 * event reaches EventBridge on AWS ("AWS API Call via CloudTrail"): the record-writer rule keeps who
 * wrote what was dropped into answers/ and inbox/. The local S3 keeps no versions: the record names
 * the ETag where AWS names the version.
 */
const routeObjectWrites = (
  objectWrites: StandIns['objectWrites'],
  routing: EventRouting,
  background: BackgroundWork,
  shutdown: Shutdown,
  log: (line: string) => void,
) => {
  const listener = (written: ObjectWritten) => {
    const event = envelope({
      source: 'aws.s3',
      detailType: 'AWS API Call via CloudTrail',
      detail: {
        eventVersion: '1.09',
        eventSource: 's3.amazonaws.com',
        eventName: written.call,
        eventTime: new Date().toISOString(),
        userIdentity: { arn: written.principalArn, accountId: LOCAL_ACCOUNT },
        requestParameters: { bucketName: written.bucket, key: written.key },
        responseElements: { ETag: written.etag },
        readOnly: false,
      },
    });
    background.track(
      routing.rules
        .route('default', event)
        .catch((error: unknown) => log(`routing the write of ${written.key} failed: ${String(error)}`)),
    );
  };
  objectWrites.add(listener);
  shutdown.add('object writes', STOP_RANK.schedulesAndListeners, async () => {
    objectWrites.delete(listener);
  });
};

const REASONS = { 'ObjectCreated:Post': 'PostObject', 'ObjectCreated:Copy': 'CopyObject' } as const;

/** S3's "Object Created" events, delivered to the template's rules as EventBridge would. */
const routeBucketNotifications = (
  s3: Servers['s3'],
  routing: EventRouting,
  background: BackgroundWork,
  shutdown: Shutdown,
  log: (line: string) => void,
) => {
  const unsubscribe = s3.onObjectCreated((created) => {
    const reason = REASONS[created.eventName as keyof typeof REASONS] ?? 'PutObject';
    const event = objectCreated(created.bucket, created.key, created, LOCAL_ACCOUNT, reason);
    background.track(
      routing.rules
        .route('default', event)
        .catch((error: unknown) => log(`routing ${created.key} failed: ${String(error)}`)),
    );
  });
  shutdown.add('bucket notifications', STOP_RANK.schedulesAndListeners, async () => unsubscribe());
};

/** What the operator reads, and the batches this run starts, behind the returned handle. */
const openPipeline = (running: Running): LocalPipeline => {
  const { localAws, clients, routing, log } = running;
  const view = openOperatorView(running.resources.functions, clients.dynamo);
  const starts = createBatchStarts({
    s3: clients.s3,
    bucket: view.bucket,
    rules: routing.rules,
    localAws,
    log,
  });
  const watch = createBatchWatch({
    batches: view.batches,
    leases: view.leases,
    cap: createCapReader({
      sandbox: running.servers.sandbox,
      service: running.service,
      capOverride: running.options.capOverride ?? null,
    }),
    s3: clients.s3,
    bucket: view.bucket,
    executionOf: starts.executionOf,
    onExecutionEnded: routing.onExecutionEnded,
    closing: running.closing.signal,
  });
  interruptBatchesOnClose(running, view, starts);
  return pipelineHandle(running, view, starts, watch);
};

/** close() first ends the batches this run started and that still run (interrupt.ts). */
const interruptBatchesOnClose = (running: Running, view: OperatorView, starts: BatchStarts) =>
  running.shutdown.add('running batches', STOP_RANK.runningBatches, async () => {
    const runningBatches = starts.running();
    if (runningBatches.size === 0) return;
    running.routing.rules.stopSchedules();
    await interruptRunningBatches({
      running: runningBatches,
      batches: view.batches,
      sfn: running.clients.sfn,
      stateMachineArns: running.resources.stateMachines.map((machine) => machine.arn),
      inFlight: running.background.inFlight,
      log: running.log,
    });
  });

const pipelineHandle = (
  running: Running,
  view: OperatorView,
  starts: BatchStarts,
  watch: ReturnType<typeof createBatchWatch>,
): LocalPipeline => {
  const { servers, clients, pool, shutdown } = running;
  let closed: Promise<void> | null = null;
  return {
    sandbox: servers.sandbox,
    serviceLabel: running.serviceLabel,
    endpoints: {
      aws: running.localAws.endpoint,
      dynamodb: servers.dynamo.endpoint,
      s3: servers.s3.endpoint,
      s3ForPeople: running.permissions?.endpoints.s3 ?? servers.s3.endpoint,
      service: servers.sandbox?.origin ?? null,
    },
    submit: starts.submit,
    submitAnswers: starts.submitAnswers,
    waitForBatch: watch.waitForBatch,
    tables: {
      batches: view.batches,
      reviews: view.reviews,
      pendingReviews: view.pendingReviews,
      openChecks: view.openChecks,
    },
    progress: watch.progress,
    // audit.csv's working copies stay in the bucket: the reader gets audit.csv itself.
    copyOutbox: (batchId, outDir) =>
      copyPrefix(clients.s3, view.bucket, outboxFolder(batchId), outDir, (relative) =>
        relative.startsWith(AUDIT_WRITES_FOLDER),
      ),
    copyPartialResults: (batchId, outDir) => copyPartialFiles(clients.s3, view.bucket, batchId, outDir),
    invoke: (handler, event = {}) => pool.invoke(handler, event),
    published: () => running.localAws.published(),
    peakMemoryMb: (handler) => pool.peakMemoryMb(handler),
    endedInvocations: (handler) => pool.endedInvocations(handler),
    functionRequests: () => running.permissions?.requests.snapshot() ?? [],
    resetFunctionRequests: () => running.permissions?.requests.reset(),
    outboxFile: (batchId, name) => getBytes(clients.s3, view.bucket, outboxKey(batchId, name)),
    putObject: async (key, body, contentType) => {
      await clients.s3.send(
        new PutObjectCommand({ Bucket: view.bucket, Key: key, Body: body, ContentType: contentType }),
      );
    },
    consoleSite: () => findConsoleSite(running.assembly.dir, running.assembly.stacks),
    describeStack: (name) => describeLocalStack(running.assembly.stacks, running.localAws.queueUrl, name),
    close: () => {
      closed ??= shutdown.stopAll();
      return closed;
    },
  };
};
