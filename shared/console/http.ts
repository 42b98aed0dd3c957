/**
 * The console's API, independent of how requests arrive: API Gateway's events on AWS
 * (functions/console-runtime.ts), the local console's HTTP server locally. A request names its
 * route key (`GET /batches/{batchId}`), its path parameters, query and body, and who is asking;
 * the answer is a status and a JSON body. A refusal (refusals.ts) becomes a problem response;
 * anything else thrown becomes a 500 that says nothing of its cause (the handler logs it).
 */

import { submitAnswers } from './answers.js';
import {
  AuditQuery,
  BatchesQuery,
  CONSOLE_LIMITS,
  CONSOLE_ROUTES,
  type ConsoleHandlerName,
  type ConsoleRouteKey,
  RowsQuery,
  type SessionView,
} from './api.js';
import { auditView } from './audit-view.js';
import { batchView, listBatchViews } from './batch-views.js';
import { checkList } from './check-list.js';
import { submitApproval, submitDecision } from './decisions.js';
import { answerSheetForm, batchFileLink, planUpload, verdictLink } from './file-links.js';
import { runPlan } from './plan-run.js';
import type { ConsolePorts, ConsoleUser } from './ports.js';
import { questionInbox } from './question-inbox.js';
import { ConsoleRefusal, invalidRequest } from './refusals.js';
import { submitResend } from './resends.js';
import { listRowViews, rowDetail } from './row-views.js';

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

type UseCase = (ports: ConsolePorts, request: ConsoleRequest & { user: ConsoleUser }) => Promise<unknown>;

const param = (request: ConsoleRequest, name: string): string => {
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

const jsonBody = (request: ConsoleRequest): unknown => {
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

const session = (user: ConsoleUser): SessionView => ({
  user: user.name,
  where: user.where,
  limits: {
    sheet_bytes: CONSOLE_LIMITS.sheetBytes,
    catalogue_bytes: CONSOLE_LIMITS.catalogueBytes,
    sheets_per_batch: CONSOLE_LIMITS.sheetsPerBatch,
    answer_chars: CONSOLE_LIMITS.answerChars,
  },
});

const USE_CASES: Record<ConsoleRouteKey, UseCase> = {
  'GET /session': async (_ports, request) => session(request.user),
  'GET /batches': (ports, request) => {
    const query = BatchesQuery.safeParse(request.query);
    if (!query.success) throw invalidRequest('batches', query.error.issues);
    // A cursor the table did not give (edited, truncated, badly encoded): a request to fix, not a fault.
    return listBatchViews(ports, query.data).catch((error: unknown) => {
      if (!(error instanceof RangeError)) throw error;
      throw new ConsoleRefusal(
        400,
        'invalid_request',
        'The page cursor `after` is not one this console gave: start again from the first page.',
        { field: 'after' },
      );
    });
  },
  'GET /batches/{batchId}': (ports, request) => batchView(ports, param(request, 'batchId')),
  'GET /batches/{batchId}/rows': (ports, request) => {
    const query = RowsQuery.safeParse(request.query);
    if (!query.success) throw invalidRequest('rows', query.error.issues);
    return listRowViews(ports, param(request, 'batchId'), query.data);
  },
  'GET /questions': (ports) => questionInbox(ports),
  'POST /uploads': (ports, request) => planUpload(ports, jsonBody(request), request.user),
  'POST /batches/{batchId}/run': (ports, request) => runPlan(ports, param(request, 'batchId')),
  'POST /answer-sheets': (ports, request) => answerSheetForm(ports, jsonBody(request)),
  'GET /batches/{batchId}/files/{file}': (ports, request) =>
    batchFileLink(ports, param(request, 'batchId'), param(request, 'file')),
  'GET /batches/{batchId}/rows/{row}': (ports, request) =>
    rowDetail(ports, param(request, 'batchId'), param(request, 'row')),
  'GET /batches/{batchId}/rows/{row}/verdict': (ports, request) =>
    verdictLink(ports, param(request, 'batchId'), param(request, 'row')),
  'POST /answers': (ports, request) => submitAnswers(ports, jsonBody(request), request.user),
  'GET /checks': (ports) => checkList(ports),
  'POST /decisions': (ports, request) => submitDecision(ports, jsonBody(request), request.user),
  'POST /approvals': (ports, request) => submitApproval(ports, jsonBody(request), request.user),
  'POST /resends': (ports, request) => submitResend(ports, jsonBody(request), request.user),
  'GET /batches/{batchId}/audit': (ports, request) => {
    const query = AuditQuery.safeParse(request.query);
    if (!query.success) throw invalidRequest('audit', query.error.issues);
    return auditView(ports, param(request, 'batchId'), query.data);
  },
};

const isRouteOf = (handler: ConsoleHandlerName, routeKey: string): routeKey is ConsoleRouteKey =>
  (CONSOLE_ROUTES as Record<string, ConsoleHandlerName>)[routeKey] === handler;

const refusal = (error: ConsoleRefusal): ConsoleResponse => ({
  status: error.status,
  body: error.toProblem(),
});

/**
 * Answers a request the way `handler` (one of the console's functions) does: only its own
 * routes, and only for a verified user. `onFault` hears what a 500 hides.
 */
export const answerConsoleRequest = async (
  handler: ConsoleHandlerName,
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
    const body = await USE_CASES[request.routeKey](ports, { ...request, user: request.user });
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
