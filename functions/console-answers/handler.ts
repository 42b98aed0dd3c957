/** Console: answers to pending rows, dropped as a review file into answers/<batch-id>/ (shared/console/answers.ts). */
import { ANSWERS_ROUTES } from '../../shared/console/answers-routes.js';
import { batches, checks, clock, objects, reviews, writers } from '../console-port-builders.js';
import { consoleHandler, consolePortsFor } from '../console-runtime.js';

export const handler = consoleHandler(
  'console-answers',
  ANSWERS_ROUTES,
  consolePortsFor('console-answers', { clock, batches, reviews, checks, writers, objects }),
);
