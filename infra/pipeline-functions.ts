/**
 * The pipeline's Lambda functions, one per handler name (HANDLER_NAMES, shared/contract.ts; each
 * `functions/<name>/handler.ts`), built the same way: Node 24 on arm64, each bundled into one ESM
 * file with the AWS SDK inside by its stack's one esbuild build (function-bundles.ts), each with
 * its own role and log group. Entry, timeout and memory come from the function's description
 * (functions/catalogue.ts), its description in words from functions/catalogue-words.ts; what it
 * may reach is granted from the same description (function-reach.ts).
 */
import { type CfnResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { describeFunction, ENV } from '../functions/catalogue.js';
import { functionWords } from '../functions/catalogue-words.js';
import { HANDLER_METADATA_KEY, HANDLER_NAMES, type HandlerName, SERVICE_NAME } from '../shared/contract.js';
import type { PipelineConfig } from './config.js';
import { bundledFunctionCode } from './function-bundles.js';

const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/** The function's timeout, from its description. */
export const functionTimeout = (name: HandlerName): Duration =>
  Duration.seconds(describeFunction(name).timeoutSeconds);

export type PipelineFunctionsProps = { config: PipelineConfig };

/** What a function's description gives its construct (functions/catalogue.ts, console-catalogue.ts). */
export type DescribedFunction = {
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
  description: string;
};

/**
 * One of the app's functions, as every one is built: its own log group and its own role (the
 * default role attaches the managed AWSLambdaBasicExecutionRole, logs:* on every log group;
 * this one writes its own group), Node 24 on arm64, bundled by its stack's esbuild build, and the
 * handler name in its metadata (the local runtime and definitions.ts read it). Ids under `scope`:
 * `<Pascal>`, `<Pascal>Logs`, `<Pascal>Role`.
 */
export const buildAppFunction = (
  scope: Construct,
  name: string,
  described: DescribedFunction,
  config: Pick<PipelineConfig, 'logRetention'>,
): { fn: NodejsFunction; logGroup: LogGroup } => {
  const id = pascalCase(name);
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: config.logRetention,
    // Operational logs, bounded by their retention; the data lives in the stateful stack.
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `${name}: writes its own log group; grants added by its stack`,
  });
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
  const fn = new NodejsFunction(scope, id, {
    // The stack's one esbuild build (function-bundles.ts says why one, and with what options).
    code: bundledFunctionCode(scope, name, described.entry),
    handler: 'index.handler',
    runtime: LAMBDA_RUNTIME,
    architecture: Architecture.ARM_64,
    timeout: Duration.seconds(described.timeoutSeconds),
    memorySize: described.memoryMb,
    description: described.description,
    role,
    logGroup,
    environment: {
      [ENV.serviceName]: SERVICE_NAME,
      // Stack traces through the minified bundle point at the TypeScript source.
      [ENV.nodeOptions]: '--enable-source-maps',
    },
  });
  (fn.node.defaultChild as CfnResource).addMetadata(HANDLER_METADATA_KEY, name);
  return { fn, logGroup };
};

export class PipelineFunctions extends Construct {
  readonly functions: Readonly<Record<HandlerName, NodejsFunction>>;
  readonly logGroups: Readonly<Record<HandlerName, LogGroup>>;

  constructor(scope: Construct, id: string, props: PipelineFunctionsProps) {
    super(scope, id);
    const functions = {} as Record<HandlerName, NodejsFunction>;
    const logGroups = {} as Record<HandlerName, LogGroup>;
    for (const name of HANDLER_NAMES) {
      const described = { ...describeFunction(name), description: functionWords(name).description };
      const built = buildAppFunction(this, name, described, props.config);
      functions[name] = built.fn;
      logGroups[name] = built.logGroup;
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
