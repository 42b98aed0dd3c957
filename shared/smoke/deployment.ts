/**
 * The deployment under test, from its stack: the bucket and the two tables the smoke reads, by
 * the named exports the stateful stack already publishes for the pipeline and console stacks
 * (`<stack name>:BucketName`, `:BatchTableName`, `:ReviewTableName`; infra/stateful-stack.ts).
 */
import { SmokeFailure } from './failure.js';
import type { Deployment, DescribedStack, StackLookup } from './ports.js';

/** The export names read, after `<stack name>:`. */
const DEPLOYMENT_EXPORTS = {
  bucket: 'BucketName',
  batchTable: 'BatchTableName',
  reviewTable: 'ReviewTableName',
} as const;

/**
 * A stack whose last operation finished well. Any other state (still deploying, rolled back, being
 * deleted) says the deploy did not end as intended: a smoke would test something else.
 */
const READY_STATUSES: ReadonlySet<string> = new Set([
  'CREATE_COMPLETE',
  'UPDATE_COMPLETE',
  'IMPORT_COMPLETE',
]);

/** Pure: the deployment a described stack names, or why it names none. */
const deploymentOf = (stack: DescribedStack): Deployment => {
  const name = stack.StackName;
  if (!READY_STATUSES.has(stack.StackStatus)) {
    throw new SmokeFailure(
      `stack ${name} is ${stack.StackStatus}, not CREATE_COMPLETE or UPDATE_COMPLETE: ` +
        'let its deploy finish (or fix what rolled it back), then run the smoke again',
    );
  }
  const exported = (field: keyof typeof DEPLOYMENT_EXPORTS) =>
    stack.Outputs.find((output) => output.ExportName === `${name}:${DEPLOYMENT_EXPORTS[field]}`)?.OutputValue;
  const bucket = exported('bucket');
  const batchTable = exported('batchTable');
  const reviewTable = exported('reviewTable');
  if (!bucket || !batchTable || !reviewTable) {
    const missing = (Object.keys(DEPLOYMENT_EXPORTS) as (keyof typeof DEPLOYMENT_EXPORTS)[])
      .filter((field) => !exported(field))
      .map((field) => `${name}:${DEPLOYMENT_EXPORTS[field]}`);
    throw new SmokeFailure(
      `stack ${name} does not export ${missing.join(', ')}: give the stack that holds the bucket and ` +
        'the tables (the stateful stack)',
    );
  }
  return { stackName: name, bucket, batchTable, reviewTable };
};

export const findDeployment = async (stacks: StackLookup, stackName: string): Promise<Deployment> => {
  const stack = await stacks.describe(stackName);
  if (!stack) {
    throw new SmokeFailure(
      `there is no stack named ${stackName} in this account and region: check the stack name, ` +
        'AWS_PROFILE and AWS_REGION',
    );
  }
  return deploymentOf(stack);
};
