/** Console: batches, a batch with its progress, its rows, the questions inbox (shared/console/). */
import { READ_ROUTES } from '../../shared/console/read-routes.js';
import {
  audit,
  batches,
  checks,
  clock,
  leases,
  objects,
  reviews,
  writers,
} from '../console-port-builders.js';
import { consoleHandler, consolePortsFor } from '../console-runtime.js';

export const handler = consoleHandler(
  'console-read',
  READ_ROUTES,
  consolePortsFor('console-read', { clock, batches, reviews, checks, audit, leases, writers, objects }),
);
