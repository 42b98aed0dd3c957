import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CONSOLE_FUNCTIONS,
  type ConsolePortUses,
  consoleEnvironmentOf,
} from '../../functions/console-catalogue.js';
import { CONSOLE_STACK_NAME } from '../../infra/app.js';
import { InvalidContextError } from '../../infra/config.js';
import { DEFAULT_GEO_ALLOWLIST, readConsoleConfig } from '../../infra/console-config.js';
import { CONSOLE_HANDLER_NAMES, CONSOLE_ROUTES, type ConsoleHandlerName } from '../../shared/console/api.js';
import { HANDLER_METADATA_KEY, SERVICE_NAME } from '../../shared/contract.js';
import {
  type CfnResource,
  type CfnTemplate,
  exportsOf,
  type Reach,
  reachOfRole,
  renderReference,
  resourcesOfType,
  roleOfFunction,
  type Synthesized,
  synthesize,
  TEST_CONTEXT,
} from './synth.js';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON, read by path and checked by the assertions.
type Json = any;

let synth: Synthesized;
let json: CfnTemplate;
let stateful: CfnTemplate;
let exports: Map<string, string>;
let functionIds: Record<ConsoleHandlerName, string>;
/** `https://<Distribution.DomainName>`, as both stacks render it. */
let origin: string;

const logicalId = (stack: Stack, construct: IConstruct) =>
  stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);
const render = (value: unknown) => renderReference(value, exports);
const props = (resource: CfnResource | undefined) => (resource?.Properties ?? {}) as Record<string, Json>;
const only = (template: CfnTemplate, type: string): [string, CfnResource] => {
  const found = resourcesOfType(template, type);
  expect(found, type).toHaveLength(1);
  return found[0] as [string, CfnResource];
};

beforeAll(() => {
  synth = synthesize();
  json = synth.consoleJson;
  stateful = synth.statefulJson;
  exports = exportsOf(stateful);
  const ids: Partial<Record<ConsoleHandlerName, string>> = {};
  for (const [id, resource] of resourcesOfType(json, 'AWS::Lambda::Function')) {
    const name = resource.Metadata?.[HANDLER_METADATA_KEY] as ConsoleHandlerName | undefined;
    if (name) ids[name] = id;
  }
  functionIds = ids as Record<ConsoleHandlerName, string>;
  origin = `https://<${logicalId(synth.built.stateful, synth.built.stateful.consoleSite.distribution)}.DomainName>`;
});

