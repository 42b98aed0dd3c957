/**
 * The console's API, independent of how requests arrive: API Gateway's events on AWS
 * (functions/console-runtime.ts), the local console's HTTP server locally. A request names its
 * route key (`GET /batches/{batchId}`), its path parameters, query and body, and who is asking;
 * the answer is a status and a JSON body. A refusal (refusals.ts) becomes a problem response;
 * anything else thrown becomes a 500 that says nothing of its cause (the handler logs it).
 *
 * Each function answers its own routes from a table of its own (read-routes.ts, files-routes.ts,
 * answers-routes.ts), so that its bundle holds its use cases and no other function's.
 */
import { CONSOLE_ROUTES, type ConsoleHandlerName, type ConsoleRouteKey } from './api.js';
import type { ConsolePorts, ConsoleUser } from './ports.js';
import { ConsoleRefusal } from './refusals.js';

export type ConsoleRequest = {
  routeKey: string;
  params: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, string | undefined>>;
  /** The body as sent (JSON text), or null. */
  body: string | null;
  /** Null when no verified identity came with the request. */
  user: ConsoleUser | null;
};

export type ConsoleResponse = { status: number; body: unknown };

/** What a route does, given the function's ports and a request from a verified user. */
type UseCase = (ports: ConsolePorts, request: ConsoleRequest & { user: ConsoleUser }) => Promise<unknown>;

/** A path parameter, decoded; a 404 when the path names none, a 400 when it is not valid percent-encoding. */
export const param = (request: ConsoleRequest, name: string): string => {
  const value = request.params[name];
  if (!value) throw new ConsoleRefusal(404, 'not_found', `The path names no ${name}.`);
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ConsoleRefusal(400, 'invalid_request', `The path's ${name} is not valid percent-encoding.`, {
      field: name,
    });
  }
};

/** The request's body as JSON; a 400 when there is none or it is not JSON. */
export const jsonBody = (request: ConsoleRequest): unknown => {
  if (request.body === null || request.body.trim() === '')
    throw new ConsoleRefusal(400, 'invalid_request', 'The request has no body; send JSON.', {
      field: 'body',
    });
  try {
    return JSON.parse(request.body);
  } catch {
    throw new ConsoleRefusal(400, 'invalid_request', 'The request body is not JSON.', { field: 'body' });
  }
};

/** A function's routes (CONSOLE_ROUTES names which are whose), each with its use case. */
export type ConsoleRoutes<H extends ConsoleHandlerName> = {
  [K in ConsoleRouteKey as (typeof CONSOLE_ROUTES)[K] extends H ? K : never]: UseCase;
};

const isRouteOf = <H extends ConsoleHandlerName>(
  handler: H,
  routeKey: string,
): routeKey is keyof ConsoleRoutes<H> & ConsoleRouteKey =>
  (CONSOLE_ROUTES as Record<string, ConsoleHandlerName>)[routeKey] === handler;

const refusal = (error: ConsoleRefusal): ConsoleResponse => ({
  status: error.status,
  body: error.toProblem(),
});

/**
 * Answers a request the way `handler` (one of the console's functions) does, from its table of
 * routes: only its own routes, and only for a verified user. `onFault` hears what a 500 hides.
 */
export const answerConsoleRequest = async <H extends ConsoleHandlerName>(
  handler: H,
  routes: ConsoleRoutes<H>,
  ports: ConsolePorts,
  request: ConsoleRequest,
  onFault: (error: unknown) => void,
): Promise<ConsoleResponse> => {
  if (request.user === null)
    return refusal(new ConsoleRefusal(401, 'unauthorized', 'Sign in: the request carries no valid token.'));
  if (!isRouteOf(handler, request.routeKey))
    return refusal(
      new ConsoleRefusal(404, 'not_found', `No route ${request.routeKey}.`, { route: request.routeKey }),
    );
  try {
    const answer: UseCase = routes[request.routeKey];
    const body = await answer(ports, { ...request, user: request.user });
    return { status: request.routeKey.startsWith('POST ') ? 201 : 200, body };
  } catch (error) {
    if (error instanceof ConsoleRefusal) return refusal(error);
    onFault(error);
    return {
      status: 500,
      body: {
        status: 500,
        code: 'internal',
        title: 'Internal error',
        detail: 'Something went wrong; try again.',
        params: {},
      },
    };
  }
};
