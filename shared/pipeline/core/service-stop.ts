/**
 * The one stop policy (docs/architecture.md, property 6): a 401 or 403 from the service means
 * nothing more can be sent with this key or plan (a revoked key, `plan-without-api`,
 * `subscription-inactive`…). Whoever meets it first — Prepare, the dispatcher, Submit — records
 * one stop on the batch (or the answers round), the rows not yet sent end `not_submitted`, and
 * the summary says it once.
 */
import { TcsProblemError } from '../../tcs/errors.js';
import type { BatchStop } from './records.js';

/**
 * Whether an error is a 401/403 Problem from the service: one that stops the batch instead of
 * failing one row.
 */
export const isBatchStopError = (error: unknown): error is TcsProblemError =>
  error instanceof TcsProblemError && (error.status === 401 || error.status === 403);

/**
 * Turns a 401/403 into the batch's stop, dated `at`. `type` is the Problem `type` URI; a response
 * without one is named after its status as the spec's catalogue names it (`unauthenticated`, `forbidden`).
 */
export const stopFromProblem = (error: TcsProblemError, at: Date): BatchStop => ({
  type: error.type ?? error.problem ?? (error.status === 401 ? 'unauthenticated' : 'forbidden'),
  title: error.title || `HTTP ${error.status}`,
  detail: error.detail,
  at: at.toISOString(),
});