describe('console stack: HTTP API', () => {
  it('has one route per CONSOLE_ROUTES entry, every one behind the Cognito JWT authorizer', () => {
    const [authorizerId, authorizer] = only(json, 'AWS::ApiGatewayV2::Authorizer');
    const [poolId] = only(json, 'AWS::Cognito::UserPool');
    const [clientId] = only(json, 'AWS::Cognito::UserPoolClient');
    expect(props(authorizer)).toMatchObject({
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Audience: [{ Ref: clientId }] },
    });
    expect(render(props(authorizer).JwtConfiguration.Issuer)).toBe(
      `https://cognito-idp.{AWS::Region}.amazonaws.com/<${poolId}>`,
    );
    const routes = resourcesOfType(json, 'AWS::ApiGatewayV2::Route').map(([, route]) => props(route));
    expect(routes.map((route) => route.RouteKey).sort()).toEqual(Object.keys(CONSOLE_ROUTES).sort());
    for (const route of routes) {
      expect(route, route.RouteKey).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
      });
    }
  });

  it('sends each route to the function the table names', () => {
    for (const [, route] of resourcesOfType(json, 'AWS::ApiGatewayV2::Route')) {
      const { RouteKey, Target } = props(route);
      const integrationId = /^integrations\/<(\w+)>$/.exec(render(Target))?.[1] ?? '';
      const uri = props(json.Resources[integrationId]).IntegrationUri as { 'Fn::GetAtt': [string, string] };
      const handler = json.Resources[uri['Fn::GetAtt'][0]]?.Metadata?.[HANDLER_METADATA_KEY];
      expect(handler, RouteKey).toBe(CONSOLE_ROUTES[RouteKey as keyof typeof CONSOLE_ROUTES]);
    }
  });

  it('lets only the console page call it (CORS), on a throttled, logged $default stage', () => {
    const [, api] = only(json, 'AWS::ApiGatewayV2::Api');
    const cors = props(api).CorsConfiguration;
    expect(cors.AllowOrigins.map(render)).toEqual([origin]);
    expect(cors).toMatchObject({
      AllowMethods: ['GET', 'POST', 'OPTIONS'],
      AllowHeaders: ['authorization', 'content-type'],
      AllowCredentials: false,
    });
    const [, stage] = only(json, 'AWS::ApiGatewayV2::Stage');
    expect(props(stage)).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: expect.any(Number),
        ThrottlingBurstLimit: expect.any(Number),
      },
    });
    const destination = render(props(stage).AccessLogSettings.DestinationArn);
    expect(json.Resources[/^<(\w+)\.Arn>$/.exec(destination)?.[1] ?? '']?.Type).toBe('AWS::Logs::LogGroup');
    expect(props(stage).AccessLogSettings.Format).toContain('$context.requestId');
  });

  it('is the only caller API Gateway may invoke the functions for, route by route', () => {
    const [apiId] = only(json, 'AWS::ApiGatewayV2::Api');
    const permissions = resourcesOfType(json, 'AWS::Lambda::Permission').map(([, p]) => props(p));
    expect(permissions).toHaveLength(Object.keys(CONSOLE_ROUTES).length);
    for (const permission of permissions) {
      expect(permission.Principal).toBe('apigateway.amazonaws.com');
      expect(render(permission.SourceArn)).toContain(`:<${apiId}>/*/*/`);
    }
  });
});

describe('console stack: sign-in', () => {
  it('admins create users, who sign in by email with a strong password and TOTP', () => {
    const [, pool] = only(json, 'AWS::Cognito::UserPool');
    expect(props(pool)).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Policies: {
        PasswordPolicy: {
          MinimumLength: expect.any(Number),
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        },
      },
      DeletionProtection: 'ACTIVE',
    });
    expect(props(pool).Policies.PasswordPolicy.MinimumLength).toBeGreaterThanOrEqual(12);
    expect(pool).toMatchObject({ DeletionPolicy: 'Retain' });
  });

  it('the page is a public client: code grant only, back to the console URL only, short tokens', () => {
    const [, client] = only(json, 'AWS::Cognito::UserPoolClient');
    const p = props(client);
    expect(p).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      SupportedIdentityProviders: ['COGNITO'],
    });
    expect(p.CallbackURLs.map(render)).toEqual([`${origin}/`]);
    expect(p.LogoutURLs.map(render)).toEqual([`${origin}/`]);
    expect(p.IdTokenValidity).toBeLessThanOrEqual(60);
    const [, domain] = only(json, 'AWS::Cognito::UserPoolDomain');
    expect(props(domain)).toMatchObject({ ManagedLoginVersion: 1 });
  });
});

