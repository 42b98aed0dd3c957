/**
 * Signed requests (shared/aws/signed-requests.ts): the signature of AWS's own worked example, the
 * endpoint each service is sent to, what is tried again and what is not, and errors named by
 * AWS's code, over real HTTP to a server in this process.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { s3Requester } from '../../../shared/aws/s3-whole-objects.js';
import { AwsRequestError, awsRequester } from '../../../shared/aws/signed-requests.js';

const LAMBDA = { signingName: 'lambda', endpointKey: 'LAMBDA' };
const KEYS = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'sa-east-1' };

type Answer = { status: number; headers?: Record<string, string>; body?: string };

/** A server that answers each request with the next of `answers` and keeps what it was sent. */
const serverAnswering = async (answers: Answer[]) => {
  const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)] as Answer;
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, received, close: () => new Promise((r) => server.close(r)) };
};

describe('the signature', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("is AWS's own for its worked example of an S3 GET (Signature Version 4 documentation)", async () => {
    // Prepare: the example's keys, date, host and request ("GET /test.txt", Range: bytes=0-9).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2013-05-24T00:00:00Z'));
    const sent: Headers[] = [];
    vi.stubGlobal('fetch', async (_url: URL, init: RequestInit) => {
      sent.push(new Headers(init.headers));
      return new Response('0123456789', { status: 206 });
    });
    const s3 = s3Requester({
      AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: 'https://examplebucket.s3.amazonaws.com',
    });

    // Act
    await s3({ method: 'GET', path: '/test.txt', headers: { range: 'bytes=0-9' } });

    // Assess
    expect(sent[0]?.get('authorization')).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
});

describe('awsRequester', () => {
  let server: Awaited<ReturnType<typeof serverAnswering>> | undefined;
  beforeEach(() => {
    server = undefined;
  });
  afterEach(async () => {
    await server?.close();
  });

  it("sends to the service's endpoint variable, with the session token and the body signed", async () => {
    // Prepare
    server = await serverAnswering([{ status: 202 }]);
    const lambda = awsRequester(LAMBDA, {
      ...KEYS,
      AWS_SESSION_TOKEN: 'token',
      AWS_ENDPOINT_URL_LAMBDA: server.endpoint,
    });

    // Act
    const answer = await lambda({
      method: 'POST',
      path: '/2015-03-31/functions/f/invocations',
      body: '{"a":1}',
    });

    // Assess
    expect(answer.status).toBe(202);
    const [request] = server.received;
    expect(request?.url).toBe('/2015-03-31/functions/f/invocations');
    expect(request?.body).toBe('{"a":1}');
    expect(request?.headers['x-amz-security-token']).toBe('token');
    expect(request?.headers['x-amz-content-sha256']).toBe(
      '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    );
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/sa-east-1\/lambda\/aws4_request/,
    );
  });

  it('tries a throttled or failing request again, up to three times in all', async () => {
    // Prepare
    server = await serverAnswering([
      { status: 503, body: '<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>' },
      { status: 500, body: '' },
      { status: 200, body: 'ok' },
    ]);
    const lambda = awsRequester(LAMBDA, { ...KEYS, AWS_ENDPOINT_URL_LAMBDA: server.endpoint });

    // Act
    const answer = await lambda({ method: 'GET', path: '/x' });

    // Assess
    expect(await answer.text()).toBe('ok');
    expect(server.received).toHaveLength(3);
  });

  it('gives up after three attempts with the last error, named by its code', async () => {
    // Prepare
    server = await serverAnswering([
      {
        status: 429,
        headers: { 'x-amzn-errortype': 'TooManyRequestsException:http://internal' },
        body: '{"message":"Rate exceeded"}',
      },
    ]);
    const lambda = awsRequester(LAMBDA, { ...KEYS, AWS_ENDPOINT_URL_LAMBDA: server.endpoint });

    // Act
    const error = await lambda({ method: 'GET', path: '/x' }).catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(AwsRequestError);
    expect(error).toMatchObject({
      name: 'TooManyRequestsException',
      message: 'Rate exceeded',
      $metadata: { httpStatusCode: 429 },
    });
    expect(server.received).toHaveLength(3);
  });

  it('does not try again what AWS refused (a JSON `__type`, an XML code), once', async () => {
    // Prepare
    server = await serverAnswering([
      {
        status: 400,
        body: '{"__type":"com.amazonaws.secretsmanager#ResourceNotFoundException","Message":"Secrets Manager can’t find the specified secret."}',
      },
      { status: 403, body: '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' },
    ]);
    const service = awsRequester(LAMBDA, { ...KEYS, AWS_ENDPOINT_URL_LAMBDA: server.endpoint });

    // Act
    const first = await service({ method: 'POST', path: '/', body: '{}' }).catch((caught: unknown) => caught);
    const second = await service({ method: 'GET', path: '/k' }).catch((caught: unknown) => caught);

    // Assess
    expect(first).toMatchObject({ name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 400 } });
    expect(second).toMatchObject({
      name: 'AccessDenied',
      message: 'Access Denied',
      $metadata: { httpStatusCode: 403 },
    });
    expect(server.received).toHaveLength(2);
  });

  it('names the missing credentials when the environment has none', async () => {
    // Act
    const error = await awsRequester(LAMBDA, { AWS_ENDPOINT_URL_LAMBDA: 'http://127.0.0.1:9' })({
      method: 'GET',
      path: '/',
    }).catch((caught: unknown) => caught);

    // Assess
    expect(String(error)).toContain('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  });
});
