/**
 * A loopback proxy in front of a stand-in that asks IAM's question of every request a function
 * makes: who is calling (the function whose session token signed it), what it asks for
 * (requested-actions.ts), and whether that function's role allows it (policy-check.ts). Allowed
 * requests go through untouched, signature and all; denied ones get the service's own
 * AccessDenied shape, so the SDK raises what it raises on AWS and the handler fails as it would
 * there.
 *
 * Each function's process signs with its own session token (`AWS_SESSION_TOKEN`, as a Lambda
 * environment has one), in a header, a presigned URL's query or a form upload's fields: a
 * browser using a URL a function signed acts with that function's permissions, as on AWS.
 * Requests with no function's token (the runtime's own, a CORS preflight) go through unchecked.
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { closeHttpServer, listenOnLoopback, type RunningServer } from '../stand-ins.js';
import type { GrantUsage } from './grant-usage.js';
import { etagOfAnswer, machineUserArn, type ObjectWritten, objectWriteOf } from './object-writes.js';
import type { PolicyCheck } from './policy-check.js';
import { apiOperationOf, type RequestCounts } from './request-counts.js';
import { type ApiRequest, type RequestedAction, UnknownOperationError } from './requested-actions.js';
import type { FunctionRole } from './role-policies.js';

/** The protocol family behind the gate: how a request is read and a denial written. */
type GateProtocol = 'dynamodb' | 's3' | 'local-aws';

export type GateInput = {
  protocol: GateProtocol;
  /** The stand-in's origin, `http://127.0.0.1:<port>`. */
  upstream: string;
  actionsOf(request: ApiRequest, formKey: string | null): RequestedAction[];
  roleOfSession(token: string): FunctionRole | null;
  check: PolicyCheck;
  usage: GrantUsage;
  /** When given, every request a function makes is counted by its API operation, allowed or not. */
  counts?: RequestCounts;
  /** S3 only: told of each object write the stand-in accepted, with who made it (object-writes.ts). */
  onObjectWritten?: (written: ObjectWritten) => void;
  log: (line: string) => void;
};

/** Form uploads name their key and token before the file; this much is read to find them. */
const FORM_HEAD_LIMIT = 1024 * 1024;
/** JSON protocol bodies (DynamoDB, SQS, …) are small; the stand-ins refuse larger ones anyway. */
const JSON_BODY_LIMIT = 16 * 1024 * 1024;

const headerText = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? (value[0] ?? '') : (value ?? '');

const decodePath = (pathname: string): string =>
  pathname
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');

/** The fields of a multipart form that come before its `file` part. */
const formFieldsBefore = (head: Buffer, contentType: string): Map<string, string> => {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const fields = new Map<string, string>();
  const delimiter = boundary ? `--${boundary[1] ?? boundary[2]}` : null;
  if (!delimiter) return fields;
  for (const part of head.toString('latin1').split(delimiter).slice(1)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) break;
    const name = /name="([^"]*)"/i.exec(part.slice(0, split))?.[1];
    if (!name || name.toLowerCase() === 'file') break;
    const end = part.lastIndexOf('\r\n');
    if (end < split + 4) break; // the value is not complete in this head
    fields.set(name.toLowerCase(), Buffer.from(part.slice(split + 4, end), 'latin1').toString('utf8'));
  }
  return fields;
};

const readUpTo = (req: IncomingMessage, limit: number, enough: (head: Buffer) => boolean): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', done);
      req.off('error', reject);
      req.pause();
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit || enough(Buffer.concat(chunks))) done();
    };
    req.on('data', onData);
    req.once('end', done);
    req.once('error', reject);
  });