describe('console stack: functions', () => {
  it('there is one per console handler, built like the pipeline functions, with its catalogue environment', () => {
    expect(Object.keys(functionIds).sort()).toEqual([...CONSOLE_HANDLER_NAMES].sort());
    for (const name of CONSOLE_HANDLER_NAMES) {
      const p = props(json.Resources[functionIds[name]]);
      expect(p, name).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: CONSOLE_FUNCTIONS[name].timeoutSeconds,
        MemorySize: CONSOLE_FUNCTIONS[name].memoryMb,
      });
      const variables = p.Environment.Variables as Record<string, unknown>;
      expect(Object.keys(variables).sort(), name).toEqual(
        [
          ...consoleEnvironmentOf(name, { capOverride: true }),
          'POWERTOOLS_SERVICE_NAME',
          'NODE_OPTIONS',
        ].sort(),
      );
      expect(variables.POWERTOOLS_SERVICE_NAME).toBe(SERVICE_NAME);
      expect(variables.NODE_OPTIONS).toBe('--enable-source-maps');
    }
    const read = props(json.Resources[functionIds['console-read']]).Environment.Variables;
    expect(read.LEASE_SCOPE).toBe(TEST_CONTEXT.leaseScope);
    expect(read.CAP_OVERRIDE).toBe(String(TEST_CONTEXT.capOverride));
  });

  it('no function environment names anything but literals and the data the pipeline imports', () => {
    const { stateful: data } = synth.built;
    const allowed = new Map([
      ['BUCKET_NAME', `<${logicalId(data, data.bucket)}>`],
      ['BATCH_TABLE', `<${logicalId(data, data.batchTable)}>`],
      ['REVIEW_TABLE', `<${logicalId(data, data.reviewTable)}>`],
      ['LEASE_TABLE', `<${logicalId(data, data.leaseTable)}>`],
    ]);
    for (const [id, fn] of resourcesOfType(json, 'AWS::Lambda::Function')) {
      for (const [variable, value] of Object.entries(props(fn).Environment?.Variables ?? {})) {
        if (typeof value === 'string') continue;
        expect(Object.keys(value as object), `${id} ${variable}`).toEqual(['Fn::ImportValue']);
        expect(render(value), `${id} ${variable}`).toBe(allowed.get(variable));
      }
    }
  });
});

// --- What each console role reaches: exactly its catalogue entry. --------------------------------

const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];

/**
 * Exactly what each console role may do, written out: the operations each function's code calls
 * (the grant usage test fails on one no run uses; the permission checks on one missing).
 */
const EXPECTED_REACH: Record<ConsoleHandlerName, Record<string, string[]>> = {
  'console-read': {
    ownLogs: LOGS,
    batchTable: ['dynamodb:GetItem', 'dynamodb:Query'],
    'batchTable/index/by-start': ['dynamodb:Query'],
    // Scan: the inbox and the "To check" list; GetItem: one row opened, an audit event's answers
    // or note, a sender proven after the batch finished.
    reviewTable: ['dynamodb:GetItem', 'dynamodb:Scan'],
    'reviewTable/index/*': ['dynamodb:GetItem', 'dynamodb:Scan'],
    leaseTable: ['dynamodb:GetItem'],
    bucket: ['s3:ListBucket'],
    'bucket/outbox/*': ['s3:GetObject'],
    // The NCM table in force, which the rows' codes are checked against.
    'bucket/reference/*': ['s3:GetObject'],
  },
  'console-files': {
    ownLogs: LOGS,
    batchTable: ['dynamodb:GetItem'],
    bucket: ['s3:ListBucket'],
    // PutObject: results.xlsx with its verdict PDFs as one ZIP, under the outbox's downloads/.
    'bucket/outbox/*': ['s3:GetObject', 's3:PutObject'],
    'bucket/inbox/*': ['s3:GetObject', 's3:PutObject'],
    'bucket/answers/*': ['s3:PutObject'],
    // PutItem: the signed-in person recorded as who the catalogue's upload form is for.
    reviewTable: ['dynamodb:PutItem'],
    'reviewTable/index/*': ['dynamodb:PutItem'],
  },
  'console-answers': {
    ownLogs: LOGS,
    batchTable: ['dynamodb:GetItem'],
    // PutItem: the signed-in person recorded as who wrote each file (its only write to a table).
    reviewTable: ['dynamodb:GetItem', 'dynamodb:PutItem'],
    'reviewTable/index/*': ['dynamodb:GetItem', 'dynamodb:PutItem'],
    bucket: ['s3:ListBucket'],
    'bucket/answers/*': ['s3:GetObject', 's3:PutObject'],
    // The NCM table in force, which a decided NCM is checked against.
    'bucket/reference/*': ['s3:GetObject'],
  },
};

