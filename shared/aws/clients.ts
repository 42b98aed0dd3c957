/**
 * The AWS SDK clients of one process, each built the first time it is asked for: a
 * function's role grants only what its handler uses, so a client it never uses must not be
 * built (nor resolve credentials or endpoints).
 *
 * Endpoints are not configured here: the SDK reads `AWS_ENDPOINT_URL` and the per-service
 * `AWS_ENDPOINT_URL_<SERVICE>` (`_DYNAMODB`, `_S3`, `_SQS`, `_SFN`, `_EVENTBRIDGE`, `_SNS`)
 * from the process environment itself, which is how the local runtime points each client at its
 * loopback stand-in. Lambda and Secrets Manager have no client here: the pipeline reaches them by
 * signed requests (signed-requests.ts), which read the same variables.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';

export type AwsClients = {
  readonly dynamo: DynamoDBClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly sfn: SFNClient;
  readonly events: EventBridgeClient;
};

/**
 * The S3 options. With `S3_FORCE_PATH_STYLE=true` (the local runtime's s3rver) requests use
 * path-style URLs, and checksums only where an operation requires one: s3rver stores a
 * body sent with the default streaming checksum with its chunk framing in it. In AWS both
 * stay at the SDK's defaults (virtual-hosted URLs, a CRC32 on every upload).
 */
const s3OptionsOf = (env: NodeJS.ProcessEnv) =>
  env.S3_FORCE_PATH_STYLE === 'true'
    ? {
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED' as const,
        responseChecksumValidation: 'WHEN_REQUIRED' as const,
      }
    : {};

/** Region from `AWS_REGION` (set in every Lambda); absent, the SDK's own resolution applies. */
const commonOf = (env: NodeJS.ProcessEnv) => (env.AWS_REGION ? { region: env.AWS_REGION } : {});

// One function per client, so that a Lambda bundle holds the SDK clients its handler uses and no
// other: esbuild leaves out a client package nothing calls (functions/port-builders.ts).

/** A DynamoDB client for this environment's region. */
export const createDynamoClient = (env: NodeJS.ProcessEnv = process.env) => new DynamoDBClient(commonOf(env));
/** An S3 client for this environment's region, path-style where the environment asks (s3OptionsOf). */
export const createS3Client = (env: NodeJS.ProcessEnv = process.env) =>
  new S3Client({ ...commonOf(env), ...s3OptionsOf(env) });
/** An SQS client for this environment's region. */
export const createSqsClient = (env: NodeJS.ProcessEnv = process.env) => new SQSClient(commonOf(env));
/** A Step Functions client for this environment's region. */
export const createSfnClient = (env: NodeJS.ProcessEnv = process.env) => new SFNClient(commonOf(env));
/** An EventBridge client for this environment's region. */
export const createEventBridgeClient = (env: NodeJS.ProcessEnv = process.env) =>
  new EventBridgeClient(commonOf(env));
/** An SNS client for this environment's region. */
export const createSnsClient = (env: NodeJS.ProcessEnv = process.env) => new SNSClient(commonOf(env));

const lazily = <T>(build: () => T): (() => T) => {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
};

/** Every client, each built the first time it is read (for code that needs several and no bundle). */
export const createAwsClients = (env: NodeJS.ProcessEnv = process.env): AwsClients => {
  const dynamo = lazily(() => createDynamoClient(env));
  const s3 = lazily(() => createS3Client(env));
  const sqs = lazily(() => createSqsClient(env));
  const sfn = lazily(() => createSfnClient(env));
  const events = lazily(() => createEventBridgeClient(env));
  return {
    get dynamo() {
      return dynamo();
    },
    get s3() {
      return s3();
    },
    get sqs() {
      return sqs();
    },
    get sfn() {
      return sfn();
    },
    get events() {
      return events();
    },
  };
};
