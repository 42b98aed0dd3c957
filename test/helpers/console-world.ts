/**
 * The console's ports in memory, with the pipeline's records in them, and a way to call a
 * console function's Lambda handler as API Gateway's HTTP API would (payload 2.0, the claims a
 * Cognito ID token gives the JWT authorizer).
 */

import type { HttpApiEvent } from '../../functions/console-runtime.js';
import type { ConsoleHandlerName } from '../../shared/console/api.js';
import type { ConsolePorts, FileLinks } from '../../shared/console/ports.js';
import { consoleHandlerOf } from './console-routes.js';
import {
  fixedClock,
  memoryAuditLog,
  memoryBatchStore,
  memoryCheckStore,
  memoryObjectStore,
  memoryReviewStore,
  memorySlotLeases,
  memoryWriterRecords,
} from './memory-ports.js';

export const COGNITO_CLAIMS = {
  sub: '7d1e0f52-0000-4000-8000-000000000001',
  iss: 'https://cognito-idp.sa-east-1.amazonaws.com/sa-east-1_AbCdEf123',
  token_use: 'id',
  email: 'ana@example.com',
  aud: 'client-1',
};

/** Links that say what they were made for, so a test can read the policy it would carry. */
const recordingLinks = () => {
  const forms: Parameters<FileLinks['uploadForm']>[0][] = [];
  const downloads: Parameters<FileLinks['downloadUrl']>[0][] = [];
  const links: FileLinks & { forms: typeof forms; downloads: typeof downloads } = {
    forms,
    downloads,
    uploadForm: async (input) => {
      forms.push(input);
      return {
        url: 'https://bucket.example/',
        fields: { key: input.key, 'Content-Type': input.contentType },
      };
    },
    downloadUrl: async (input) => {
      downloads.push(input);
      return `https://bucket.example/${input.key}?X-Amz-Signature=abc`;
    },
  };
  return links;
};

export const consoleWorld = () => {
  const clock = fixedClock();
  const ports = {
    clock,
    batches: memoryBatchStore(),
    reviews: memoryReviewStore(),
    checks: memoryCheckStore(),
    audit: memoryAuditLog(() => clock.now()),
    writers: memoryWriterRecords(),
    leases: memorySlotLeases(),
    objects: memoryObjectStore(),
    links: recordingLinks(),
    capOverride: null,
  } satisfies ConsolePorts;
  /** Calls the function's handler; `claims: null` sends no authorizer context at all. */
  const call = async (
    handler: ConsoleHandlerName,
    routeKey: string,
    request: {
      params?: Record<string, string>;
      query?: Record<string, string>;
      body?: unknown;
      claims?: Record<string, unknown> | null;
    } = {},
  ) => {
    const claims = request.claims === undefined ? COGNITO_CLAIMS : request.claims;
    const event: HttpApiEvent = {
      routeKey,
      pathParameters: request.params ?? null,
      queryStringParameters: request.query ?? null,
      body:
        request.body === undefined
          ? null
          : typeof request.body === 'string'
            ? request.body
            : JSON.stringify(request.body),
      isBase64Encoded: false,
      ...(claims === null ? {} : { requestContext: { authorizer: { jwt: { claims } } } }),
    };
    const response = await consoleHandlerOf(handler, () => ports)(event);
    return {
      status: response.statusCode,
      headers: response.headers,
      // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
      body: JSON.parse(response.body) as Record<string, any>,
    };
  };
  return { ports, call };
};