describe('console stack: least privilege', () => {
  let names: Map<string, string>;
  const TABLE_ARN = 'arn:{AWS::Partition}:dynamodb:{AWS::Region}:{AWS::AccountId}:table/';

  beforeAll(() => {
    const { stateful: data } = synth.built;
    names = new Map([
      [logicalId(data, data.bucket), 'bucket'],
      [logicalId(data, data.batchTable), 'batchTable'],
      [logicalId(data, data.reviewTable), 'reviewTable'],
      [logicalId(data, data.leaseTable), 'leaseTable'],
    ]);
  });

  const reachOf = (name: ConsoleHandlerName): Reach => {
    const ownLogs = render(props(json.Resources[functionIds[name]]).LoggingConfig.LogGroup).replace(
      />$/,
      '.Arn>',
    );
    const reach = reachOfRole(json, roleOfFunction(json, functionIds[name]), exports);
    return Object.fromEntries(
      Object.entries(reach).map(([resource, actions]) => [
        resource === ownLogs
          ? 'ownLogs'
          : resource
              .replace(TABLE_ARN, '')
              .replace(/<(\w+)(\.Arn)?>/g, (whole, id: string) => names.get(id) ?? whole),
        actions,
      ]),
    );
  };

  it.each(CONSOLE_HANDLER_NAMES)('%s reaches exactly what its catalogue entry says', (name) => {
    const expected = Object.fromEntries(
      Object.entries(EXPECTED_REACH[name]).map(([resource, actions]) => [resource, [...actions].sort()]),
    );
    expect(reachOf(name)).toEqual(expected);
  });

  it.each(CONSOLE_HANDLER_NAMES)(
    '%s has no secret, no table write but the record of who wrote a file, no object outside its prefixes',
    (name) => {
      const reach = reachOf(name);
      const actions = Object.values(reach).flat();
      expect(
        actions.filter((action) => /^(secretsmanager|sqs|states|lambda|events|kms):/.test(action)),
      ).toEqual([]);
      const writes = Object.entries(reach).flatMap(([resource, granted]) =>
        granted
          .filter((action) => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(action))
          .map((action) => `${resource} ${action}`),
      );
      // console-answers records who wrote each answers file, console-files who an upload form is
      // for (the review table's writer records), no more.
      expect(writes).toEqual(
        name === 'console-answers' || name === 'console-files'
          ? ['reviewTable dynamodb:PutItem', 'reviewTable/index/* dynamodb:PutItem']
          : [],
      );
      const indexes = Object.keys(reach).filter((resource) => resource.includes('/index/'));
      expect(
        indexes.every((index) => index === 'reviewTable/index/*' || index === 'batchTable/index/by-start'),
      ).toBe(true);
      const { objects = {} }: ConsolePortUses = CONSOLE_FUNCTIONS[name].ports;
      const prefixes = [...(objects.read ?? []), ...(objects.write ?? [])].map(
        (prefix) => `bucket/${prefix}`,
      );
      for (const resource of Object.keys(reach).filter((r) => r.startsWith('bucket/'))) {
        expect(prefixes, `${name} ${resource}`).toContain(resource);
      }
      expect(Object.keys(reach)).not.toContain('*');
    },
  );

  it("the page's config.json signs in at the user pool's issuer, the one the API's authorizer trusts", () => {
    const stack = synth.built.console;
    const [, authorizer] = only(json, 'AWS::ApiGatewayV2::Authorizer');
    const { auth } = stack.deployment.page;
    expect(render(stack.resolve(auth.authority))).toBe(render(props(authorizer).JwtConfiguration.Issuer));
    expect(render(stack.resolve(auth.clientId))).toBe(render(props(authorizer).JwtConfiguration.Audience[0]));
    expect(render(stack.resolve(auth.redirectUri))).toBe(`${origin}/`);
  });

  it('the page deployment writes only the site bucket and invalidates only through its own role', () => {
    const [deploymentId, deployment] = only(json, 'Custom::CDKBucketDeployment');
    expect(deploymentId).toBeDefined();
    const p = props(deployment);
    expect(render(p.DestinationBucketName)).toBe(
      `<${logicalId(synth.built.stateful, synth.built.stateful.consoleSite.siteBucket)}>`,
    );
    expect(render(p.DistributionId)).toBe(
      `<${logicalId(synth.built.stateful, synth.built.stateful.consoleSite.distribution)}>`,
    );
    const handler = resourcesOfType(json, 'AWS::Lambda::Function').find(([id]) =>
      id.startsWith('CustomCDKBucketDeployment'),
    );
    const reach = reachOfRole(json, roleOfFunction(json, handler?.[0] ?? ''), exports);
    const site = `<${logicalId(synth.built.stateful, synth.built.stateful.consoleSite.siteBucket)}.Arn>`;
    expect(Object.keys(reach).sort()).toEqual(
      [
        '*',
        expect.stringMatching(/\.Arn>$/), // its own log group
        'arn:{AWS::Partition}:s3:::cdk-hnb659fds-assets-{AWS::AccountId}-{AWS::Region}',
        'arn:{AWS::Partition}:s3:::cdk-hnb659fds-assets-{AWS::AccountId}-{AWS::Region}/*',
        site,
        `${site}/*`,
      ].sort(),
    );
    expect(reach['*']).toEqual(['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation']);
  });
});

