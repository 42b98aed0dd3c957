/**
 * The thin HTTP layer: routing, body reading, faults, problem bodies, request counters.
 * Handlers return a Reply instead of writing, so a `reset_after` fault can do the work and
 * then drop the connection with nothing written.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { LIMITS } from '../../../shared/tcs/schemas.js';
import type { FaultInjector, FaultPlan } from '../faults.js';
import { type AdminHooks, adminRoutes } from './admin-routes.js';
import { delay, type Handler, type RequestContext, type ServerDeps } from './context.js';
import { appPage, getVerdictPdf, putSheet } from './file-routes.js';
import { type ProblemContext, ProblemSignal, problemReply, type Reply } from './problems.js';
import * as v1 from './v1-routes.js';

type Area = 'v1' | 'files' | 'admin' | 'app' | 'other';
type BodyKind = 'json' | 'pdf' | 'none';

type Route = {
  method: string;
  pattern: RegExp;
  template: string;
  area: Area;
  body: BodyKind;
  handle: Handler;
};

/** JSON bodies are small (a description is at most 5000 characters); this is generous. */
const JSON_BODY_LIMIT = 1024 * 1024;
const ID = '([^/]+)';

const buildRoutes = (admin: ReturnType<typeof adminRoutes>): Route[] => {
  const route = (
    method: string,
    template: string,
    area: Area,
    body: BodyKind,
    handle: Handler,
    pattern?: RegExp,
  ): Route => ({
    method,
    template,
    area,
    body,
    handle,
    pattern: pattern ?? new RegExp(`^${template.replace(/\{id\}/g, ID)}$`),
  });
  return [
    route('POST', '/v1/classifications', 'v1', 'json', v1.createClassification),
    route('GET', '/v1/classifications', 'v1', 'none', v1.listClassificationsRoute),
    route('GET', '/v1/classifications/{id}', 'v1', 'none', v1.getClassification),
    route('POST', '/v1/classifications/{id}/answers', 'v1', 'json', v1.answerQuestions),
    route('GET', '/v1/classifications/{id}/pdf', 'v1', 'none', v1.verdictPdfRedirect),
    route('POST', '/v1/uploads', 'v1', 'json', v1.requestUpload),
    route('GET', '/v1/tariffs', 'v1', 'none', v1.getTariffs),
    route('GET', '/v1/sim-openings', 'v1', 'none', v1.getSimOpenings),
    route('GET', '/v1/balance', 'v1', 'none', v1.getBalance),
    route('GET', '/v1/countries', 'v1', 'none', v1.listCountries),
    route('PUT', `${v1.UPLOAD_PATH_PREFIX}{id}`, 'files', 'pdf', putSheet),
    route(
      'GET',
      `${v1.VERDICT_PATH_PREFIX}{id}.pdf`,
      'files',
      'none',
      getVerdictPdf,
      /^\/__files\/verdicts\/([^/]+)\.pdf$/,
    ),
    route('GET', '/app/classifications/{id}', 'app', 'none', appPage),
    route('GET', '/__admin', 'admin', 'none', admin.index),
    route('GET', '/__admin/stats', 'admin', 'none', admin.stats),
    route('GET', '/__admin/clock', 'admin', 'none', admin.getClock),
    route('POST', '/__admin/clock', 'admin', 'json', admin.postClock),
    route('GET', '/__admin/faults', 'admin', 'none', admin.getFaults),
    route('POST', '/__admin/faults', 'admin', 'json', admin.postFaults),
    route('POST', '/__admin/reset', 'admin', 'json', admin.reset),
    route('GET', '/__admin/classifications', 'admin', 'none', admin.classifications),
    route('GET', '/__admin/triggers', 'admin', 'none', admin.triggers),
  ];
};

const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const areaOf = (path: string): Area =>
  path.startsWith('/__admin')
    ? 'admin'
    : path.startsWith('/__files/')
      ? 'files'
      : path.startsWith('/app/')
        ? 'app'
        : 'v1';

/**
 * Reads the body up to `limit` bytes. Past it, the rest is read and thrown away (so the
 * client gets the 413 instead of a broken pipe), up to a hard ceiling where the
 * connection is cut.
 */
const readBody = (req: IncomingMessage, limit: number): Promise<{ bytes: Buffer; tooLarge: boolean }> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    const ceiling = limit * 4 + JSON_BODY_LIMIT;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        if (size > ceiling) req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve({ bytes: Buffer.concat(chunks), tooLarge }));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted'));
    });
  });

/** Counters of what the HTTP layer saw (admin requests are not counted). */
class RequestCounters {
  byRoute: Record<string, number> = {};
  byStatus: Record<string, number> = {};

  request(route: string): void {
    this.byRoute[route] = (this.byRoute[route] ?? 0) + 1;
  }

  response(status: number): void {
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
  }

  reset(): void {
    this.byRoute = {};
    this.byStatus = {};
  }
}

