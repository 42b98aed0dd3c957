/**
 * AWS requests made by hand: signed with Signature Version 4 (`@smithy/signature-v4`, the signer
 * inside every SDK client) and sent with Node's own `fetch`, for the few calls where an SDK client
 * would weigh more than all the rest of a function. An SDK client carries the shapes of every
 * operation of its service (the S3 client about 140 KB of a bundle, Lambda's about 75 KB, read and
 * parsed at every cold start) when the Row workflow's steps call one or two: reading and writing a
 * whole object, an asynchronous invoke, the service's key (docs/benchmark.md, "Functions that
 * start fast"). The rest of the pipeline keeps the SDK.
 *
 * What the SDK would have done and this does too: the endpoint from `AWS_ENDPOINT_URL_<SERVICE>` or
 * `AWS_ENDPOINT_URL` (how the local runtime points a function at its stand-ins), else AWS's own;
 * the credentials from the environment (where Lambda puts the role's); up to three attempts, with
 * a growing random pause, of a request that failed on the network, was throttled, or met an error
 * of the server; an error named by AWS's own code (`NoSuchKey`, `ResourceNotFoundException`) with
 * the HTTP status in `$metadata`, as the SDK's errors are.
 */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/** One AWS service as a request to it is addressed and signed. */
export type AwsService = {
  /** The name requests are signed for: `s3`, `lambda`, `secretsmanager`. */
  signingName: string;
  /** The suffix of its endpoint variable (`AWS_ENDPOINT_URL_S3`): `S3`, `LAMBDA`, `SECRETS_MANAGER`. */
  endpointKey: string;
  /** S3 signs a path as it is sent; every other service signs it encoded once more. */
  pathSignedAsSent?: boolean;
  /**
   * How long one attempt may take before it is abandoned (and tried again): short for a call that
   * answers at once (an asynchronous invoke), so a caller is never held near its own timeout.
   * @default 60 s
   */
  attemptTimeoutMs?: number;
};

/** A request to send: the path already URL-encoded, the body whole (it may be sent again). */
type AwsRequest = {
  method: 'GET' | 'PUT' | 'POST' | 'HEAD' | 'DELETE';
  path: string;
  query?: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, string>>;
  body?: Uint8Array | string;
  /** The bucket of an S3 request: in the host name in AWS, in the path where the endpoint is set. */
  bucket?: string;
};

/** An answer AWS gave with an error status, named and shaped as the SDK names and shapes its errors. */
export class AwsRequestError extends Error {
  readonly $metadata: { httpStatusCode: number; requestId?: string };
  constructor(name: string, message: string, status: number, requestId: string | null) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status, ...(requestId ? { requestId } : {}) };
  }
}

/** The hash the signer asks for, from Node's own crypto: SHA-256, or its HMAC under a key. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBuffer(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

const toBuffer = (data: string | ArrayBuffer | ArrayBufferView): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/**
 * Takes the environment and gives the credentials in it, rejecting, naming the variables, when
 * they are missing: Lambda sets them for the function's role, the local runtime for each function.
 */
export const credentialsFromEnvironment = (env: NodeJS.ProcessEnv = process.env) => {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new Error(
      'No AWS credentials in the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY): Lambda sets them for the function’s role.',
    );
  const sessionToken = env.AWS_SESSION_TOKEN;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
};

/** How many times a request is sent at most: the SDK's standard mode. */
const ATTEMPTS = 3;
/** How long one attempt may take, unless the service says otherwise. */
const ATTEMPT_TIMEOUT_MS = 60_000;
/** Errors AWS names when it asks a caller to slow down or try again. */
const RETRYABLE_CODES = new Set([
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'SlowDown',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
]);

const isRetryable = (error: unknown): boolean => {
  if (error instanceof AwsRequestError)
    return (
      error.$metadata.httpStatusCode >= 500 ||
      error.$metadata.httpStatusCode === 429 ||
      RETRYABLE_CODES.has(error.name)
    );
  // fetch rejects with a TypeError when the connection fails, an AbortError/TimeoutError on timeout.
  return (
    error instanceof Error &&
    (error.name === 'TypeError' || error.name === 'TimeoutError' || error.name === 'AbortError')
  );
};

