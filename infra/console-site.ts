/**
 * Where the operations console's page is served from: a private bucket behind a CloudFront
 * distribution (origin access control), and the data bucket's CORS rule that lets that page
 * POST the upload forms the console functions sign.
 *
 * Why this sits in the stateful stack and not in the console stack: the data bucket's CORS rule
 * must name the page's origin, `https://<distribution domain>`, which CloudFront makes up at
 * creation. With the distribution in the console stack, the stateful stack would import from
 * the console stack while the console stack imports the tables and the bucket from it: a cycle.
 * Here, the rule and the distribution are in one stack, and the console stack imports the
 * site's names (exportForConsole) as the pipeline stack imports the data's. The bucket and the
 * distribution are long-lived like the data (the distribution's domain is the console's address,
 * and the Cognito app client's callback URL), so they belong with it anyway.
 *
 * The page's Content Security Policy cannot name the HTTP API or the data bucket exactly: both
 * name this distribution's origin in their CORS rules, so the distribution (through its response
 * headers policy) cannot name them back, a cycle CloudFormation refuses even within one stack.
 * connect-src allows them by region instead (`https://*.execute-api.<region>.amazonaws.com`,
 * `https://*.s3.<region>.amazonaws.com`, the presigned POST's virtual-hosted URL); the hosted
 * UI, whose domain prefix is chosen in advance (console-config.ts), is named exactly, and so is
 * Cognito's regional endpoint, where the page reads the user pool's OpenID discovery document.
 */
import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  GeoRestriction,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  Signing,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type BucketProps,
  HttpMethods,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { PipelineConfig } from './config.js';
import { type ConsoleConfig, hostedUiBaseUrl } from './console-config.js';
import { acknowledge } from './nag.js';

/** What the console stack needs of the site, imported by export name like StatefulExports. */
export type ConsoleSiteExports = {
  siteBucketName: string;
  siteBucketArn: string;
  distributionId: string;
  distributionDomainName: string;
};

export type ConsoleSiteProps = {
  config: PipelineConfig;
  console: ConsoleConfig;
  /** The data bucket: its CORS rule lets the page POST upload forms. */
  dataBucket: Bucket;
  /** Where both new buckets' server access logs go. */
  accessLogsBucket: IBucket;
};

/** A private, TLS-only, SSE-S3 bucket kept on stack deletion, as the stateful stack's others. */
const privateBucket = (scope: Construct, id: string, props: BucketProps) =>
  new Bucket(scope, id, {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    removalPolicy: RemovalPolicy.RETAIN,
    ...props,
  });

/** The page's response headers: a strict CSP, HSTS, no framing, no referrer (the URL may carry ?code=). */
const securityHeaders = (scope: Construct, props: ConsoleSiteProps) => {
  const stack = Stack.of(scope);
  const connect = [
    "'self'",
    `https://*.execute-api.${stack.region}.${stack.urlSuffix}`,
    `https://*.s3.${stack.region}.${stack.urlSuffix}`,
    hostedUiBaseUrl(scope, props.console),
    `https://cognito-idp.${stack.region}.amazonaws.com`,
  ];
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    'upgrade-insecure-requests',
  ].join('; ');
  return new ResponseHeadersPolicy(scope, 'SecurityHeaders', {
    // CloudFront policies are global: the name carries the region, so two regions never clash.
    responseHeadersPolicyName: `${stack.stackName}-console-headers-${Aws.REGION}`,
    comment: 'NCM console: CSP, HSTS, no framing, no referrer',
    securityHeadersBehavior: {
      contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.days(730),
        includeSubdomains: true,
        override: true,
      },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
    },
    customHeadersBehavior: {
      customHeaders: [
        { header: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()', override: true },
      ],
    },
  });
};

