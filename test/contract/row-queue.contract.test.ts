/** The RowQueue contract, in memory and on the repository's own SQS stand-in. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { type LocalAws, startLocalAws } from '../../local/aws/local-aws.js';
import { createSqsRowQueue } from '../../shared/aws/sqs-row-queue.js';
import { fixedClock, memoryRowQueue } from '../helpers/memory-ports.js';
import type { Implementation } from './implementation.js';
import { describeRowQueueContract, type QueueSubject } from './row-queue.contract.js';

/** The in-memory queue hides a received message for 30 s. */
const MEMORY_VISIBILITY_TIMEOUT_MS = 30_000;

/** The SQS stand-in on loopback, its clock moved by the cases; a new queue for every case. */
const onLocalSqs = (): Implementation<QueueSubject> => {
  let aws: LocalAws | null = null;
  let client: SQSClient | null = null;
  let queues = 0;
  return {
    start: async () => {
      aws = await startLocalAws({ log: 'silent' });
      client = new SQSClient({
        endpoint: aws.endpoint,
        region: aws.region,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
    },
    make: async () => {
      if (!aws || !client) throw new Error('the SQS stand-in is not running');
      const running = aws;
      const queueUrl = running.createQueue(`rows-${++queues}`, { VisibilityTimeout: '30' });
      return {
        queue: createSqsRowQueue({ client, queueUrl }),
        visibilityTimeoutMs: 30_000,
        advance: (ms) => running.clock.advance(ms),
      };
    },
    stop: async () => {
      client?.destroy();
      await aws?.close();
    },
  };
};

describeRowQueueContract('in memory', {
  make: async () => {
    const clock = fixedClock();
    return {
      queue: memoryRowQueue(clock),
      visibilityTimeoutMs: MEMORY_VISIBILITY_TIMEOUT_MS,
      advance: (ms) => clock.advance(ms),
    };
  },
});
describeRowQueueContract('SQS adapter on the local SQS stand-in', onLocalSqs());
