/**
 * The console functions' composition root: the ports their description gives them
 * (functions/console-catalogue.ts), each built once per container on first use, and the
 * translation between API Gateway's HTTP API events and the console's requests.
 *
 * Who is asking comes from the claims API Gateway's JWT authorizer verified; a request without
 * them (a route somehow left without the authorizer) is refused with 401 by the console itself.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoClient, createS3Client } from '../shared/aws/clients.js';
import { createDynamoAuditLog } from '../shared/aws/dynamo-audit-log.js';
import { createDynamoBatchStore } from '../shared/aws/dynamo-batch-store.js';
import { createDynamoCheckStore } from '../shared/aws/dynamo-check-store.js';
import { createDynamoReviewStore } from '../shared/aws/dynamo-review-store.js';
import { createDynamoSlotLeases } from '../shared/aws/dynamo-slot-leases.js';
import { createDynamoWriterRecords } from '../shared/aws/dynamo-writer-records.js';
import { createS3FileLinks } from '../shared/aws/s3-file-links.js';
import { createS3ObjectStore } from '../shared/aws/s3-object-store.js';
import type { ConsoleHandlerName } from '../shared/console/api.js';
import { answerConsoleRequest, type ConsoleRequest } from '../shared/console/http.js';
import type { ConsolePorts, ConsoleUser } from '../shared/console/ports.js';
import { ENV } from './catalogue.js';
import { CONSOLE_FUNCTIONS, type ConsolePortName } from './console-catalogue.js';
import { once, required } from './environment.js';

export const logger = new Logger({ serviceName: process.env[ENV.serviceName] ?? 'ncm-batch-classifier' });

// The two clients the console's ports use, and no others in its bundles (functions/port-builders.ts).
const dynamo = once(() => createDynamoClient(process.env));
const s3 = once(() => createS3Client(process.env));

const builders: { [P in ConsolePortName]: () => ConsolePorts[P] } = {
  clock: () => ({ now: () => new Date() }),
  batches: once(() => createDynamoBatchStore({ client: dynamo(), tableName: required(ENV.batchTable) })),
  reviews: once(() => createDynamoReviewStore({ client: dynamo(), tableName: required(ENV.reviewTable) })),
  checks: once(() => createDynamoCheckStore({ client: dynamo(), tableName: required(ENV.reviewTable) })),
  audit: once(() => createDynamoAuditLog({ client: dynamo(), tableName: required(ENV.batchTable) })),
  writers: once(() => createDynamoWriterRecords({ client: dynamo(), tableName: required(ENV.reviewTable) })),
  leases: once(() =>
    createDynamoSlotLeases({
      client: dynamo(),
      tableName: required(ENV.leaseTable),
      scope: process.env[ENV.leaseScope] || 'org',
    }),
  ),
  objects: once(() => createS3ObjectStore({ client: s3(), bucket: required(ENV.bucketName) })),
  links: once(() => createS3FileLinks({ client: s3(), bucket: required(ENV.bucketName) })),
};

const capOverride = (): number | null => {
  const cap = Number(process.env[ENV.capOverride] ?? '');
  return Number.isInteger(cap) && cap > 0 ? cap : null;
};

/** The function's ports; one it was not given throws when used (its role could not use it anyway). */
const consolePortsFor = (name: ConsoleHandlerName): ConsolePorts => {
  const given = new Set(Object.keys(CONSOLE_FUNCTIONS[name].ports));
  const port = <P extends ConsolePortName>(port: P): ConsolePorts[P] => {
    if (!given.has(port))
      throw new Error(`${name} is not given the ${port} port (functions/console-catalogue.ts)`);
    return builders[port]();
  };
  return {
    get clock() {
      return port('clock');
    },
    get batches() {
      return port('batches');
    },
    get reviews() {
      return port('reviews');
    },
    get checks() {
      return port('checks');
    },
    get audit() {
      return port('audit');
    },
    get writers() {
      return port('writers');
    },
    get leases() {
      return port('leases');
    },
    get objects() {
      return port('objects');
    },
    get links() {
      return port('links');
    },
    capOverride: capOverride(),
  };
};

/** The part of an HTTP API (payload 2.0) event the console reads. */
export type HttpApiEvent = {
  routeKey?: string;
  pathParameters?: Record<string, string | undefined> | null;
  queryStringParameters?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestContext?: { authorizer?: { jwt?: { claims?: Record<string, unknown> } } };
};

const COGNITO_ISSUER = /^https:\/\/cognito-idp\.[a-z0-9-]+\.amazonaws\.com\/[\w-]+$/;

/**
 * The verified user, or null. An ID token (`token_use` id) from a Cognito pool names a person; the
 * local console's stand-in of API Gateway signs in a `local operator` with issuer `local`.
 */
export const userOfClaims = (claims: Record<string, unknown> | undefined): ConsoleUser | null => {
  if (!claims) return null;
  const text = (key: string) => (typeof claims[key] === 'string' ? (claims[key] as string) : undefined);
  const issuer = text('iss') ?? '';
  if (!text('sub') || text('token_use') !== 'id') return null;
  const where = COGNITO_ISSUER.test(issuer) ? 'aws' : issuer === 'local' ? 'local' : null;
  if (where === null) return null;
  // The person's name as the pool keeps it, else the address they sign in with; `sub` tells two of one name apart.
  const sub = text('sub') as string;
  const email = text('email');
  const name = text('name')?.trim() || email || text('cognito:username') || sub;
  return { name, sub, ...(email ? { email } : {}), where };
};

const consoleRequestOf = (event: HttpApiEvent): ConsoleRequest => ({
  routeKey: event.routeKey ?? '',
  params: event.pathParameters ?? {},
  query: event.queryStringParameters ?? {},
  body:
    event.body === undefined || event.body === null
      ? null
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body,
  user: userOfClaims(event.requestContext?.authorizer?.jwt?.claims),
});

/** A console function's handler: its routes only; logs the route, status and user, never a body. */
export const consoleHandler =
  (name: ConsoleHandlerName, ports: () => ConsolePorts = () => consolePortsFor(name)) =>
  async (event: HttpApiEvent) => {
    const request = consoleRequestOf(event);
    const response = await answerConsoleRequest(name, ports(), request, (error) =>
      logger.error('console request failed', { route: request.routeKey, error }),
    );
    logger.info('console request', {
      route: request.routeKey,
      status: response.status,
      user: request.user?.name ?? null,
    });
    return {
      statusCode: response.status,
      headers: {
        'content-type': response.status >= 400 ? 'application/problem+json' : 'application/json',
        // Links and records change under the page: never cached, never kept by a proxy.
        'cache-control': 'no-store',
      },
      body: JSON.stringify(response.body),
    };
  };