describe('console site (stateful stack): private bucket behind CloudFront', () => {
  const site = () => synth.built.stateful.consoleSite;
  const idOf = (construct: IConstruct) => logicalId(synth.built.stateful, construct);

  it('no bucket of the stateful stack is public', () => {
    for (const [id, bucket] of resourcesOfType(stateful, 'AWS::S3::Bucket')) {
      expect(props(bucket).PublicAccessBlockConfiguration, id).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    }
    const bucket = stateful.Resources[idOf(site().siteBucket)];
    expect(props(bucket)).toMatchObject({ VersioningConfiguration: { Status: 'Enabled' } });
    expect(props(bucket).LoggingConfiguration.LogFilePrefix).toBe('console-site/');
  });

  it("the site bucket's policy allows only CloudFront, for this distribution, to read", () => {
    const policy = resourcesOfType(stateful, 'AWS::S3::BucketPolicy').find(
      ([, p]) => render(props(p).Bucket) === `<${idOf(site().siteBucket)}>`,
    );
    const statements = props(policy?.[1]).PolicyDocument.Statement as Record<string, Json>[];
    const allows = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({
      Principal: { Service: 'cloudfront.amazonaws.com' },
      Action: 's3:GetObject',
    });
    expect(render(allows[0]?.Resource)).toBe(`<${idOf(site().siteBucket)}.Arn>/*`);
    expect(render(allows[0]?.Condition.StringEquals['AWS:SourceArn'])).toBe(
      `arn:{AWS::Partition}:cloudfront::{AWS::AccountId}:distribution/<${idOf(site().distribution)}>`,
    );
    expect(statements.filter((statement) => statement.Effect !== 'Allow')).toEqual([
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });

  it('CloudFront reads it through origin access control, HTTPS only, logged, geo-restricted', () => {
    const [oacId, oac] = only(stateful, 'AWS::CloudFront::OriginAccessControl');
    expect(props(oac).OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const [, distribution] = only(stateful, 'AWS::CloudFront::Distribution');
    const config = props(distribution).DistributionConfig;
    expect(config.Origins).toHaveLength(1);
    expect(config.Origins[0]).toMatchObject({
      OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
      S3OriginConfig: { OriginAccessIdentity: '' },
    });
    expect(render(config.Origins[0].DomainName)).toBe(`<${idOf(site().siteBucket)}.RegionalDomainName>`);
    expect(config).toMatchObject({
      DefaultRootObject: 'index.html',
      DefaultCacheBehavior: { ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'] },
      Restrictions: {
        GeoRestriction: { RestrictionType: 'whitelist', Locations: [...DEFAULT_GEO_ALLOWLIST] },
      },
      CustomErrorResponses: [
        expect.objectContaining({ ErrorCode: 403, ResponseCode: 200, ResponsePagePath: '/index.html' }),
        expect.objectContaining({ ErrorCode: 404, ResponseCode: 200, ResponsePagePath: '/index.html' }),
      ],
    });
    expect(render(config.Logging.Bucket)).toBe(`<${idOf(site().cdnLogsBucket)}.RegionalDomainName>`);
    const logs = stateful.Resources[idOf(site().cdnLogsBucket)];
    expect(props(logs).OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'ObjectWriter' }] });
  });

  it('its CSP allows scripts from the page only, the hosted UI the console stack makes, and its user pool', () => {
    const [, policy] = only(stateful, 'AWS::CloudFront::ResponseHeadersPolicy');
    const headers = props(policy).ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = render(headers.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    const [, domain] = only(json, 'AWS::Cognito::UserPoolDomain');
    const connect = /connect-src ([^;]+)/.exec(csp)?.[1]?.split(' ') ?? [];
    expect(connect).toContain(`https://${render(props(domain).Domain)}.auth.{AWS::Region}.amazoncognito.com`);
    // The page's OpenID authority, the user pool's issuer: its discovery document is read there.
    expect(connect).toContain('https://cognito-idp.{AWS::Region}.amazonaws.com');
    expect(connect).toContain('https://*.execute-api.{AWS::Region}.{AWS::URLSuffix}');
    expect(connect).toContain('https://*.s3.{AWS::Region}.{AWS::URLSuffix}');
    expect(headers).toMatchObject({
      FrameOptions: { FrameOption: 'DENY' },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer' },
    });
  });

  it("the data bucket's CORS rule lets only the console page POST upload forms", () => {
    const bucket = stateful.Resources[idOf(synth.built.stateful.bucket)];
    const rules = props(bucket).CorsConfiguration.CorsRules as Record<string, Json>[];
    expect(rules).toHaveLength(1);
    expect(rules[0]?.AllowedOrigins.map(render)).toEqual([origin]);
    expect(rules[0]).toMatchObject({ AllowedMethods: ['POST'], ExposedHeaders: ['ETag'] });
  });
});

describe('console stack: place in the app', () => {
  it('is NcmBatchClassifier-Console, deployed after the stateful stack, with its outputs', () => {
    const { console: stack, stateful: data, pipeline } = synth.built;
    expect(stack.stackName).toBe(CONSOLE_STACK_NAME);
    expect(stack.dependencies).toContain(data);
    expect(stack.dependencies).not.toContain(pipeline);
    expect(Object.keys(json.Outputs ?? {}).sort()).toEqual([
      'ApiUrl',
      'ConsoleUrl',
      'CreateUserCommand',
      'UserPoolId',
    ]);
    const [poolId] = only(json, 'AWS::Cognito::UserPool');
    expect(render(json.Outputs?.CreateUserCommand?.Value)).toMatch(
      new RegExp(
        `^aws cognito-idp admin-create-user --region \\{AWS::Region\\} --user-pool-id <${poolId}> --username `,
      ),
    );
    expect(render(json.Outputs?.ConsoleUrl?.Value)).toBe(`${origin}/`);
  });

  it('reads its context: a geo allowlist of country codes, a valid hosted UI prefix', () => {
    const config = (context: Record<string, unknown>) => readConsoleConfig(new App({ context }));
    expect(config({}).geoAllowlist).toEqual([...DEFAULT_GEO_ALLOWLIST]);
    expect(config({ consoleGeoAllowlist: 'br, ar' }).geoAllowlist).toEqual(['BR', 'AR']);
    expect(config({ consoleAuthDomainPrefix: 'acme-ncm' }).authDomainPrefix).toBe('acme-ncm');
    expect(() => config({ consoleGeoAllowlist: 'Brazil' })).toThrow(InvalidContextError);
    expect(() => config({ consoleAuthDomainPrefix: 'my-cognito-login' })).toThrow(InvalidContextError);
  });
});
