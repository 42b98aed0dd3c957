/** Console: upload forms for inbox/ and answers/, links to outbox files and verdict PDFs (shared/console/file-links.ts). */
import { FILES_ROUTES } from '../../shared/console/files-routes.js';
import { batches, clock, links, objects, writers } from '../console-port-builders.js';
import { consoleHandler, consolePortsFor } from '../console-runtime.js';

export const handler = consoleHandler(
  'console-files',
  FILES_ROUTES,
  consolePortsFor('console-files', { clock, batches, objects, links, writers }),
);
