/**
 * A request the console refuses: an HTTP status, a code the page words in the reader's
 * language, its params, and a precise English detail (what is wrong and where). Use cases
 * throw it; the HTTP layer (http.ts) turns it into a problem response. Anything else thrown is
 * a fault: a 500 that says nothing of its cause.
 */
import type { ConsoleErrorCode, ConsoleProblem } from './api.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  415: 'Unsupported type',
  500: 'Internal error',
};

export class ConsoleRefusal extends Error {
  override readonly name = 'ConsoleRefusal';
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413 | 415,
    readonly code: ConsoleErrorCode,
    readonly detail: string,
    readonly params: Record<string, string | number> = {},
  ) {
    super(detail);
  }

  toProblem(): ConsoleProblem {
    return {
      status: this.status,
      code: this.code,
      title: TITLES[this.status] ?? 'Refused',
      detail: this.detail,
      params: this.params,
    };
  }
}

export const batchNotFound = (batchId: string): ConsoleRefusal =>
  new ConsoleRefusal(404, 'batch_not_found', `No batch ${batchId}.`, { batch_id: batchId });

/** A batch without the row a path names (its number as the path gave it). */
export const rowNotFound = (batchName: string, rowText: string): ConsoleRefusal =>
  new ConsoleRefusal(404, 'row_not_found', `Batch ${batchName} has no row ${rowText}.`, { row: rowText });

/** The page's words for a request body or query the schema refused: the first issue, with its path. */
export const invalidRequest = (
  where: string,
  issues: readonly { path: PropertyKey[]; message: string }[],
) => {
  const first = issues[0];
  const path = first && first.path.length > 0 ? first.path.map(String).join('.') : where;
  return new ConsoleRefusal(400, 'invalid_request', `${where}: ${path}: ${first?.message ?? 'invalid'}`, {
    field: path,
  });
};
