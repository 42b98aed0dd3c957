/**
 * The BatchEvents and DispatcherKick contracts, in memory and on the local EventBridge and
 * Lambda stand-ins.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { expect, vi } from 'vitest';
import { type LocalAws, startLocalAws } from '../../local/aws/local-aws.js';
import { createEventBridgeBatchEvents } from '../../shared/aws/eventbridge-batch-events.js';
import { lambdaRequester } from '../../shared/aws/lambda-async-invoke.js';
import { createLambdaDispatcherKick } from '../../shared/aws/lambda-dispatcher-kick.js';
import { KickEvent, type KickReason } from '../../shared/pipeline/core/records.js';
import { countingKick, memoryBatchEvents } from '../helpers/memory-ports.js';
import type { Implementation } from './implementation.js';
import {
  describeBatchEventsContract,
  describeDispatcherKickContract,
  type EventsSubject,
  type KickSubject,
} from './notifications.contract.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The local AWS stand-ins, started once per suite; `makeOn` builds each case's subject. */
const onLocalAws = <Subject>(
  makeOn: (aws: LocalAws, caseNumber: number) => Subject,
): Implementation<Subject> => {
  let aws: LocalAws | null = null;
  let cases = 0;
  return {
    start: async () => {
      aws = await startLocalAws({ log: 'silent' });
    },
    make: async () => {
      if (!aws) throw new Error('the local AWS stand-ins are not running');
      return makeOn(aws, ++cases);
    },
    stop: async () => {
      await aws?.close();
    },
  };
};

/** A bus per case, so each case sees its own events only. */
const onLocalEventBridge = (): Implementation<EventsSubject> =>
  onLocalAws((aws, caseNumber) => {
    const eventBusName = `batches-${caseNumber}`;
    const client = new EventBridgeClient({ endpoint: aws.endpoint, region: aws.region, credentials });
    const details = () =>
      aws
        .events()
        .filter((recorded) => recorded.eventBusName === eventBusName)
        .map((recorded) => recorded.event.detail as Record<string, unknown>);
    return {
      events: createEventBridgeBatchEvents({ client, eventBusName }),
      published: (count) =>
        vi.waitFor(
          () => {
            expect(details().length, `${count} event(s) on ${eventBusName}`).toBeGreaterThanOrEqual(count);
            return details();
          },
          { timeout: 10_000, interval: 20 },
        ),
    };
  });

/** A dispatch function per case, registered in-process behind the Lambda stand-in. */
const onLocalLambda = (): Implementation<KickSubject> =>
  onLocalAws((aws, caseNumber) => {
    const functionName = `dispatch-rows-${caseNumber}`;
    const reasons: KickReason[] = [];
    aws.registerFunction(functionName, async (event) => {
      reasons.push(KickEvent.parse(event).reason);
    });
    const lambda = lambdaRequester({
      AWS_ENDPOINT_URL_LAMBDA: aws.endpoint,
      AWS_REGION: aws.region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    return {
      kick: createLambdaDispatcherKick({
        lambda,
        functionName,
        onError: (error) => {
          throw new Error(`the kick failed: ${error.name}: ${error.message}`);
        },
      }),
      received: (count) =>
        vi.waitFor(
          () => {
            expect(reasons.length, `${count} kick(s) of ${functionName}`).toBeGreaterThanOrEqual(count);
            return [...reasons];
          },
          { timeout: 10_000, interval: 20 },
        ),
    };
  });

describeBatchEventsContract('in memory', {
  make: async () => {
    const events = memoryBatchEvents();
    return { events, published: async () => events.published };
  },
});
describeBatchEventsContract('EventBridge adapter on the local EventBridge stand-in', onLocalEventBridge());

describeDispatcherKickContract('in memory', {
  make: async () => {
    const kick = countingKick();
    return { kick, received: async () => kick.reasons };
  },
});
describeDispatcherKickContract('Lambda adapter on the local Lambda stand-in', onLocalLambda());
