/**
 * Puts the console's page in the site bucket: the browser app (vite build of web/)
 * and its config.json (the API URL and the hosted UI's settings, known only at deploy time),
 * then invalidates the distribution so the new page is served at once.
 *
 * The build runs as the asset's local bundling, so only when bundling is on for the console
 * stack (`cdk synth`/`deploy`); with `aws:cdk:bundling-stacks: []` (the tests) it never runs.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { acknowledge, inFinding, wildcardAction, wildcardResource } from './nag.js';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const WEB_ROOT = 'web';

/** The page's config.json (web/src/config.ts, ConsoleConfig). */
export type ConsolePageConfig = {
  apiUrl: string;
  auth: { authority: string; clientId: string; domain: string; redirectUri: string };
};

export type ConsoleDeploymentProps = {
  siteBucket: IBucket;
  distribution: IDistribution;
  page: ConsolePageConfig;
  logRetention: RetentionDays;
};

/**
 * The browser app, built by vite from the repository root (it imports the shared code through
 * shared/console/web-contract.ts). Hashed by output: the source folder alone does not hold
 * everything the build reads. Never Docker: the build needs the repository's node_modules, so a
 * failed local build fails synthesis instead of falling back to the image (which must still be
 * named).
 */
const siteAsset = (): ISource =>
  Source.asset(fileURLToPath(new URL(`../${WEB_ROOT}`, import.meta.url)), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('node:22'),
      local: {
        tryBundle(outputDir: string): boolean {
          execFileSync(
            process.platform === 'win32' ? 'npx.cmd' : 'npx',
            [
              'vite',
              'build',
              '--config',
              `${WEB_ROOT}/vite.config.ts`,
              '--outDir',
              outputDir,
              '--emptyOutDir',
              // Synthesis runs inside the commands (npm run classify): only a failure may speak.
              '--logLevel',
              'error',
            ],
            { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
          );
          return true;
        },
      },
    },
  });

export class ConsoleDeployment extends Construct {
  readonly deployment: BucketDeployment;
  /** What config.json says, tokens unresolved. */
  readonly page: ConsolePageConfig;

  constructor(scope: Construct, id: string, props: ConsoleDeploymentProps) {
    super(scope, id);
    this.page = props.page;
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Own role, as the functions have: the singleton's default one gets AWSLambdaBasicExecutionRole.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Console site deployment: copies the page into the site bucket, invalidates the CDN',
    });
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    this.deployment = new BucketDeployment(this, 'Deployment', {
      sources: [siteAsset(), Source.jsonData('config.json', props.page)],
      destinationBucket: props.siteBucket,
      distribution: props.distribution,
      distributionPaths: ['/*'],
      // Every file is revalidated: config.json and index.html change in place on each deploy.
      cacheControl: [CacheControl.noCache()],
      role,
      logGroup,
    });
    acknowledgeDeploymentFindings(this, role, props.siteBucket);
  }
}

/** The BucketDeployment singleton's findings, each on the role or function that has it. */
const acknowledgeDeploymentFindings = (scope: Construct, role: Role, siteBucket: IBucket) => {
  const stack = Stack.of(scope);
  const assets = stack.synthesizer.bootstrapQualifier
    ? `arn:<AWS::Partition>:s3:::cdk-${stack.synthesizer.bootstrapQualifier}-assets-<AWS::AccountId>-<AWS::Region>/*`
    : undefined;
  acknowledge(
    role,
    "CDK's BucketDeployment grants: read of the CDK assets bucket (the zipped page and config.json), " +
      'read-write-delete of every key of the site bucket (the deployment replaces and prunes the whole ' +
      'page), and CloudFront CreateInvalidation/GetInvalidation, which has no resource-level permission.',
    wildcardAction('s3:GetObject*'),
    wildcardAction('s3:GetBucket*'),
    wildcardAction('s3:List*'),
    wildcardAction('s3:DeleteObject*'),
    wildcardAction('s3:Abort*'),
    wildcardResource(`${inFinding(scope, siteBucket.bucketArn)}/*`),
    ...(assets ? [wildcardResource(assets)] : []),
    wildcardResource('*'),
  );
  const singleton = stack.node.children.find((child) =>
    child.node.id.startsWith('Custom::CDKBucketDeployment'),
  );
  if (!singleton) throw new Error('BucketDeployment made no singleton function');
  acknowledge(
    singleton,
    "CDK's BucketDeployment handler runs on the Python runtime CDK ships it for, with the AWS CLI " +
      'layer built for that runtime; it runs only while CloudFormation deploys the console stack.',
    'AwsSolutions-L1',
  );
};
