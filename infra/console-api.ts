/**
 * The console's HTTP API: one route per entry of CONSOLE_ROUTES (shared/console/api.ts), each
 * behind the Cognito JWT authorizer (the API's default, so no route is without it), answered by
 * the function the table names. CORS lets only the console's page call it; the `$default` stage
 * is throttled and writes an access log line per request.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  type HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CONSOLE_HANDLER_NAMES, CONSOLE_ROUTES, type ConsoleHandlerName } from '../shared/console/api.js';

/** A few operators clicking through pages: far above their pace, far below what would cost. */
const CONSOLE_API_THROTTLE = { rateLimit: 25, burstLimit: 50 } as const;

export type ConsoleApiProps = {
  functions: Readonly<Record<ConsoleHandlerName, NodejsFunction>>;
  userPool: UserPool;
  client: UserPoolClient;
  /** `https://<distribution domain>`: the only origin CORS allows. */
  origin: string;
  logRetention: RetentionDays;
};

/** One JSON line per request; the caller by their token's `sub`, never their email. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  sub: '$context.authorizer.claims.sub',
};

export class ConsoleApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: ConsoleApiProps) {
    super(scope, id);
    const authorizer = new HttpUserPoolAuthorizer('CognitoAuthorizer', props.userPool, {
      userPoolClients: [props.client],
      identitySource: ['$request.header.Authorization'],
    });
    this.api = new HttpApi(this, 'Api', {
      apiName: `${Stack.of(this).stackName}-api`,
      description: 'NCM batch classifier: operations console API',
      createDefaultStage: false,
      defaultAuthorizer: authorizer,
      corsPreflight: {
        allowOrigins: [props.origin],
        allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.OPTIONS],
        allowHeaders: ['authorization', 'content-type'],
        allowCredentials: false,
        maxAge: Duration.hours(1),
      },
    });
    const integrations = Object.fromEntries(
      CONSOLE_HANDLER_NAMES.map((name) => [
        name,
        new HttpLambdaIntegration(`${props.functions[name].node.id}Integration`, props.functions[name]),
      ]),
    ) as Record<ConsoleHandlerName, HttpLambdaIntegration>;
    for (const [routeKey, handler] of Object.entries(CONSOLE_ROUTES)) {
      const [method, path] = routeKey.split(' ') as [keyof typeof HttpMethod, string];
      this.api.addRoutes({ path, methods: [HttpMethod[method]], integration: integrations[handler] });
    }
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Not id 'Default': a child so named is its parent's defaultChild (the CfnApi is 'Resource',
    // and constructs refuses two), so the stage is 'DefaultStage' as HttpApi itself names it.
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: CONSOLE_API_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  /** The base URL the page calls (`${apiUrl}/batches`): the API's endpoint, served by `$default`. */
  get url(): string {
    return this.api.apiEndpoint;
  }
}
