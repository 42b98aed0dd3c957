/**
 * The smoke's AWS adapters: DescribeStacks read and parsed (a missing stack is null, other errors
 * pass through), the deployment's bucket and tables opened with the pipeline's own adapters under
 * the names the stack exports, and a wait that an interrupt ends early.
 */
import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  awsSmokePorts,
  cloudFormationStacks,
  stackLookupOf,
  systemClock,
} from '../../../shared/smoke/aws.js';
import { BATCH_TABLE, BUCKET, describedStack, REVIEW_TABLE, STACK } from './fake-deployment.js';

const cloudformation = mockClient(CloudFormationClient);
const s3 = mockClient(S3Client);
// The stores wrap the plain client in a document client of their own: every instance is mocked.
const documents = mockClient(DynamoDBDocumentClient);
const stacks = cloudFormationStacks(new CloudFormationClient({ region: 'sa-east-1' }));

const validationError = (message: string) =>
  new CloudFormationServiceException({ name: 'ValidationError', $fault: 'client', $metadata: {}, message });

beforeEach(() => {
  cloudformation.reset();
  s3.reset();
  documents.reset();
});

describe('cloudFormationStacks', () => {
  it('describes the stack by name, its outputs parsed', async () => {
    cloudformation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          ...describedStack(),
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Description: 'NCM batch classifier',
        },
      ],
    });

    expect(await stacks.describe(STACK)).toEqual(describedStack());
    expect(cloudformation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({
      StackName: STACK,
    });
  });

  it('is null for a stack that does not exist, and lets other errors through', async () => {
    cloudformation
      .on(DescribeStacksCommand)
      .rejects(validationError(`Stack with id ${STACK} does not exist`));
    expect(await stacks.describe(STACK)).toBeNull();

    cloudformation
      .on(DescribeStacksCommand)
      .rejects(validationError('1 validation error detected: stackName'));
    await expect(stacks.describe('x'.repeat(300))).rejects.toThrow('1 validation error detected');
  });

  it('refuses an answer without a status, rather than guessing', async () => {
    await expect(stackLookupOf(async () => ({ StackName: STACK })).describe(STACK)).rejects.toThrow(
      'StackStatus',
    );
  });
});

describe('awsSmokePorts', () => {
  it("opens the stack's bucket and tables with the pipeline's adapters", async () => {
    s3.on(HeadObjectCommand).resolves({ ContentLength: 3, ETag: '"e"', VersionId: 'v1' });
    documents.on(GetCommand).resolves({});
    const ports = awsSmokePorts({
      stacks,
      s3: new S3Client({ region: 'sa-east-1' }),
      dynamo: new DynamoDBClient({ region: 'sa-east-1' }),
      say: () => undefined,
    });

    const data = ports.open({
      stackName: STACK,
      bucket: BUCKET,
      batchTable: BATCH_TABLE,
      reviewTable: REVIEW_TABLE,
    });

    expect(await data.objects.head('inbox/x/products.csv')).toEqual({
      size: 3,
      etag: '"e"',
      versionId: 'v1',
    });
    expect(s3.commandCalls(HeadObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'inbox/x/products.csv',
    });
    expect(await data.batches.getBatch('b-1')).toBeNull();
    expect(documents.commandCalls(GetCommand)[0]?.args[0].input).toMatchObject({ TableName: BATCH_TABLE });
    expect(ports.clock).toBe(systemClock);
  });
});

describe('systemClock', () => {
  it('ends a wait when the signal aborts, without failing it', async () => {
    const stop = new AbortController();
    const waiting = systemClock.sleep(60_000, stop.signal);
    stop.abort();
    // Ended by the abort itself, not by the minute running out: settled before even the next turn
    // of the event loop (a setImmediate), however busy the machine.
    const first = await Promise.race([
      waiting.then(() => 'ended'),
      new Promise((resolve) => setImmediate(() => resolve('still waiting'))),
    ]);
    expect(first).toBe('ended');
    await expect(waiting).resolves.toBeUndefined();
  });
});