/** AccessDenied as each protocol spells it, so the SDK raises AWS's own error. */
const denial = (protocol: GateProtocol, req: IncomingMessage, message: string) => {
  if (protocol === 's3') {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>' +
      `<Message>${message.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</Message></Error>`;
    return { status: 403, headers: { 'content-type': 'application/xml' }, body: xml };
  }
  const target = headerText(req.headers['x-amz-target']);
  if (!target) {
    // restJson1 (Lambda).
    return {
      status: 403,
      headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException' },
      body: JSON.stringify({ Type: 'User', Message: message }),
    };
  }
  const sqs = target.startsWith('AmazonSQS.');
  return {
    status: sqs ? 403 : 400,
    headers: {
      'content-type': headerText(req.headers['content-type']) || 'application/x-amz-json-1.0',
      ...(sqs ? { 'x-amzn-query-error': 'AccessDenied;Sender' } : {}),
    },
    body: JSON.stringify({ __type: 'AccessDeniedException', message, Message: message }),
  };
};

/** What a gate's request handling works with. */
type Gate = { input: GateInput; upstream: URL; agent: Agent };

/**
 * Answers a response needs before it goes back (null: send it as it is, else the denial's
 * message): S3 tells a caller that may not list the bucket AccessDenied, not NoSuchKey, for a
 * key that does not exist.
 */
type ResponseCheck = (status: number) => Promise<string | null>;

/** Reads a successful write's answer for its ETag, beside the answer going back to the caller. */
type WriteObserver = (response: IncomingMessage) => void;

/** A copy's or a completed upload's answer is a small XML document: this much is read for its ETag. */
const WRITE_ANSWER_LIMIT = 64 * 1024;

/** The observer that tells `onObjectWritten` of a write once its answer says the ETag; null when nothing listens. */
const writeObserver = (
  gate: Gate,
  write: Omit<ObjectWritten, 'etag' | 'principalArn'> | null,
  principalArn: string,
): WriteObserver | null => {
  const listener = gate.input.onObjectWritten;
  if (!listener || !write) return null;
  return (response) => {
    const header = headerText(response.headers.etag) || undefined;
    if (header) return listener({ ...write, principalArn, etag: etagOfAnswer(header, '') });
    let body = '';
    response.on('data', (chunk: Buffer) => {
      if (body.length < WRITE_ANSWER_LIMIT) body += chunk.toString('utf8');
    });
    response.once('end', () => listener({ ...write, principalArn, etag: etagOfAnswer(undefined, body) }));
  };
};

/** The stand-in's response, or the denial a check turned it into. */
const answer = (
  gate: Gate,
  req: IncomingMessage,
  res: ServerResponse,
  response: IncomingMessage,
  checkResponse: ResponseCheck | null,
  observe: WriteObserver | null,
) => {
  const status = response.statusCode ?? 502;
  const send = (denied: string | null) => {
    if (denied === null) {
      res.writeHead(status, response.rawHeaders);
      if (observe && status >= 200 && status < 300) observe(response);
      response.pipe(res);
      return;
    }
    response.resume();
    reply(res, denial(gate.input.protocol, req, denied));
  };
  if (!checkResponse) return send(null);
  checkResponse(status).then(send, (error: unknown) => {
    response.resume();
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  });
};

/** Sends the request on to the stand-in: the part already read (`head`), then the rest if any. */
const forward = (
  gate: Gate,
  req: IncomingMessage,
  res: ServerResponse,
  body: { head: Buffer | null; rest: boolean },
  checkResponse: ResponseCheck | null = null,
  observe: WriteObserver | null = null,
) => {
  const outgoing = httpRequest(
    {
      host: gate.upstream.hostname,
      port: gate.upstream.port,
      method: req.method,
      path: req.url,
      // The Host header the client signed goes on unchanged: the stand-in checks the signature.
      headers: req.headers,
      agent: gate.agent,
    },
    (response) => answer(gate, req, res, response, checkResponse, observe),
  );
  outgoing.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`the stand-in behind the permission gate failed: ${error.message}`);
  });
  if (body.head) outgoing.write(body.head);
  if (body.rest) req.pipe(outgoing);
  else outgoing.end();
};

/** A GET or HEAD of an object that is not there: 404 only for a caller allowed to list the bucket. */
const missingKeyCheck =
  (gate: Gate, role: FunctionRole, request: ApiRequest): ResponseCheck =>
  async (status) => {
    if (status !== 404 || !(request.method === 'GET' || request.method === 'HEAD')) return null;
    const [, bucket = '', ...key] = request.path.split('/');
    if (key.length === 0) return null;
    const decision = await gate.input.check.decide(role, {
      action: 's3:ListBucket',
      resource: `arn:aws:s3:::${bucket}`,
      context: { 's3:prefix': key.join('/') },
    });
    if (!decision.allowed) return decision.message;
    gate.input.usage.record(decision.grants);
    return null;
  };

