/**
 * The operations console's AWS side, apart from the pipeline so either can be redeployed alone:
 *
 *   browser ──▶ CloudFront (stateful stack) ──▶ site bucket: index.html, assets, config.json
 *      │  sign-in: Cognito hosted UI (this stack) ─▶ ID token
 *      ├──▶ HTTP API (this stack), JWT authorizer on every route ──▶ console-read / -files / -answers
 *      └──▶ data bucket (stateful stack): presigned POST forms, presigned GET links
 *
 * The functions read the same tables and bucket the pipeline does, imported by export name
 * (pipeline-data.ts), with the environment and grants their catalogue entry gives them
 * (console-functions.ts). The site bucket and the distribution live in the stateful stack
 * (console-site.ts says why); this stack imports their names.
 */
import { CfnOutput, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { PipelineConfig } from './config.js';
import { ConsoleApi } from './console-api.js';
import { ConsoleAuth } from './console-auth.js';
import type { ConsoleConfig } from './console-config.js';
import { ConsoleDeployment } from './console-deployment.js';
import { ConsoleFunctions } from './console-functions.js';
import type { ConsoleSiteExports } from './console-site.js';
import { importData } from './pipeline-data.js';
import type { StatefulExports } from './stateful-stack.js';

export type ConsoleStackProps = StackProps & {
  config: PipelineConfig;
  console: ConsoleConfig;
  data: StatefulExports;
  site: ConsoleSiteExports;
};

export class ConsoleStack extends Stack {
  readonly functions: ConsoleFunctions;
  readonly auth: ConsoleAuth;
  readonly api: ConsoleApi;
  readonly deployment: ConsoleDeployment;
  /** `https://<distribution domain>`. */
  readonly consoleUrl: string;

  constructor(scope: Construct, id: string, props: ConsoleStackProps) {
    super(scope, id, props);
    const { config } = props;
    const data = importData(this, props.data);
    this.consoleUrl = `https://${props.site.distributionDomainName}`;

    this.functions = new ConsoleFunctions(this, 'Functions', { config, data });
    this.auth = new ConsoleAuth(this, 'Auth', { console: props.console, origin: this.consoleUrl });
    this.api = new ConsoleApi(this, 'Api', {
      functions: this.functions.functions,
      userPool: this.auth.userPool,
      client: this.auth.client,
      origin: this.consoleUrl,
      logRetention: config.logRetention,
    });
    this.deployment = new ConsoleDeployment(this, 'Site', {
      siteBucket: Bucket.fromBucketAttributes(this, 'SiteBucket', {
        bucketName: props.site.siteBucketName,
        bucketArn: props.site.siteBucketArn,
      }),
      distribution: Distribution.fromDistributionAttributes(this, 'Distribution', {
        distributionId: props.site.distributionId,
        domainName: props.site.distributionDomainName,
      }),
      page: {
        apiUrl: this.api.url,
        auth: {
          authority: this.auth.issuer,
          clientId: this.auth.client.userPoolClientId,
          domain: this.auth.hostedUiUrl,
          redirectUri: this.auth.redirectUri,
        },
      },
      logRetention: config.logRetention,
    });
    this.addOutputs();
  }

  private addOutputs() {
    new CfnOutput(this, 'ConsoleUrl', {
      value: `${this.consoleUrl}/`,
      description: 'The operations console',
    });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: "The console's HTTP API" });
    new CfnOutput(this, 'UserPoolId', { value: this.auth.userPool.userPoolId });
    new CfnOutput(this, 'CreateUserCommand', {
      description: 'Creates a console user: replace person@example.com; Cognito emails a temporary password',
      value: Fn.join('', [
        'aws cognito-idp admin-create-user --region ',
        this.region,
        ' --user-pool-id ',
        this.auth.userPool.userPoolId,
        ' --username person@example.com',
        ' --user-attributes Name=email,Value=person@example.com Name=email_verified,Value=true',
        ' --desired-delivery-mediums EMAIL',
      ]),
    });
  }
}
