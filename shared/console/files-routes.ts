/**
 * console-files' routes (CONSOLE_ROUTES, api.ts), each with its use case: upload forms for inbox/
 * and answers/, a plan's run, links to outbox files and verdict PDFs.
 */
import { answerSheetForm, batchFileLink, planUpload, verdictLink } from './file-links.js';
import { type ConsoleRoutes, jsonBody, param } from './http.js';
import { runPlan } from './plan-run.js';

export const FILES_ROUTES: ConsoleRoutes<'console-files'> = {
  'POST /uploads': (ports, request) => planUpload(ports, jsonBody(request), request.user),
  'POST /batches/{batchId}/run': (ports, request) => runPlan(ports, param(request, 'batchId')),
  'POST /answer-sheets': (ports, request) => answerSheetForm(ports, jsonBody(request)),
  'GET /batches/{batchId}/files/{file}': (ports, request) =>
    batchFileLink(ports, param(request, 'batchId'), param(request, 'file')),
  'GET /batches/{batchId}/rows/{row}/verdict': (ports, request) =>
    verdictLink(ports, param(request, 'batchId'), param(request, 'row')),
};
