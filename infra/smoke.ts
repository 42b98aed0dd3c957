/**
 * `npm run smoke -- [--stack NAME] [--timeout MINUTES]`: after a deploy, one command says whether
 * the deployment works. It drops the small catalogue of `sample-data/smoke/` into the deployed
 * bucket's inbox as a person would, waits for its batch, and checks what the pipeline made
 * (shared/smoke: the steps and checks; this file only reads the command line and builds the
 * AWS clients from the SDK's default chain).
 *
 * Here rather than in local/cli: it runs against a deployed stack, never the local runtime (whose
 * command helpers load the CDK app to synthesize it), and whoever deployed has installed the
 * dependencies already, which is what local/cli/bootstrap.mjs is for.
 *
 * Exit 0 when every check holds, 1 when one does not or the smoke could not run, 2 for a wrong
 * command line.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { createAwsClients } from '../shared/aws/clients.js';
import { awsSmokePorts, cloudFormationStacks } from '../shared/smoke/aws.js';
import { loadSmokeCatalogue } from '../shared/smoke/catalogue.js';
import { runSmoke, smokeBatchName } from '../shared/smoke/run-smoke.js';

/** infra/app.ts's STATEFUL_STACK_NAME (a test keeps them equal): importing it would load the CDK. */
export const DEFAULT_STACK = 'NcmBatchClassifier-Stateful';
export const DEFAULT_TIMEOUT_MINUTES = 15;
/** How often the batch is looked at while it runs: two reads of the batch table each time. */
const POLL_EVERY_MS = 5_000;

const USAGE = `usage: npm run smoke -- [--stack NAME] [--timeout MINUTES]

Drops the catalogue in sample-data/smoke/ (3 rows, one technical sheet) into the deployed
bucket's inbox/smoke-<time>-<id>/, waits for the batch it starts, then checks results.csv, the
verdict PDFs, summary.json and the batch and review tables against each other. It is billed:
USD 2.00 per resolved classification, at most USD 6.00 (its batch.json caps it).

  --stack NAME        the stack that holds the bucket and the tables (default: ${DEFAULT_STACK})
  --timeout MINUTES   how long to wait for the batch to end (default: ${DEFAULT_TIMEOUT_MINUTES})

AWS credentials and region come from the SDK's default chain (AWS_PROFILE, AWS_REGION, ~/.aws,
SSO, instance roles). Exit 0 when everything holds, 1 when something does not.`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type SmokeArguments = { stackName: string; timeoutMs: number };

/** node:util's parse errors, said in this project's words; anything else as it is. */
const usageErrorOf = (error: unknown): UsageError => {
  const { code, message } = error as { code?: string; message: string };
  const named = /'([^']+)'/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${named}`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return new UsageError(`unexpected argument ${named}: the smoke takes options only`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return new UsageError(`${named.split(' ')[0]} needs a value`);
  return new UsageError(message);
};

const OPTIONS = {
  stack: { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const parseTokens = (argv: readonly string[]) => {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, tokens: true });
  } catch (error) {
    throw usageErrorOf(error);
  }
};

/** The command line: null for --help; a UsageError for anything it cannot take as given. */
export const parseSmokeArguments = (argv: readonly string[]): SmokeArguments | null => {
  const parsed = parseTokens(argv);
  const given = parsed.tokens.filter((token) => token.kind === 'option').map((token) => token.name);
  const twice = given.find((name, i) => given.indexOf(name) !== i);
  // The last of two would win silently: a typo in a script is refused instead.
  if (twice) throw new UsageError(`--${twice} is given twice`);
  if (parsed.values.help) return null;
  const stackName = parsed.values.stack?.trim() ?? DEFAULT_STACK;
  if (stackName === '') throw new UsageError('--stack needs a stack name');
  const minutes = Number(parsed.values.timeout ?? DEFAULT_TIMEOUT_MINUTES);
  if (!(Number.isFinite(minutes) && minutes > 0 && minutes <= 24 * 60))
    throw new UsageError(`--timeout ${parsed.values.timeout}: give minutes, above 0 and at most 1440`);
  return { stackName, timeoutMs: Math.round(minutes * 60_000) };
};

const smoke = async (args: SmokeArguments, signal: AbortSignal): Promise<number> => {
  // The SDK's notice that Node 20 support ends is not this command's news (the local runtime agrees).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const cloudformation = new CloudFormationClient(
    process.env.AWS_REGION ? { region: process.env.AWS_REGION } : {},
  );
  const region = await cloudformation.config.region().catch(() => null);
  if (!region) throw new Error('no AWS region: set AWS_REGION, or a region in your AWS profile');
  const { s3, dynamo } = createAwsClients({ ...process.env, AWS_REGION: region });
  const catalogue = await loadSmokeCatalogue();
  console.log(`Smoke test of ${args.stackName} in ${region}`);
  const outcome = await runSmoke(
    awsSmokePorts({
      stacks: cloudFormationStacks(cloudformation),
      s3,
      dynamo,
      say: (line) => console.log(line),
    }),
    {
      stackName: args.stackName,
      catalogue,
      batchName: smokeBatchName(new Date(), randomBytes(2).toString('hex')),
      timeoutMs: args.timeoutMs,
      pollEveryMs: POLL_EVERY_MS,
      signal,
    },
  );
  return outcome.passed ? 0 : 1;
};

/** The SDK's "no credentials" error names no next step; this does. */
const sayError = (error: unknown): string => {
  const { name, message } = error as { name?: string; message?: string };
  if (name === 'CredentialsProviderError')
    return `no AWS credentials found (${message}): set AWS_PROFILE, or sign in with aws sso login`;
  return message ?? String(error);
};

const main = async (): Promise<number> => {
  let args: SmokeArguments | null;
  try {
    args = parseSmokeArguments(process.argv.slice(2));
  } catch (error) {
    console.error(`smoke: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args === null) {
    console.log(USAGE);
    return 0;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  try {
    return await smoke(args, stop.signal);
  } catch (error) {
    console.error(`smoke: ${sayError(error)}`);
    return 1;
  }
};

const runAsMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (runAsMain) {
  main().then((code) => {
    process.exitCode = code;
  });
}