/** The error an answer with an error status carries: AWS's code from its XML or JSON body, else the status. */
const errorOf = async (response: Response): Promise<AwsRequestError> => {
  const text = await response.text();
  const requestId = response.headers.get('x-amz-request-id') ?? response.headers.get('x-amzn-requestid');
  const xmlCode = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  const xmlMessage = /<Message>([^<]*)<\/Message>/.exec(text)?.[1];
  let json: { __type?: string; code?: string; message?: string; Message?: string } = {};
  if (!xmlCode && text.startsWith('{')) {
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      json = {};
    }
  }
  // A JSON `__type` may be `namespace#Code`; Lambda and S3 also name errors in a header.
  const headerCode = response.headers.get('x-amzn-errortype')?.split(':')[0];
  const code =
    xmlCode ??
    json.__type?.split('#').pop() ??
    json.code ??
    headerCode ??
    (response.status === 404 ? 'NotFound' : `Http${response.status}`);
  const message =
    xmlMessage ?? json.message ?? json.Message ?? `${response.status} ${response.statusText}`.trim();
  return new AwsRequestError(code, message, response.status, requestId);
};

/** A pause before attempt `attempt` (2, 3): random up to 100 ms, then 200 ms, the SDK's full jitter. */
const pauseBefore = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 100 * 2 ** (attempt - 2)));

/** Where a service answers: its variable in the environment, the general one, or AWS's own host. */
const endpointOf = (service: AwsService, env: NodeJS.ProcessEnv): URL | null => {
  const configured = env[`AWS_ENDPOINT_URL_${service.endpointKey}`] ?? env.AWS_ENDPOINT_URL;
  return configured ? new URL(configured) : null;
};

/** A function that sends a request to one service, signed, and gives its answer (a 2xx) or throws. */
export type AwsRequester = (request: AwsRequest) => Promise<Response>;

/**
 * Takes a service and the environment (region, endpoints, credentials) and gives a requester: each
 * request signed as the SDK signs it and sent at most three times; an answer of 2xx comes back to be
 * read, any other throws an `AwsRequestError` named by AWS's code. The credentials are read at each
 * request, so a rotated session token is used from the next one.
 */
export const awsRequester = (service: AwsService, env: NodeJS.ProcessEnv = process.env): AwsRequester => {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const configured = endpointOf(service, env);
  const signer = new SignatureV4({
    service: service.signingName,
    region,
    credentials: async () => credentialsFromEnvironment(env),
    sha256: Sha256,
    uriEscapePath: !service.pathSignedAsSent,
  });
  /** The URL of a request: a bucket in the path where the endpoint is configured (path style), else in the host. */
  const urlOf = (request: AwsRequest): URL => {
    const inPath = request.bucket && (configured || request.bucket.includes('.'));
    const base =
      configured ??
      new URL(
        request.bucket && !inPath
          ? `https://${request.bucket}.s3.${region}.amazonaws.com`
          : `https://${service.signingName}.${region}.amazonaws.com`,
      );
    const prefix = base.pathname.replace(/\/$/, '');
    const url = new URL(base.origin);
    url.pathname = `${prefix}${inPath ? `/${request.bucket}` : ''}${request.path}`;
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
    return url;
  };

  const sendOnce = async (request: AwsRequest): Promise<Response> => {
    const url = urlOf(request);
    const signed = await signer.sign({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...request.headers, host: url.host },
      body: request.body,
    });
    // fetch sets the host itself, from the URL it is given.
    const { host: _host, ...headers } = signed.headers;
    const response = await fetch(url, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: AbortSignal.timeout(service.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS),
    });
    if (response.ok) return response;
    throw await errorOf(response);
  };

  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await sendOnce(request);
      } catch (error) {
        if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
        await pauseBefore(attempt + 1);
      }
    }
  };
};
