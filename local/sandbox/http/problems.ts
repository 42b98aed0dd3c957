/**
 * Problem bodies (RFC 9457) as the spec's Errors part defines them: `type` is
 * `{problems_base}/{name}`, `title` a fixed Spanish summary per type, `instance` the
 * request's path, `request_id` the same value as the `X-Request-Id` header.
 */
import { type FieldError, PROBLEM_CATALOGUE, type ProblemName } from '../../../shared/tcs/schemas.js';

export const DEFAULT_PROBLEMS_BASE = 'https://sandbox.tcs.invalid/problems';

const PROBLEM_TITLES: Record<ProblemName, string> = {
  'validation-error': 'Datos de la solicitud no válidos',
  'idempotency-key-invalid': 'Clave de idempotencia ausente o no válida',
  'idempotency-key-reused': 'Clave de idempotencia usada con otro cuerpo',
  'idempotency-key-in-flight': 'Solicitud con esta clave de idempotencia en curso',
  unauthenticated: 'No autenticado',
  'insufficient-scope': 'Alcance de la clave insuficiente',
  'plan-without-api': 'El plan no incluye la API',
  'api-suspended': 'Acceso a la API suspendido',
  'subscription-inactive': 'Suscripción no activa',
  'organization-archived': 'Organización archivada',
  'terms-acceptance-required': 'Debe aceptar los nuevos términos',
  forbidden: 'Operación no permitida',
  'not-found': 'Recurso no encontrado',
  conflict: 'El estado actual no permite la acción',
  'payload-too-large': 'Archivo demasiado grande',
  'unsupported-media-type': 'Tipo de contenido no admitido',
  'rate-limited': 'Límite excedido',
  'internal-error': 'Error interno',
  'upstream-unavailable': 'Servicio interno no disponible',
  'classifier-unavailable': 'Clasificador no disponible',
  maintenance: 'Servicio en mantenimiento',
};

/** A response the HTTP layer writes (or, under a `reset_after` fault, drops). */
export type Reply = {
  status: number;
  headers?: Record<string, string>;
  /** JSON value, raw bytes, or nothing. */
  body?: unknown;
  contentType?: string;
};

export type ProblemContext = { problemsBase: string; path: string; requestId: string };

export type ProblemExtras = {
  errors?: FieldError[];
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
};

export const problemReply = (
  context: ProblemContext,
  name: ProblemName,
  detail: string,
  extras: ProblemExtras = {},
): Reply => {
  const status = PROBLEM_CATALOGUE[name];
  const headers: Record<string, string> = { ...extras.headers };
  if (extras.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(Math.max(1, Math.ceil(extras.retryAfterSeconds)));
  }
  return {
    status,
    headers,
    contentType: 'application/problem+json',
    body: {
      type: `${context.problemsBase}/${name}`,
      title: PROBLEM_TITLES[name],
      status,
      detail,
      instance: context.path,
      request_id: context.requestId,
      ...(extras.errors ? { errors: extras.errors } : {}),
    },
  };
};

/** Thrown by a handler to answer with a problem; the server turns it into the reply. */
export class ProblemSignal extends Error {
  constructor(
    readonly problem: ProblemName,
    readonly detail: string,
    readonly extras: ProblemExtras = {},
  ) {
    super(`${problem}: ${detail}`);
  }
}

export const fail = (problem: ProblemName, detail: string, extras?: ProblemExtras): never => {
  throw new ProblemSignal(problem, detail, extras);
};
