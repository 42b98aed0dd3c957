/** The ObjectStore contract, in memory and on s3rver (the S3 stand-in of the local runtime). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { type RunningServer, startS3 } from '../../local/runtime/stand-ins.js';
import { createS3ObjectStore } from '../../shared/aws/s3-object-store.js';
import { uploadStream } from '../../shared/aws/s3-stream-upload.js';
import type { ObjectStore } from '../../shared/pipeline/core/ports.js';
import { memoryObjectStore } from '../helpers/memory-ports.js';
import { s3rverClient } from '../helpers/s3rver-client.js';
import type { Implementation } from './implementation.js';
import { describeObjectStoreContract } from './object-store.contract.js';

/** s3rver in its own process, as the local runtime starts it; a new bucket for every case. */
const onS3rver = (): Implementation<ObjectStore> => {
  let dataDir = '';
  let server: RunningServer | null = null;
  let client: S3Client | null = null;
  let buckets = 0;
  return {
    start: async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'object-store-contract-'));
      server = await startS3(dataDir, []);
      client = s3rverClient(server.endpoint);
    },
    make: async () => {
      if (!client) throw new Error('s3rver is not running');
      const bucket = `objects-${++buckets}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return createS3ObjectStore({ client, bucket, uploadStream });
    },
    stop: async () => {
      client?.destroy();
      await server?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

describeObjectStoreContract('in memory', { make: async () => memoryObjectStore() });
describeObjectStoreContract('S3 adapter on s3rver', onS3rver());
