/**
 * How each port of the console's functions reaches AWS, one builder per port: a handler names the
 * builders of its own port set (`consolePortsFor('console-read', { clock, batches, … })`), so that
 * its bundle holds those adapters and no others (the presigned links only in console-files'). Each
 * builder and each client is built once per container, on first use; the `@__PURE__` marks tell
 * esbuild that making a builder has no effect of its own, so one no handler names is left out.
 */
import { createDynamoClient, createS3Client } from '../shared/aws/clients.js';
import { createDynamoAuditLog } from '../shared/aws/dynamo-audit-log.js';
import { createDynamoBatchStore } from '../shared/aws/dynamo-batch-store.js';
import { createDynamoCheckStore } from '../shared/aws/dynamo-check-store.js';
import { createDynamoReviewStore } from '../shared/aws/dynamo-review-store.js';
import { createDynamoSlotLeases } from '../shared/aws/dynamo-slot-leases.js';
import { createDynamoWriterRecords } from '../shared/aws/dynamo-writer-records.js';
import { createS3FileLinks } from '../shared/aws/s3-file-links.js';
import { createS3ObjectStore } from '../shared/aws/s3-object-store.js';
import type { ConsolePorts } from '../shared/console/ports.js';
import { ENV } from './catalogue.js';
import { once, required } from './environment.js';

// The two clients the console's ports use, and no others in its bundles.
const dynamo = /* @__PURE__ */ once(() => createDynamoClient(process.env));
const s3 = /* @__PURE__ */ once(() => createS3Client(process.env));

/** Wall-clock time. */
export const clock = (): ConsolePorts['clock'] => ({ now: () => new Date() });

export const batches = /* @__PURE__ */ once((): ConsolePorts['batches'] =>
  createDynamoBatchStore({ client: dynamo(), tableName: required(ENV.batchTable) }),
);

export const reviews = /* @__PURE__ */ once((): ConsolePorts['reviews'] =>
  createDynamoReviewStore({ client: dynamo(), tableName: required(ENV.reviewTable) }),
);

export const checks = /* @__PURE__ */ once((): ConsolePorts['checks'] =>
  createDynamoCheckStore({ client: dynamo(), tableName: required(ENV.reviewTable) }),
);

export const audit = /* @__PURE__ */ once((): ConsolePorts['audit'] =>
  createDynamoAuditLog({ client: dynamo(), tableName: required(ENV.batchTable) }),
);

export const writers = /* @__PURE__ */ once((): ConsolePorts['writers'] =>
  createDynamoWriterRecords({ client: dynamo(), tableName: required(ENV.reviewTable) }),
);

/** The slot leases of the cap's scope, read to show the slots in use. */
export const leases = /* @__PURE__ */ once((): ConsolePorts['leases'] =>
  createDynamoSlotLeases({
    client: dynamo(),
    tableName: required(ENV.leaseTable),
    scope: process.env[ENV.leaseScope] || 'org',
  }),
);

/** The bucket; the console puts whole bodies only (no upload of streams). */
export const objects = /* @__PURE__ */ once((): ConsolePorts['objects'] =>
  createS3ObjectStore({ client: s3(), bucket: required(ENV.bucketName) }),
);

/** Presigned forms and links, signed with the function's own role. */
export const links = /* @__PURE__ */ once((): ConsolePorts['links'] =>
  createS3FileLinks({ client: s3(), bucket: required(ENV.bucketName) }),
);
