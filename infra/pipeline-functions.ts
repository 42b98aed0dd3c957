/**
 * The thirteen Lambda functions, one per `functions/<name>/handler.ts`, built the same way: Node 24
 * on arm64, bundled locally by esbuild (no Docker) into one ESM file with the AWS SDK inside,
 * each with its own role and log group. What a function may reach is granted by the pipeline
 * stack, next to the environment variable that names the resource.
 */
import { fileURLToPath } from 'node:url';
import { type CfnResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Charset, LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { PipelineConfig } from './config.js';
import { HANDLER_METADATA_KEY, HANDLER_NAMES, type HandlerName, SERVICE_NAME } from './contract.js';

export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

type Sizing = { timeout: Duration; memorySize: number; description: string };

/**
 * Timeouts bound the service client's own retries (shared/tcs/retry.ts): a handler's
 * `maxElapsedMs` must leave room under these.
 */
const SIZING: Record<HandlerName, Sizing> = {
  'prepare-batch': {
    // Reads and validates the whole spreadsheet in memory and writes every row.
    timeout: Duration.minutes(15),
    memorySize: 2048,
    description: 'Batch workflow Prepare: read and validate the input, write rows, queue them',
  },
  'await-rows': {
    timeout: Duration.seconds(30),
    memorySize: 256,
    description:
      'Batch WaitForRows and Answers WaitForAnswers: keep the task token, wake at once if already done',
  },
  'finalize-batch': {
    timeout: Duration.minutes(15),
    memorySize: 2048,
    description: 'Batch workflow Finalize: results.csv, review.csv, summary.json, reused PDFs, event',
  },
  'dispatch-rows': {
    // Short on purpose: the rows queue's visibility timeout must outlast it (the pipeline stack checks).
    timeout: Duration.seconds(60),
    memorySize: 256,
    description: 'Fill free slot leases from the rows queue, one Row workflow per row',
  },
  'row-submit': {
    // Uploads a sheet of up to 10 MB, then POSTs with retries.
    timeout: Duration.minutes(2),
    memorySize: 512,
    description: 'Row workflow Submit: upload the sheet, create the classification',
  },
  'row-poll': {
    timeout: Duration.seconds(60),
    memorySize: 256,
    description: 'Row workflow Poll: read the classification, renew the lease, decide the next step',
  },
  'row-store': {
    timeout: Duration.minutes(2),
    memorySize: 512,
    description: 'Row workflow Store: resolved verdict to the row and its PDF to the outbox',
  },
  'row-review': {
    timeout: Duration.seconds(30),
    memorySize: 256,
    description: 'Row workflow Review: pending_data questions to the review table',
  },
  'row-complete': {
    timeout: Duration.seconds(60),
    memorySize: 256,
    description: 'Row workflow Complete: final row result or requeue, release the lease, kick',
  },
  'row-execution-ended': {
    timeout: Duration.seconds(60),
    memorySize: 256,
    description: 'Row workflow FAILED/TIMED_OUT/ABORTED: complete the row as error, release the lease',
  },
  'prepare-answers': {
    // Reads the filled review.csv (only pending rows) and its sheets, looks up the answered
    // classifications at the service eight at a time, writes each resumed row.
    timeout: Duration.minutes(15),
    memorySize: 1024,
    description:
      'Answers workflow PrepareAnswers: read the answers, report, resume answered rows, queue them',
  },
  'finalize-answers': {
    // Rewrites the whole results.csv and summary.json, as finalize-batch writes them.
    timeout: Duration.minutes(15),
    memorySize: 2048,
    description: 'Answers workflow FinalizeAnswers: revised results.csv, summary.json, review.csv, event',
  },
  'sweep-reviews': {
    // Lists the abandoned classifications once a day, then finalizes each batch they belong to
    // (as finalize-answers does, one batch after another).
    timeout: Duration.minutes(15),
    memorySize: 2048,
    description:
      'Daily: batches with rows abandoned after 30 days unanswered get their results moved forward',
  },
};

export const functionTimeout = (name: HandlerName): Duration => SIZING[name].timeout;

/** `functions/<name>/handler.ts`, from the repository root (this file sits in `infra/`). */
export const handlerEntry = (name: HandlerName): string =>
  fileURLToPath(new URL(`../functions/${name}/handler.ts`, import.meta.url));

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export type PipelineFunctionsProps = { config: PipelineConfig };

export class PipelineFunctions extends Construct {
  readonly functions: Readonly<Record<HandlerName, NodejsFunction>>;
  readonly logGroups: Readonly<Record<HandlerName, LogGroup>>;

  constructor(scope: Construct, id: string, props: PipelineFunctionsProps) {
    super(scope, id);
    const functions = {} as Record<HandlerName, NodejsFunction>;
    const logGroups = {} as Record<HandlerName, LogGroup>;
    for (const name of HANDLER_NAMES) {
      const id = pascalCase(name);
      const logGroup = new LogGroup(this, `${id}Logs`, {
        retention: props.config.logRetention,
        // Operational logs, bounded by their retention; the data lives in the stateful stack.
        removalPolicy: RemovalPolicy.DESTROY,
      });
      // An own role instead of the default one: the default attaches the managed
      // AWSLambdaBasicExecutionRole (logs:* on every log group); this one writes its own group.
      const role = new Role(this, `${id}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `${name}: writes its own log group; grants added by the pipeline stack`,
      });
      role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [logGroup.logGroupArn],
        }),
      );
      const fn = new NodejsFunction(this, id, {
        entry: handlerEntry(name),
        handler: 'handler',
        runtime: LAMBDA_RUNTIME,
        architecture: Architecture.ARM_64,
        ...SIZING[name],
        role,
        logGroup,
        projectRoot: PROJECT_ROOT,
        depsLockFilePath: fileURLToPath(new URL('../package-lock.json', import.meta.url)),
        environment: {
          POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
          // Stack traces through the minified bundle point at the TypeScript source.
          NODE_OPTIONS: '--enable-source-maps',
        },
        bundling: {
          forceDockerBundling: false,
          format: OutputFormat.ESM,
          target: 'node24',
          mainFields: ['module', 'main'],
          // Bundled CommonJS dependencies call require(); ESM has none unless we make one.
          banner:
            "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          // Everything in the bundle, the AWS SDK included: the code that runs is the code
          // the lockfile pinned and the tests ran, not whatever SDK the runtime ships today.
          externalModules: [],
          minify: true,
          // Step Functions' Retry/Catch match errors by name; minifying must not rename classes.
          keepNames: true,
          sourceMap: true,
          sourcesContent: false,
          charset: Charset.UTF8,
          // Warnings and errors only: twelve "Done in 3ms" lines per synthesis say nothing.
          logLevel: LogLevel.WARNING,
        },
      });
      (fn.node.defaultChild as CfnResource).addMetadata(HANDLER_METADATA_KEY, name);
      functions[name] = fn;
      logGroups[name] = logGroup;
    }
    this.functions = functions;
    this.logGroups = logGroups;
  }
}

const pascalCase = (name: string): string =>
  name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
