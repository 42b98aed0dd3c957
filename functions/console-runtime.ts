/**
 * The console functions' composition root: the ports their description gives them
 * (functions/console-catalogue.ts), each built once per container on first use from the builders
 * its handler names (console-port-builders.ts), and the translation between API Gateway's HTTP API
 * events and the console's requests, answered from the function's own table of routes.
 *
 * Who is asking comes from the claims API Gateway's JWT authorizer verified; a request without
 * them (a route somehow left without the authorizer) is refused with 401 by the console itself.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { ConsoleHandlerName } from '../shared/console/api.js';
import { answerConsoleRequest, type ConsoleRequest, type ConsoleRoutes } from '../shared/console/http.js';
import type { ConsolePorts, ConsoleUser } from '../shared/console/ports.js';
import { ENV } from './catalogue.js';
import { CONSOLE_FUNCTIONS, type ConsolePortName } from './console-catalogue.js';

export const logger = new Logger({ serviceName: process.env[ENV.serviceName] ?? 'ncm-batch-classifier' });

const capOverride = (): number | null => {
  const cap = Number(process.env[ENV.capOverride] ?? '');
  return Number.isInteger(cap) && cap > 0 ? cap : null;
};

/** The builders of exactly the ports a console function's description gives it (console-port-builders.ts). */
export type ConsoleBuildersOf<H extends ConsoleHandlerName> = {
  [P in keyof (typeof CONSOLE_FUNCTIONS)[H]['ports'] & ConsolePortName]: () => ConsolePorts[P];
};

/**
 * Takes a console function's name and the builders of its ports and gives its ports, each built
 * on first use; one it was not given throws when used (its role could not use it anyway). The
 * builders are the handler's to name, so that its bundle holds those adapters and no others.
 */
export const consolePortsFor =
  <H extends ConsoleHandlerName>(name: H, builders: ConsoleBuildersOf<H>) =>
  (): ConsolePorts => {
    const given: Partial<{ [P in ConsolePortName]: () => ConsolePorts[P] }> = builders;
    const port = <P extends ConsolePortName>(port: P): ConsolePorts[P] => {
      const build = Object.hasOwn(CONSOLE_FUNCTIONS[name].ports, port) ? given[port] : undefined;
      if (!build) throw new Error(`${name} is not given the ${port} port (functions/console-catalogue.ts)`);
      return build();
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

/**
 * A console function's handler, given its table of routes and its ports: its routes only; logs
 * the route, status and user, never a body.
 */
export const consoleHandler =
  <H extends ConsoleHandlerName>(name: H, routes: ConsoleRoutes<H>, ports: () => ConsolePorts) =>
  async (event: HttpApiEvent) => {
    const request = consoleRequestOf(event);
    const response = await answerConsoleRequest(name, routes, ports(), request, (error) =>
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
