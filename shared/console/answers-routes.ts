/**
 * console-answers' routes (CONSOLE_ROUTES, api.ts), each with its use case: answers to pending
 * rows, decisions on verdicts to check, approvals and rows sent again, each dropped as a file into
 * answers/<batch-id>/.
 */
import { submitAnswers } from './answers.js';
import { submitApproval, submitDecision } from './decisions.js';
import { type ConsoleRoutes, jsonBody } from './http.js';
import { submitResend } from './resends.js';

export const ANSWERS_ROUTES: ConsoleRoutes<'console-answers'> = {
  'POST /answers': (ports, request) => submitAnswers(ports, jsonBody(request), request.user),
  'POST /decisions': (ports, request) => submitDecision(ports, jsonBody(request), request.user),
  'POST /approvals': (ports, request) => submitApproval(ports, jsonBody(request), request.user),
  'POST /resends': (ports, request) => submitResend(ports, jsonBody(request), request.user),
};