/** The caller's session token, and the form's fields when the request is a form upload. */
const readCaller = async (gate: Gate, req: IncomingMessage, url: URL) => {
  const contentType = headerText(req.headers['content-type']);
  const isForm =
    gate.input.protocol === 's3' && req.method === 'POST' && contentType.startsWith('multipart/form-data');
  const readsBody = gate.input.protocol !== 's3';
  let head: Buffer | null = null;
  if (readsBody) head = await readUpTo(req, JSON_BODY_LIMIT, () => false);
  else if (isForm) head = await readUpTo(req, FORM_HEAD_LIMIT, (sofar) => sofar.includes('name="file"'));
  const form = isForm && head ? formFieldsBefore(head, contentType) : null;
  const token =
    headerText(req.headers['x-amz-security-token']) ||
    url.searchParams.get('X-Amz-Security-Token') ||
    form?.get('x-amz-security-token') ||
    '';
  return { token, form, body: { head, rest: !readsBody } };
};

/** The actions a request asks for, or the denial of an operation this gate cannot name. */
const requestedOf = (gate: Gate, role: FunctionRole, request: ApiRequest, formKey: string | null) => {
  try {
    return { requested: gate.input.actionsOf(request, formKey) };
  } catch (error) {
    if (!(error instanceof UnknownOperationError)) throw error;
    const message =
      `the local permission check does not know the operation ${error.message}; ` +
      'add it to local/runtime/permissions/requested-actions.ts';
    gate.input.log(`permission check: ${role.functionName}: ${message}`);
    return { refused: message };
  }
};

const handle = async (gate: Gate, req: IncomingMessage, res: ServerResponse) => {
  const { input } = gate;
  const url = new URL(req.url ?? '/', 'http://gate');
  const { token, form, body } = await readCaller(gate, req, url);
  const role = token ? input.roleOfSession(token) : null;
  const request: ApiRequest = {
    method: req.method ?? 'GET',
    path: decodePath(url.pathname),
    query: url.searchParams,
    headers: req.headers,
    body: body.rest ? null : body.head,
  };
  // Who wrote an object, for S3's record of the write: the function's role, else this machine's user.
  const write = input.protocol === 's3' ? objectWriteOf(request, form?.get('key') ?? null) : null;
  const observe = writeObserver(gate, write, role?.principalArn ?? machineUserArn());
  if (!role) return forward(gate, req, res, body, null, observe);
  input.counts?.record(role.functionName, apiOperationOf(input.protocol, request, form !== null));
  const asked = requestedOf(gate, role, request, form?.get('key') ?? null);
  if (asked.refused !== undefined) return reply(res, denial(input.protocol, req, asked.refused));
  for (const requested of asked.requested) {
    const decision = await input.check.decide(role, requested);
    if (!decision.allowed) {
      input.log(`permission denied: ${role.functionName} ${requested.action} on ${requested.resource}`);
      return reply(res, denial(input.protocol, req, decision.message));
    }
    input.usage.record(decision.grants);
  }
  forward(
    gate,
    req,
    res,
    body,
    input.protocol === 's3' ? missingKeyCheck(gate, role, request) : null,
    observe,
  );
};

export const startPermissionGate = async (input: GateInput): Promise<RunningServer> => {
  const gate: Gate = { input, upstream: new URL(input.upstream), agent: new Agent({ keepAlive: true }) };
  const server: Server = createServer((req, res) => {
    handle(gate, req, res).catch((error: unknown) => {
      input.log(`permission gate: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`the permission check failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      gate.agent.destroy();
      await closeHttpServer(server);
    },
  };
};

const reply = (res: ServerResponse, { status, headers, body }: ReturnType<typeof denial>) => {
  // The request's body was not read to its end: close the connection rather than reuse it.
  res.writeHead(status, {
    ...headers,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  });
  res.end(body);
};
