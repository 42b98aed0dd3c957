/**
 * The dispatcher kick and the request for partial results, as signed invokes on the local Lambda
 * stand-in: best effort, never failing their caller.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LocalAws, startLocalAws } from '../../../local/aws/local-aws.js';
import { lambdaRequester } from '../../../shared/aws/lambda-async-invoke.js';
import { createLambdaDispatcherKick } from '../../../shared/aws/lambda-dispatcher-kick.js';
import { createLambdaPartialResultsRequests } from '../../../shared/aws/lambda-partial-results-requests.js';
import type { AwsRequester } from '../../../shared/aws/signed-requests.js';

/** For what the stand-in runs in the background, in real time. */
const WAIT = { timeout: 10_000, interval: 20 };

let aws: LocalAws;
let lambda: AwsRequester;

beforeEach(async () => {
  aws = await startLocalAws({ log: 'silent' });
  lambda = lambdaRequester({
    AWS_ENDPOINT_URL_LAMBDA: aws.endpoint,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await aws.close();
});

describe('kick', () => {
  it('invokes the dispatcher asynchronously, by name or ARN, with {"source":"kick"} and the reason', async () => {
    // Prepare
    const events: { event: unknown; invocationType: string }[] = [];
    const arn = aws.registerFunction('dispatch-rows', async (event, context) => {
      events.push({ event, invocationType: context.invocationType });
    });
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);

    // Act
    await createLambdaDispatcherKick({ lambda, functionName: 'dispatch-rows', onError }).kick('slot_freed');
    await createLambdaDispatcherKick({ lambda, functionName: arn, onError }).kick('rows_queued');

    // Assess
    await vi.waitFor(() => expect(events).toHaveLength(2), WAIT);
    expect(events).toEqual(
      expect.arrayContaining([
        { event: { source: 'kick', reason: 'slot_freed' }, invocationType: 'Event' },
        { event: { source: 'kick', reason: 'rows_queued' }, invocationType: 'Event' },
      ]),
    );
    expect(errors).toEqual([]);
  });

  it('swallows a failed invoke and reports it to onError, named by Lambda', async () => {
    // Prepare
    const errors: { name: string; message: string }[] = [];
    const kick = createLambdaDispatcherKick({
      lambda,
      functionName: 'no-such-function',
      onError: (e) => errors.push(e),
    });

    // Act
    await expect(kick.kick('rows_queued')).resolves.toBeUndefined();

    // Assess
    expect(errors).toHaveLength(1);
    expect(errors[0]?.name).toBe('ResourceNotFoundException');
  });

  it('warns on the console when no onError is given', async () => {
    // Prepare
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const unreachable = lambdaRequester({
      AWS_ENDPOINT_URL_LAMBDA: 'http://127.0.0.1:9',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });

    // Act
    await createLambdaDispatcherKick({ lambda: unreachable, functionName: 'f' }).kick('slot_freed');

    // Assess
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(warn.mock.calls[0]?.[0]))).toMatchObject({
      level: 'WARN',
      message: 'dispatcher kick failed',
      error: { name: 'TypeError' },
    });
  });
});

describe('partial results request', () => {
  it('invokes write-partial-results asynchronously with the batch id', async () => {
    // Prepare
    const events: unknown[] = [];
    aws.registerFunction('write-partial-results', async (event) => {
      events.push(event);
    });

    // Act
    await createLambdaPartialResultsRequests({
      lambda,
      functionName: 'write-partial-results',
      onError: (e) => {
        throw new Error(`${e.name}: ${e.message}`);
      },
    }).request('nightly-2026-12-04');

    // Assess
    await vi.waitFor(() => expect(events).toEqual([{ batch_id: 'nightly-2026-12-04' }]), WAIT);
  });
});