export class ConsoleSite extends Construct {
  /** index.html, config.json and the page's assets (deployed by the console stack). */
  readonly siteBucket: Bucket;
  /** CloudFront's standard logs: they are delivered with ACLs, so this bucket keeps them on. */
  readonly cdnLogsBucket: Bucket;
  readonly distribution: Distribution;
  /** `https://<distribution domain>`: the one origin the API and the data bucket accept. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    const { config } = props;
    this.siteBucket = privateBucket(this, 'SiteBucket', {
      versioned: true,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'console-site/',
      lifecycleRules: [
        {
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: Duration.days(config.retentionDays),
        },
      ],
    });
    this.cdnLogsBucket = privateBucket(this, 'CdnLogsBucket', {
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'console-cdn-logs/',
      lifecycleRules: [{ id: 'expire-cdn-logs', expiration: Duration.days(config.retentionDays) }],
    });
    this.distribution = this.createDistribution(props);
    this.origin = `https://${this.distribution.distributionDomainName}`;
    allowUploadsFrom(props.dataBucket, this.origin);
  }

  private createDistribution(props: ConsoleSiteProps): Distribution {
    const stack = Stack.of(this);
    const originAccessControl = new S3OriginAccessControl(this, 'OriginAccessControl', {
      originAccessControlName: `${stack.stackName}-console-${Aws.REGION}`,
      description: 'NCM console: CloudFront reads the site bucket, signed (SigV4)',
      signing: Signing.SIGV4_ALWAYS,
    });
    const distribution = new Distribution(this, 'Distribution', {
      comment: 'NCM batch classifier: operations console',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.siteBucket, { originAccessControl }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders(this, props),
        compress: true,
      },
      defaultRootObject: 'index.html',
      // A path the page routes itself (or a key that is not there: S3 answers 403 without
      // ListBucket) gets the page.
      errorResponses: [403, 404].map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 200,
        responsePagePath: '/index.html',
        ttl: Duration.seconds(0),
      })),
      geoRestriction: GeoRestriction.allowlist(...props.console.geoAllowlist),
      enableLogging: true,
      logBucket: this.cdnLogsBucket,
      logFilePrefix: 'cloudfront/',
      httpVersion: HttpVersion.HTTP2_AND_3,
    });
    acknowledge(
      distribution,
      'No custom domain: the default *.cloudfront.net certificate is served, whose security policy ' +
        'CloudFront fixes at TLSv1. A custom domain with an ACM certificate (us-east-1) would allow ' +
        'TLSv1.2_2021; the page holds no secret, and the API it calls has its own TLS 1.2 endpoint.',
      'AwsSolutions-CFR4',
    );
    acknowledge(
      distribution,
      'No WAF web ACL: it is an optional cost (a web ACL, its rules, per-request fees) for a page of ' +
        'static files; every API route requires a Cognito JWT and the API stage is throttled. Attach ' +
        'one with webAclId when the console is exposed to more than a few operators.',
      'AwsSolutions-CFR2',
    );
    return distribution;
  }
}

/**
 * The data bucket's CORS rule: the page POSTs presigned forms (multipart/form-data) to it and
 * reads the response's ETag. Downloads are navigations to presigned GETs and need no CORS.
 */
const allowUploadsFrom = (dataBucket: Bucket, origin: string) =>
  dataBucket.addCorsRule({
    id: 'console-uploads',
    allowedOrigins: [origin],
    allowedMethods: [HttpMethods.POST],
    allowedHeaders: ['content-type'],
    exposedHeaders: ['ETag'],
    maxAge: 3600,
  });

/** Exports the site's names under `<stack name>:<name>`, as the stateful stack does its data. */
export const exportForConsole = (stack: Stack, site: ConsoleSite): ConsoleSiteExports => {
  const exportAs = (name: string, value: string) =>
    stack.exportValue(value, { name: `${stack.stackName}:${name}` });
  return {
    siteBucketName: exportAs('ConsoleSiteBucketName', site.siteBucket.bucketName),
    siteBucketArn: exportAs('ConsoleSiteBucketArn', site.siteBucket.bucketArn),
    distributionId: exportAs('ConsoleDistributionId', site.distribution.distributionId),
    distributionDomainName: exportAs(
      'ConsoleDistributionDomainName',
      site.distribution.distributionDomainName,
    ),
  };
};
