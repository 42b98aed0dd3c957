/**
 * console-read's routes (CONSOLE_ROUTES, api.ts), each with its use case: the session, batches
 * and their rows, the questions inbox, the "To check" list and a batch's audit. Reads only.
 */
import { AuditQuery, BatchesQuery, CONSOLE_LIMITS, RowsQuery, type SessionView } from './api.js';
import { auditView } from './audit-view.js';
import { batchView, listBatchViews } from './batch-views.js';
import { checkList } from './check-list.js';
import { type ConsoleRoutes, param } from './http.js';
import type { ConsoleUser } from './ports.js';
import { questionInbox } from './question-inbox.js';
import { ConsoleRefusal, invalidRequest } from './refusals.js';
import { listRowViews, rowDetail } from './row-views.js';

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

export const READ_ROUTES: ConsoleRoutes<'console-read'> = {
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
  'GET /batches/{batchId}/rows/{row}': (ports, request) =>
    rowDetail(ports, param(request, 'batchId'), param(request, 'row')),
  'GET /checks': (ports) => checkList(ports),
  'GET /batches/{batchId}/audit': (ports, request) => {
    const query = AuditQuery.safeParse(request.query);
    if (!query.success) throw invalidRequest('audit', query.error.issues);
    return auditView(ports, param(request, 'batchId'), query.data);
  },
};
