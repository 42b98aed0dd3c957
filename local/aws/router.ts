/**
 * One loopback HTTP server for every stand-in. A JSON-protocol call names its service and
 * operation in `x-amz-target` (`AmazonSQS.SendMessage`, `AWSStepFunctions.StartExecution`,
 * `secretsmanager.GetSecretValue`, `AWSEvents.PutEvents`); a REST call (Lambda Invoke) is
 * matched by method and path. Errors are rendered in the shape of the service's protocol so
 * the SDK raises its own exception classes:
 *
 *   awsJson 1.0/1.1  status, `{"__type": <code>, "message"|"Message": …}`, and for SQS
 *                    (query-compatible) `x-amzn-query-error: <query code>;Sender`
 *   restJson1        status, `x-amzn-ErrorType: <code>`, `{"Type": "User", "Message": …}`
 *
 * The server tracks its sockets so `close()` leaves nothing listening or half-open, and
 * aborts the signal of every call in progress (long polls end, taking nothing).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AwsError } from './errors.js';
import { isJsonObject, type JsonObject } from './input.js';
import { errorText, type LocalAwsLog } from './log.js';

export type RequestContext = {
  requestId: string;
  /** Aborted when the caller disconnects or the server closes. */
  signal: AbortSignal;
  log: LocalAwsLog;
};

type JsonOperation = (input: JsonObject, context: RequestContext) => unknown;

export type JsonRpcService = {
  /** Short name for logs. */
  service: string;
  /** The part of `x-amz-target` before the dot. */
  targetPrefix: string;
  jsonVersion: '1.0' | '1.1';
  /** How this service's error shapes spell their message member. */
  errorMessageMember: 'message' | 'Message';
  operations: Record<string, JsonOperation>;
};

type RestRequest = {
  /** Decoded path parameters captured by the route's pattern. */
  params: string[];
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
};

type RestResponse = { status: number; headers?: Record<string, string>; body?: Buffer | string };

export type RestRoute = {
  service: string;
  operation: string;
  method: string;
  pattern: RegExp;
  handle(request: RestRequest, context: RequestContext): Promise<RestResponse> | RestResponse;
};

/** Bodies larger than this are refused (an SQS batch is at most 1 MiB, a Lambda payload 6 MB). */
const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

const readBody = (req: IncomingMessage): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });

const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

export type LocalAwsServer = {
  origin: string;
  port: number;
  close(): Promise<void>;
};

export type RouterOptions = {
  port: number;
  jsonServices: readonly JsonRpcService[];
  restRoutes: readonly RestRoute[];
  log: LocalAwsLog;
};