export type SandboxServer = { server: Server; counters: RequestCounters };

export const createSandboxServer = (
  deps: ServerDeps,
  faults: FaultInjector,
  admin: AdminHooks,
): SandboxServer => {
  const routes = buildRoutes(adminRoutes(admin));
  const counters = new RequestCounters();

  const write = (res: ServerResponse, requestId: string, reply: Reply, counted: boolean): void => {
    const headers: Record<string, string | number> = {
      'X-Request-Id': requestId,
      'Cache-Control': 'no-store',
      ...reply.headers,
    };
    let payload: Buffer | null = null;
    if (Buffer.isBuffer(reply.body)) {
      payload = reply.body;
      headers['Content-Type'] = reply.contentType ?? 'application/octet-stream';
    } else if (reply.body !== undefined) {
      payload = Buffer.from(JSON.stringify(reply.body), 'utf8');
      headers['Content-Type'] = reply.contentType ?? 'application/json; charset=utf-8';
    }
    headers['Content-Length'] = payload?.length ?? 0;
    if (counted) counters.response(reply.status);
    res.writeHead(reply.status, headers);
    res.end(payload ?? undefined);
  };

  const faultReply = (plan: FaultPlan, problem: ProblemContext): Reply | null => {
    if (plan.maintenance) {
      return problemReply(problem, 'maintenance', 'The service is in maintenance (sandbox fault).', {
        retryAfterSeconds: deps.maintenanceRetryAfterSeconds,
      });
    }
    if (plan.serverError) {
      return problemReply(
        problem,
        plan.serverError,
        `Injected ${plan.serverError} (sandbox fault); nothing was done.`,
      );
    }
    if (plan.rateLimited) {
      return problemReply(
        problem,
        'rate-limited',
        'Request rate exceeded (sandbox fault); nothing was done.',
        {
          retryAfterSeconds: 1,
        },
      );
    }
    return null;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const requestId = `req_${randomBytes(10).toString('hex')}`;
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const samePath = routes.filter((r) => r.pattern.test(path));
    const route = samePath.find((r) => r.method === method);
    const area = route?.area ?? areaOf(path);
    const counted = area !== 'admin';
    if (counted) counters.request(`${method} ${route?.template ?? '(no route)'}`);
    const problem = { problemsBase: deps.problemsBase, path, requestId };
    const finish = (reply: Reply) => {
      write(res, requestId, reply, counted);
      if (area !== 'admin') {
        deps.log('request', {
          method,
          route: route?.template ?? path,
          status: reply.status,
          ms: Math.round(performance.now() - started),
          request_id: requestId,
        });
      }
    };

    // Faults: decided on arrival, applied to /v1 only.
    const plan = area === 'v1' ? faults.plan() : null;
    if (plan) {
      await delay(plan.latencyMs);
      if (plan.resetBefore) {
        deps.log('fault', { fault: 'reset_before', method, path, request_id: requestId });
        req.socket.destroy();
        return;
      }
      const injected = faultReply(plan, problem);
      if (injected) {
        req.resume();
        finish(injected);
        return;
      }
    }

    if (!route) {
      req.resume();
      const detail =
        samePath.length > 0
          ? `${method} is not allowed on ${path}; use ${samePath.map((r) => r.method).join(' or ')}.`
          : `No route ${method} ${path}.`;
      finish(problemReply(problem, 'not-found', detail));
      return;
    }

    let reply: Reply;
    try {
      let body: RequestContext['body'] = { bytes: Buffer.alloc(0), tooLarge: false };
      if (route.body === 'none') req.resume();
      else body = await readBody(req, route.body === 'pdf' ? LIMITS.sheetMaxBytes : JSON_BODY_LIMIT);
      const match = route.pattern.exec(path)!;
      const ctx: RequestContext = {
        deps,
        requestId,
        method,
        path,
        query: url.searchParams,
        headers: req.headers,
        params: match.slice(1).map(safeDecode),
        body,
      };
      reply = await route.handle(ctx);
    } catch (error) {
      if (error instanceof ProblemSignal) {
        reply = problemReply(problem, error.problem, error.detail, error.extras);
      } else if (req.destroyed && !req.complete) {
        return; // The client went away while sending its body: nobody to answer.
      } else {
        deps.log('error', {
          method,
          path,
          request_id: requestId,
          error: error instanceof Error ? error.stack : String(error),
        });
        reply = problemReply(problem, 'internal-error', 'Unexpected error in the sandbox; see its log.');
      }
    }

    if (plan?.resetAfter) {
      // The work is done; the response is lost.
      deps.log('fault', { fault: 'reset_after', method, path, status: reply.status, request_id: requestId });
      res.socket?.destroy();
      return;
    }
    finish(reply);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      deps.log('error', { error: error instanceof Error ? error.stack : String(error) });
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  // Keep-alive sockets must not hold `close()` up for long.
  server.keepAliveTimeout = 5_000;
  return { server, counters };
};
