/**
 * The CDK app: a stateful stack (bucket, tables, queues, secret, the console's site and
 * distribution), a pipeline stack (functions, workflows, rules, alarms) and a console stack
 * (sign-in, HTTP API, console functions, the page's deployment). Three callers build it the
 * same way:
 *
 *   npx cdk synth / deploy  ─▶ `npx tsx infra/app.ts` (cdk.json) ─▶ buildApp().app.synth()
 *   test/infra               ─▶ buildApp({ context }) ─▶ Template.fromStack(...)
 *   the local runtime        ─▶ buildApp({ context: { 'aws:cdk:enable-asset-metadata': true } })
 *                               ─▶ app.synth() ─▶ bundles + renderStateMachineDefinitions
 *
 * Offline and env-agnostic: no lookups, no account or region baked in; `cdk deploy` takes
 * them from the caller's credentials.
 */
import { pathToFileURL } from 'node:url';
import { Annotations, App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type PipelineConfig, readPipelineConfig, UNSET_TCS_BASE_URL } from './config.js';
import { type ConsoleConfig, readConsoleConfig } from './console-config.js';
import { ConsoleStack } from './console-stack.js';
import { PipelineStack } from './pipeline-stack.js';
import { StatefulStack } from './stateful-stack.js';

export const STATEFUL_STACK_NAME = 'NcmBatchClassifier-Stateful';
export const PIPELINE_STACK_NAME = 'NcmBatchClassifier-Pipeline';
export const CONSOLE_STACK_NAME = 'NcmBatchClassifier-Console';

/**
 * Feature flags the app relies on, set here rather than in cdk.json so the CLI, the tests and
 * the local runtime synthesize the same templates.
 */
const FEATURE_FLAGS = {
  // Access-log delivery allowed by a bucket policy, not the LogDeliveryWrite ACL: the log
  // bucket keeps ACLs disabled (BucketOwnerEnforced).
  '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
} as const;

export type BuildAppOptions = {
  /** Context on top of cdk.json's and the CLI's (e.g. `{ tcsBaseUrl, retentionDays }`). */
  context?: Record<string, unknown>;
  /** Where `app.synth()` writes the cloud assembly; default: the CLI's, else a temporary folder. */
  outdir?: string;
  /**
   * Run cdk-nag's AwsSolutions pack during synthesis: an unacknowledged finding fails it.
   * @default true
   */
  nag?: boolean;
};

export type BuiltApp = {
  app: App;
  stateful: StatefulStack;
  pipeline: PipelineStack;
  console: ConsoleStack;
  config: PipelineConfig;
  consoleConfig: ConsoleConfig;
};

/** Builds the app without synthesizing it. Throws InvalidContextError on bad context. */
export const buildApp = (options: BuildAppOptions = {}): BuiltApp => {
  const app = new App({
    context: { ...FEATURE_FLAGS, ...options.context },
    ...(options.outdir !== undefined ? { outdir: options.outdir } : {}),
  });
  const config = readPipelineConfig(app);
  const consoleConfig = readConsoleConfig(app);

  const stateful = new StatefulStack(app, 'Stateful', {
    stackName: STATEFUL_STACK_NAME,
    description: 'NCM batch classifier: bucket, tables, rows queue, API key secret, console site',
    config,
    console: consoleConfig,
  });
  const pipeline = new PipelineStack(app, 'Pipeline', {
    stackName: PIPELINE_STACK_NAME,
    description: 'NCM batch classifier: functions, Batch and Row workflows, rules, alarms',
    config,
    data: stateful.exported,
  });
  // Named exports carry no automatic dependency: the data must exist before the logic.
  pipeline.addStackDependency(stateful);
  if (!config.tcsBaseUrlConfigured) {
    Annotations.of(pipeline).addWarningV2(
      'ncm:tcsBaseUrlUnset',
      `Context tcsBaseUrl is not set: the functions get ${UNSET_TCS_BASE_URL}, which never resolves. ` +
        'Deploy with -c tcsBaseUrl=https://<service>/v1 (infra/README.md).',
    );
  }

  const consoleStack = new ConsoleStack(app, 'Console', {
    stackName: CONSOLE_STACK_NAME,
    description: 'NCM batch classifier: operations console (sign-in, HTTP API, functions, page)',
    config,
    console: consoleConfig,
    data: stateful.exported,
    site: stateful.consoleExported,
  });
  // The console reads the data and serves the page from the stateful stack; it needs nothing of
  // the pipeline's, so either redeploys alone.
  consoleStack.addStackDependency(stateful);

  // Acknowledgements are recorded next to their causes (infra/nag.ts).
  if (options.nag ?? true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stateful, pipeline, console: consoleStack, config, consoleConfig };
};

const runAsMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (runAsMain) buildApp().app.synth();