export const startRouter = async ({
  port,
  jsonServices,
  restRoutes,
  log,
}: RouterOptions): Promise<LocalAwsServer> => {
  const byPrefix = new Map(jsonServices.map((service) => [service.targetPrefix, service]));
  const sockets = new Set<Socket>();
  const inFlight = new Set<AbortController>();

  const send = (
    res: ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: Buffer | string,
  ) => {
    if (res.headersSent || res.destroyed) return;
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    res.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
    res.end(bytes);
  };

  const sendJsonError = (
    res: ServerResponse,
    requestId: string,
    contentType: string,
    error: AwsError,
    messageMember: 'message' | 'Message',
  ) => {
    const headers: Record<string, string> = { 'content-type': contentType, 'x-amzn-requestid': requestId };
    if (error.queryCode) headers['x-amzn-query-error'] = `${error.queryCode};${error.fault}`;
    send(
      res,
      error.status,
      headers,
      JSON.stringify({ __type: error.code, [messageMember]: error.message, ...error.fields }),
    );
  };

  const sendRestError = (res: ServerResponse, requestId: string, error: AwsError) => {
    send(
      res,
      error.status,
      {
        'content-type': 'application/json',
        'x-amzn-requestid': requestId,
        'x-amzn-errortype': error.code,
      },
      JSON.stringify({
        Type: error.fault === 'Sender' ? 'User' : 'Service',
        Message: error.message,
        ...error.fields,
      }),
    );
  };

  const asAwsError = (error: unknown, where: string): AwsError => {
    if (error instanceof AwsError) return error;
    log('error', 'stand-in failed', { where, error: errorText(error) });
    return new AwsError('InternalFailure', 'The local stand-in failed to process the request.', {
      status: 500,
    });
  };

  const handleJson = async (
    service: JsonRpcService,
    operationName: string,
    body: Buffer,
    res: ServerResponse,
    context: RequestContext,
  ): Promise<number> => {
    const contentType = `application/x-amz-json-${service.jsonVersion}`;
    const operation = service.operations[operationName];
    try {
      if (!operation) {
        throw new AwsError(
          'UnknownOperationException',
          `${operationName} is not supported by the local stand-in.`,
        );
      }
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        throw new AwsError('SerializationException', 'The request body is not valid JSON.');
      }
      if (!isJsonObject(input))
        throw new AwsError('SerializationException', 'The request body must be a JSON object.');
      const output = await operation(input, context);
      send(
        res,
        200,
        { 'content-type': contentType, 'x-amzn-requestid': context.requestId },
        JSON.stringify(output ?? {}),
      );
      return 200;
    } catch (error) {
      const awsError = asAwsError(error, `${service.service}.${operationName}`);
      sendJsonError(res, context.requestId, contentType, awsError, service.errorMessageMember);
      return awsError.status;
    }
  };

  const handleRest = async (
    route: RestRoute,
    params: string[],
    url: URL,
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
    context: RequestContext,
  ): Promise<number> => {
    try {
      const reply = await route.handle(
        { params, query: url.searchParams, headers: req.headers, body },
        context,
      );
      send(res, reply.status, { 'x-amzn-requestid': context.requestId, ...reply.headers }, reply.body ?? '');
      return reply.status;
    } catch (error) {
      const awsError = asAwsError(error, `${route.service}.${route.operation}`);
      sendRestError(res, context.requestId, awsError);
      return awsError.status;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const requestId = randomUUID();
    const controller = new AbortController();
    inFlight.add(controller);
    res.on('close', () => {
      inFlight.delete(controller);
      if (!res.writableFinished) controller.abort();
    });
    const context: RequestContext = { requestId, signal: controller.signal, log };
    let what = 'unrouted';
    let status = 404;
    try {
      const body = await readBody(req);
      const target = req.headers['x-amz-target'];
      const url = new URL(req.url ?? '/', 'http://local');
      if (body === null) {
        status = 413;
        send(
          res,
          413,
          { 'content-type': 'application/json' },
          JSON.stringify({ message: 'Request too large' }),
        );
      } else if (typeof target === 'string' && req.method === 'POST') {
        const dot = target.indexOf('.');
        const service = byPrefix.get(dot > 0 ? target.slice(0, dot) : target);
        const operation = dot > 0 ? target.slice(dot + 1) : '';
        what = target;
        if (service) {
          status = await handleJson(service, operation, body, res, context);
        } else {
          const error = new AwsError('UnknownOperationException', `No local stand-in for ${target}.`);
          sendJsonError(res, requestId, 'application/x-amz-json-1.0', error, 'message');
          status = error.status;
        }
      } else {
        const match = restRoutes
          .filter((route) => route.method === req.method)
          .map((route) => ({ route, found: route.pattern.exec(url.pathname) }))
          .find(({ found }) => found !== null);
        if (match?.found) {
          what = `${match.route.service}.${match.route.operation}`;
          const params = match.found.slice(1).map((segment) => safeDecode(segment ?? ''));
          status = await handleRest(match.route, params, url, req, body, res, context);
        } else {
          sendRestError(
            res,
            requestId,
            new AwsError('UnknownOperationException', 'No local stand-in for this path.', { status: 404 }),
          );
        }
      }
    } catch (error) {
      log('warn', 'request failed', { what, error: errorText(error) });
      if (!res.headersSent) res.destroy();
    } finally {
      log('debug', 'request', { what, status, ms: Date.now() - started });
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;

  let closing: Promise<void> | null = null;
  return {
    origin: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        for (const controller of inFlight) controller.abort();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
};
